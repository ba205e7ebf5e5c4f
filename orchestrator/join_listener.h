#pragma once
// The orchestrator's end of the join protocol (common/join_protocol.h): a TCP listener on the
// run's event loop (`seatmark run --accept`). It challenges every connection with a fresh
// nonce, accepts only peers that prove the run's token, measures each connection's clock
// offset, converts the peer's stamps into this process's clock at ingest, and hands the
// controller telemetry, agent samples and connection ends.
//
// Closed by default: nothing is believed before the proof; unauthenticated connections get
// `handshake_timeout` and max_handshake_payload bytes per message, within `max_pending` places
// and `max_pending_per_address` per peer address. When a place is wanted and none is free, the
// oldest pending connection of the address holding most is closed without a word (a peer that
// was only slow tries again: common/join_peer.h), so idle or hostile connections cannot lock out
// real peers. One address may by default use every place: a pool's desktops often reach the
// controller through one NAT address, and a logon storm from there is the normal case; a
// hostile address is then the one holding most, and gives way first. Nothing received names a
// file or starts a process. Every refusal is reported.
#include <utility>  // before Asio (GCC 12 + Boost coroutine headers)

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "common/join_protocol.h"
#include "core/clock_offset.h"
#include "orchestrator/listen_address.h"
#include "orchestrator/telemetry_server.h"

namespace seatmark::orchestrator {

struct JoinedPeer {
    uint64_t conn = 0;        // this listener's handle for the connection
    join::Role role = join::Role::session;
    std::string address;      // "IP:PORT" as seen here
    std::string host, user, os_session, device, tool_version;
    uint32_t pid = 0;
    int64_t accepted_ns = 0;  // the TCP connection was accepted (the handshake's start), this clock
};

class JoinListener {
public:
    struct Options {
        ListenAddress address;
        std::string token;
        double handshake_timeout_s = 5;
        size_t max_pending = 256;              // a pending place costs a socket and <= 4 KiB
        size_t max_pending_per_address = 256;  // = max_pending: one address may use them all
        uint32_t join_pings = 8;         // round trips measured before a peer counts as joined
        double resync_interval_s = 10;   // then this often, `resync_pings` round trips
        uint32_t resync_pings = 4;
        // A measurement worse than this (a loaded machine answering late) is taken again after
        // poor_resync_interval_s rather than resync_interval_s, so the peer's stamps soon get a
        // better offset (a session's first frames arrive a second or more after it joined).
        int64_t poor_uncertainty_ns = 1'000'000;
        double poor_resync_interval_s = 1;
        double idle_timeout_s = 10;      // a joined peer not rendering that leaves a PING unanswered this long is dropped
    };
    struct Callbacks {
        // An authenticated JOIN. Return the WELCOME to send (id and run settings; the mac is
        // filled here), or nullopt with `refuse` set to turn it away.
        std::function<std::optional<join::Welcome>(const JoinedPeer&, std::string& refuse)> joined;
        // The join-time round trips are done (first = true): the peer is ready; later re-syncs.
        std::function<void(uint64_t conn, const core::ClockOffset&, bool first)> clock;
        // Telemetry of a started session, its stamps in this process's clock.
        std::function<void(uint64_t conn, wire::Message&&)> message;
        std::function<void(uint64_t conn, join::Samples&&)> samples;  // an agent's, stamps converted
        std::function<void(uint64_t conn, join::HostInfo&&)> host_info;  // an agent's host identity
        // A launcher's LOGON_STATE, ARRIVALS (keepalives too) or REF_ASK, or a started session's
        // REFERENCE; stamps converted.
        std::function<void(uint64_t conn, join::JoinMessage&&)> launcher;
        // A connection refused before it was a peer: bad proof, garbage, too big, too slow, evicted.
        std::function<void(const std::string& address, const std::string& why)> refused;
        // A peer's connection ended (after `joined` accepted it).
        std::function<void(uint64_t conn, const ConnectionEnd&)> closed;
    };

    JoinListener(boost::asio::io_context& io, Options opt, Callbacks cb);  // binds; throws InputError
    ~JoinListener();
    uint16_t port() const { return port_; }
    std::string url() const;  // "HOST:PORT" bound

    // Control of a joined peer; no-ops for an unknown or closed connection.
    void start(uint64_t conn, const join::Start& as);  // START: a waiting session begins rendering
    void stop(uint64_t conn);   // STOP: a session ends (or a waiting one exits)
    void watch(uint64_t conn, const join::Watch& w);
    // LOGON / LOGOFF to a launcher, REF_ASK to a session, REFERENCE to a launcher.
    void send(uint64_t conn, const join::JoinMessage& m);
    void drop(uint64_t conn, const std::string& why);  // closes it (a hung session), reported as closed
    void close();               // stops accepting and closes every connection
    size_t pending() const;     // unauthenticated connections open now
    // A PING is out whose PONG's arrival time is the measurement: the event loop should run its
    // handlers as data comes, not in its 50 ms passes (run_controller.cpp), or the PONG is stamped
    // up to a pass late and the offset is off by half of that.
    bool measuring_clock() const;

    class Connection;

private:
    friend class Connection;
    void accept();
    void on_tick();
    void make_room(const std::string& address);
    boost::asio::io_context& io_;
    Options opt_;
    Callbacks cb_;
    boost::asio::ip::tcp::acceptor acceptor_;
    boost::asio::steady_timer tick_;
    uint16_t port_ = 0;
    uint64_t next_conn_ = 1;
    std::map<uint64_t, std::shared_ptr<Connection>> conns_;
    std::shared_ptr<bool> alive_;
    bool accept_failing_ = false;
};

}  // namespace seatmark::orchestrator
