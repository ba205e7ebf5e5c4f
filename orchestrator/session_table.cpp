// The session table (orchestrator/session_table.h).
#include "orchestrator/session_table.h"

#include <signal.h>

#include <algorithm>
#include <cmath>

#include "common/exit_codes.h"

namespace seatmark::orchestrator {

using store::SessionEnd;

const char* to_string(SessionState s) {
    switch (s) {
        case SessionState::starting: return "starting";
        case SessionState::running: return "running";
        case SessionState::stopping: return "stopping";
        case SessionState::failed: return "failed";
        case SessionState::exited: return "exited";
        case SessionState::ended: return "ended";
    }
    return "?";
}

Session& SessionTable::add(uint32_t id) {
    if (by_id_.size() <= id) by_id_.resize(id + 1);
    by_id_[id] = std::make_unique<Session>();
    Session& s = *by_id_[id];
    s.id = id;
    order_.push_back(&s);
    return s;
}

void SessionTable::hello(Session& s, int64_t t) {
    s.link = Link::open;
    s.last_seen_ns = t;
    if (s.state == SessionState::starting) s.state = SessionState::running;
}

void SessionTable::process_figures(Session& s, std::optional<double> cpu_pct, std::optional<uint64_t> rss_bytes) {
    if (cpu_pct) s.cpu_pct = *cpu_pct;
    if (rss_bytes) s.rss_bytes = *rss_bytes;
    s.figures_unavailable.clear();
}

void SessionTable::figures_unavailable(Session& s, const std::string& why) {
    s.cpu_pct = NAN;
    s.rss_bytes.reset();
    s.figures_unavailable = why;
}

bool SessionTable::declare_failed(Session& s, SessionEnd reason, const std::string& detail, int64_t t) {
    if (s.reason != SessionEnd::running) return false;
    s.reason = reason;
    s.detail = detail;
    // A hang failed when the session fell silent, not when that was noticed (core::failure_time).
    if (!s.ended_ns)
        s.ended_ns = core::failure_time(reason == SessionEnd::hang, t, s.started_ns,
                                        std::max(s.last_frame_begin_ns, s.last_heartbeat_ns));
    if (s.alive()) s.state = SessionState::failed;
    return true;
}

void SessionTable::request_stop(Session& s) {
    if (s.active()) s.state = SessionState::stopping;
}

SessionEnd SessionTable::exited(Session& s, const ExitStatus& st, int64_t t) {
    const bool stop_requested = s.state == SessionState::stopping;
    s.state = SessionState::exited;
    s.exit = st;
    s.exited_ns = t;
    if (!s.ended_ns) s.ended_ns = t;
    if (s.reason != SessionEnd::running) return SessionEnd::ok;
    if (stop_requested) {
        s.reason = st.signal == SIGKILL ? SessionEnd::killed : SessionEnd::ok;
        return SessionEnd::ok;
    }
    SessionEnd r = SessionEnd::crash;
    if (st.exited()) {
        switch (st.exit_code) {
            case exit_code::ok: r = SessionEnd::ok; break;
            case exit_code::device_lost: r = SessionEnd::device_lost; break;
            case exit_code::software_fallback: r = SessionEnd::software_fallback; break;
            default: r = SessionEnd::error; break;
        }
    }
    if (r == SessionEnd::ok) s.reason = r;
    return r;
}

void SessionTable::left(Session& s, SessionEnd reason, const std::string& detail, int64_t t) {
    if (s.reason == SessionEnd::running) {
        s.reason = reason;
        if (s.detail.empty()) s.detail = detail;
    }
    s.state = SessionState::exited;
    s.exited_ns = t;
    if (!s.ended_ns) s.ended_ns = t;
}

void SessionTable::ended(Session& s, int64_t t) {
    if (s.state == SessionState::ended) return;
    s.state = SessionState::ended;
    if (!s.ended_ns) s.ended_ns = t;
    if (s.reason == SessionEnd::running) s.reason = SessionEnd::ok;
    lost_total_ += s.frames.lost();
}

uint32_t SessionTable::alive() const {
    uint32_t n = 0;
    for (const Session* s : order_) n += s->alive();
    return n;
}

uint32_t SessionTable::active() const {
    uint32_t n = 0;
    for (const Session* s : order_) n += s->active();
    return n;
}

bool SessionTable::ready() const {
    for (const Session* s : order_) {
        if (s->state == SessionState::starting || s->state == SessionState::stopping) return false;
    }
    return true;
}

uint32_t SessionTable::failures_since(int64_t t0) const {
    uint32_t n = 0;
    for (const Session* s : order_) n += s->ended_ns && s->ended_ns >= t0 && store::is_failure(s->reason);
    return n;
}

bool SessionTable::telemetry_past(int64_t t) const {
    for (const Session* s : order_) {
        if (!s->alive() || s->started_ns >= t) continue;
        if (s->last_frame_begin_ns >= t) continue;
        if (s->last_heartbeat_ns >= t + 1'000'000'000 && s->frames.caught_up()) continue;
        return false;
    }
    return true;
}

std::vector<core::SessionSpan> SessionTable::spans() const {
    std::vector<core::SessionSpan> out;
    out.reserve(order_.size());
    for (const Session* s : order_) {
        core::SessionSpan sp{s->id, s->profile_name, s->started_ns, std::nullopt, ""};
        if (s->ended_ns) {
            sp.ended_ns = s->ended_ns;
            if (store::is_failure(s->reason)) sp.failure = std::string(store::to_string(s->reason));
        }
        if (s->model_open_ms) sp.model_open_ms = *s->model_open_ms;
        out.push_back(std::move(sp));
    }
    return out;
}

}  // namespace seatmark::orchestrator
