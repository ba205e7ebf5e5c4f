#pragma once
// The peer's end of the join protocol (common/join_protocol.h), shared by `seatmark session
// --join` and `seatmark agent`: connects over TCP (Asio, so the same code builds for Windows),
// proves the token, checks the orchestrator's proof, answers clock PINGs on its own I/O thread,
// hands control messages (START, STOP, WATCH) to a callback, and sends bytes for its owner.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/join_protocol.h"

namespace seatmark::join {

struct PeerIdentity {
    std::string host, user, os_session, device;
    uint32_t pid = 0;
};
// This process's identity (common/peer_identity.cpp: the platform part), host from
// `host_override` when not empty (--host-name; how tests play several hosts).
PeerIdentity local_identity(const std::string& host_override);

struct HostPort {
    std::string host;
    uint16_t port = 0;
};
// "HOST:PORT" or "[V6]:PORT"; throws InputError naming `what` (e.g. "--join").
HostPort parse_host_port(const std::string& text, const std::string& what);

class JoinPeer {
public:
    struct Options {
        HostPort address;
        std::string token;
        Role role = Role::session;
        double retry_s = 30;                           // keep trying to join this long
        std::chrono::milliseconds io_timeout{10000};   // handshake step or one write
    };
    explicit JoinPeer(Options o);
    ~JoinPeer();
    JoinPeer(const JoinPeer&) = delete;
    JoinPeer& operator=(const JoinPeer&) = delete;

    // Connects (retrying while nobody listens, up to retry_s) and completes the handshake; also
    // tries again, within retry_s, when the orchestrator sent no CHALLENGE within io_timeout or
    // closed the connection without a word before WELCOME (it sheds pending connections under
    // a logon storm: orchestrator/join_listener.h).
    // Throws InputError when the orchestrator refuses (a wrong token: retrying cannot help) or
    // its proof is wrong, ExitError(1) when no orchestrator answered within retry_s.
    Welcome join(const PeerIdentity& me);

    // Starts the I/O thread: PINGs are answered there; START/STOP/WATCH go to `on_control`
    // (on that thread); a closed or failed connection calls `on_lost` once.
    void run(std::function<void(const JoinMessage&)> on_control, std::function<void(const std::string&)> on_lost);

    // Writes `bytes` (complete messages) and waits until written; false with `err` when the
    // connection is lost or the write took longer than io_timeout. Any thread.
    bool send(std::vector<uint8_t> bytes, std::string& err);
    bool lost() const;
    std::string lost_reason() const;
    std::string where() const;  // "HOST:PORT"
    void close();               // stops the thread and closes the socket

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace seatmark::join
