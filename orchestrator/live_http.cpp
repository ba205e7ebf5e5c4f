#include "orchestrator/live_http.h"

#include <utility>  // before Asio

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>

#include "common/errors.h"
#include "core/live_json.h"
#include "orchestrator/cloexec.h"

namespace seatmark::orchestrator {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {
constexpr size_t buffer_limit = 16 * 1024;  // what one connection may buffer
}

HttpReply error_reply(int status, const std::string& msg) {
    HttpReply r;
    r.status = status;
    r.body = core::json_text({{"error", msg}, {"status", status}}) + "\n";
    r.close = true;
    return r;
}

void limit_request(RequestParser& p) {
    p.header_limit(request_header_limit);  // empty_body refuses any body, sized or chunked
}

boost::system::error_code request_complete(const RequestParser& p) {
    // After its header a request without a body is done; one with Content-Length > 0 or
    // chunked is not, and its body is never read.
    if (!p.is_header_done()) return http::error::need_more;
    return p.is_done() ? boost::system::error_code() : boost::system::error_code(http::error::unexpected_body);
}

HttpReply unreadable_reply(boost::system::error_code ec) {
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow)
        return error_reply(431, "request headers larger than 8 KiB");
    if (ec == http::error::unexpected_body || ec == http::error::body_limit)
        return error_reply(413, "the live API accepts no request body");
    return error_reply(400, "malformed HTTP request");
}

// ---------------------------------------------------------------------------

BoundListener::BoundListener(BoundListener&& o) noexcept
    : endpoint(o.endpoint), fd(std::exchange(o.fd, -1)), note(std::move(o.note)) {}

BoundListener& BoundListener::operator=(BoundListener&& o) noexcept {
    if (this != &o) {
        if (fd >= 0) ::close(fd);
        endpoint = o.endpoint;
        fd = std::exchange(o.fd, -1);
        note = std::move(o.note);
    }
    return *this;
}

BoundListener::~BoundListener() {
    if (fd >= 0) ::close(fd);
}

BoundListener bind_listener(const ListenAddress& where, const std::string& listen_text, bool port_fallback) {
    asio::io_context io;  // only to open the socket; the run's loop adopts the descriptor
    auto addr = asio::ip::make_address(where.host);
    std::vector<uint16_t> tries = {where.port};
    if (port_fallback && where.port != 0) {
        for (uint16_t k = 1; k <= 9 && where.port + k <= 65535; ++k)
            tries.push_back(static_cast<uint16_t>(where.port + k));
        tries.push_back(0);
    }
    boost::system::error_code ec;
    BoundListener out;
    for (uint16_t p : tries) {
        tcp::acceptor a(io);
        tcp::endpoint ep(addr, p);
        a.open(ep.protocol(), ec);
        if (ec) break;
        mark_cloexec(a.native_handle());  // a session the run starts must not inherit the API's port
        a.set_option(asio::socket_base::reuse_address(true), ec);
        a.bind(ep, ec);
        if (ec == asio::error::address_in_use) continue;
        if (ec) break;
        a.listen(asio::socket_base::max_listen_connections, ec);
        if (ec) break;
        out.endpoint = a.local_endpoint();
        out.fd = a.release();
        break;
    }
    if (out.fd < 0)
        throw InputError("--listen " + listen_text + ": cannot listen there: " +
                         (ec ? ec.message() : std::string("every port tried is taken")));
    if (out.endpoint.port() != where.port && where.port != 0)
        out.note = "port " + std::to_string(where.port) + " is taken (another run?); listening on port " +
                   std::to_string(out.endpoint.port()) + " instead";
    return out;
}

// ---------------------------------------------------------------------------

// One HTTP/1.1 connection: reads requests (keep-alive) and answers each, or hands
// its socket to the event stream.
class HttpConn : public std::enable_shared_from_this<HttpConn> {
public:
    enum class Stage { waiting, busy, gone };

