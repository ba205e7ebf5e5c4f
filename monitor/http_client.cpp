#include "monitor/http_client.h"

#include <utility>  // before Asio

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

#include <chrono>
#include <stdexcept>

#include "common/errors.h"

namespace seatmark::monitor {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

std::string HttpUrl::text() const {
    bool v6 = host.find(':') != std::string::npos;
    return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + base_path;
}

HttpUrl parse_url(const std::string& text) {
    auto bad = [&](const std::string& why) {
        return InputError("'" + text + "': " + why + " (expected http://HOST:PORT, e.g. http://127.0.0.1:7878)");
    };
    std::string s = text;
    if (s.rfind("https://", 0) == 0) throw bad("https is not supported; the live API speaks plain HTTP");
    if (s.rfind("http://", 0) == 0) s = s.substr(7);
    HttpUrl u;
    auto slash = s.find('/');
    if (slash != std::string::npos) {
        u.base_path = s.substr(slash);
        s = s.substr(0, slash);
        while (!u.base_path.empty() && u.base_path.back() == '/') u.base_path.pop_back();
    }
    std::string port;
    if (!s.empty() && s.front() == '[') {
        auto close = s.find(']');
        if (close == std::string::npos) throw bad("unclosed '['");
        u.host = s.substr(1, close - 1);
        if (close + 1 < s.size() && s[close + 1] == ':') port = s.substr(close + 2);
    } else {
        auto colon = s.rfind(':');
        u.host = s.substr(0, colon);
        if (colon != std::string::npos) port = s.substr(colon + 1);
    }
    if (u.host.empty()) throw bad("no host");
    if (!port.empty()) {
        if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) throw bad("bad port");
        int p = std::stoi(port);
        if (p < 1 || p > 65535) throw bad("port must be 1..65535");
        u.port = static_cast<uint16_t>(p);
    }
    return u;
}

HttpResult http_get(const HttpUrl& url, const std::string& target, const std::string& token, double timeout_s) {
    asio::io_context io;
    beast::tcp_stream stream(io);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(int64_t(timeout_s * 1000));
    auto left = [&] {
        return std::max(std::chrono::steady_clock::duration(std::chrono::milliseconds(1)),
                        deadline - std::chrono::steady_clock::now());
    };
    asio::ip::tcp::resolver resolver(io);
    boost::system::error_code ec;
    auto results = resolver.resolve(url.host, std::to_string(url.port), ec);
    if (ec) throw std::runtime_error("cannot resolve " + url.host + ": " + ec.message());
    HttpResult out;
    bool done = false;
    std::string error;
    http::request<http::empty_body> req{http::verb::get, url.base_path + target, 11};
    req.set(http::field::host, url.host);
    req.set(http::field::user_agent, "seatmark-monitor");
    if (!token.empty()) req.set(http::field::authorization, "Bearer " + token);
    beast::flat_buffer buf;
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 * 1024 * 1024);
    stream.expires_after(left());
    stream.async_connect(results, [&](boost::system::error_code e, const auto&) {
        if (e) {
            error = e == beast::error::timeout ? "timed out connecting" : e.message();
            return;
        }
        stream.expires_after(left());
        http::async_write(stream, req, [&](boost::system::error_code e2, size_t) {
            if (e2) {
                error = e2 == beast::error::timeout ? "timed out" : e2.message();
                return;
            }
            stream.expires_after(left());
            http::async_read(stream, buf, parser, [&](boost::system::error_code e3, size_t) {
                if (e3) {
                    error = e3 == beast::error::timeout ? "timed out waiting for the answer" : e3.message();
                    return;
                }
                done = true;
            });
        });
    });
    io.run();
    if (!done) throw std::runtime_error(error.empty() ? "no answer" : error);
    out.status = static_cast<int>(parser.get().result_int());
    out.body = std::move(parser.get().body());
    boost::system::error_code ig;
    stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ig);
    return out;
}

}  // namespace seatmark::monitor
