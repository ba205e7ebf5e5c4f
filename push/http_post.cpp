#include "push/http_post.h"

#include <utility>  // before Asio

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <optional>

namespace seatmark::push {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::use_awaitable;

template <class Stream>
asio::awaitable<PostResult> round_trip(Stream& s, const http::request<http::string_body>& req) {
    co_await http::async_write(s, req, use_awaitable);
    beast::flat_buffer buf;
    http::response_parser<http::string_body> parser;
    parser.body_limit(1 << 20);
    co_await http::async_read(s, buf, parser, use_awaitable);
    const auto& res = parser.get();
    PostResult r;
    r.status = res.result_int();
    r.delivered = r.status >= 200 && r.status < 300;
    r.retry = r.status == 408 || r.status == 429 || r.status >= 500;
    r.body = res.body();
    std::string body = res.body().substr(0, 300);
    for (char& c : body)
        if (c == '\n' || c == '\r') c = ' ';
    r.detail = std::to_string(r.status) + " " + std::string(res.reason()) + (body.empty() ? "" : ": " + body);
    co_return r;
}

asio::awaitable<PostResult> post(const PushTarget& t, http::request<http::string_body> req) {
    auto ex = co_await asio::this_coro::executor;
    asio::ip::tcp::resolver resolver(ex);
    const auto endpoints = co_await resolver.async_resolve(t.host, t.port, use_awaitable);
    if (!t.tls) {
        beast::tcp_stream s(ex);
        co_await s.async_connect(endpoints, use_awaitable);
        co_return co_await round_trip(s, req);
    }
    asio::ssl::context ctx(asio::ssl::context::tls_client);
    ctx.set_default_verify_paths();
    ctx.set_verify_mode(asio::ssl::verify_peer);
    beast::ssl_stream<beast::tcp_stream> s(ex, ctx);
    if (!SSL_set_tlsext_host_name(s.native_handle(), t.host.c_str()))
        throw beast::system_error(beast::error_code(int(::ERR_get_error()), asio::error::get_ssl_category()));
    s.set_verify_callback(asio::ssl::host_name_verification(t.host));
    co_await beast::get_lowest_layer(s).async_connect(endpoints, use_awaitable);
    co_await s.async_handshake(asio::ssl::stream_base::client, use_awaitable);
    co_return co_await round_trip(s, req);
}

}  // namespace

PostResult http_post(const PushTarget& t, const std::string& body, const std::string& content_type,
                     const std::vector<Header>& headers, std::chrono::milliseconds timeout) {
    http::request<http::string_body> req{http::verb::post, t.target, 11};
    req.set(http::field::host, t.host + ":" + t.port);
    req.set(http::field::user_agent, "seatmark");
    req.set(http::field::content_type, content_type);
    for (const Header& h : headers) req.set(h.first, h.second);
    req.body() = body;
    req.prepare_payload();

    std::optional<PostResult> result;
    std::string failure;
    {
        asio::io_context io;
        asio::co_spawn(io, post(t, std::move(req)), [&](std::exception_ptr e, PostResult r) {
            if (!e) {
                result = std::move(r);
                return;
            }
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& x) {
                failure = x.what();
            }
        });
        io.run_for(timeout);
        // Leaving the block destroys whatever is still pending (a server that never answers).
    }
    if (result) return *result;
    PostResult r;
    r.retry = true;
    r.detail = failure.empty() ? "no answer within " + std::to_string(timeout.count()) + " ms" : failure;
    return r;
}

}  // namespace seatmark::push