    HttpConn(tcp::socket s, std::string peer, std::shared_ptr<HttpServer> server)
        : stream_(std::move(s)), buffer_(buffer_limit), server_(std::move(server)), peer_(std::move(peer)) {}

    void start() { read(); }
    void close() {
        if (stage_ == Stage::gone) return;
        stage_ = Stage::gone;
        boost::system::error_code ec;
        stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
        stream_.close();
    }

    Stage stage() const { return stage_; }
    bool trusted() const { return trusted_; }
    const std::string& peer() const { return peer_; }
    uint64_t waiting_since() const { return waiting_since_; }  // arrival order, for "the oldest"

private:
    void read() {
        stage_ = Stage::waiting;
        waiting_since_ = ++server_->arrivals_;
        parser_.emplace();
        limit_request(*parser_);
        // Before the token is seen, a connection has only a short while to send its request.
        stream_.expires_after(trusted_ ? server_->limits_.request : server_->limits_.first_request);
        // The header only: a request that announces a body is refused on it (request_complete).
        http::async_read_header(stream_, buffer_, *parser_,
                                [self = shared_from_this()](boost::system::error_code ec, size_t) { self->on_read(ec); });
    }

    void on_read(boost::system::error_code ec) {
        if (stage_ == Stage::gone || server_->closed_) return close();
        if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == beast::error::timeout ||
            ec == asio::error::operation_aborted || ec == asio::error::connection_reset)
            return close();
        stage_ = Stage::busy;
        if (!ec) ec = request_complete(*parser_);
        if (ec) return send(unreadable_reply(ec), 11, false, false);
        const auto& req = parser_->get();
        HttpReply r;
        try {
            r = server_->handlers_.request(req);
        } catch (const std::exception& e) {
            // One bad answer must not end the run: the exception would leave the run's event loop.
            r = error_reply(500, std::string("the live API failed to answer: ") + e.what());
        }
        bool keep = req.keep_alive() && !r.close;
        if (r.authorized && !trusted_) keep = server_->trust(*this) && keep;
        if (r.event_stream && req.method() == http::verb::get) {
            stage_ = Stage::gone;  // the event stream owns the socket now
            stream_.expires_never();
            server_->handlers_.responded(200);
            server_->handlers_.event_stream(stream_.release_socket(), r.last_event_id);
            return;
        }
        send(std::move(r), req.version(), req.method() == http::verb::head, keep);
    }

    void send(HttpReply r, unsigned version, bool head, bool keep_alive) {
        server_->handlers_.responded(r.status);
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
        stream_.expires_after(server_->limits_.request);
        http::async_write(stream_, *res, [self = shared_from_this(), res](boost::system::error_code ec, size_t) {
            if (ec || !res->keep_alive() || self->server_->closed_ || self->stage_ == Stage::gone)
                self->close();
            else
                self->read();
        });
    }

    beast::tcp_stream stream_;
    beast::flat_buffer buffer_;
    std::optional<RequestParser> parser_;
    std::shared_ptr<HttpServer> server_;
    std::string peer_;
    Stage stage_ = Stage::waiting;
    bool trusted_ = false;
    uint64_t waiting_since_ = 0;

    friend class HttpServer;
};

// ---------------------------------------------------------------------------

std::weak_ptr<HttpServer> HttpServer::start(asio::io_context& io, BoundListener listener, HttpLimits limits,
                                            HttpHandlers handlers) {
    auto s = std::make_shared<HttpServer>(io, std::move(listener), limits, std::move(handlers));
    s->accept();  // from here the pending accept owns it
    return s;
}

HttpServer::HttpServer(asio::io_context& io, BoundListener listener, HttpLimits limits, HttpHandlers handlers)
    : io_(io),
      acceptor_(io, listener.endpoint.protocol(), std::exchange(listener.fd, -1)),
      limits_(limits),
      handlers_(std::move(handlers)) {}

HttpServer::~HttpServer() = default;

