#include "orchestrator/telemetry_server.h"

#include "common/clock.h"
#include "core/peer_stamps.h"
#include "orchestrator/accept_loop.h"
#include "orchestrator/cloexec.h"

#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdio>
#include <vector>

namespace seatmark::orchestrator {

namespace asio = boost::asio;
using stream = asio::local::stream_protocol;

class TelemetryServer::Connection : public std::enable_shared_from_this<Connection> {
public:
    Connection(stream::socket s, const Callbacks& cb, std::shared_ptr<bool> alive)
        : socket_(std::move(s)), cb_(cb), alive_(std::move(alive)) {
        ucred cred{};
        socklen_t len = sizeof cred;
        if (getsockopt(socket_.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) peer_pid_ = cred.pid;
    }

    void start() { read(); }

private:
    void read() {
        auto self = shared_from_this();
        socket_.async_read_some(asio::buffer(buf_), [self](boost::system::error_code ec, size_t n) {
            if (!*self->alive_) return;
            if (ec) {
                if (ec == asio::error::eof || ec == asio::error::connection_reset)
                    self->end(CloseReason::clean, "");
                else
                    self->end(CloseReason::io_error, ec.message());
                return;
            }
            self->decoder_.feed(self->buf_.data(), n);
            wire::Message m;
            for (;;) {
                auto st = self->decoder_.next(m);
                if (st == wire::DecodeStatus::need_more) break;
                if (st == wire::DecodeStatus::error) {
                    self->end(CloseReason::protocol, "protocol error: " + self->decoder_.error());
                    return;
                }
                if (!self->dispatch(std::move(m))) return;
            }
            self->read();
        });
    }

    // False when the connection was ended.
    bool dispatch(wire::Message&& m) {
        // Its stamps are this host's clock (offset 0), and no less untrusted for that.
        if (std::string why = core::admit(m, {0, 0, opened_ns_}, now_ns()); !why.empty()) {
            end(CloseReason::protocol, "protocol error: " + why);
            return false;
        }
        if (session_id_ < 0) {
            auto* hello = std::get_if<wire::Hello>(&m);
            if (!hello) {
                end(CloseReason::protocol, "protocol error: " + std::string(wire::to_string(type_of(m))) + " before HELLO");
                return false;
            }
            if (!cb_.hello || !cb_.hello(*hello, peer_pid_)) {
                end(CloseReason::not_a_session, "HELLO for session " + std::to_string(hello->session_id) + " from pid " +
                    std::to_string(peer_pid_) + " does not match a session this run started");
                return false;
            }
            session_id_ = hello->session_id;
            return true;
        }
        if (std::holds_alternative<wire::Hello>(m)) {
            end(CloseReason::protocol, "protocol error: a second HELLO");
            return false;
        }
        if (std::holds_alternative<wire::Bye>(m)) saw_bye_ = true;
        if (cb_.message) cb_.message(static_cast<uint32_t>(session_id_), std::move(m));
        return true;
    }

    static wire::MessageType type_of(const wire::Message& m) {
        return static_cast<wire::MessageType>(m.index() + 1);
    }

    void end(CloseReason reason, const std::string& detail) {
        if (ended_) return;
        ended_ = true;
        boost::system::error_code ignored;
        socket_.close(ignored);
        if (cb_.closed) cb_.closed(session_id_, {reason, detail, saw_bye_});
    }

    stream::socket socket_;
    const Callbacks& cb_;
    std::shared_ptr<bool> alive_;
    std::array<uint8_t, 65536> buf_{};
    wire::Decoder decoder_;
    pid_t peer_pid_ = 0;
    int64_t opened_ns_ = now_ns();  // accepted
    int64_t session_id_ = -1;
    bool saw_bye_ = false;
    bool ended_ = false;
};

TelemetryServer::TelemetryServer(asio::io_context& io, const std::string& socket_path, Callbacks cb)
    : io_(io), path_(socket_path), acceptor_(io), cb_(std::move(cb)), alive_(std::make_shared<bool>(true)) {
    ::unlink(path_.c_str());
    stream::endpoint ep(path_);
    acceptor_.open(ep.protocol());
    mark_cloexec(acceptor_.native_handle());
    acceptor_.bind(ep);
    acceptor_.listen(asio::socket_base::max_listen_connections);
    accept();
}

TelemetryServer::~TelemetryServer() { close(); }

void TelemetryServer::close() {
    if (!*alive_) return;
    *alive_ = false;
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    ::unlink(path_.c_str());
}

void TelemetryServer::accept() {
    accept_loop(
        io_, acceptor_, alive_, accept_failing_,
        [this](stream::socket s) { std::make_shared<Connection>(std::move(s), cb_, alive_)->start(); },
        [this](const std::string& what) {
            if (cb_.closed) cb_.closed(-1, {CloseReason::accept_failed, "cannot accept a session's connection: " + what, false});
        });
}

}  // namespace seatmark::orchestrator
