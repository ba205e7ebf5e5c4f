#include "orchestrator/launcher_hub.h"

#include <algorithm>
#include <climits>

namespace seatmark::orchestrator {

void LauncherHub::joined(uint64_t conn, const std::string& name, const std::string& address) {
    Launcher& l = launchers_[conn];
    l.name = name;
    l.address = address;
    // Two launchers on one machine keep apart in the rows: the second is NAME#2.
    size_t same = 0;
    for (const auto& [c, o] : launchers_)
        if (c != conn && (o.name == name || o.name.rfind(name + "#", 0) == 0)) ++same;
    if (same) l.name = name + "#" + std::to_string(same + 1);
    if (io_.event) io_.event(std::nullopt, "launcher-joined", "launcher " + l.name + " from " + address);
}

uint32_t LauncherHub::pending() const {
    uint32_t n = 0;
    for (const auto& [c, l] : launchers_) n += l.asked;
    for (const auto& [id, l] : logons_)
        if (!l.ended && !l.row.session_id) ++n;
    return n;
}

bool LauncherHub::ask(uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) {
        if (stopping_) return false;
        Launcher* best = nullptr;
        uint64_t best_conn = 0;
        for (auto& [c, l] : launchers_) {
            if (l.out_of_users) continue;
            if (!best || l.open + l.asked < best->open + best->asked) {
                best = &l;
                best_conn = c;
            }
        }
        if (!best) return false;
        ++best->asked;
        io_.send(best_conn, join::Logon{1});
    }
    return true;
}

void LauncherHub::stop_all() { stopping_ = true; }

LauncherHub::LogonRec* LauncherHub::find_logon(uint64_t conn, const std::string& host, const std::string& user,
                                               bool open_only) {
    // The newest logon of that user through that launcher (a user logs on once at a time).
    for (auto it = logons_.rbegin(); it != logons_.rend(); ++it) {
        LogonRec& l = it->second;
        if (l.conn == conn && l.row.user == user && (!open_only || !l.ended) && (l.row.host == host || l.row.session_id))
            return &l;
    }
    return nullptr;
}

void LauncherHub::message(uint64_t conn, join::JoinMessage&& m) {
    if (!launchers_.count(conn)) return;
    if (auto* s = std::get_if<join::LogonState>(&m)) on_state(conn, std::move(*s));
    else if (auto* a = std::get_if<join::Arrivals>(&m)) on_arrivals(conn, std::move(*a));
}

void LauncherHub::on_state(uint64_t conn, join::LogonState&& s) {
    Launcher& la = launchers_.at(conn);
    if (s.state == join::LogonState::connecting) {
        if (la.asked) --la.asked;
        ++la.open;
        LogonRec& l = logons_[next_logon_];
        l.conn = conn;
        l.row.id = next_logon_++;
        l.row.launcher = la.name;
        l.row.rdp_host = s.rdp_host;
        l.row.host = s.host;
        l.row.user = s.user;
        l.row.connect_ns = s.t_ns;
        store(l);
        if (io_.event)
            io_.event(std::nullopt, "logon-started",
                      "logon " + std::to_string(l.row.id) + ": launcher " + la.name + " connects to " + s.rdp_host +
                          " as " + s.user);
        return;
    }
    if (s.fault == "no-user") {
        if (la.asked) --la.asked;
        la.out_of_users = true;
        if (io_.event) io_.event(std::nullopt, "launcher-out-of-users", "launcher " + la.name + ": " + s.detail);
        if (on_shortfall) on_shortfall();
        return;
    }
    LogonRec* l = find_logon(conn, s.host, s.user, true);
    if (!l) {
        // Closed when the run ended its session (session_ended): what the launcher counted to
        // the end still belongs in the row.
        if (LogonRec* c = find_logon(conn, s.host, s.user, false); c && c->closed_at_stop) {
            c->row.codec = s.codec;
            c->row.payload_bytes = s.payload_bytes;
            c->row.paints = s.paints;
            c->row.unreadable = s.unreadable;
            c->row.bytes_per_s = s.bytes_per_s > 0 ? s.bytes_per_s : NAN;
            c->row.ended_ns = s.t_ns;
            if (s.fault != "logged-off" && s.fault != "none") {
                c->row.fault = s.fault;
                c->row.fault_detail = s.detail;
            }
            store(*c);
        }
        return;
    }
    l->ended = true;
    if (la.open) --la.open;
    auto& r = l->row;
    r.ended_ns = s.t_ns;
    const bool asked_off = l->stopped_by_run || stopping_;
    // The run stopped the session, so its desktop ended: logged off on purpose, not a fault.
    r.fault = asked_off && s.fault == "logged-off" ? "none" : s.fault;
    r.fault_detail = r.fault == "none" && s.fault == "logged-off" ? "logged off after the run stopped its session" : s.detail;
    r.codec = s.codec;
    r.payload_bytes = s.payload_bytes;
    r.paints = s.paints;
    r.unreadable = s.unreadable;
    r.bytes_per_s = s.bytes_per_s > 0 ? s.bytes_per_s : NAN;
    finish_figures(*l);
    store(*l);
    if (r.fault != "none" && io_.event)
        io_.event(r.session_id ? std::optional<uint32_t>(uint32_t(*r.session_id)) : std::nullopt, "logon-fault",
                  "logon " + std::to_string(r.id) + " (" + r.user + " via launcher " + r.launcher + " to " + r.rdp_host +
                      "): " + r.fault + ": " + r.fault_detail);
    if (!r.session_id && on_shortfall) on_shortfall();
}