void HttpServer::close() {
    if (closed_) return;
    closed_ = true;
    boost::system::error_code ec;
    acceptor_.close(ec);
    for (auto& w : conns_)
        if (auto c = w.lock()) c->close();
    conns_.clear();
}

void HttpServer::prune() {
    std::erase_if(conns_, [](const std::weak_ptr<HttpConn>& w) {
        auto c = w.lock();
        return !c || c->stage() == HttpConn::Stage::gone;
    });
}

size_t HttpServer::pending() const {
    size_t n = 0;
    for (auto& w : conns_)
        if (auto c = w.lock(); c && c->stage() != HttpConn::Stage::gone && !c->trusted()) ++n;
    return n;
}

size_t HttpServer::trusted() const {
    size_t n = 0;
    for (auto& w : conns_)
        if (auto c = w.lock(); c && c->stage() != HttpConn::Stage::gone && c->trusted()) ++n;
    return n;
}

void HttpServer::accept() {
    acceptor_.async_accept([self = shared_from_this()](boost::system::error_code ec, tcp::socket s) {
        if (ec == asio::error::operation_aborted || self->closed_) return;
        if (!ec) {
            self->admit(std::move(s));
            self->accept();
            return;
        }
        // Out of file descriptors and the like: the connection stays queued, so accepting
        // again at once would spin the event loop; retry in 100 ms.
        auto retry = std::make_shared<asio::steady_timer>(self->io_, std::chrono::milliseconds(100));
        retry->async_wait([self, retry](boost::system::error_code e) {
            if (!e && !self->closed_) self->accept();
        });
    });
}

// A new connection always gets read: when unauthenticated ones fill their budget, the
// oldest of them goes (the one from the peer holding most, within a peer's own budget
// its own oldest), so holding idle connections open cannot keep anyone else out.
void HttpServer::admit(tcp::socket s) {
    boost::system::error_code ec;
    auto remote = s.remote_endpoint(ec);
    if (ec) return;  // already gone
    mark_cloexec(s.native_handle());
    std::string peer = remote.address().to_string();
    make_room_for(peer);
    auto c = std::make_shared<HttpConn>(std::move(s), std::move(peer), shared_from_this());
    conns_.push_back(c);
    c->start();
}

void HttpServer::make_room_for(const std::string& peer) {
    prune();
    std::map<std::string, size_t> by_peer;
    size_t total = 0;
    for (auto& w : conns_)
        if (auto c = w.lock(); c && !c->trusted()) {
            ++by_peer[c->peer()];
            ++total;
        }
    std::string victim_peer;
    if (by_peer[peer] >= limits_.pending_per_peer)
        victim_peer = peer;
    else if (total >= limits_.pending)
        victim_peer = std::max_element(by_peer.begin(), by_peer.end(), [](auto& a, auto& b) {
                          return a.second < b.second;
                      })->first;
    else
        return;
    // The oldest waiting one of that peer; one being answered finishes (it closes after).
    std::shared_ptr<HttpConn> oldest;
    for (auto& w : conns_)
        if (auto c = w.lock(); c && !c->trusted() && c->peer() == victim_peer &&
                               c->stage() == HttpConn::Stage::waiting &&
                               (!oldest || c->waiting_since() < oldest->waiting_since()))
            oldest = c;
    if (oldest) oldest->close();
}

bool HttpServer::trust(HttpConn& c) {
    prune();
    size_t n = 0;
    std::shared_ptr<HttpConn> idlest;
    for (auto& w : conns_)
        if (auto x = w.lock(); x && x->trusted()) {
            ++n;
            if (x->stage() == HttpConn::Stage::waiting && (!idlest || x->waiting_since() < idlest->waiting_since()))
                idlest = x;
        }
    if (n >= limits_.trusted) {
        // An idle keep-alive connection is the cheapest to lose: its client reconnects.
        if (!idlest) return false;
        idlest->close();
    }
    c.trusted_ = true;
    return true;
}

}  // namespace seatmark::orchestrator
