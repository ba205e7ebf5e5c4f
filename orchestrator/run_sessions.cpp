// Session events: HELLO, messages, connection ends, failures, exits, and each session's stored end.
#include "orchestrator/run_controller_impl.h"

namespace seatmark::orchestrator::run_detail {

namespace asio = boost::asio;
using namespace std::chrono_literals;

bool Controller::on_hello(const wire::Hello& h, pid_t peer) {
    Session* sp = table_.find(h.session_id);
    // Only the process this run started for that id may speak for it, once.
    if (!sp || !sp->proc || sp->pid != peer || sp->said_hello() || !sp->alive()) return false;
    accept_hello(*sp, h);
    return true;
}

bool Controller::hello(const wire::Hello& h) {
    Session* sp = table_.find(h.session_id);
    if (!sp || sp->proc || sp->said_hello() || !sp->alive()) return false;  // a spawned one speaks on its own socket
    accept_hello(*sp, h);
    return true;
}

Session& Controller::add_session(pid_t pid, const std::string& host) {
    Session& s = new_session(table_.next_id());
    s.pid = pid;
    s.host = host;
    s.remote = !host.empty();
    store::SessionInfo si;
    si.host = host;
    si.id = static_cast<int>(s.id);
    si.profile = s.profile_name;
    si.pid = pid;
    si.started_ns = s.started_ns;
    store_->add_session(si);
    store_->add_event({s.started_ns, static_cast<int>(s.id), "session-start",
                       "brought in by its source" + (pid ? ", pid " + std::to_string(pid) : std::string()) +
                           ", profile " + s.profile_name});
    return s;
}

void Controller::add_samples(std::vector<store::SampleRow> rows) {
    // A joined session's figures: only from rows of the host it runs on (its agent's).
    struct Figures {
        std::optional<double> cpu_pct;
        std::optional<uint64_t> rss_bytes;
    };
    std::map<std::pair<int, std::string>, Figures> got;
    for (const auto& r : rows) {
        if (!r.session_id || r.host.empty() || !std::isfinite(r.value) || r.value < 0) continue;
        if (r.metric == "cpu_pct") got[{*r.session_id, r.host}].cpu_pct = r.value;
        if (r.metric == "rss_bytes") got[{*r.session_id, r.host}].rss_bytes = uint64_t(std::min(r.value, 1.8e19));
    }
    for (const auto& [key, f] : got) {
        Session* s = table_.find(uint32_t(key.first));
        if (s && s->remote && s->host == key.second && s->alive() && (f.cpu_pct || f.rss_bytes))
            table_.process_figures(*s, f.cpu_pct, f.rss_bytes);
    }
    store_->add_samples(std::move(rows));
}

void Controller::figures_unavailable(const std::string& host, const std::string& why) {
    for (Session* s : table_.all())
        if (s->remote && s->host == host && s->alive()) table_.figures_unavailable(*s, why);
}

void Controller::ended(uint32_t id, SessionEnd reason, const std::string& detail) {
    Session* sp = table_.find(id);
    if (!sp || sp->state == SessionState::ended) return;
    Session& s = *sp;
    s.ended_by_source = true;
    if (store::is_failure(reason)) record_failure(s, reason, detail);  // the source knows already
    table_.left(s, reason, detail, now_ns());
    finalize(s);
}

void Controller::accept_hello(Session& s, const wire::Hello& h) {
    table_.hello(s, now_ns());
    store::SessionDevice d;
    d.device_name = h.device_name;
    d.device_type = h.device_type;
    d.driver_name = h.driver_name;
    d.driver_info = h.driver_info;
    d.software = h.software;
    store_->set_session_device(static_cast<int>(s.id), d);
    s.device = h.device_name;
    s.software = h.software;
    if (host_.gpu.empty() && !h.device_name.empty()) {
        host_.gpu = h.device_name;
        host_.driver = h.driver_name + (h.driver_info.empty() ? "" : " " + h.driver_info);
        store_->add_host(host_);  // replaces the row
    }
    if (h.software && !plan_.allow_software)
        fail_session(s, SessionEnd::software_fallback,
                     "landed on software renderer " + h.device_name +
                         " and the plan does not allow one (allow_software = true in [run] allows it)",
                     SIGKILL);
}

void Controller::on_message(uint32_t id, wire::Message&& m) {
    Session* sp = table_.find(id);
    if (!sp) return;
    Session& s = *sp;
    s.last_seen_ns = now_ns();
    if (auto* f = std::get_if<wire::Frames>(&m)) {
        auto& v = f->frames;
        const uint64_t out_before = s.frames.out_of_sequence;
        size_t kept = 0;
        for (size_t i = 0; i < v.size(); ++i) {
            const FrameRecord& r = v[i];
            if (!s.frames.add(r)) {  // a duplicate or a late frame: neither stored nor shown
                if (s.frames.out_of_sequence == 1)
                    store_->add_event({now_ns(), static_cast<int>(id), "frames-out-of-sequence",
                                       "frame seq " + std::to_string(r.seq) + " arrived after frame seq " +
                                           std::to_string(s.frames.next_seq - 1) +
                                           " (a duplicated or reordered FRAMES): frames out of sequence are not "
                                           "counted; the session's end row says how many"});
                continue;
            }
            // Only the status line reads these (quiet: nobody, so they are not collected).
            if (r.interval_ns >= 0 && !opts_.quiet) recent_intervals_.push_back(double(r.interval_ns) * 1e-6);
            s.last_frame_begin_ns = std::max(s.last_frame_begin_ns, r.t_begin_ns);
            s.live_frames.add(r);
            if (kept != i) v[kept] = r;
            ++kept;
        }
        if (s.frames.out_of_sequence != out_before) v.resize(kept);
        s.recent_frames += v.size();
        if (!v.empty()) store_->add_frames(static_cast<int>(id), std::move(v));
    } else if (auto* hb = std::get_if<wire::Heartbeat>(&m)) {
        s.frames.heartbeat_count = hb->frames_emitted;
        s.last_heartbeat_ns = hb->t_ns;
    } else if (auto* e = std::get_if<wire::Event>(&m)) {
        std::string kind = "session-" + std::string(wire::to_string(e->kind));
        std::replace(kind.begin(), kind.end(), '_', '-');
        std::string detail = e->text;
        if (e->kind == wire::EventKind::model_open) {
            char* end = nullptr;
            const double ms = std::strtod(e->text.c_str(), &end);
            if (end != e->text.c_str() && ms > 0) {
                s.model_open_ms = ms;  // known before the step's window closes
                // The wire carries the bare number; what the store, the monitor and the live API
                // show says its unit and what it measures.
                char text[96];
                std::snprintf(text, sizeof text, "%.1f ms from session start to the first frame showing its scene", ms);
                detail = text;
            }
        }
        store_->add_event({e->t_ns, static_cast<int>(id), kind, detail});
        // The session goes on to exit by itself (exit code device_lost); it stopped rendering now.
        if (e->kind == wire::EventKind::device_lost && table_.declare_failed(s, SessionEnd::device_lost, e->text, s.last_seen_ns) &&
            !stopping())
            step_failures_[s.id] = "device-lost";
    } else if (auto* b = std::get_if<wire::Bye>(&m)) {
        if (std::string why = s.frames.bye(b->frames_sent); !why.empty()) {
            fail_session(s, SessionEnd::protocol, "protocol error: " + why, SIGKILL);
            return;
        }
        // The whole session's 1 % lows as the session computed them from all its frames: seatmark's
        // 1000 / p99 and MangoHud's "1% Min FPS" (core/stats.h), stored as samples of source 'bye'
        // (docs/store.md) for the report to show side by side.
        std::vector<store::SampleRow> lows;
        if (std::isfinite(b->low1_fps) && b->low1_fps > 0)
            lows.push_back({s.last_seen_ns, static_cast<int>(id), "bye", "low1_fps", b->low1_fps, s.host});
        if (std::isfinite(b->low1_min_fps) && b->low1_min_fps > 0) {
            s.low1_mangohud_fps = b->low1_min_fps;
            lows.push_back({s.last_seen_ns, static_cast<int>(id), "bye", "low1_min_fps", b->low1_min_fps, s.host});
        }
        if (!lows.empty()) store_->add_samples(std::move(lows));
        if (b->model_open_s > 0) s.model_open_ms = b->model_open_s * 1e3;
        if (!b->message.empty() && s.detail.empty()) s.detail = b->message;
    }
}

void Controller::on_closed(int64_t id, const ConnectionEnd& end) {
    const std::string& error = end.detail;
    if (id < 0) {
        // A connection that never became a session: garbage, a stranger, a bad HELLO.
        store_->add_event({now_ns(), std::nullopt, "connection-rejected", error.empty() ? "closed before HELLO" : error});
        return;
    }
    Session* sp = table_.find(static_cast<uint32_t>(id));
    if (!sp) return;
    Session& s = *sp;
    table_.link_closed(s);
    if (!error.empty()) {
        store_->add_event({now_ns(), static_cast<int>(id), "telemetry-closed", error});
        if (end.reason == CloseReason::protocol && s.alive()) fail_session(s, SessionEnd::protocol, error, SIGKILL);
    }
    if (s.state == SessionState::exited) finalize(s);
}

void Controller::record_failure(Session& s, SessionEnd reason, const std::string& detail) {
    table_.declare_failed(s, reason, detail, now_ns());
    if (!stopping()) step_failures_[s.id] = std::string(store::to_string(s.reason));
    store_->add_event({now_ns(), static_cast<int>(s.id), "session-" + std::string(store::to_string(reason)), detail});
}

void Controller::fail_session(Session& s, SessionEnd reason, const std::string& detail, int sig) {
    record_failure(s, reason, detail);
    if (s.proc && s.proc->running() && sig) s.proc->signal_group(sig);
    if (!s.proc && !s.ended_by_source) source_.failed(s.id);  // it ends the session (SessionHost::ended)
}

void Controller::on_exit(uint32_t id, ExitStatus st) {
    Session* sp = table_.find(id);
    if (!sp) return;
    Session& s = *sp;
    const SessionEnd failure = table_.exited(s, st, now_ns());
    if (failure != SessionEnd::ok)
        fail_session(s, failure,
                     describe(st) + (s.proc && !s.proc->log_problem().empty()
                                         ? "; no session log (" + s.proc->log_problem() + ")"
                                         : "; see " + log_dir_ + "/session-" + std::to_string(id) + ".log"),
                     0);
    if (s.link != Link::open) finalize(s);
    maybe_done();
}

void Controller::finalize(Session& s) {
    if (s.state == SessionState::ended) return;
    table_.ended(s, now_ns());
    store::SessionResult r;
    r.id = static_cast<int>(s.id);
    r.ended_ns = s.ended_ns;
    r.reason = s.reason;
    if (s.exit.exited()) r.exit_code = s.exit.exit_code;
    if (s.exit.signal) r.signal = s.exit.signal;
    if (s.frames.bye_sent) r.frames_sent = static_cast<int64_t>(*s.frames.bye_sent);
    r.model_open_ms = s.model_open_ms;
    r.frames_received = static_cast<int64_t>(s.frames.received);
    r.frames_lost = static_cast<int64_t>(s.frames.lost());
    r.detail = s.detail;
    if (const std::string frames = s.frames.detail(); !frames.empty())
        r.detail += std::string(r.detail.empty() ? "" : "; ") + frames;
    store_->update_session_end(r);
    const bool ran = s.proc && s.exited_ns != 0;  // its process ran and ended (not one that could not start)
    store_->add_event({r.ended_ns, r.id, "session-end",
                       std::string(store::to_string(r.reason)) + (ran ? ", " + describe(s.exit) : "")});
    out_.session_ended(s.id, std::string(store::to_string(r.reason)), r.detail);
    live_event(core::SessionEndEvent{s.id, std::string(store::to_string(r.reason)), step_failures_.count(s.id) > 0, r.detail});
    maybe_done();
}


}  // namespace seatmark::orchestrator::run_detail
