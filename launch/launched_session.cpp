#include "launch/launched_session.h"

#include <cstdio>
#include <ctime>

#include "common/clock.h"

namespace seatmark::launch {

LaunchedSession::LaunchedSession(RdpTarget target, double logon_timeout_s, std::string references,
                                 uint32_t reference_every, std::function<void(const Arrival&)> on_arrival,
                                 std::function<void(uint64_t, double)> on_ssim, SsimSampler::Provider provider)
    : target_(std::move(target)),
      logon_timeout_s_(logon_timeout_s),
      references_(std::move(references)),
      reference_every_(reference_every),
      on_arrival_(std::move(on_arrival)),
      on_ssim_(std::move(on_ssim)),
      provider_(std::move(provider)) {
    out_.user = target_.user;
}

LaunchedSession::~LaunchedSession() {
    stop();
    join();
}

void LaunchedSession::start() { thread_ = std::thread([this] { run(); }); }
void LaunchedSession::stop() { stop_ = true; }
void LaunchedSession::join() {
    if (thread_.joinable()) thread_.join();
}

SessionOutcome LaunchedSession::outcome() const {
    std::lock_guard<std::mutex> lock(mu_);
    return out_;
}

// xrdp keeps a disconnected desktop running (KillDisconnected=false), so a launcher that only
// disconnected would leave every desktop behind: it asks the desktop to end and waits for the
// server's logoff.
void LaunchedSession::end_desktop(RdpConnection& conn) {
    const int64_t t = now_ns();
    try {
        // Inside the try: the server may already log the desktop off while the key is held
        // (send_logoff_keys pumps for 200 ms), and that is the ending asked for, not a fault.
        conn.send_logoff_keys();
        while (now_ns() - t < static_cast<int64_t>(logoff_timeout_s * 1e9)) conn.pump(100);
    } catch (const RdpError& e) {
        std::lock_guard<std::mutex> lock(mu_);
        if (e.fault == RdpFault::logged_off) {
            out_.ending = "logged-off";
            out_.logoff_ms = static_cast<double>(now_ns() - t) / 1e6;
        } else {
            out_.ending = std::string("cut while logging off: ") + e.what();
        }
        return;
    }
    conn.disconnect();
    std::lock_guard<std::mutex> lock(mu_);
    out_.ending = "left-running (no logoff within " + std::to_string(static_cast<int>(logoff_timeout_s)) + " s)";
}

void LaunchedSession::run() {
    EndpointMeter meter;
    SsimSampler ssim(references_, reference_every_, on_ssim_, provider_);
    const int64_t t0 = now_ns();
    {
        std::lock_guard<std::mutex> lock(mu_);
        out_.started_ns = t0;
    }
    auto ms_since = [&](int64_t t) { return static_cast<double>(t - t0) / 1e6; };
    int64_t first_frame_ns = 0;
    RdpFault fault = RdpFault::none;
    std::string detail;
    std::unique_ptr<RdpConnection> conn;
    try {
        conn = std::make_unique<RdpConnection>(target_, [&](const Paint& p) {
            auto a = meter.on_paint(p.frame, p.arrival_ns, p.x, p.y, p.w, p.h);
            ssim.on_paint(p.frame, p.arrival_ns, a ? static_cast<int64_t>(a->seq) : -1, meter.layout().x0,
                          meter.layout().y0);
            if (conn) {
                std::lock_guard<std::mutex> lock(mu_);
                out_.codec = conn->counters().dominant();
                out_.payload_bytes = conn->counters().total_bytes();
            }
            if (a) {
                if (!first_frame_ns) first_frame_ns = a->arrival_ns;
                if (on_arrival_) on_arrival_(*a);
            }
        });
        conn->connect();
        {
            std::lock_guard<std::mutex> lock(mu_);
            out_.connect_ms = ms_since(now_ns());
        }
        const int64_t logon_deadline = t0 + static_cast<int64_t>(logon_timeout_s_ * 1e9);
        while (!stop_) {
            conn->pump(100);
            if (!first_frame_ns && now_ns() > logon_deadline) {
                // xrdp answers a refused password with its own logon screen, not an error PDU.
                throw RdpError(RdpFault::logon,
                               "RDP session " + conn->peer() + ": no desktop frame within " +
                                   std::to_string(static_cast<int>(logon_timeout_s_)) +
                                   " s of connecting (refused password, or the desktop did not start: "
                                   "does the user's logon start `seatmark session --window --watermark`?)");
            }
        }
        end_desktop(*conn);
    } catch (const RdpError& e) {
        fault = e.fault;
        detail = e.what();
        std::lock_guard<std::mutex> lock(mu_);
        out_.ending = fault_name(fault);
    }
    const auto s = meter.summary();
    ssim.finish();
    std::lock_guard<std::mutex> lock(mu_);
    out_.ssim = ssim.summary();
    out_.fault = fault_name(fault);
    out_.detail = detail;
    if (meter.first_paint_ns()) out_.first_paint_ms = ms_since(meter.first_paint_ns());
    if (first_frame_ns) out_.first_frame_ms = ms_since(first_frame_ns);
    if (conn) {
        out_.codec = conn->counters().dominant();
        out_.payload_bytes = conn->counters().total_bytes();
        const double secs = static_cast<double>(now_ns() - (first_frame_ns ? first_frame_ns : t0)) / 1e9;
        if (secs > 0) out_.payload_bytes_per_s = static_cast<double>(out_.payload_bytes) / secs;
    }
    out_.endpoint = s;
    out_.arrivals = meter.arrivals();
    timespec cpu{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    out_.cpu_s = static_cast<double>(cpu.tv_sec) + static_cast<double>(cpu.tv_nsec) / 1e9;
    done_ = true;
}

}  // namespace seatmark::launch
