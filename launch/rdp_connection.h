#pragma once
// One RDP connection, headless: FreeRDP 2's client context with its software GDI painting into
// memory (no X display), driven by the caller's thread. Every paint the server completes is
// handed to an observer with the moment it arrived and the frame as it now stands; the
// connection counts what the codecs carried. This is the launcher's only FreeRDP code.
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/watermark.h"

namespace seatmark::launch {

struct RdpTarget {
    std::string host = "127.0.0.1";
    uint16_t port = 3389;
    std::string user, password, domain;
    int width = 1024, height = 768;
    bool remotefx = true;       // offer RemoteFX (LAN settings: /network:lan /rfx in xfreerdp terms)
    bool ignore_certificate = false;  // accept any server certificate (test hosts with their own)
};

// Why a connection failed or ended, as recorded per session.
enum class RdpFault {
    none,
    refused,        // nothing listens / TCP refused or unreachable
    tls,            // TLS or certificate failure
    logon,          // authentication refused (wrong password, no such user)
    protocol,       // the RDP exchange broke off
    cut,            // an established connection went away (network cut, server closed it)
    logged_off,     // the server ended the desktop session (its logon script ended, someone logged it off)
};
const char* fault_name(RdpFault f);

class RdpError : public std::runtime_error {
public:
    RdpError(RdpFault f, const std::string& what) : std::runtime_error(what), fault(f) {}
    RdpFault fault;
};

struct Paint {
    int64_t arrival_ns;           // CLOCK_MONOTONIC when the server's update was complete
    watermark::FrameView frame;   // the whole desktop as painted so far (valid during the call)
    int x, y, w, h;               // bounds of what this update changed
};

struct CodecCounters {
    uint64_t remotefx_bytes = 0, nscodec_bytes = 0, raw_surface_bytes = 0, bitmap_bytes = 0;
    uint64_t surface_commands = 0, bitmap_updates = 0, paints = 0;
    std::string dominant() const;  // "remotefx" | "nscodec" | "surface-raw" | "bitmap" | "none"
    uint64_t total_bytes() const { return remotefx_bytes + nscodec_bytes + raw_surface_bytes + bitmap_bytes; }
};

class RdpConnection {
public:
    using PaintObserver = std::function<void(const Paint&)>;
    RdpConnection(RdpTarget target, PaintObserver on_paint);
    ~RdpConnection();
    RdpConnection(const RdpConnection&) = delete;
    RdpConnection& operator=(const RdpConnection&) = delete;

    // TCP, TLS, RDP handshake and logon; throws RdpError naming the peer and what failed.
    void connect();
    // Handles what has arrived, waiting up to timeout_ms for something. Throws RdpError(cut)
    // when the connection ended without disconnect() being asked.
    void pump(int timeout_ms);
    // Ends the connection (the desktop session lives on: xrdp keeps disconnected sessions).
    void disconnect();
    // Asks the desktop to end: the pointer onto the session's window (top-left), then Escape,
    // which `seatmark session --window` takes as closing its window; its end ends the logon.
    void send_logoff_keys();
    bool connected() const { return connected_; }
    // When the server said the logon went through (Save Session Info PDU), 0 until then.
    int64_t logged_on_ns() const { return logged_on_ns_; }
    uint32_t session_info_type() const { return session_info_type_; }

    const CodecCounters& counters() const { return counters_; }
    const RdpTarget& target() const { return target_; }
    std::string peer() const;  // "user@host:port"

    struct Impl;  // FreeRDP's callbacks reach the connection through it
private:
    RdpTarget target_;
    PaintObserver on_paint_;
    CodecCounters counters_;
    bool connected_ = false;
    int64_t logged_on_ns_ = 0;
    uint32_t session_info_type_ = 0;
    std::unique_ptr<Impl> impl_;
    friend struct Impl;
};

}  // namespace seatmark::launch
