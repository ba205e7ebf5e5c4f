#include "orchestrator/live_api.h"

#include <utility>  // before Asio

#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <ctime>

#include "common/clock.h"
#include "common/errors.h"
#include "orchestrator/live_events.h"
#include "orchestrator/live_http.h"
#include "core/live_json.h"
#include "orchestrator/live_metrics.h"
#include "orchestrator/live_routes.h"

namespace seatmark::orchestrator {

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

std::chrono::milliseconds ms(double s) { return std::chrono::milliseconds(int64_t(s * 1000)); }

nlohmann::json parse_plan(const std::string& text) {
    if (text.empty()) return nullptr;
    auto j = nlohmann::json::parse(text, nullptr, false);
    return j.is_discarded() ? nlohmann::json(nullptr) : j;
}

}  // namespace

struct LiveApi::Impl {
    explicit Impl(const LiveApiOptions& o)
        : opts(o), routes(o.token, parse_plan(o.plan_json), events, history, counters) {}

    LiveApiOptions opts;
    BoundListener listener;  // until the run's loop exists
    asio::ip::tcp::endpoint endpoint;
    std::string note;

    EventStream events;
    core::LiveHistory history;
    ApiCounters counters;
    LiveRoutes routes;

    // Bound to the run's loop and owned by its pending handlers, so whatever way the
    // loop ends, its destruction frees them first.
    std::weak_ptr<HttpServer> server;
    std::weak_ptr<asio::steady_timer> ticker;
    bool finished = false;
    uint64_t ticks = 0;

    void tick();
};

void LiveApi::Impl::tick() {
    auto t = ticker.lock();
    if (!t || finished) return;
    history.add(core::history_point(routes.current_state(true)));
    if (++ticks % 15 == 0) events.ping();
    t->expires_after(1s);
    t->async_wait([this, t](boost::system::error_code ec) {
        if (!ec) tick();
    });
}

LiveApi::LiveApi(const LiveApiOptions& o) : impl_(std::make_unique<Impl>(o)) {
    ListenAddress la = parse_listen(o.listen, "--listen");
    if (!la.loopback && o.token.empty())
        throw InputError("--listen " + o.listen +
                         ": a non-loopback address exposes the live API to the network; give --token TOKEN "
                         "(clients then send 'Authorization: Bearer TOKEN'), or listen on 127.0.0.1");
    impl_->listener = bind_listener(la, o.listen, o.port_fallback);
    impl_->endpoint = impl_->listener.endpoint;
    impl_->note = impl_->listener.note;
}

LiveApi::~LiveApi() = default;

std::string LiveApi::url() const {
    auto a = impl_->endpoint.address();
    std::string host = a.is_v6() ? "[" + a.to_string() + "]" : a.to_string();
    return "http://" + host + ":" + std::to_string(impl_->endpoint.port());
}

uint16_t LiveApi::port() const { return impl_->endpoint.port(); }

const std::string& LiveApi::note() const { return impl_->note; }

size_t LiveApi::trusted_connections() const {
    auto s = impl_->server.lock();
    return s ? s->trusted() : 0;
}

size_t LiveApi::pending_connections() const {
    auto s = impl_->server.lock();
    return s ? s->pending() : 0;
}

void LiveApi::started(asio::io_context& io, LiveSource& source) {
    Impl& m = *impl_;
    m.routes.attach(source);
    if (m.listener.fd < 0) return;
    HttpLimits limits;
    limits.first_request = ms(m.opts.header_timeout_s);
    limits.request = ms(m.opts.request_timeout_s);
    limits.pending = m.opts.max_pending;
    limits.pending_per_peer = m.opts.max_pending_per_peer;
    limits.trusted = m.opts.max_trusted;
    HttpHandlers h;
    h.request = [&m](const HttpRequest& req) { return m.routes.handle(req); };
    h.event_stream = [&m](asio::ip::tcp::socket s, uint64_t last) { m.events.subscribe(std::move(s), last); };
    h.responded = [&m](int status) { ++m.counters.requests_by_code[status]; };
    m.server = HttpServer::start(io, std::move(m.listener), limits, std::move(h));
    auto t = std::make_shared<asio::steady_timer>(io, 1s);
    m.ticker = t;
    m.history.add(core::history_point(m.routes.current_state(true)));
    t->async_wait([&m, t](boost::system::error_code ec) {
        if (!ec) m.tick();
    });
}

void LiveApi::event(const core::RunEvent& e) {
    Impl& m = *impl_;
    ++m.counters.events_by_kind[core::event_kind(e)];
    m.events.publish(e, unix_now_ns());
    m.routes.state_changed();
}

void LiveApi::finished() {
    Impl& m = *impl_;
    if (m.finished) return;
    if (auto s = m.server.lock()) {
        m.routes.current_state(true);
        s->close();
    }
    m.finished = true;
    if (auto t = m.ticker.lock()) t->cancel();
    m.events.finish();
}

}  // namespace seatmark::orchestrator
