#include "orchestrator/live_api.h"

#include <utility>  // before Asio

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <optional>
#include <vector>

#include "common/clock.h"
#include "common/errors.h"
#include "core/live_json.h"
#include "orchestrator/cloexec.h"
#include "orchestrator/live_metrics.h"

namespace seatmark::orchestrator {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

namespace {

constexpr size_t header_limit = 8 * 1024;        // request line + headers
constexpr size_t buffer_limit = 16 * 1024;       // what one connection may buffer
constexpr auto sse_write_timeout = 30s;          // a subscriber that takes longer is dropped
constexpr size_t max_connections = 64;           // plain HTTP connections at once
constexpr size_t max_subscribers = 16;           // event streams at once
constexpr size_t max_sse_queue = 1 << 20;        // bytes queued for one subscriber
constexpr size_t backlog_size = 256;             // events a late subscriber can still get
constexpr size_t state_events = 50;              // recent events inside /api/v1/state
constexpr size_t frames_default = 2000, frames_limit = 10000;
constexpr int64_t state_cache_ns = 250'000'000;  // at most 4 live_state() calls a second for any load

int64_t unix_now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::string sse_text(const core::LiveEvent& e) {
    return "id: " + std::to_string(e.id) + "\nevent: " + e.kind + "\ndata: " + core::event_json(e).dump() + "\n\n";
}

// Constant-time comparison for the token.
bool same(const std::string& a, const std::string& b) {
    if (b.empty()) return false;
    unsigned char d = a.size() == b.size() ? 0 : 1;
    for (size_t i = 0; i < a.size(); ++i) d |= static_cast<unsigned char>(a[i] ^ b[i % b.size()]);
    return d == 0;
}

bool parse_uint(std::string_view s, uint64_t& out) {
    if (s.empty() || s.size() > 19) return false;
    uint64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + uint64_t(c - '0');
    }
    out = v;
    return true;
}

bool parse_seconds(std::string_view s, double& out) {
    if (s.empty() || s.size() > 24) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || c == '.' || c == '-')) return false;
    std::string t(s);
    char* end = nullptr;
    out = std::strtod(t.c_str(), &end);
    return end == t.c_str() + t.size() && std::isfinite(out);
}

struct Reply {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    bool close = false;
    bool sse = false;
    uint64_t last_event_id = 0;
};

Reply error_reply(int status, const std::string& msg) {
    Reply r;
    r.status = status;
    r.body = nlohmann::json{{"error", msg}, {"status", status}}.dump() + "\n";
    r.close = true;  // a client that got something wrong starts afresh
    return r;
}

}  // namespace

// ---------------------------------------------------------------------------

class SseClient;
class HttpConn;

struct LiveApi::Impl {
    LiveApiOptions opts;
    std::string note;
    asio::io_context bind_io;           // owns the listening socket until the run's loop exists
    std::optional<tcp::acceptor> bound;
    tcp::endpoint endpoint;

    asio::io_context* io = nullptr;
    LiveSource* source = nullptr;
    bool finished = false;
    std::weak_ptr<tcp::acceptor> acceptor;
    std::weak_ptr<asio::steady_timer> ticker;
    std::vector<std::weak_ptr<HttpConn>> conns;
    std::vector<std::weak_ptr<SseClient>> subscribers;
    size_t open_conns = 0;

    std::deque<core::LiveEvent> backlog;
    uint64_t next_event_id = 1;
    ApiCounters counters;
    core::LiveHistory history;
    nlohmann::json plan;

    std::optional<core::LiveState> state;
    int64_t state_at_ns = 0, mono_start_ns = 0;
    uint64_t ticks = 0;

    const core::LiveState& current_state(bool force = false);
    Reply handle(const http::request<http::empty_body>& req);
    Reply route(std::string_view path, std::string_view query, const http::request<http::empty_body>& req);
    void accept();
    void tick();
    void count(int status) { ++counters.requests_by_code[status]; }
    std::chrono::milliseconds request_timeout() const {
        return std::chrono::milliseconds(int64_t(opts.request_timeout_s * 1000));
    }
    void prune();
};

