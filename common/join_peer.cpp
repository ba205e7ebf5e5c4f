#include "common/join_peer.h"

#include <utility>  // before Asio (GCC 12 + Boost 1.81)

#include <boost/asio/connect.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <array>
#include <charconv>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <future>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "common/clock.h"
#include "common/errors.h"
#include "common/exit_codes.h"
#include "common/join_auth.h"
#include "common/version.h"

namespace seatmark::join {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

HostPort parse_host_port(const std::string& text, const std::string& what) {
    const std::string expected = what + " " + text + ": expected HOST:PORT, e.g. controller.example.com:7879 or [::1]:7879";
    HostPort hp;
    size_t colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) throw InputError(expected);
    hp.host = text.substr(0, colon);
    if (hp.host.front() == '[') {
        if (hp.host.size() < 3 || hp.host.back() != ']') throw InputError(expected);
        hp.host = hp.host.substr(1, hp.host.size() - 2);
    } else if (hp.host.find(':') != std::string::npos) {
        throw InputError(expected + " (an IPv6 address goes in brackets)");
    }
    unsigned port = 0;
    const char* b = text.data() + colon + 1;
    const char* e = text.data() + text.size();
    auto [p, ec] = std::from_chars(b, e, port);
    if (ec != std::errc() || p != e || port == 0 || port > 65535) throw InputError(expected + " (port 1..65535)");
    hp.port = static_cast<uint16_t>(port);
    return hp;
}

struct JoinPeer::Impl {
    Options opt;
    asio::io_context io;
    tcp::socket sock{io};
    Decoder decoder;
    std::array<uint8_t, 16384> buf{};
    std::thread thread;
    std::function<void(const JoinMessage&)> on_control;
    std::function<void(const std::string&)> on_lost;

    mutable std::mutex mu;
    bool lost = false;
    std::string lost_reason;
    // Writes in order; one in flight. Each carries the promise its sender waits on.
    struct Pending {
        std::vector<uint8_t> bytes;
        std::shared_ptr<std::promise<error_code>> done;
    };
    std::deque<Pending> writes;
    bool writing = false;

    std::string where() const { return opt.address.host + ":" + std::to_string(opt.address.port); }

    void set_lost(const std::string& why) {
        std::function<void(const std::string&)> cb;
        {
            std::lock_guard<std::mutex> lock(mu);
            if (lost) return;
            lost = true;
            lost_reason = why;
            cb = on_lost;
        }
        error_code ignored;
        sock.close(ignored);
        for (auto& w : writes) w.done->set_value(asio::error::connection_aborted);
        writes.clear();
        if (cb) cb(why);
    }

    // ---- blocking steps of the handshake, each bounded by io_timeout
    template <class Op>
    error_code run_bounded(Op&& op, const char* what, std::string& err) {
        error_code result = asio::error::would_block;
        bool done = false;
        op([&](const error_code& ec, auto&&...) {
            result = ec;
            done = true;
        });
        io.restart();
        io.run_for(opt.io_timeout);
        if (!done) {
            error_code ignored;
            sock.close(ignored);
            io.restart();
            io.run();
            err = std::string(what) + " took longer than " + std::to_string(opt.io_timeout.count() / 1000) + " s";
            return asio::error::timed_out;
        }
        if (result) err = std::string(what) + ": " + result.message();
        return result;
    }

    std::optional<Welcome> handshake(const PeerIdentity& me, std::string& err);
    bool peer_closed = false;  // the last read_message() failed because the orchestrator closed
    bool peer_timed_out = false;  // ... because it said nothing within io_timeout

    // Reads until one message is decoded.
    bool read_message(Message& m, std::string& err) {
        for (;;) {
            auto st = decoder.next(m);
            if (st == wire::DecodeStatus::ok) return true;
            if (st == wire::DecodeStatus::error) {
                err = "protocol error from the orchestrator: " + decoder.error();
                return false;
            }
            size_t n = 0;
            auto ec = run_bounded(
                [&](auto h) {
                    sock.async_read_some(asio::buffer(buf), [h, &n](const error_code& e, size_t k) mutable {
                        n = k;
                        h(e);
                    });
                },
                "waiting for the orchestrator", err);
            if (ec) {
                peer_closed = ec == asio::error::eof || ec == asio::error::connection_reset;
                peer_timed_out = ec == asio::error::timed_out;
                if (peer_closed) err = "the orchestrator closed the connection during the handshake";
                return false;
            }
            decoder.feed(buf.data(), n);
        }
    }

    bool write_blocking(const std::vector<uint8_t>& bytes, std::string& err) {
        return !run_bounded([&](auto h) { asio::async_write(sock, asio::buffer(bytes), h); }, "sending to the orchestrator",
                            err);
    }

