#include "orchestrator/join_source.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "common/input_file.h"
#include "common/clock.h"
#include "common/duration.h"
#include "common/errors.h"
#include "common/exit_codes.h"
#include "workloads/profile.h"

namespace seatmark::orchestrator {

namespace {

std::string micros(int64_t ns) {
    char b[32];
    std::snprintf(b, sizeof b, "%+.0f us", double(ns) / 1e3);
    return b;
}

// How a joined session that said BYE ended, from its exit code (common/exit_codes.h).
store::SessionEnd end_of_exit(int32_t code) {
    switch (code) {
        case exit_code::ok: return store::SessionEnd::ok;
        case exit_code::device_lost: return store::SessionEnd::device_lost;
        case exit_code::software_fallback: return store::SessionEnd::software_fallback;
        default: return store::SessionEnd::error;
    }
}

}  // namespace

JoinSessionSource::JoinSessionSource(SessionHost& host, const core::Plan& plan, JoinListener::Options opt, bool quiet)
    : host_(host), plan_(plan), opt_(std::move(opt)) {
    JoinListener::Callbacks cb;
    cb.joined = [this](const JoinedPeer& p, std::string& why) { return on_joined(p, why); };
    cb.clock = [this](uint64_t c, const core::ClockOffset& o, bool first) { on_clock(c, o, first); };
    cb.message = [this](uint64_t c, wire::Message&& m) { on_message(c, std::move(m)); };
    cb.samples = [this](uint64_t c, join::Samples&& s) { on_samples(c, std::move(s)); };
    cb.host_info = [this](uint64_t c, join::HostInfo&& h) { on_host_info(c, std::move(h)); };
    cb.refused = [this](const std::string& a, const std::string& why) { on_refused(a, why); };
    cb.closed = [this](uint64_t c, const ConnectionEnd& e) { on_closed(c, e); };
    cb.launcher = [this](uint64_t c, join::JoinMessage&& m) { on_launcher(c, std::move(m)); };
    make_hub();
    // Made inside the controller's constructor, before the store is open: nothing is recorded
    // until the first step asks for sessions.
    listener_ = std::make_unique<JoinListener>(host_.io(), opt_, std::move(cb));
    if (!quiet)
        std::fprintf(stderr,
                     "seatmark: waiting for sessions and agents at %s (seatmark session --join %s --token-file FILE)\n",
                     listener_->url().c_str(), listener_->url().c_str());
}

JoinSessionSource::~JoinSessionSource() { listener_->close(); }

void JoinSessionSource::event(std::optional<uint32_t> session, const std::string& kind, const std::string& detail,
                              const std::string& host) {
    store::EventRow e;
    e.host = host;
    e.t_ns = now_ns();
    if (session) e.session_id = static_cast<int>(*session);
    e.kind = kind;
    e.detail = detail;
    host_.record(e);
}

const std::string& JoinSessionSource::profile_text(const std::string& profile) {
    auto it = profile_texts_.find(profile);
    if (it != profile_texts_.end()) return it->second;
    std::string text(workloads::builtin_profile_text(profile));
    if (text.empty()) {
        // A profile file of the plan (already read once when the plan was checked).
        text = read_input_text(profile, "profile", max_config_bytes);
    }
    return profile_texts_[profile] = std::move(text);
}

std::optional<join::Welcome> JoinSessionSource::on_joined(const JoinedPeer& p, std::string& refuse) {
    if (stopping_) {
        refuse = "the run is ending";
        return std::nullopt;
    }
    if (p.host.empty()) {
        refuse = "no host name (give --host-name NAME)";
        return std::nullopt;
    }
    if (p.role == join::Role::agent) {
        if (auto it = agents_.find(p.host); it != agents_.end() && peers_.count(it->second)) {
            refuse = "an agent for host " + p.host + " has already joined";
            return std::nullopt;
        }
    }
    Peer& peer = peers_[p.conn];
    peer.info = p;
    join::Welcome w;
    w.id = peer_count_++;
    w.device = plan_.device;
    w.allow_software = plan_.allow_software;
    w.heartbeat_timeout_s = plan_.heartbeat_timeout_s;
    w.duration_s = plan_.planned_seconds() * 2 + 600;  // a backstop: sessions render until STOP
    return w;
}

void JoinSessionSource::on_clock(uint64_t conn, const core::ClockOffset& c, bool first) {
    auto it = peers_.find(conn);
    if (it == peers_.end()) return;
    Peer& p = it->second;
    p.clock = c;
    const std::string& h = p.info.host;
    if (p.info.role == join::Role::launcher) {
        // A launcher is no host of the run (its logons' sessions name theirs); its stamps are
        // converted at ingest with this connection's offset.
        if (!first) return;
        p.ready = true;
        hub_->joined(conn, h, p.info.address + ", clock offset " + micros(c.offset_ns) + " +- " +
                                  micros(c.uncertainty_ns).substr(1) + " over " + std::to_string(c.samples) + " round trips");
        fill();
        return;
    }
    host_seen(h);
    // The host's offset: its best-measured connection's (one clock per host).
    auto& hi = hosts_[h];
    if (!hi.clock_uncertainty_ns || c.uncertainty_ns < *hi.clock_uncertainty_ns) {
        hi.clock_offset_ns = c.offset_ns;
        hi.clock_uncertainty_ns = c.uncertainty_ns;
        host_.add_host(hi);
    }
    if (p.session) {
        const int64_t t = now_ns();
        host_.add_samples({{t, static_cast<int>(*p.session), "clock", "clock_offset_ns", double(c.offset_ns), h},
                           {t, static_cast<int>(*p.session), "clock", "clock_uncertainty_ns", double(c.uncertainty_ns), h}});
    }
    if (!first) return;
    p.ready = true;
    host_.add_samples({{now_ns(), std::nullopt, "join", "handshake_ms", double(now_ns() - p.info.accepted_ns) * 1e-6, h}});
    const std::string who = p.info.role == join::Role::agent ? "agent" : "session";
    event(std::nullopt, who + "-joined",
          "host " + h + ", user " + p.info.user + ", OS session " + p.info.os_session + ", pid " +
              std::to_string(p.info.pid) + ", from " + p.info.address + ", clock offset " + micros(c.offset_ns) +
              " +- " + micros(c.uncertainty_ns).substr(1) + " over " + std::to_string(c.samples) + " round trips",
          h);
    if (p.info.role == join::Role::agent) {
        agents_[h] = conn;
        set_agent(h, "agent", "agent joined from " + p.info.address);
        send_watch(h);
        return;
    }
    waiting_.push_back(conn);
    fill();
}

void JoinSessionSource::host_seen(const std::string& h) {
    if (hosts_.count(h)) return;
    store::HostInfo hi;
    hi.hostname = h;
    hi.role = store::role_joined;
    hi.agent = "none: no seatmark agent has joined for this host";
    hosts_[h] = hi;
    host_.add_host(hi);
}

std::string JoinSessionSource::agent_missing(const std::string& h) const {
    auto it = hosts_.find(h);
    const std::string status = it == hosts_.end() ? std::string("none: ") : it->second.agent;
    if (status.rfind("none: agent disconnected", 0) == 0) return "the agent on host " + h + " left" + status.substr(24);
    return "no seatmark agent on host " + h;
}

void JoinSessionSource::set_agent(const std::string& h, const std::string& status, const std::string& detail) {
    host_seen(h);
    auto& hi = hosts_[h];
    hi.agent = status;
    host_.add_host(hi);
    if (status != "agent") host_.figures_unavailable(h, agent_missing(h));
    event(std::nullopt, status == "agent" ? "host-figures" : "host-figures-unavailable", "host " + h + ": " + detail, h);
}

void JoinSessionSource::start_up_to(uint32_t n) {
    if (!announced_) {
        announced_ = true;
        event(std::nullopt, "join-listening", "sessions and agents join at " + listener_->url());
    }
    if (n != want_) {
        want_ = n;
        want_since_ = now_ns();
    }
    filling_ = true;
    fill();
}

void JoinSessionSource::fill() {
    while (filling_ && active() < want_ && !waiting_.empty() && !stopping_) {
        const uint64_t conn = waiting_.front();
        waiting_.pop_front();
        if (peers_.count(conn)) activate(conn);
    }
    ask_launchers();
}

void JoinSessionSource::activate(uint64_t conn) {
    Peer& p = peers_.at(conn);
    // Its process is on its own host (even one that is this machine under another --host-name):
    // that host's agent samples it, not this process's /proc (Session::remote).
    Session& s = host_.add_session(static_cast<pid_t>(p.info.pid), p.info.host);
    p.session = s.id;
    conn_of_[s.id] = conn;
    // Its logon, if a launcher opened it; the logon took until the session's JOIN reached the run
    // (HELLO follows START, which waits for the step, so it would count the run's wait too).
    hub_->session_activated(s.id, p.info.host, p.info.user);
    hub_->session_hello(s.id, p.info.accepted_ns);
    if (!agents_.count(p.info.host)) {
        // Its live figures say why they are unknown (hosts_[...].agent: no agent, or the one it had left).
        host_.figures_unavailable(p.info.host, agent_missing(p.info.host));
        if (unavailable_said_.insert(p.info.host).second)
            event(std::nullopt, "host-figures-unavailable",
                  "host " + p.info.host + ": no seatmark agent has joined for it, so its CPU, memory and GPU figures are not recorded",
                  p.info.host);
    }
    event(s.id, "session-activated",
          "joined session from host " + p.info.host + " (user " + p.info.user + ", OS session " + p.info.os_session +
              ", pid " + std::to_string(p.info.pid) + "), clock offset " + micros(p.clock.offset_ns) + " +- " +
              micros(p.clock.uncertainty_ns).substr(1),
          p.info.host);
    listener_->start(conn, join::Start{s.id, s.profile, profile_text(s.profile)});
    const int64_t t = now_ns();
    host_.add_samples({{t, static_cast<int>(s.id), "clock", "clock_offset_ns", double(p.clock.offset_ns), p.info.host},
                       {t, static_cast<int>(s.id), "clock", "clock_uncertainty_ns", double(p.clock.uncertainty_ns), p.info.host}});
    send_watch(p.info.host);
}

uint32_t JoinSessionSource::active() const { return host_.sessions().active(); }

// Not before the step has its count: with fewer, it waits (up to the join timeout, shortfall()).
// Once ready, the step's sessions are set: one that joins (or joins again after a cut) from now
// on waits for the next step rather than entering a window already settled or open, as spawn mode
// replaces failed sessions only when a step starts.
bool JoinSessionSource::ready() const {
    const bool r = active() >= want_ && host_.sessions().ready();
    if (r) filling_ = false;
    return r;
}

std::optional<std::string> JoinSessionSource::shortfall() const {
    const uint32_t have = active();
    if (have >= want_ || double(now_ns() - want_since_) * 1e-9 < plan_.join_timeout_s) return std::nullopt;
    return std::to_string(have) + " of " + std::to_string(want_) + " sessions joined within " + format_duration(plan_.join_timeout_s);
}

void JoinSessionSource::stop_newest(uint32_t count) {
    const auto& all = host_.sessions().all();
    for (auto it = all.rbegin(); it != all.rend() && count > 0; ++it) {
        if (!(*it)->active()) continue;
        if (auto c = conn_of_.find((*it)->id); c != conn_of_.end()) listener_->stop(c->second);
        hub_->session_stopping((*it)->id);
        host_.request_stop((*it)->id);
        --count;
    }
}

void JoinSessionSource::stop_all() {
    stopping_ = true;
    hub_->stop_all();
    for (auto& [conn, p] : peers_) listener_->stop(conn);  // rendering, waiting, agents and launchers alike
    for (const Session* s : host_.sessions().all())
        if (s->active()) host_.request_stop(s->id);
    waiting_.clear();
}

void JoinSessionSource::kill_all() {
    std::vector<uint64_t> conns;
    for (auto& [conn, p] : peers_) conns.push_back(conn);
    for (uint64_t c : conns) listener_->drop(c, "the run is ending and the session did not stop in time");
}

void JoinSessionSource::failed(uint32_t id) {
    // Declared failed by the controller (hang, protocol, software renderer): the reason is in the
    // table; closing the connection ends it (on_closed).
    auto it = conn_of_.find(id);
    if (it == conn_of_.end()) return;
    const Session* s = host_.sessions().find(id);
    listener_->drop(it->second, s ? "declared " + std::string(store::to_string(s->reason)) + ": " + s->detail : "declared failed");
}

void JoinSessionSource::on_message(uint64_t conn, wire::Message&& m) {
    auto it = peers_.find(conn);
    if (it == peers_.end() || !it->second.session) return;
    Peer& p = it->second;
    const uint32_t id = *p.session;
    if (auto* h = std::get_if<wire::Hello>(&m)) {
        h->session_id = id;  // the session names the id START gave it; the connection decides
        if (!host_.hello(*h)) listener_->drop(conn, "HELLO refused for session " + std::to_string(id));
        return;
    }
    if (auto* f = std::get_if<wire::Frames>(&m)) hub_->session_frames(id, f->frames);
    if (auto* b = std::get_if<wire::Bye>(&m)) {
        p.bye_exit = b->exit_code;
        p.bye_message = b->message;
    }
    host_.message(id, std::move(m));
}

void JoinSessionSource::send_watch(const std::string& h) {
    auto a = agents_.find(h);
    if (a == agents_.end()) return;
    join::Watch w;
    for (const auto& [conn, p] : peers_) {
        if (!p.session || p.info.host != h) continue;
        const Session* s = host_.sessions().find(*p.session);
        if (!s || !s->alive()) continue;
        w.sessions.push_back({s->id, p.info.pid, uint8_t(!s->said_hello() ? 0 : s->software ? 2 : 1)});
    }
    listener_->watch(a->second, w);
}

void JoinSessionSource::on_samples(uint64_t conn, join::Samples&& s) {
    auto it = peers_.find(conn);
    if (it == peers_.end()) return;
    const std::string& h = it->second.info.host;
    std::vector<store::SampleRow> rows;
    rows.reserve(s.rows.size());
    for (auto& r : s.rows) {
        std::optional<int> sid;
        if (r.session_id >= 0) {
            // Only this host's own sessions: an agent cannot speak for another host's.
            auto c = conn_of_.find(uint32_t(r.session_id));
            if (c == conn_of_.end()) continue;
            auto p = peers_.find(c->second);
            if (p == peers_.end() || p->second.info.host != h) continue;
            sid = r.session_id;
        }
        rows.push_back({s.t_ns, sid, std::move(r.source), std::move(r.metric), r.value, h});
    }
    host_.add_samples(std::move(rows));
    send_watch(h);  // the sessions on this host as they are now, for the next sample
}

// The agent's host identity goes into its hosts row, as the orchestrator writes its own host's.
void JoinSessionSource::on_host_info(uint64_t conn, join::HostInfo&& h) {
    auto it = peers_.find(conn);
    if (it == peers_.end()) return;
    const std::string& name = it->second.info.host;
    host_seen(name);
    auto& hi = hosts_[name];
    hi.cpu_model = std::move(h.cpu_model);
    hi.cpu_count = h.cpu_count;
    hi.mem_total_bytes = static_cast<int64_t>(std::min<uint64_t>(h.mem_total_bytes, INT64_MAX));
    hi.os = std::move(h.os);
    hi.kernel = std::move(h.kernel);
    host_.add_host(hi);
}

void JoinSessionSource::on_refused(const std::string& address, const std::string& why) {
    ++refused_;
    // Every refusal is recorded; past 1000 only every 1000th, so a flood cannot fill the disk.
    if (refused_ <= 1000 || refused_ % 1000 == 0)
        event(std::nullopt, "connection-refused",
              "join from " + address + ": " + why + (refused_ > 1000 ? " (" + std::to_string(refused_) + " refused so far)" : ""));
}

void JoinSessionSource::on_closed(uint64_t conn, const ConnectionEnd& end) {
    auto it = peers_.find(conn);
    if (it == peers_.end()) return;
    Peer p = std::move(it->second);
    peers_.erase(it);
    std::erase(waiting_, conn);
    const std::string why = end.detail.empty() ? "closed by the peer" : end.detail;
    if (!p.ready) {
        // Authenticated, WELCOMEd, and gone before its clock was measured: garbage or a PONG that
        // cannot be true (refused), or a peer that left. Recorded like every refusal, with its
        // host's row (whose clock was never measured), so the event's host is one of the run's.
        if (stopping_ && end.reason != CloseReason::protocol) return;
        if (p.info.role != join::Role::launcher) host_seen(p.info.host);
        event(std::nullopt, end.reason == CloseReason::protocol ? "connection-refused" : "join-abandoned",
              "join from " + p.info.address + " (" + std::string(join::to_string(p.info.role)) + " on host " + p.info.host +
                  ", user " + p.info.user + ", pid " + std::to_string(p.info.pid) +
                  ") ended after WELCOME, before its clock was measured: " + why,
              p.info.role == join::Role::launcher ? "" : p.info.host);
        return;
    }
    if (p.info.role == join::Role::launcher) {
        hub_->closed(conn, why);
        return;
    }
    if (p.info.role == join::Role::agent) {
        if (auto a = agents_.find(p.info.host); a != agents_.end() && a->second == conn) agents_.erase(a);
        if (p.ready && !stopping_) set_agent(p.info.host, "none: agent disconnected (" + why + ")", "agent disconnected (" + why + "); host figures unavailable from now on");
        return;
    }
    if (!p.session) {
        if (p.ready && !stopping_) event(std::nullopt, "session-left", "a waiting session from host " + p.info.host + " left: " + why, p.info.host);
        return;
    }
    const uint32_t id = *p.session;
    conn_of_.erase(id);
    host_.link_closed(id, end);
    hub_->session_ended(id);
    const Session* s = host_.sessions().find(id);
    if (!s) return;
    if (s->reason != store::SessionEnd::running) {
        host_.ended(id, s->reason, s->detail);  // declared failed first: that reason stands
    } else if (end.reason == CloseReason::protocol) {
        host_.ended(id, store::SessionEnd::protocol, why);
    } else if (p.bye_exit >= 0) {
        host_.ended(id, end_of_exit(p.bye_exit), p.bye_message);
    } else if (s->stop_requested() && stopping_) {
        host_.ended(id, store::SessionEnd::killed, "connection closed without BYE after STOP: " + why);
    } else {
        host_.ended(id, store::SessionEnd::disconnected, "connection closed without BYE: " + why);
    }
    send_watch(p.info.host);
}

}  // namespace seatmark::orchestrator
