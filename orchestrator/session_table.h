#pragma once
// The run's sessions: one record per session with an explicit state, its telemetry link and
// its frame accounting, and the questions the step machine and the verdict rules ask of all
// of them (membership spans, failures in a step, whether telemetry has passed a time).
//
// A session's life:
//   starting --HELLO--> running --asked to stop--> stopping --exit--> exited --link drained--> ended
//   starting/running --declared failed (hang, protocol, device lost, software fallback)--> failed --exit--> exited
//   any not ended --exit--> exited
// `reason` stays SessionEnd::running until the session failed or ended; `ended_ns` is the moment
// it stopped running (declared failed, or exited; a hang: when it fell silent, core::failure_time),
// which window membership reads (core/step_rules.h) and sessions.ended_ns stores.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/frame_record.h"
#include "core/sla.h"
#include "core/step_rules.h"
#include "orchestrator/frame_account.h"
#include "orchestrator/recent_frames.h"
#include "orchestrator/session_process.h"
#include "store/records.h"

namespace seatmark::orchestrator {

enum class SessionState { starting, running, stopping, failed, exited, ended };
const char* to_string(SessionState s);

// The telemetry connection of a session.
enum class Link { none, open, closed };

struct Session {
    uint32_t id = 0;
    std::string profile;       // as the plan names it (built-in name or file)
    std::string profile_name;  // the profile's own name (SLA key)
    const Sla* sla = nullptr;
    std::unique_ptr<SessionProcess> proc;  // spawn mode; none for a joined session
    bool ended_by_source = false;          // no process: its source said how it ended (SessionHost::ended)
    pid_t pid = 0;
    std::string host;     // the host it runs on ("": this one)
    bool remote = false;  // its process is on its own host (joined): sampled by that host's agent, not here

    SessionState state = SessionState::starting;
    Link link = Link::none;
    store::SessionEnd reason = store::SessionEnd::running;
    std::string detail;
    ExitStatus exit;
    int64_t started_ns = 0, last_seen_ns = 0, exited_ns = 0;
    int64_t ended_ns = 0;                     // 0: still running
    int64_t last_frame_begin_ns = INT64_MIN;  // newest frame received
    int64_t last_heartbeat_ns = INT64_MIN;    // the newest HEARTBEAT's own stamp
    FrameAccount frames;
    std::optional<double> model_open_ms;  // from the model-open event or BYE
    std::optional<double> low1_mangohud_fps;  // BYE: MangoHud's "1% Min FPS" over the whole session

    // The newest frames of the current step, for the live view only (bounded: recent_frames.h);
    // the judge reads a span's frames from the database.
    RecentFrames live_frames;
    uint64_t recent_frames = 0;            // since the last status line
    // Per-process figures from the host it runs on: this host's sampler, or a joined host's agent
    // (SessionTable::process_figures). Unknown: NaN / empty, with the reason when there is one.
    double cpu_s = -1, cpu_pct = NAN;
    int64_t cpu_t = 0;
    std::optional<uint64_t> rss_bytes;
    std::string figures_unavailable;  // why they are unknown: no agent on its host, the agent left
    std::string device;
    bool software = false;

    // Running and counted: neither failed, ended nor asked to stop... except `stopping`, which
    // still renders and so is alive (a stopped-early session is not judged: see ended_ns).
    bool alive() const {
        return state == SessionState::starting || state == SessionState::running || state == SessionState::stopping;
    }
    bool active() const { return state == SessionState::starting || state == SessionState::running; }
    bool said_hello() const { return link != Link::none; }
    bool stop_requested() const { return state == SessionState::stopping; }
};

class SessionTable {
public:
    // A new session record (ids are given in order, never reused).
    Session& add(uint32_t id);
    Session* find(uint32_t id) { return id < by_id_.size() ? by_id_[id].get() : nullptr; }
    const Session* find(uint32_t id) const { return id < by_id_.size() ? by_id_[id].get() : nullptr; }
    uint32_t next_id() const { return static_cast<uint32_t>(by_id_.size()); }

    // Every session, oldest first.
    auto begin() { return order_.begin(); }
    auto end() { return order_.end(); }
    const std::vector<Session*>& all() const { return order_; }

    // ---- state changes (each one place)
    void hello(Session& s, int64_t t);
    // The orchestrator declares it failed; the first reason stands. Returns false when it had
    // already ended or failed.
    bool declare_failed(Session& s, store::SessionEnd reason, const std::string& detail, int64_t t);
    void request_stop(Session& s);
    // Its process exited. Returns the failure its exit implies (crash, error, device lost,
    // software fallback) for a session neither asked to stop nor already failed, for the caller
    // to declare; SessionEnd::ok otherwise (the reason is then set here).
    store::SessionEnd exited(Session& s, const ExitStatus& st, int64_t t);
    void link_closed(Session& s) { s.link = Link::closed; }
    // Its process's figures as its host's sampler or agent read them just now (cpu_pct is empty
    // on a process's first reading), and the way they become unknown: a reason, the old values
    // dropped (figures of a host no longer sampled are not shown as current).
    void process_figures(Session& s, std::optional<double> cpu_pct, std::optional<uint64_t> rss_bytes);
    void figures_unavailable(Session& s, const std::string& why);
    // A session without a process ended, as its source saw it (a failure is declared first).
    void left(Session& s, store::SessionEnd reason, const std::string& detail, int64_t t);
    // Stored (end row written): the one place lost frames add to the run's total.
    void ended(Session& s, int64_t t);

    // ---- questions
    uint32_t alive() const;
    uint32_t active() const;
    // Every active session said HELLO and none asked to stop still runs.
    bool ready() const;
    // Sessions whose failure ended them at or after t0 (the membership rule's failures of a step).
    uint32_t failures_since(int64_t t0) const;
    // Every running session that began before t has sent a frame that began at or after t, or
    // (in a think pause) a heartbeat stamped a second past it with every frame it counted received
    // (the stamp is "complete through": no frame begun before it is still in flight; the second
    // is a margin for sessions of older builds, which stamped the send time).
    bool telemetry_past(int64_t t) const;
    std::vector<core::SessionSpan> spans() const;
    uint64_t lost_total() const { return lost_total_; }

private:
    std::vector<std::unique_ptr<Session>> by_id_;  // by id: the per-message path is a lookup
    std::vector<Session*> order_;
    uint64_t lost_total_ = 0;
};

}  // namespace seatmark::orchestrator
