// Session events: HELLO, messages, connection ends, failures, exits, and each session's stored end.
#include "orchestrator/run_controller_impl.h"

namespace seatmark::orchestrator::run_detail {

namespace asio = boost::asio;
using namespace std::chrono_literals;

bool Controller::on_hello(const wire::Hello& h, pid_t peer) {
    auto it = sessions_.find(h.session_id);
    // Only the process this run started for that id may speak for it.
    if (it == sessions_.end() || it->second.pid != peer || it->second.connected || !it->second.alive()) return false;
    Session& s = it->second;
    s.hello = s.connected = true;
    s.last_seen_ns = now_ns();
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
        fail_session(s, SessionEnd::software_fallback, "landed on software renderer " + h.device_name, SIGKILL);
    return true;
}

void Controller::on_message(uint32_t id, wire::Message&& m) {
    Session* sp = id < by_id_.size() ? by_id_[id] : nullptr;
    if (!sp) return;
    Session& s = *sp;
    s.last_seen_ns = now_ns();
    if (auto* f = std::get_if<wire::Frames>(&m)) {
        for (const auto& r : f->frames) {
            if (r.seq > s.next_seq) s.gaps += r.seq - s.next_seq;
            s.next_seq = std::max<uint64_t>(s.next_seq, r.seq + 1);
            if (r.interval_ns >= 0) recent_intervals_.push_back(double(r.interval_ns) * 1e-6);
            s.last_frame_begin_ns = std::max(s.last_frame_begin_ns, r.t_begin_ns);
        }
        s.received += f->frames.size();
        s.recent_frames += f->frames.size();
        s.step_frames.insert(s.step_frames.end(), f->frames.begin(), f->frames.end());
        store_->add_frames(static_cast<int>(id), std::move(f->frames));
    } else if (auto* hb = std::get_if<wire::Heartbeat>(&m)) {
        s.heartbeat_frames = hb->frames_emitted;
        s.last_heartbeat_ns = hb->t_ns;
    } else if (auto* e = std::get_if<wire::Event>(&m)) {
        std::string kind = "session-" + std::string(wire::to_string(e->kind));
        std::replace(kind.begin(), kind.end(), '_', '-');
        store_->add_event({e->t_ns, static_cast<int>(id), kind, e->text});
        if (e->kind == wire::EventKind::model_open) {
            char* end = nullptr;
            const double ms = std::strtod(e->text.c_str(), &end);
            if (end != e->text.c_str() && ms > 0) s.model_open_ms = ms;  // known before the step's window closes
        }
        if (e->kind == wire::EventKind::device_lost && s.reason == SessionEnd::running) {
            s.reason = SessionEnd::device_lost;
            s.detail = e->text;
            s.ended_ns = s.last_seen_ns;
            if (!stopping()) step_failures_[s.id] = "device-lost";
        }
    } else if (auto* b = std::get_if<wire::Bye>(&m)) {
        s.saw_bye = true;
        s.frames_sent = static_cast<int64_t>(b->frames_sent);
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
    auto it = sessions_.find(static_cast<uint32_t>(id));
    if (it == sessions_.end()) return;
    Session& s = it->second;
    s.connection_closed = true;
    s.saw_bye = s.saw_bye || end.saw_bye;
    if (!error.empty()) {
        store_->add_event({now_ns(), static_cast<int>(id), "telemetry-closed", error});
        if (end.reason == CloseReason::protocol && s.alive()) fail_session(s, SessionEnd::protocol, error, SIGKILL);
    }
    if (s.exited) finalize(s);
}

void Controller::fail_session(Session& s, SessionEnd reason, const std::string& detail, int sig) {
    if (s.reason == SessionEnd::running) {
        s.reason = reason;
        s.detail = detail;
        if (!s.ended_ns) s.ended_ns = now_ns();
    }
    if (!stopping()) step_failures_[s.id] = std::string(store::to_string(s.reason));
    store_->add_event({now_ns(), static_cast<int>(s.id), "session-" + std::string(store::to_string(reason)), detail});
    if (s.proc && s.proc->running() && sig) s.proc->signal_group(sig);
}

void Controller::on_exit(uint32_t id, ExitStatus st) {
    Session& s = sessions_.at(id);
    s.exited = true;
    s.exit = st;
    s.exited_ns = now_ns();
    if (!s.ended_ns) s.ended_ns = s.exited_ns;
    if (s.reason == SessionEnd::running) {
        if (s.stop_requested) {
            s.reason = st.signal == SIGKILL ? SessionEnd::killed : SessionEnd::ok;
        } else {
            SessionEnd r = SessionEnd::crash;
            if (st.exited()) {
                switch (st.exit_code) {
                    case exit_code::ok: r = SessionEnd::ok; break;
                    case exit_code::device_lost: r = SessionEnd::device_lost; break;
                    case exit_code::software_fallback: r = SessionEnd::software_fallback; break;
                    default: r = SessionEnd::error; break;
                }
            }
            if (r != SessionEnd::ok)
                fail_session(s, r, describe(st) + "; see " + log_dir_ + "/session-" + std::to_string(id) + ".log", 0);
            else
                s.reason = r;
        }
    }
    if (s.connection_closed || !s.connected) finalize(s);
    maybe_done();
}

void Controller::finalize(Session& s) {
    if (s.finalized) return;
    s.finalized = true;
    store::SessionResult r;
    r.id = static_cast<int>(s.id);
    if (!s.ended_ns) s.ended_ns = now_ns();
    r.ended_ns = s.ended_ns;
    r.reason = s.reason == SessionEnd::running ? SessionEnd::ok : s.reason;
    if (s.exit.exited()) r.exit_code = s.exit.exit_code;
    if (s.exit.signal) r.signal = s.exit.signal;
    if (s.frames_sent >= 0) r.frames_sent = s.frames_sent;
    r.model_open_ms = s.model_open_ms;
    r.frames_received = static_cast<int64_t>(s.received);
    // Lost frames: sequence gaps, plus frames the session counted (BYE, or its last
    // heartbeat when it died without one) that never arrived.
    uint64_t known = s.frames_sent >= 0 ? uint64_t(s.frames_sent) : s.heartbeat_frames;
    uint64_t missing = known > s.received + s.gaps ? known - s.received - s.gaps : 0;
    r.frames_lost = static_cast<int64_t>(s.gaps + missing);
    r.detail = s.detail;
    if (r.frames_lost > 0)
        r.detail += std::string(r.detail.empty() ? "" : "; ") + std::to_string(r.frames_lost) + " frames lost (" +
                    (s.frames_sent >= 0 ? "counted by BYE" : "no BYE; counted by the last heartbeat") + ")";
    lost_total_ += static_cast<uint64_t>(r.frames_lost);
    store_->update_session_end(r);
    store_->add_event({r.ended_ns, r.id, "session-end",
                       std::string(store::to_string(r.reason)) + (s.exited ? ", " + describe(s.exit) : "")});
    out_.session_ended(s.id, std::string(store::to_string(r.reason)), r.detail);
    live_event(core::SessionEndEvent{s.id, std::string(store::to_string(r.reason)), step_failures_.count(s.id) > 0, r.detail});
    maybe_done();
}


}  // namespace seatmark::orchestrator::run_detail