void LauncherHub::on_arrivals(uint64_t conn, join::Arrivals&& a) {
    LogonRec* l = find_logon(conn, a.host, a.user, false);
    if (!l) return;
    l->row.codec = a.codec;
    l->row.payload_bytes = a.payload_bytes;
    if (!l->row.session_id) return;  // not matched to a session: nothing to measure against
    const uint32_t id = uint32_t(*l->row.session_id);
    Track& t = tracks_[id];
    store::EndpointBatch b;
    b.session_id = int(id);
    for (const auto& x : a.arrivals) {
        t.series.arrivals.push_back({x.seq, x.t_ns});
        b.arrivals.push_back({x.seq, x.t_ns});
        if (!l->first_arrival_ns) l->first_arrival_ns = x.t_ns;
    }
    for (const auto& x : a.ssim) {
        t.series.ssim.push_back({x.seq, x.ssim});
        b.ssim.push_back({x.seq, x.ssim});
    }
    if (io_.store_batch) io_.store_batch(std::move(b));
}

void LauncherHub::session_activated(uint32_t id, const std::string& host, const std::string& user) {
    LogonRec* match = nullptr;
    // (host, user) first; then the user alone: a launcher may name the RDP host by address
    // while the session names its machine.
    for (int pass = 0; pass < 2 && !match; ++pass)
        for (auto& [n, l] : logons_)
            if (!l.ended && !l.row.session_id && l.row.user == user && (pass == 1 || l.row.host == host)) {
                match = &l;
                break;
            }
    if (!match) return;
    match->row.session_id = int(id);
    match->row.host = host;
    tracks_[id].logon = match->row.id;
    store(*match);
    if (io_.event)
        io_.event(id, "logon-matched",
                  "session " + std::to_string(id) + " is logon " + std::to_string(match->row.id) + " (" + user +
                      " via launcher " + match->row.launcher + ")");
}

void LauncherHub::session_hello(uint32_t id, int64_t t_ns) {
    auto t = tracks_.find(id);
    if (t == tracks_.end()) return;
    auto l = logons_.find(t->second.logon);
    if (l == logons_.end()) return;
    l->second.row.logon_ms = double(t_ns - l->second.row.connect_ns) * 1e-6;
    store(l->second);
}

void LauncherHub::session_frames(uint32_t id, const std::vector<FrameRecord>& frames) {
    auto t = tracks_.find(id);
    if (t == tracks_.end()) return;
    for (const auto& f : frames) t->second.presents.emplace_back(f.seq, f.t_present_ns);
}

