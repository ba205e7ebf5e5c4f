#include "client/telemetry.h"

#include <utility>  // before Asio: GCC 12 needs it for Boost 1.81's headers

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/write.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/errors.h"
#include "common/exit_codes.h"

namespace seatmark::client {

namespace asio = boost::asio;
using boost::system::error_code;
using unix_socket = asio::local::stream_protocol;
// sockaddr_un's sun_path: 108 bytes on Linux and in Windows' afunix.h alike.
constexpr size_t max_socket_path = 108;

namespace {

std::string seconds(std::chrono::milliseconds d) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f s", double(d.count()) / 1000.0);
    return b;
}

}  // namespace

struct TelemetrySender::Impl {
    Options opt;
    std::string path;
    asio::io_context io;
    unix_socket::socket sock{io};
    bool connected = false;
    bool started = false;
    std::thread thread;
    Transport transport;  // set by attach(): bytes go there instead of the Unix socket

    mutable std::mutex mu;
    std::condition_variable cv;
    std::vector<FrameRecord> pending;  // given, not yet encoded
    std::vector<uint8_t> queued;       // encoded messages (frames before events), not yet taken by the thread
    uint64_t queued_frames = 0;        // frames inside `queued`
    uint64_t frames_encoded = 0;       // every frame put into a FRAMES message so far
    bool stop = false;
    bool want_bye = false;
    wire::Bye bye;
    std::string lost_reason;

    std::atomic<bool> lost{false};
    std::atomic<uint64_t> ticks{0}, given{0}, sent{0};
    std::atomic<int64_t> complete_ns{INT64_MIN};  // alive()'s stamp; released after the frames it covers were given

    void set_lost(std::string why) {
        std::lock_guard<std::mutex> lock(mu);
        if (lost.load()) return;
        lost_reason = std::move(why);
        lost.store(true);
    }

    void encode_pending_locked(std::vector<uint8_t>& out, uint64_t& count) {
        std::span<const FrameRecord> all(pending);
        for (size_t i = 0; i < all.size(); i += wire::max_frames_per_message)
            wire::encode_frames(out, all.subspan(i, std::min<size_t>(wire::max_frames_per_message, all.size() - i)));
        frames_encoded += pending.size();
        count += pending.size();
        pending.clear();
    }

    // Writes all of `data`, or gives up after send_timeout. One thread at a time.
    bool write_all(const std::vector<uint8_t>& data, std::string& err) {
        if (transport.write) return transport.write(data, err);
        error_code result = asio::error::would_block;
        bool done = false;
        asio::async_write(sock, asio::buffer(data), [&](const error_code& ec, size_t) {
            result = ec;
            done = true;
        });
        io.restart();
        io.run_for(opt.send_timeout);
        if (!done) {
            error_code ignored;
            sock.cancel(ignored);
            io.restart();
            io.run();  // lets the cancelled write finish
            err = "sending took longer than " + seconds(opt.send_timeout) + " (the orchestrator is not reading)";
            return false;
        }
        if (result) {
            err = "send failed: " + result.message();
            return false;
        }
        return true;
    }

    // The protocol is one-way; a readable socket means the orchestrator closed
    // it (or sent bytes, which are ignored).
    bool peer_closed(std::string& err) {
        if (transport.closed) return transport.closed(err);
        uint8_t buf[512];
        for (int i = 0; i < 16; ++i) {
            error_code ec;
            sock.read_some(asio::buffer(buf), ec);
            if (ec == asio::error::would_block || ec == asio::error::try_again) return false;
            if (ec == asio::error::eof) {
                err = "the orchestrator closed the connection";
                return true;
            }
            if (ec) {
                err = "receive failed: " + ec.message();
                return true;
            }
        }
        return false;
    }

    void run() {
        using clock = std::chrono::steady_clock;
        auto next_heartbeat = clock::now() + opt.heartbeat_interval;
        uint64_t last_ticks = 0;
        std::vector<uint8_t> out;
        wire::Bye final_bye;
        for (;;) {
            out.clear();
            uint64_t nframes = 0;
            bool stopping = false, send_bye = false;
            {
                std::unique_lock<std::mutex> lock(mu);
                auto deadline = std::min(clock::now() + opt.flush_interval, next_heartbeat);
                cv.wait_until(lock, deadline,
                              [&] { return stop || pending.size() >= opt.flush_frames || !queued.empty(); });
                out.swap(queued);
                nframes = queued_frames;
                queued_frames = 0;
                encode_pending_locked(out, nframes);
                stopping = stop;
                send_bye = want_bye;
                if (send_bye) {
                    final_bye = bye;
                    final_bye.frames_sent = frames_encoded;
                }
            }
            auto now = clock::now();
            if (now >= next_heartbeat) {
                // Only when the render loop moved since the last one: a hung loop sends none.
                uint64_t t = ticks.load(std::memory_order_relaxed);
                if (t != last_ticks) {
                    last_ticks = t;
                    // The stamp first (acquire): every frame it covers is then counted in `given`.
                    const int64_t through = complete_ns.load(std::memory_order_acquire);
                    wire::encode(out, wire::Heartbeat{std::min(now_ns(), through), given.load(std::memory_order_relaxed)});
                }
                next_heartbeat = now + opt.heartbeat_interval;
            }
            if (send_bye) wire::encode(out, final_bye);
            std::string err;
            if (!out.empty() && !write_all(out, err)) {
                set_lost(std::move(err));
                return;
            }
            sent.fetch_add(nframes);
            if (stopping) return;
            if (peer_closed(err)) {
                set_lost(std::move(err));
                return;
            }
        }
    }