// One event-stream subscriber, on the socket its HTTP connection handed over.
class SseClient : public std::enable_shared_from_this<SseClient> {
public:
    SseClient(tcp::socket s) : sock_(std::move(s)), deadline_(sock_.get_executor()) {}

    void start(std::string first) {
        push(std::move(first));
        watch();
    }
    void push(std::string s) {
        if (closed_) return;
        if (queue_.empty() && !writing_) {
            // Usually the socket takes it at once; the queue is for a subscriber that lags.
            boost::system::error_code ec;
            sock_.non_blocking(true, ec);
            size_t n = ec ? 0 : sock_.write_some(asio::buffer(s), ec);
            if (ec && ec != asio::error::would_block && ec != asio::error::try_again) return close();
            if (n >= s.size()) return;
            s.erase(0, n);
        }
        if (queued_ + s.size() > max_sse_queue) return close();  // it stopped reading
        queued_ += s.size();
        queue_.push_back(std::move(s));
        if (!writing_) write_next();
    }
    // Best effort, without blocking: what fits into the socket's buffer now.
    void flush_now() {
        if (closed_) return;
        boost::system::error_code ec;
        sock_.non_blocking(true, ec);
        // The front is in flight when a write is pending (it may have gone out already).
        for (size_t i = writing_ ? 1 : 0; i < queue_.size(); ++i) {
            const std::string& s = queue_[i];
            size_t off = 0;
            while (off < s.size()) {
                size_t n = sock_.write_some(asio::buffer(s.data() + off, s.size() - off), ec);
                if (ec) return;
                off += n;
            }
        }
    }
    void close() {
        if (closed_) return;
        closed_ = true;
        boost::system::error_code ec;
        sock_.shutdown(tcp::socket::shutdown_both, ec);
        sock_.close(ec);
        deadline_.cancel();
        queue_.clear();
    }
    bool closed() const { return closed_; }

private:
    void write_next() {
        writing_ = true;
        deadline_.expires_after(sse_write_timeout);
        deadline_.async_wait([w = weak_from_this()](boost::system::error_code ec) {
            if (auto self = w.lock(); self && !ec) self->close();
        });
        asio::async_write(sock_, asio::buffer(queue_.front()),
                          [self = shared_from_this()](boost::system::error_code ec, size_t) {
                              self->on_written(ec);
                          });
    }
    void on_written(boost::system::error_code ec) {
        writing_ = false;
        deadline_.cancel();
        if (ec || closed_) return close();
        queued_ -= queue_.front().size();
        queue_.pop_front();
        if (!queue_.empty()) write_next();
    }
    // The client says nothing after its request; reading only notices it leaving.
    void watch() {
        sock_.async_read_some(asio::buffer(scratch_), [self = shared_from_this()](boost::system::error_code ec, size_t) {
            if (ec)
                self->close();
            else
                self->watch();
        });
    }

    tcp::socket sock_;
    asio::steady_timer deadline_;
    std::deque<std::string> queue_;
    size_t queued_ = 0;
    bool writing_ = false, closed_ = false;
    char scratch_[512];
};

// One HTTP/1.1 connection: reads requests (keep-alive), answers each, or hands
// the socket to an SseClient for /api/v1/events.
class HttpConn : public std::enable_shared_from_this<HttpConn> {
public:
    HttpConn(tcp::socket s, LiveApi::Impl* api) : stream_(std::move(s)), buffer_(buffer_limit), api_(api) {
        ++api_->open_conns;
    }
    ~HttpConn() { --api_->open_conns; }

    void start() { read(); }
    void close() {
        boost::system::error_code ec;
        stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
        stream_.close();
    }

private:
    void read() {
        parser_.emplace();
        parser_->header_limit(header_limit);
        stream_.expires_after(api_->request_timeout());
        http::async_read(stream_, buffer_, *parser_,
                         [self = shared_from_this()](boost::system::error_code ec, size_t) { self->on_read(ec); });
    }