    // ---- the running connection (I/O thread)
    // Handles every message decoded so far (the handshake may have read past WELCOME), then
    // reads more. False once the connection is lost.
    bool drain() {
        Message m;
        for (;;) {
            auto st = decoder.next(m);
            if (st == wire::DecodeStatus::need_more) return true;
            if (st == wire::DecodeStatus::error) {
                set_lost("protocol error from the orchestrator: " + decoder.error());
                return false;
            }
            auto* jm = std::get_if<JoinMessage>(&m);
            if (!jm) continue;  // the orchestrator sends no telemetry; ignored
            if (auto* p = std::get_if<Ping>(jm)) {
                std::vector<uint8_t> out;
                encode(out, JoinMessage{Pong{p->seq, p->t_orch_ns, now_ns()}});
                queue_write(std::move(out), std::make_shared<std::promise<error_code>>());
            } else if (auto* r = std::get_if<Refused>(jm)) {
                set_lost("the orchestrator ended the connection: " + r->reason);
                return false;
            } else if (on_control) {
                on_control(*jm);
            }
        }
    }

    void read_loop() {
        if (!drain()) return;
        sock.async_read_some(asio::buffer(buf), [this](const error_code& ec, size_t n) {
            if (ec) {
                set_lost(ec == asio::error::eof ? "the orchestrator closed the connection" : "receive failed: " + ec.message());
                return;
            }
            decoder.feed(buf.data(), n);
            read_loop();
        });
    }

    void queue_write(std::vector<uint8_t> bytes, std::shared_ptr<std::promise<error_code>> done) {
        if (lost) {
            done->set_value(asio::error::connection_aborted);
            return;
        }
        writes.push_back({std::move(bytes), std::move(done)});
        if (!writing) write_next();
    }

    void write_next() {
        if (writes.empty()) {
            writing = false;
            return;
        }
        writing = true;
        asio::async_write(sock, asio::buffer(writes.front().bytes), [this](const error_code& ec, size_t) {
            if (writes.empty()) return;  // failed meanwhile
            writes.front().done->set_value(ec);
            writes.pop_front();
            if (ec) {
                set_lost("send failed: " + ec.message());
                return;
            }
            write_next();
        });
    }
};

JoinPeer::JoinPeer(Options o) : impl_(std::make_unique<Impl>()) { impl_->opt = std::move(o); }

JoinPeer::~JoinPeer() { close(); }

// One connection's handshake. nullopt with `err` when the orchestrator closed it without a
// word before WELCOME: it sheds unauthenticated connections under a logon storm (the oldest of
// the busiest address gives way, join_listener.h), so trying again is right. A REFUSED (a wrong
// token, a full run) or a wrong proof throws: trying again cannot help.
std::optional<Welcome> JoinPeer::Impl::handshake(const PeerIdentity& me, std::string& err) {
    auto fail = [&](const std::string& why) -> Welcome {
        error_code ignored;
        sock.close(ignored);
        throw ExitError(exit_code::failure, "joining the run at " + where() + ": " + why);
    };
    auto closed = [&] { return peer_closed; };
    Message m;
    peer_closed = peer_timed_out = false;
    if (!read_message(m, err)) {
        // No CHALLENGE yet: an orchestrator too busy to take the connection from its backlog
        // believed nothing of this one either, so trying again is as safe as after a shed.
        if (closed() || peer_timed_out) return std::nullopt;
        return fail(err);
    }
    auto* jm = std::get_if<JoinMessage>(&m);
    const Challenge* ch = jm ? std::get_if<Challenge>(jm) : nullptr;
    if (!ch) return fail("expected CHALLENGE first");
    if (ch->version != join_version)
        return fail("the orchestrator speaks join version " + std::to_string(ch->version) + ", this is version " +
                    std::to_string(join_version) + "; use the same seatmark release on both sides");
    const Nonce server_nonce = ch->nonce;
    Join j;
    j.role = opt.role;
    j.client_nonce = random_nonce();
    j.host = me.host;
    j.user = me.user;
    j.os_session = me.os_session;
    j.pid = me.pid;
    j.device = me.device;
    j.tool_version = version_string;
    sign_join(j, server_nonce, opt.token);
    std::vector<uint8_t> out;
    encode(out, JoinMessage{j});
    if (auto ec = run_bounded([&](auto h) { asio::async_write(sock, asio::buffer(out), h); }, "sending JOIN", err)) {
        if (ec == asio::error::broken_pipe || ec == asio::error::connection_reset) return std::nullopt;  // shed, as above
        return fail(err);
    }
    if (!read_message(m, err)) {
        if (closed()) return std::nullopt;
        return fail(err);
    }
    jm = std::get_if<JoinMessage>(&m);
    if (jm)
        if (auto* r = std::get_if<Refused>(jm))
            throw InputError("the orchestrator at " + where() + " refused to let this " + std::string(to_string(j.role)) +
                             " join: " + r->reason);
    const Welcome* w = jm ? std::get_if<Welcome>(jm) : nullptr;
    if (!w) return fail("expected WELCOME or REFUSED after JOIN");
    if (!mac_equal(w->mac, welcome_mac(opt.token, j.client_nonce, server_nonce, w->id)))
        throw InputError("the orchestrator at " + where() +
                         " did not prove it holds the run's token (a different --token-file, or not seatmark)");
    decoder.set_limit(wire::max_payload);
    return *w;
}