    void stop_thread(bool with_bye, const wire::Bye& b) {
        if (!thread.joinable()) return;
        {
            std::lock_guard<std::mutex> lock(mu);
            stop = true;
            want_bye = with_bye;
            bye = b;
        }
        cv.notify_one();
        thread.join();
    }
};

TelemetrySender::TelemetrySender() : TelemetrySender(Options{}) {}

TelemetrySender::TelemetrySender(Options options) : impl_(std::make_unique<Impl>()) { impl_->opt = options; }

TelemetrySender::~TelemetrySender() {
    impl_->stop_thread(false, {});
    error_code ignored;
    impl_->sock.close(ignored);
}

void TelemetrySender::connect(const std::string& path) {
    auto& d = *impl_;
    if (d.connected) throw std::logic_error("TelemetrySender::connect called twice");
    d.path = path;
    const std::string what = "telemetry socket " + path + " (--connect): ";
    if (path.empty()) throw InputError(what + "expected the path of a Unix socket");
    if (path.size() >= max_socket_path)
        throw InputError(what + "path is " + std::to_string(path.size()) + " bytes, a Unix socket path must be under " +
                         std::to_string(max_socket_path));
    error_code result = asio::error::would_block;
    bool done = false;
    d.sock.async_connect(unix_socket::endpoint(path), [&](const error_code& ec) {
        result = ec;
        done = true;
    });
    d.io.restart();
    d.io.run_for(d.opt.send_timeout);
    if (!done) {
        error_code ignored;
        d.sock.close(ignored);
        d.io.restart();
        d.io.run();
        throw ExitError(exit_code::failure, what + "connecting took longer than " + seconds(d.opt.send_timeout));
    }
    if (result) {
        error_code ignored;
        d.sock.close(ignored);
        throw InputError(what + "cannot connect: " + result.message() + " (is `seatmark run` listening there?)");
    }
    d.sock.non_blocking(true);
    d.connected = true;
}

void TelemetrySender::attach(Transport t, const std::string& name) {
    auto& d = *impl_;
    if (d.connected) throw std::logic_error("TelemetrySender::attach after connect");
    if (!t.write || !t.closed) throw std::logic_error("TelemetrySender::attach: write and closed are both needed");
    d.path = name;
    d.transport = std::move(t);
    d.connected = true;
}

const std::string& TelemetrySender::path() const { return impl_->path; }

void TelemetrySender::start(const wire::Hello& hello) {
    auto& d = *impl_;
    if (!d.connected || d.started) throw std::logic_error("TelemetrySender::start: not connected, or started twice");
    std::vector<uint8_t> out;
    wire::encode(out, hello);
    std::string err;
    if (!d.write_all(out, err)) {
        d.set_lost(std::move(err));
        check();
    }
    d.started = true;
    alive(now_ns());  // no frame has begun yet
    d.thread = std::thread([&d] { d.run(); });
}

bool TelemetrySender::started() const { return impl_->started; }

void TelemetrySender::frame(const FrameRecord& r) {
    auto& d = *impl_;
    if (d.lost.load(std::memory_order_relaxed)) return;
    d.given.fetch_add(1, std::memory_order_relaxed);
    bool wake;
    {
        std::lock_guard<std::mutex> lock(d.mu);
        d.pending.push_back(r);
        wake = d.pending.size() == d.opt.flush_frames;
    }
    if (wake) d.cv.notify_one();
}

void TelemetrySender::alive(int64_t complete_through_ns) {
    impl_->complete_ns.store(complete_through_ns, std::memory_order_release);
    impl_->ticks.fetch_add(1, std::memory_order_relaxed);
}

void TelemetrySender::event(wire::EventKind kind, std::string text) {
    auto& d = *impl_;
    if (d.lost.load(std::memory_order_relaxed)) return;
    {
        std::lock_guard<std::mutex> lock(d.mu);
        d.encode_pending_locked(d.queued, d.queued_frames);  // frames given before the event go first
        wire::encode(d.queued, wire::Event{now_ns(), kind, std::move(text)});
    }
    d.cv.notify_one();
}

bool TelemetrySender::lost() const { return impl_->lost.load(); }

std::string TelemetrySender::lost_reason() const {
    std::lock_guard<std::mutex> lock(impl_->mu);
    return impl_->lost_reason;
}

void TelemetrySender::check() const {
    if (lost())
        throw ExitError(exit_code::failure, "telemetry connection to " + impl_->path + " lost: " + lost_reason());
}

bool TelemetrySender::finish(wire::Bye bye) {
    auto& d = *impl_;
    if (!d.started) return false;
    d.stop_thread(true, bye);
    error_code ignored;
    d.sock.shutdown(unix_socket::socket::shutdown_both, ignored);
    d.sock.close(ignored);
    return !lost();
}

uint64_t TelemetrySender::frames_given() const { return impl_->given.load(); }
uint64_t TelemetrySender::frames_sent() const { return impl_->sent.load(); }

}  // namespace seatmark::client