    void on_read(boost::system::error_code ec) {
        if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == beast::error::timeout ||
            ec == asio::error::operation_aborted || ec == asio::error::connection_reset) {
            close();
            return;
        }
        if (api_->finished) return close();
        if (ec) {
            int status = (ec == http::error::header_limit || ec == http::error::buffer_overflow) ? 431
                         : ec == http::error::unexpected_body || ec == http::error::body_limit ? 413
                                                                                                : 400;
            const char* what = status == 431   ? "request headers larger than 8 KiB"
                               : status == 413 ? "the live API accepts no request body"
                                               : "malformed HTTP request";
            Reply r = error_reply(status, what);
            r.close = true;
            send(std::move(r), 11, false);
            return;
        }
        const auto& req = parser_->get();
        Reply r = api_->handle(req);
        if (r.sse && req.method() == http::verb::get) return upgrade(r.last_event_id);
        send(std::move(r), req.version(), req.method() == http::verb::head, req.keep_alive());
    }

    void send(Reply r, unsigned version, bool head, bool keep_alive = false) {
        api_->count(r.status);
        auto res = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(r.status), version);
        res->set(http::field::server, "seatmark");
        res->set(http::field::content_type, r.content_type);
        res->set(http::field::cache_control, "no-store");
        res->set("X-Content-Type-Options", "nosniff");
        for (auto& [k, v] : r.headers) res->set(k, v);
        res->keep_alive(keep_alive && !r.close);
        res->body() = std::move(r.body);
        res->prepare_payload();
        if (head) res->body().clear();  // HEAD: the length of what GET would send, no body
        stream_.expires_after(api_->request_timeout());
        http::async_write(stream_, *res, [self = shared_from_this(), res](boost::system::error_code ec, size_t) {
            if (ec || !res->keep_alive() || self->api_->finished)
                self->close();
            else
                self->read();
        });
    }

    void upgrade(uint64_t last_event_id);

    beast::tcp_stream stream_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::empty_body>> parser_;
    LiveApi::Impl* api_;
};

void HttpConn::upgrade(uint64_t last_event_id) {
    api_->prune();
    if (api_->subscribers.size() >= max_subscribers) {
        Reply r = error_reply(503, "too many event-stream subscribers");
        r.close = true;
        send(std::move(r), 11, false);
        return;
    }
    api_->count(200);
    std::string first =
        "HTTP/1.1 200 OK\r\nServer: seatmark\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
        "X-Accel-Buffering: no\r\nConnection: close\r\n\r\nretry: 2000\n\n";
    for (const auto& e : api_->backlog)
        if (e.id > last_event_id) first += sse_text(e);
    stream_.expires_never();
    auto client = std::make_shared<SseClient>(stream_.release_socket());
    api_->subscribers.push_back(client);
    client->start(std::move(first));
}

// ---------------------------------------------------------------------------

const core::LiveState& LiveApi::Impl::current_state(bool force) {
    int64_t t = now_ns();
    if (!state || force || t - state_at_ns >= state_cache_ns) {
        state = source->live_state();
        state_at_ns = now_ns();
        mono_start_ns = state_at_ns - int64_t(state->elapsed_s * 1e9);
    }
    return *state;
}

void LiveApi::Impl::prune() {
    std::erase_if(subscribers, [](const std::weak_ptr<SseClient>& w) {
        auto s = w.lock();
        return !s || s->closed();
    });
    std::erase_if(conns, [](const std::weak_ptr<HttpConn>& w) { return w.expired(); });
}

Reply LiveApi::Impl::handle(const http::request<http::empty_body>& req) {
    if (!opts.token.empty()) {
        auto it = req.find(http::field::authorization);
        std::string got = it == req.end() ? std::string() : std::string(it->value());
        if (!same(got, "Bearer " + opts.token)) {
            Reply r = error_reply(401, "this API needs the header 'Authorization: Bearer TOKEN' (seatmark run --token)");
            r.headers.push_back({"WWW-Authenticate", "Bearer realm=\"seatmark\""});
            return r;
        }
    }
    if (req.method() != http::verb::get && req.method() != http::verb::head) {
        Reply r = error_reply(405, "the live API is read-only: GET or HEAD");
        r.headers.push_back({"Allow", "GET, HEAD"});
        return r;
    }
    std::string_view target = req.target();
    if (target.empty() || target.front() != '/') return error_reply(400, "the request target must be a path");
    auto q = target.find('?');
    std::string_view path = target.substr(0, q);
    std::string_view query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
    return route(path, query, req);
}