Welcome JoinPeer::join(const PeerIdentity& me) {
    auto& d = *impl_;
    tcp::resolver resolver(d.io);
    const int64_t deadline = now_ns() + int64_t(d.opt.retry_s * 1e9);
    // Peers that were shed together must not all come back at the same instant.
    std::minstd_rand jitter(static_cast<unsigned>(me.pid) ^ static_cast<unsigned>(now_ns()));
    std::string err;
    for (int attempt = 0;; ++attempt) {
        error_code ec;
        auto eps = resolver.resolve(d.opt.address.host, std::to_string(d.opt.address.port), ec);
        if (!ec) {
            ec = d.run_bounded([&](auto h) { asio::async_connect(d.sock, eps, h); }, "connecting", err);
            if (!ec) {
                d.sock.set_option(tcp::no_delay(true), ec);
                if (auto w = d.handshake(me, err)) return *w;
            }
        } else {
            err = "cannot resolve " + d.opt.address.host + ": " + ec.message();
        }
        error_code ignored;
        d.sock.close(ignored);
        d.decoder = Decoder{};
        if (now_ns() >= deadline)
            throw ExitError(exit_code::failure, "cannot join the run at " + d.where() + ": " + err + " (tried for " +
                                                    std::to_string(int(d.opt.retry_s)) + " s; is `seatmark run --accept` listening there?)");
        if (attempt == 0) std::fprintf(stderr, "seatmark: waiting for the orchestrator at %s (%s)\n", d.where().c_str(), err.c_str());
        std::this_thread::sleep_for(std::chrono::milliseconds(250 + jitter() % 500));
    }
}

void JoinPeer::run(std::function<void(const JoinMessage&)> on_control, std::function<void(const std::string&)> on_lost) {
    auto& d = *impl_;
    d.on_control = std::move(on_control);
    d.on_lost = std::move(on_lost);
    d.io.restart();
    d.thread = std::thread([&d] {
        auto guard = asio::make_work_guard(d.io);
        d.read_loop();
        d.io.run();
    });
}

bool JoinPeer::send(std::vector<uint8_t> bytes, std::string& err) {
    auto& d = *impl_;
    auto done = std::make_shared<std::promise<error_code>>();
    auto fut = done->get_future();
    asio::post(d.io, [&d, b = std::move(bytes), done]() mutable { d.queue_write(std::move(b), done); });
    if (fut.wait_for(d.opt.io_timeout) != std::future_status::ready) {
        err = "sending took longer than " + std::to_string(d.opt.io_timeout.count() / 1000) + " s (the orchestrator is not reading)";
        asio::post(d.io, [&d, err] { d.set_lost(err); });
        return false;
    }
    error_code ec = fut.get();
    if (ec) {
        err = lost() ? lost_reason() : "send failed: " + ec.message();
        return false;
    }
    return true;
}

bool JoinPeer::lost() const {
    std::lock_guard<std::mutex> lock(impl_->mu);
    return impl_->lost;
}

std::string JoinPeer::lost_reason() const {
    std::lock_guard<std::mutex> lock(impl_->mu);
    return impl_->lost_reason;
}

std::string JoinPeer::where() const { return impl_->where(); }

void JoinPeer::close() {
    auto& d = *impl_;
    if (d.thread.joinable()) {
        asio::post(d.io, [&d] {
            {
                std::lock_guard<std::mutex> lock(d.mu);
                d.on_lost = nullptr;  // a close asked for is no loss to report
            }
            error_code ignored;
            d.sock.shutdown(tcp::socket::shutdown_both, ignored);
            d.set_lost("closed");
            d.io.stop();
        });
        d.thread.join();
    } else {
        error_code ignored;
        d.sock.close(ignored);
    }
}

}  // namespace seatmark::join
