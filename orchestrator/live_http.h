#pragma once
// The live API's HTTP/1.1 server (Boost.Beast) on the run's event loop. It reads
// requests under size and time limits, answers them through a handler, hands an
// event-stream request's socket on, and budgets connections so that idle or
// unauthenticated ones cannot crowd out a client that has the token. It knows
// nothing of the routes (orchestrator/live_routes.h).
#include <utility>  // before Asio

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "orchestrator/listen_address.h"

namespace seatmark::orchestrator {

using HttpRequest = boost::beast::http::request<boost::beast::http::empty_body>;
using RequestParser = boost::beast::http::request_parser<boost::beast::http::empty_body>;

struct HttpReply {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    bool close = false;
    // The request passed the token check (or no token is needed): its connection is
    // trusted from then on and no longer competes with unauthenticated ones for room.
    bool authorized = false;
    bool event_stream = false;  // a GET of it hands the socket to the event stream
    uint64_t last_event_id = 0;
};

// {"error": msg, "status": N}; it closes the connection, so a client that got
// something wrong starts afresh.
HttpReply error_reply(int status, const std::string& msg);

// How the server reads one request (the fuzz target reads the same way):
// request line and headers at most 8 KiB, no body.
constexpr size_t request_header_limit = 8 * 1024;
void limit_request(RequestParser& p);
// After the header has been read: no error when the request is complete, unexpected_body
// when it announces a body (the API takes none, so it is refused without reading it).
boost::system::error_code request_complete(const RequestParser& p);
// The answer to a request that could not be read: 431 (too large), 413 (a body), 400.
HttpReply unreadable_reply(boost::system::error_code ec);

struct HttpLimits {
    // From connecting to a whole first request: an idle or slow (slowloris) connection that has
    // not shown the token is closed after this.
    std::chrono::milliseconds first_request{2000};
    // Between requests on a trusted keep-alive connection, and to take one reply.
    std::chrono::milliseconds request{10000};
    size_t pending = 64;           // connections without an authorized request yet, from everyone
    size_t pending_per_peer = 16;  //   ... from one peer address
    size_t trusted = 64;           // connections with one
};

struct HttpHandlers {
    std::function<HttpReply(const HttpRequest&)> request;
    // A GET whose reply says event_stream: the connection's socket, and the Last-Event-ID it sent.
    std::function<void(boost::asio::ip::tcp::socket, uint64_t last_event_id)> event_stream;
    std::function<void(int status)> responded;  // every status sent, for /metrics
};

// A listening socket bound before the run's event loop exists, so a bad address
// stops the command first. `port_fallback`: a taken port tries the next nine, then
// any free one, and `note` says so. Throws InputError.
struct BoundListener {
    boost::asio::ip::tcp::endpoint endpoint;
    int fd = -1;  // owned: HttpServer::start takes it over
    std::string note;
    BoundListener() = default;
    BoundListener(BoundListener&& o) noexcept;
    BoundListener& operator=(BoundListener&& o) noexcept;
    ~BoundListener();
};
BoundListener bind_listener(const ListenAddress& where, const std::string& listen_text, bool port_fallback);

class HttpConn;

// Owned by its pending handlers (the caller keeps a weak_ptr from start()), so
// however the event loop ends, destroying it frees the server and its connections.
class HttpServer : public std::enable_shared_from_this<HttpServer> {
public:
    static std::weak_ptr<HttpServer> start(boost::asio::io_context& io, BoundListener listener, HttpLimits limits,
                                           HttpHandlers handlers);
    HttpServer(boost::asio::io_context& io, BoundListener listener, HttpLimits limits, HttpHandlers handlers);
    ~HttpServer();
    // Stops accepting and closes every connection.
    void close();

    // Connections now held, by kind (for tests and /metrics).
    size_t pending() const;
    size_t trusted() const;

private:
    friend class HttpConn;
    void accept();
    void admit(boost::asio::ip::tcp::socket s);
    void make_room_for(const std::string& peer);
    bool trust(HttpConn& c);  // false: no room even after evicting an idle one
    void prune();

    boost::asio::io_context& io_;
    boost::asio::ip::tcp::acceptor acceptor_;
    HttpLimits limits_;
    HttpHandlers handlers_;
    std::vector<std::weak_ptr<HttpConn>> conns_;
    uint64_t arrivals_ = 0;  // orders connections by when they last started waiting
    bool closed_ = false;
};

}  // namespace seatmark::orchestrator
