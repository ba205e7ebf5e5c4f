#pragma once
// The commands StoreWriter's public methods enqueue for its writer thread.
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include "common/frame_record.h"
#include "store/endpoint_rows.h"
#include "store/records.h"

namespace seatmark::store::cmd {

struct BeginRun { RunInfo run; };
struct EndRun { RunStatus status; int64_t ended_unix_ns; std::optional<int64_t> max_density; };
struct AddHost { HostInfo host; };
struct BeginStep { StepInfo step; };
struct EndStep { StepEnd result; };
struct AddVerdict { VerdictRow verdict; };
struct AddSession { SessionInfo session; };
struct SetDevice { int session_id; SessionDevice device; };
struct EndSession { SessionResult result; };
struct AddFrames { int session_id; std::vector<FrameRecord> frames; };
struct AddSamples { std::vector<SampleRow> samples; };
struct AddEvent { EventRow event; };
struct AddEndpointLogon { EndpointLogonRow logon; };
struct AddEndpointBatch { EndpointBatch batch; };
// Commit what came before, then fulfil the promise (or fail it with the writer's error).
struct Flush { std::shared_ptr<std::promise<void>> done; };
// Flush, build indexes, checkpoint, close the connection; the thread ends after it.
struct Finish { std::shared_ptr<std::promise<void>> done; };

using Command = std::variant<BeginRun, EndRun, AddHost, BeginStep, EndStep, AddSession, SetDevice,
                             EndSession, AddFrames, AddSamples, AddEvent, AddVerdict, AddEndpointLogon,
                             AddEndpointBatch, Flush, Finish>;

// Rows a command writes (for queue_depth() and the commit_rows rule).
inline uint64_t rows_of(const Command& c) {
    if (auto* f = std::get_if<AddFrames>(&c)) return f->frames.size();
    if (auto* s = std::get_if<AddSamples>(&c)) return s->samples.size();
    if (auto* e = std::get_if<AddEndpointBatch>(&c)) return e->batch.arrivals.size() + e->batch.ssim.size();
    if (std::holds_alternative<Flush>(c) || std::holds_alternative<Finish>(c)) return 0;
    return 1;
}

}  // namespace seatmark::store::cmd
