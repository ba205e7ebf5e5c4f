#pragma once
// The writer thread's prepared statements: one per kind of row, prepared once, and the
// transaction statements. apply() writes one data command (not Flush/Finish); add_frames() writes
// the frames of several commands together.
#include <string>
#include <vector>

#include "store/endpoint_statements.h"
#include "store/sqlite_handle.h"
#include "store/write_command.h"

namespace seatmark::store {

class WriterStatements {
public:
    explicit WriterStatements(const Db& db);  // db must outlive this

    void begin() { begin_.run(); }
    void commit() { commit_.run(); }
    void rollback() noexcept;  // best effort: after an error the transaction may be gone already

    void apply(const cmd::Command& c);
    // Several AddFrames commands (of any sessions) at once: one frame_blocks row per command
    // (split at frame_block_max_frames).
    void add_frames(const std::vector<const cmd::AddFrames*>& batch);

private:
    void operator()(const cmd::BeginRun& c);
    void operator()(const cmd::EndRun& c);
    void operator()(const cmd::AddHost& c);
    void operator()(const cmd::BeginStep& c);
    void operator()(const cmd::EndStep& c);
    void operator()(const cmd::AddSession& c);
    void operator()(const cmd::SetDevice& c);
    void operator()(const cmd::EndSession& c);
    void operator()(const cmd::AddFrames& c);
    void operator()(const cmd::AddSamples& c);
    void operator()(const cmd::AddEvent& c);
    void operator()(const cmd::AddVerdict& c);
    void operator()(const cmd::AddEndpointLogon& c) { endpoint_.logon(c.logon); }
    void operator()(const cmd::AddEndpointBatch& c) { endpoint_.batch(c.batch); }
    void operator()(const cmd::Flush&) {}
    void operator()(const cmd::Finish&) {}

    const Db& db_;
    Stmt begin_, commit_, rollback_;
    Stmt run_, end_run_, host_, step_, end_step_, session_, device_, end_session_;
    Stmt block_;                       // one frame_blocks row
    std::vector<unsigned char> packed_;  // the block being stored (kept: no allocation per block)
    Stmt sample_, event_, verdict_, reason_;
    EndpointStatements endpoint_;
    std::string run_host_;  // runs.host: the host of a session whose SessionInfo::host is ""
};

}  // namespace seatmark::store