Reply LiveApi::Impl::route(std::string_view path, std::string_view query,
                           const http::request<http::empty_body>& req) {
    // The query: known keys only, each once, plain values.
    std::vector<std::pair<std::string_view, std::string_view>> params;
    for (size_t start = 0; start < query.size();) {
        size_t end = query.find('&', start);
        if (end == std::string_view::npos) end = query.size();
        std::string_view kv = query.substr(start, end - start);
        size_t eq = kv.find('=');
        if (kv.empty() || eq == std::string_view::npos) return error_reply(400, "bad query: expected key=value pairs");
        params.push_back({kv.substr(0, eq), kv.substr(eq + 1)});
        start = end + 1;
    }
    auto check_keys = [&](std::initializer_list<std::string_view> allowed) -> std::optional<Reply> {
        for (size_t i = 0; i < params.size(); ++i) {
            bool known = false;
            for (auto a : allowed) known = known || params[i].first == a;
            if (!known)
                return error_reply(400, "bad query: unknown parameter '" + std::string(params[i].first.substr(0, 40)) + "'");
            for (size_t k = 0; k < i; ++k)
                if (params[k].first == params[i].first)
                    return error_reply(400, "bad query: '" + std::string(params[i].first) + "' given twice");
        }
        return std::nullopt;
    };
    auto param = [&](std::string_view key) -> std::optional<std::string_view> {
        for (auto& [k, v] : params)
            if (k == key) return v;
        return std::nullopt;
    };

    Reply r;
    if (path == "/api/v1/state") {
        if (auto e = check_keys({})) return *e;
        const core::LiveState& s = current_state();
        std::deque<core::LiveEvent> recent;
        for (size_t i = backlog.size() > state_events ? backlog.size() - state_events : 0; i < backlog.size(); ++i)
            recent.push_back(backlog[i]);
        r.body = core::state_json(s, mono_start_ns, recent, plan).dump() + "\n";
        return r;
    }
    if (path == "/api/v1/frames") {
        if (auto e = check_keys({"session", "since", "max"})) return *e;
        uint64_t session = 0, since = 0, max = frames_default;
        auto sv = param("session");
        if (!sv) return error_reply(400, "bad query: session=N is required");
        if (!parse_uint(*sv, session) || session > UINT32_MAX)
            return error_reply(400, "bad query: session must be a session number");
        if (auto v = param("since"); v && !parse_uint(*v, since))
            return error_reply(400, "bad query: since must be a frame sequence number");
        if (auto v = param("max"); v && (!parse_uint(*v, max) || max < 1 || max > frames_limit))
            return error_reply(400, "bad query: max must be 1.." + std::to_string(frames_limit));
        const core::LiveState& s = current_state();
        bool known = false;
        for (const auto& x : s.sessions) known = known || x.id == session;
        if (!known) return error_reply(404, "no session " + std::to_string(session) + " in this run");
        auto frames = source->live_frames(static_cast<uint32_t>(session), since, max);
        r.body = core::frames_json(static_cast<uint32_t>(session), since, frames, max).dump() + "\n";
        return r;
    }
    if (path == "/api/v1/history") {
        if (auto e = check_keys({"since"})) return *e;
        double since = -1;
        if (auto v = param("since"); v && !parse_seconds(*v, since))
            return error_reply(400, "bad query: since must be seconds since the run started");
        r.body = core::history_json(history.points(), since, history.spacing_s()).dump() + "\n";
        return r;
    }
    if (path == "/api/v1/events") {
        if (auto e = check_keys({})) return *e;
        r.sse = true;
        r.content_type = "text/event-stream";
        auto it = req.find("Last-Event-ID");
        if (it != req.end()) {
            uint64_t id = 0;
            if (!parse_uint(std::string_view(it->value().data(), it->value().size()), id))
                return error_reply(400, "bad Last-Event-ID: expected an event id");
            r.last_event_id = id;
        }
        return r;  // a HEAD gets the headers only
    }
    if (path == "/metrics") {
        if (auto e = check_keys({})) return *e;
        r.content_type = "text/plain; version=0.0.4; charset=utf-8";
        r.body = prometheus_text(current_state(), counters);
        return r;
    }
    if (path == "/" || path == "/api/v1") {
        if (auto e = check_keys({})) return *e;
        r.body = nlohmann::json{{"service", "seatmark live API"},
                                {"docs", "docs/live-api.md"},
                                {"endpoints",
                                 {"/api/v1/state", "/api/v1/frames?session=N&since=SEQ&max=M",
                                  "/api/v1/history?since=SECONDS", "/api/v1/events", "/metrics"}}}
                     .dump(2) +
                 "\n";
        return r;
    }
    return error_reply(404, "no such endpoint; see / for the list");
}

