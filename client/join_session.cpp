#include "client/join_session.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>

#include "client/session_report.h"
#include "client/stop_signal.h"
#include "client/telemetry.h"
#include "common/clock.h"
#include "common/errors.h"
#include "common/exit_codes.h"
#include "common/join_auth.h"
#include "common/join_peer.h"

namespace seatmark::client {

namespace {

// What the orchestrator said so far on one connection (set on the peer's I/O thread).
struct Control {
    std::mutex mu;
    std::condition_variable cv;
    bool start = false, stop = false, lost = false;
    std::string why;
};

enum class Outcome { stopped, lost };

}  // namespace

int run_joined_session(SessionOptions opts, const JoinArgs& args) {
    const std::string token = join::read_token_file(args.token_file);
    if (auto w = join::token_file_warning(args.token_file); !w.empty()) std::fprintf(stderr, "seatmark: warning: %s\n", w.c_str());
    join::JoinPeer::Options po;
    po.address = join::parse_host_port(args.address, "--join");
    po.token = token;
    po.role = join::Role::session;
    po.retry_s = args.retry_s;
    join::PeerIdentity me = join::local_identity(args.host_name);
    me.device = opts.device;
    for (int attempt = 0;; ++attempt) {
        join::JoinPeer peer(po);
        const join::Welcome w = peer.join(me);  // retries connecting up to retry_s; refusal throws
        auto ctl = std::make_shared<Control>();
        peer.run(
            [ctl](const join::JoinMessage& m) {
                std::lock_guard<std::mutex> l(ctl->mu);
                if (std::holds_alternative<join::Start>(m)) ctl->start = true;
                if (std::holds_alternative<join::Stop>(m)) {
                    ctl->stop = true;
                    request_stop();  // a rendering session finishes its frame and says BYE
                }
                ctl->cv.notify_all();
            },
            [ctl](const std::string& why) {
                std::lock_guard<std::mutex> l(ctl->mu);
                ctl->lost = true;
                ctl->why = why;
                ctl->cv.notify_all();
            });
        if (!opts.quiet)
            std::fprintf(stderr, "seatmark: joined the run at %s as session %u (host %s); waiting to be activated\n",
                         peer.where().c_str(), w.id, me.host.c_str());
        {
            std::unique_lock<std::mutex> l(ctl->mu);
            // Woken by the orchestrator, or every 200 ms to notice a stop signal.
            while (!ctl->start && !ctl->stop && !ctl->lost && !stop_requested())
                ctl->cv.wait_for(l, std::chrono::milliseconds(200));
            if (ctl->stop || (stop_requested() && !ctl->start)) {
                if (!opts.quiet) std::fprintf(stderr, "seatmark: told to stop before being activated; exiting\n");
                return exit_code::ok;
            }
            if (ctl->lost && !ctl->start) {
                std::fprintf(stderr, "seatmark: connection to %s lost while waiting (%s); joining again\n",
                             peer.where().c_str(), ctl->why.c_str());
                continue;
            }
        }
        SessionOptions o = opts;
        o.workload = w.profile_name;
        o.profile_text = w.profile_text;
        if (o.device.empty()) o.device = w.device;
        o.allow_software = w.allow_software && opts.allow_software;
        o.duration_s = w.duration_s;
        o.session_id = w.id;
        TelemetrySender telemetry;
        telemetry.attach({[&peer](const std::vector<uint8_t>& b, std::string& err) { return peer.send(b, err); },
                          [&peer](std::string& err) {
                              if (!peer.lost()) return false;
                              err = peer.lost_reason();
                              return true;
                          }},
                         peer.where());
        try {
            return run_reporting(o, &telemetry);
        } catch (...) {
            // A dropped connection stops the rendering (the telemetry check throws); anything
            // else is the session's own failure, already told to the orchestrator.
            if (!telemetry.lost() || stop_requested()) throw;
            std::fprintf(stderr, "seatmark: connection to %s lost while rendering (%s); rendering stopped, joining again for up to %.0f s\n",
                         peer.where().c_str(), telemetry.lost_reason().c_str(), args.retry_s);
        }
    }
}

}  // namespace seatmark::client
