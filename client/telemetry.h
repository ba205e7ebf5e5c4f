#pragma once
// The session's side of the telemetry socket (common/wire_protocol.h): connects
// to the orchestrator, sends HELLO, streams frames in FRAMES batches from a
// sender thread, HEARTBEATs while the render loop makes progress, EVENTs on
// demand and BYE at the end. Never blocks the render loop: frame(), alive() and
// event() only touch memory; a write that the orchestrator does not take within
// send_timeout, or a closed socket, marks the connection lost, which the render
// loop sees through check().
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/frame_record.h"
#include "common/wire_protocol.h"

namespace seatmark::client {

class TelemetrySender {
public:
    struct Options {
        std::chrono::milliseconds flush_interval{wire::heartbeat_interval_ms};  // buffered frames go out at least this often
        size_t flush_frames = 512;                         // ... or as soon as this many are buffered
        std::chrono::milliseconds heartbeat_interval{wire::heartbeat_interval_ms};
        std::chrono::milliseconds send_timeout{10000};     // one write (or the connect) taking longer: lost
    };

    TelemetrySender();
    explicit TelemetrySender(Options options);
    // Stops the sender thread (without BYE if finish() was not called) and closes.
    ~TelemetrySender();
    TelemetrySender(const TelemetrySender&) = delete;
    TelemetrySender& operator=(const TelemetrySender&) = delete;

    // Connects to the orchestrator's Unix socket. Throws InputError naming the
    // path (missing, not a socket, nobody listening, too long), ExitError(1) on timeout.
    void connect(const std::string& path);
    const std::string& path() const;

    // Instead of connect(): the messages go through another connection (a joined session's TCP
    // connection, common/join_peer.h). write: writes all bytes or fails with the reason (bounded
    // by its own timeout); closed: true with the reason once the peer ended the connection.
    struct Transport {
        std::function<bool(const std::vector<uint8_t>&, std::string& err)> write;
        std::function<bool(std::string& err)> closed;
    };
    void attach(Transport t, const std::string& name);

    // Sends HELLO (synchronously) and starts the sender thread. Marks progress.
    // Throws ExitError(1, "telemetry connection to PATH lost: ...") when it cannot be sent.
    void start(const wire::Hello& hello);
    bool started() const;

    // A completed frame, in seq order (FrameLog's emit callback). Cheap: appends
    // to a buffer under a lock. Dropped once the connection is lost.
    void frame(const FrameRecord& r);
    // The render loop made progress (frame submitted, think pause step, setup
    // step): the next HEARTBEAT may go out, stamped `complete_through_ns` (every frame
    // that began before it was given to frame(); FrameLog::complete_through). Without
    // calls, no HEARTBEATs.
    void alive(int64_t complete_through_ns);
    // Queued after every frame given so far; sent by the sender thread.
    void event(wire::EventKind kind, std::string text);

    bool lost() const;
    std::string lost_reason() const;  // "" while not lost
    // Throws ExitError(1, "telemetry connection to PATH lost: REASON") once lost.
    void check() const;

    // Flushes every buffered frame and event, sends BYE with frames_sent filled
    // in, stops the thread and closes. Returns false (nothing thrown) when the
    // connection was or got lost; lost_reason() says why. Only after start().
    bool finish(wire::Bye bye);

    uint64_t frames_given() const;  // frame() calls so far
    uint64_t frames_sent() const;   // frames in FRAMES messages written so far

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace seatmark::client
