#pragma once
// One test user's RDP session as a launcher holds it: its own thread connects, logs on,
// watches the paints (EndpointMeter) until asked to stop or the connection fails, then
// disconnects. Every outcome, good or bad, ends as a SessionOutcome with its reason.
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "launch/endpoint_meter.h"
#include "launch/rdp_connection.h"
#include "launch/ssim_sampler.h"

namespace seatmark::launch {

struct SessionOutcome {
    std::string user;
    std::string fault = "none";   // none | refused | tls | logon | protocol | cut | logged-off (desktop ended on its own)
    std::string ending;           // logged-off (the launcher ended the desktop) | left-running | the fault
    std::string detail;           // the message behind the fault
    int64_t started_ns = 0;       // connect asked
    double connect_ms = -1;       // TCP + TLS + RDP handshake + credentials sent
    double first_paint_ms = -1;   // connect asked -> first paint of anything (a logon screen counts)
    double first_frame_ms = -1;   // connect asked -> first watermarked frame: the desktop is up (logon time)
    double logoff_ms = -1;        // logoff keys sent -> the server ended the session
    std::string codec = "none";   // the codec that carried most bytes
    uint64_t payload_bytes = 0;   // codec payload received (RemoteFX tiles, bitmaps)
    double payload_bytes_per_s = 0;
    EndpointSummary endpoint;
    SsimSummary ssim;
    double cpu_s = 0;               // this session's launcher thread: FreeRDP decoding, painting, the watermark
    std::vector<Arrival> arrivals;  // every rendered frame seen, in order
};

class LaunchedSession {
public:
    // on_arrival: called on the session's thread for every new rendered frame seen.
    // references: the session's --reference-dir as the launcher reaches it ("" for none), sampled
    // one frame in reference_every.
    LaunchedSession(RdpTarget target, double logon_timeout_s, std::string references = {}, uint32_t reference_every = 30,
                    std::function<void(const Arrival&)> on_arrival = {},
                    std::function<void(uint64_t seq, double ssim)> on_ssim = {}, SsimSampler::Provider references_provider = {});
    ~LaunchedSession();  // stops and joins
    LaunchedSession(const LaunchedSession&) = delete;
    LaunchedSession& operator=(const LaunchedSession&) = delete;

    void start();
    void stop();             // asks the thread to disconnect and end
    bool done() const { return done_; }
    void join();
    SessionOutcome outcome() const;  // complete once done(); while it runs: started_ns, codec, payload_bytes so far
    const std::string& user() const { return target_.user; }

private:
    void run();
    void end_desktop(RdpConnection& conn);
    static constexpr double logoff_timeout_s = 10;
    RdpTarget target_;
    double logon_timeout_s_;
    std::string references_;
    uint32_t reference_every_;
    std::function<void(const Arrival&)> on_arrival_;
    std::function<void(uint64_t, double)> on_ssim_;
    SsimSampler::Provider provider_;
    std::atomic<bool> stop_{false}, done_{false};
    mutable std::mutex mu_;
    SessionOutcome out_;
    std::thread thread_;
};

}  // namespace seatmark::launch
