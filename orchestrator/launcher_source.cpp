// JoinSessionSource's launchers (`seatmark launch --join`): the hub that keeps their logons
// (orchestrator/launcher_hub.h) wired to the listener and the run, and what launchers send.
#include "common/clock.h"
#include "orchestrator/join_source.h"

namespace seatmark::orchestrator {

void JoinSessionSource::make_hub() {
    LauncherHub::Io io;
    io.send = [this](uint64_t conn, const join::JoinMessage& m) { listener_->send(conn, m); };
    io.store_logon = [this](const store::EndpointLogonRow& r) { host_.add_endpoint_logon(r); };
    io.store_batch = [this](store::EndpointBatch b) { host_.add_endpoint_batch(std::move(b)); };
    io.event = [this](std::optional<uint32_t> s, const std::string& kind, const std::string& detail) { event(s, kind, detail); };
    io.now = [] { return now_ns(); };
    hub_ = std::make_unique<LauncherHub>(std::move(io));
    // A logon that ended before its session joined (or a launcher out of test users) leaves the
    // step short: ask the launchers again.
    hub_->on_shortfall = [this] { fill(); };
}

// While a step is starting, launchers open logons for what neither the active sessions, the
// ones waiting nor the logons already under way will bring. Not between steps: as spawn mode
// replaces failed sessions only when a step starts, so do launchers.
void JoinSessionSource::ask_launchers() {
    if (!filling_ || stopping_ || !hub_->launchers()) return;
    const uint32_t coming = active() + uint32_t(waiting_.size()) + hub_->pending();
    if (want_ > coming) hub_->ask(want_ - coming);
}

void JoinSessionSource::on_launcher(uint64_t conn, join::JoinMessage&& m) {
    auto it = peers_.find(conn);
    if (it == peers_.end()) return;
    Peer& p = it->second;
    if (p.info.role == join::Role::launcher) {
        // A reference on request: asked of the session the logon carries, over its connection.
        if (auto* a = std::get_if<join::RefAsk>(&m)) {
            const auto sid = hub_->session_for(conn, a->host, a->user);
            auto c = sid ? conn_of_.find(*sid) : conn_of_.end();
            if (c != conn_of_.end()) listener_->send(c->second, *a);
            return;
        }
        hub_->message(conn, std::move(m));
        return;
    }
    // A session's REFERENCE goes to the launcher whose logon carries it, under that logon's user.
    if (auto* r = std::get_if<join::Reference>(&m); r && p.session)
        if (auto dest = hub_->launcher_of(*p.session)) {
            r->user = dest->second;
            listener_->send(dest->first, std::move(*r));
        }
}

}  // namespace seatmark::orchestrator