void LiveApi::Impl::accept() {
    auto acc = acceptor.lock();
    if (!acc) return;
    acc->async_accept([this, acc](boost::system::error_code ec, tcp::socket s) {
        if (ec == asio::error::operation_aborted || finished) return;
        if (!ec) {
            if (open_conns >= max_connections) {
                boost::system::error_code ig;
                s.close(ig);  // full: the client retries later
            } else {
                mark_cloexec(s.native_handle());
                auto c = std::make_shared<HttpConn>(std::move(s), this);
                conns.push_back(c);
                c->start();
            }
        } else {
            // Out of file descriptors and the like: the connection stays queued, so accepting
            // again at once would spin the event loop; retry in 100 ms.
            auto retry = std::make_shared<asio::steady_timer>(acc->get_executor(), std::chrono::milliseconds(100));
            retry->async_wait([this, retry](boost::system::error_code e) {
                if (!e && !finished) accept();
            });
            return;
        }
        accept();
    });
}

void LiveApi::Impl::tick() {
    auto t = ticker.lock();
    if (!t || finished) return;
    history.add(core::history_point(current_state(true)));
    if (++ticks % 15 == 0) {  // keeps idle event streams open through proxies, and notices dead ones
        prune();
        for (auto& w : subscribers)
            if (auto s = w.lock()) s->push(": ping\n\n");
    }
    t->expires_after(1s);
    t->async_wait([this, t](boost::system::error_code ec) {
        if (!ec) tick();
    });
}

// ---------------------------------------------------------------------------

ListenAddress parse_listen(const std::string& text) {
    auto bad = [&](const std::string& why) {
        return InputError("--listen " + text + ": " + why + " (expected HOST:PORT, e.g. 127.0.0.1:7878 or [::1]:0)");
    };
    std::string host, port;
    if (!text.empty() && text.front() == '[') {
        auto close = text.find(']');
        if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
            throw bad("an IPv6 address needs brackets and a port");
        host = text.substr(1, close - 1);
        port = text.substr(close + 2);
    } else {
        auto colon = text.rfind(':');
        if (colon == std::string::npos) throw bad("no port");
        host = text.substr(0, colon);
        port = text.substr(colon + 1);
    }
    if (host == "localhost") host = "127.0.0.1";
    boost::system::error_code ec;
    auto addr = asio::ip::make_address(host, ec);
    if (ec) throw bad("'" + host + "' is not an IP address");
    uint64_t p = 0;
    if (!parse_uint(port, p) || p > 65535) throw bad("port must be 0..65535");
    return {addr.to_string(), static_cast<uint16_t>(p), addr.is_loopback()};
}

