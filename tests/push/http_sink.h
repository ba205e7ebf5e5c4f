#pragma once
// A loopback HTTP server for push tests: answers each POST as `mode` says (200 keeping the body,
// 500, or never), one request per connection, on a port of its own or one the test names (to
// bring up a sink at the URL a run could not reach).
#include <utility>  // before Asio

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace seatmark::test {

struct Sink {
    enum Mode { ok, error500, silent };
    std::atomic<Mode> mode{ok};
    std::mutex m;
    std::vector<std::string> bodies;
    std::vector<std::string> auth;
    std::vector<std::string> targets;  // the request target of each body taken
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor acceptor;
    std::atomic<bool> stop{false};
    std::thread thread;

    explicit Sink(uint16_t port = 0) : acceptor(io, {boost::asio::ip::make_address("127.0.0.1"), port}) {
        thread = std::thread([this] {
            while (!stop) {
                boost::system::error_code ec;
                boost::asio::ip::tcp::socket s(io);
                acceptor.accept(s, ec);
                if (ec || stop) return;
                namespace http = boost::beast::http;
                boost::beast::flat_buffer buf;
                http::request<http::string_body> req;
                http::read(s, buf, req, ec);
                if (ec) continue;
                if (mode == silent) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // longer than the client's timeout
                    continue;
                }
                http::response<http::string_body> res{mode == ok ? http::status::no_content
                                                                 : http::status::internal_server_error, 11};
                if (mode == ok) {
                    std::lock_guard l(m);
                    bodies.push_back(req.body());
                    auth.push_back(std::string(req[http::field::authorization]));
                    targets.push_back(std::string(req.target()));
                }
                res.prepare_payload();
                http::write(s, res, ec);
            }
        });
    }
    ~Sink() {
        stop = true;
        boost::system::error_code ec;
        boost::asio::ip::tcp::socket s(io);
        s.connect(acceptor.local_endpoint(), ec);  // wakes accept()
        thread.join();
    }
    uint16_t port() const { return acceptor.local_endpoint().port(); }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port()) + "/ingest"; }

    // Every line of every body taken so far.
    std::vector<std::string> lines() {
        std::lock_guard l(m);
        std::vector<std::string> out;
        for (const auto& b : bodies)
            for (size_t at = 0, nl; (nl = b.find('\n', at)) != std::string::npos; at = nl + 1) out.push_back(b.substr(at, nl - at));
        return out;
    }
};

}  // namespace seatmark::test