void LauncherHub::session_stopping(uint32_t id) {
    auto t = tracks_.find(id);
    if (t == tracks_.end()) return;
    auto l = logons_.find(t->second.logon);
    if (l == logons_.end() || l->second.ended) return;
    l->second.stopped_by_run = true;
    io_.send(l->second.conn, join::Logoff{l->second.row.user});
}

void LauncherHub::session_ended(uint32_t id) {
    auto t = tracks_.find(id);
    if (t == tracks_.end()) return;
    t->second.ended = true;
    auto l = logons_.find(t->second.logon);
    if (l == logons_.end()) return;
    finish_figures(l->second);
    if (stopping_ && !l->second.ended) {
        // The run is ending and will not wait for the launcher's logoff: the logon ends with its
        // session, as asked (the launcher's last word updates the row if it still arrives).
        LogonRec& r = l->second;
        r.ended = r.closed_at_stop = true;
        r.row.ended_ns = io_.now ? io_.now() : 0;
        r.row.fault = "none";
        r.row.fault_detail = "the run ended its session; the launcher logs the desktop off";
        if (auto la = launchers_.find(r.conn); la != launchers_.end() && la->second.open) --la->second.open;
    }
    store(l->second);
}

void LauncherHub::finish_figures(LogonRec& l) {
    if (!l.row.session_id) return;
    auto t = tracks_.find(uint32_t(*l.row.session_id));
    if (t == tracks_.end() || t->second.presents.empty()) return;
    std::vector<FrameRecord> frames;
    frames.reserve(t->second.presents.size());
    for (const auto& [seq, present] : t->second.presents) {
        FrameRecord f;
        f.seq = seq;
        f.t_present_ns = present;
        frames.push_back(f);
    }
    // Whole life: from its first present to its last, the time the user could see frames.
    const double span_s = double(frames.back().t_present_ns - frames.front().t_present_ns) * 1e-9;
    l.row.figures = core::endpoint_figures(frames, t->second.series.arrivals, t->second.series.ssim, span_s);
}

void LauncherHub::closed(uint64_t conn, const std::string& why) {
    auto it = launchers_.find(conn);
    if (it == launchers_.end()) return;
    const std::string name = it->second.name;
    bool shortfall = false;
    for (auto& [n, l] : logons_) {
        if (l.conn != conn || l.ended) continue;
        l.ended = true;
        l.row.ended_ns = io_.now ? io_.now() : 0;
        l.row.fault = stopping_ ? "none" : "launcher-lost";
        l.row.fault_detail = "launcher " + name + " left the run: " + why;
        finish_figures(l);
        store(l);
        shortfall = shortfall || !l.row.session_id;
    }
    launchers_.erase(it);
    if (!stopping_ && io_.event) io_.event(std::nullopt, "launcher-left", "launcher " + name + ": " + why);
    if (shortfall && on_shortfall) on_shortfall();
}

std::optional<uint32_t> LauncherHub::session_for(uint64_t conn, const std::string& host, const std::string& user) {
    const LogonRec* l = find_logon(conn, host, user, false);
    if (!l || !l->row.session_id) return std::nullopt;
    return uint32_t(*l->row.session_id);
}

std::optional<std::pair<uint64_t, std::string>> LauncherHub::launcher_of(uint32_t session) const {
    auto t = tracks_.find(session);
    if (t == tracks_.end()) return std::nullopt;
    auto l = logons_.find(t->second.logon);
    if (l == logons_.end() || !launchers_.count(l->second.conn)) return std::nullopt;
    return std::make_pair(l->second.conn, l->second.row.user);
}

const core::EndpointSeries* LauncherHub::series(uint32_t id) const {
    auto t = tracks_.find(id);
    return t == tracks_.end() ? nullptr : &t->second.series;
}

const store::EndpointLogonRow* LauncherHub::logon_of(uint32_t id) const {
    auto t = tracks_.find(id);
    if (t == tracks_.end()) return nullptr;
    auto l = logons_.find(t->second.logon);
    return l == logons_.end() ? nullptr : &l->second.row;
}

}  // namespace seatmark::orchestrator
