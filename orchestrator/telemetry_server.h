#pragma once
// The orchestrator's end of the telemetry protocol (common/wire_protocol.h):
// a Unix domain socket in a private directory, one connection per session,
// decoded on the orchestrator's single Asio event loop.
//
// Closed by default: the socket's directory is 0700, and a connection is only
// attributed to a session when the peer's pid (SO_PEERCRED) is the process the
// orchestrator started for that session id. Nothing received can start a
// process or name a file; a protocol error closes only that connection.
#include <utility>  // before Asio (GCC 12 + Boost coroutine headers)

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/wire_protocol.h"

namespace seatmark::orchestrator {

// Why a telemetry connection ended: the run controller acts on the reason, the
// detail is for people (events, logs).
enum class CloseReason {
    clean,          // EOF, after BYE or without
    io_error,       // the socket failed
    protocol,       // undecodable bytes, a message before HELLO, a second HELLO
    not_a_session,  // a well-formed HELLO this run did not expect from that peer
    accept_failed,  // the server could not accept (out of descriptors, ...); session_id is -1
};

struct ConnectionEnd {
    CloseReason reason = CloseReason::clean;
    std::string detail;  // "" for a clean end
    bool saw_bye = false;
};

class TelemetryServer {
public:
    struct Callbacks {
        // A HELLO from a peer process; return true to accept the connection as that session.
        std::function<bool(const wire::Hello&, pid_t peer_pid)> hello;
        // Every later message of an accepted connection.
        std::function<void(uint32_t session_id, wire::Message&& msg)> message;
        // The connection ended. session_id is -1 when it never said an accepted HELLO.
        std::function<void(int64_t session_id, const ConnectionEnd& end)> closed;
    };

    TelemetryServer(boost::asio::io_context& io, const std::string& socket_path, Callbacks cb);
    ~TelemetryServer();
    const std::string& path() const { return path_; }
    void close();  // stops accepting and closes every connection

    class Connection;

private:
    void accept();
    boost::asio::io_context& io_;
    std::string path_;
    boost::asio::local::stream_protocol::acceptor acceptor_;
    Callbacks cb_;
    std::shared_ptr<bool> alive_;
    bool accept_failing_ = false;  // reported once until an accept succeeds again
};

}  // namespace seatmark::orchestrator