LiveApi::LiveApi(const LiveApiOptions& o) : impl_(std::make_unique<Impl>()) {
    impl_->opts = o;
    if (!o.plan_json.empty()) impl_->plan = nlohmann::json::parse(o.plan_json, nullptr, false);
    if (impl_->plan.is_discarded()) impl_->plan = nullptr;
    ListenAddress la = parse_listen(o.listen);
    if (!la.loopback && o.token.empty())
        throw InputError("--listen " + o.listen +
                         ": a non-loopback address exposes the live API to the network; give --token TOKEN "
                         "(clients then send 'Authorization: Bearer TOKEN'), or listen on 127.0.0.1");
    auto addr = asio::ip::make_address(la.host);
    std::vector<uint16_t> tries = {la.port};
    if (o.port_fallback && la.port != 0) {
        for (uint16_t k = 1; k <= 9 && la.port + k <= 65535; ++k) tries.push_back(static_cast<uint16_t>(la.port + k));
        tries.push_back(0);
    }
    boost::system::error_code ec;
    for (uint16_t p : tries) {
        tcp::acceptor a(impl_->bind_io);
        tcp::endpoint ep(addr, p);
        a.open(ep.protocol(), ec);
        if (ec) break;
        mark_cloexec(a.native_handle());
        a.set_option(asio::socket_base::reuse_address(true), ec);
        a.bind(ep, ec);
        if (ec == asio::error::address_in_use) continue;
        if (ec) break;
        a.listen(asio::socket_base::max_listen_connections, ec);
        if (ec) break;
        impl_->endpoint = a.local_endpoint();
        impl_->bound.emplace(std::move(a));
        break;
    }
    if (!impl_->bound)
        throw InputError("--listen " + o.listen + ": cannot listen there: " +
                         (ec ? ec.message() : std::string("every port tried is taken")));
    if (impl_->endpoint.port() != la.port && la.port != 0)
        impl_->note = "port " + std::to_string(la.port) + " is taken (another run?); listening on port " +
                      std::to_string(impl_->endpoint.port()) + " instead";
}

LiveApi::~LiveApi() = default;

std::string LiveApi::url() const {
    auto a = impl_->endpoint.address();
    std::string host = a.is_v6() ? "[" + a.to_string() + "]" : a.to_string();
    return "http://" + host + ":" + std::to_string(impl_->endpoint.port());
}

uint16_t LiveApi::port() const { return impl_->endpoint.port(); }

const std::string& LiveApi::note() const { return impl_->note; }

void LiveApi::started(asio::io_context& io, LiveSource& source) {
    Impl& m = *impl_;
    m.io = &io;
    m.source = &source;
    if (!m.bound) return;
    auto proto = m.endpoint.protocol();
    auto fd = m.bound->release();
    m.bound.reset();
    // Everything bound to the run's loop is owned by its pending handlers (the API keeps weak
    // references), so whatever way the loop ends, its destruction frees them first.
    auto acc = std::make_shared<tcp::acceptor>(io, proto, fd);
    m.acceptor = acc;
    m.accept();
    auto t = std::make_shared<asio::steady_timer>(io, 1s);
    m.ticker = t;
    m.history.add(core::history_point(m.current_state(true)));
    t->async_wait([&m, t](boost::system::error_code ec) {
        if (!ec) m.tick();
    });
}

void LiveApi::event(const std::string& kind, const std::string& json) {
    Impl& m = *impl_;
    core::LiveEvent e;
    e.id = m.next_event_id++;
    e.t_unix_ns = unix_now_ns();
    e.kind = kind;
    e.data = nlohmann::json::parse(json, nullptr, false);
    if (e.data.is_discarded()) e.data = nlohmann::json{{"text", json}};
    ++m.counters.events_by_kind[kind];
    m.backlog.push_back(e);
    while (m.backlog.size() > backlog_size) m.backlog.pop_front();
    m.state.reset();  // the next request sees what the event changed
    if (m.finished) return;
    std::string text = sse_text(e);
    m.prune();
    for (auto& w : m.subscribers)
        if (auto s = w.lock()) s->push(text);
}

void LiveApi::finished() {
    Impl& m = *impl_;
    if (m.finished) return;
    if (m.source) m.current_state(true);
    m.finished = true;
    boost::system::error_code ec;
    if (auto a = m.acceptor.lock()) a->close(ec);
    if (auto t = m.ticker.lock()) t->cancel();
    for (auto& w : m.subscribers)
        if (auto s = w.lock()) {
            s->flush_now();  // the run-end event reaches subscribers before the loop stops
            s->close();
        }
    for (auto& w : m.conns)
        if (auto c = w.lock()) c->close();
    m.subscribers.clear();
    m.conns.clear();
}

}  // namespace seatmark::orchestrator
