#pragma once
// The run's side of launchers (`seatmark launch --join`, join role launcher): which launcher
// holds which RDP logon, and what each logon's user saw. The join source (join_source.h) asks
// it for logons when a step needs more sessions than have joined, spreading them over the
// launchers (the one holding fewest first); a logon's session joins on its own and is matched
// to its logon by (host, user) when activated. Per logon it records the connect time, the
// logon time (connect -> the session's JOIN, session_hello), arrivals and SSIM samples (stamps already in
// the run's clock), codec and bytes, and the fault class; the endpoint figures are
// core/endpoint.h's, live (the verdict) and over the session's whole life (the stored row).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/frame_record.h"
#include "common/join_protocol.h"
#include "core/endpoint.h"
#include "store/endpoint_rows.h"

namespace seatmark::orchestrator {

class LauncherHub {
public:
    struct Io {
        std::function<void(uint64_t conn, const join::JoinMessage&)> send;
        std::function<void(const store::EndpointLogonRow&)> store_logon;
        std::function<void(store::EndpointBatch)> store_batch;
        std::function<void(std::optional<uint32_t> session, const std::string& kind, const std::string& detail)> event;
        std::function<int64_t()> now;
    };
    explicit LauncherHub(Io io) : io_(std::move(io)) {}

    // A launcher's connection is ready (its clock measured): it may be asked for logons.
    void joined(uint64_t conn, const std::string& name, const std::string& address);
    bool is_launcher(uint64_t conn) const { return launchers_.count(conn) > 0; }
    size_t launchers() const { return launchers_.size(); }
    // Its connection ended: its logons that still last end with fault launcher-lost.
    void closed(uint64_t conn, const std::string& why);
    // LOGON_STATE or ARRIVALS from a launcher, stamps in the run's clock.
    void message(uint64_t conn, join::JoinMessage&& m);

    // Logons asked for or connecting whose session has not joined yet.
    uint32_t pending() const;
    // Asks the launchers for `n` more logons; false when none can take any (none joined, or
    // every one is out of test users).
    bool ask(uint32_t n);
    void stop_all();  // the run ends: nothing more is asked

    // The join source's view of sessions.
    void session_activated(uint32_t id, const std::string& host, const std::string& user);
    void session_hello(uint32_t id, int64_t t_ns);
    void session_frames(uint32_t id, const std::vector<FrameRecord>& frames);
    void session_stopping(uint32_t id);  // the run stopped it: LOGOFF to its launcher
    void session_ended(uint32_t id);
    // What a launcher saw of session `id`; nullptr when no logon carries it.
    const core::EndpointSeries* series(uint32_t id) const;
    // Its logon's row as it stands (the live view); nullptr when none.
    const store::EndpointLogonRow* logon_of(uint32_t id) const;

    // References on request: the session a launcher's logon (host, user) carries, and the
    // launcher (connection, user) of a session's logon.
    std::optional<uint32_t> session_for(uint64_t conn, const std::string& host, const std::string& user);
    std::optional<std::pair<uint64_t, std::string>> launcher_of(uint32_t session) const;

    // Called when a logon ended before its session joined: the source may ask again.
    std::function<void()> on_shortfall;

private:
    struct Launcher {
        std::string name, address;
        uint32_t asked = 0;      // LOGONs it has been asked for and not yet said it started
        uint32_t open = 0;       // logons it holds now
        bool out_of_users = false;
    };
    struct LogonRec {
        uint64_t conn = 0;
        store::EndpointLogonRow row;
        bool ended = false, stopped_by_run = false;
        bool closed_at_stop = false;  // ended here when the run stopped its session (session_ended)
        int64_t first_arrival_ns = 0;
    };
    struct Track {  // a launched session
        int logon = 0;
        core::EndpointSeries series;
        std::vector<std::pair<uint64_t, int64_t>> presents;  // every frame: seq, present (whole-life figures)
        bool ended = false;
    };

    LogonRec* find_logon(uint64_t conn, const std::string& host, const std::string& user, bool open_only);
    void on_state(uint64_t conn, join::LogonState&& s);
    void on_arrivals(uint64_t conn, join::Arrivals&& a);
    void finish_figures(LogonRec& l);
    void store(const LogonRec& l) { if (io_.store_logon) io_.store_logon(l.row); }

    Io io_;
    std::map<uint64_t, Launcher> launchers_;
    std::map<int, LogonRec> logons_;            // by logon id
    std::map<uint32_t, Track> tracks_;          // by session id
    int next_logon_ = 1;
    bool stopping_ = false;
};

}  // namespace seatmark::orchestrator
