#include "client/join_session.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>

#include "client/reference_keep.h"
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
    join::Start as;
    std::string why;
    std::deque<join::RefAsk> asks;  // REF_ASKs for the responder
};

// Answers REF_ASK with the kept reference of that frame (or why there is none), off the peer's
// I/O thread: JoinPeer::send waits for the write, which that thread does.
class RefResponder {
public:
    RefResponder(join::JoinPeer& peer, std::shared_ptr<Control> ctl, std::shared_ptr<ReferenceKeep> keep)
        : peer_(peer), ctl_(std::move(ctl)), keep_(std::move(keep)), thread_([this] { loop(); }) {}
    ~RefResponder() {
        {
            std::lock_guard<std::mutex> l(ctl_->mu);
            done_ = true;
        }
        ctl_->cv.notify_all();
        thread_.join();
    }

private:
    void loop() {
        for (;;) {
            join::RefAsk a;
            {
                std::unique_lock<std::mutex> l(ctl_->mu);
                ctl_->cv.wait(l, [&] { return done_ || !ctl_->asks.empty(); });
                if (done_) return;
                a = std::move(ctl_->asks.front());
                ctl_->asks.pop_front();
            }
            join::Reference r;
            r.user = a.user;
            r.seq = a.seq;
            const auto f = keep_ ? keep_->get(a.seq) : std::nullopt;
            if (!f) r.reason = "frame " + std::to_string(a.seq) + " is not among the session's kept references";
            else if (f->gray.size() > join::max_reference_bytes || f->width > 65535 || f->height > 65535)
                r.reason = "the reference is larger than a REFERENCE message carries";
            else {
                r.width = uint16_t(f->width);
                r.height = uint16_t(f->height);
                r.gray_width = uint16_t(f->gray_width);
                r.gray_height = uint16_t(f->gray_height);
                r.gray = f->gray;
            }
            std::vector<uint8_t> b;
            join::encode(b, r);
            std::string err;
            if (!peer_.send(std::move(b), err)) return;  // the connection is gone: the session notices it
        }
    }
    join::JoinPeer& peer_;
    std::shared_ptr<Control> ctl_;
    std::shared_ptr<ReferenceKeep> keep_;
    bool done_ = false;
    std::thread thread_;
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
                if (auto* st = std::get_if<join::Start>(&m)) {
                    ctl->start = true;
                    ctl->as = *st;
                }
                if (auto* a = std::get_if<join::RefAsk>(&m); a && ctl->asks.size() < 64) ctl->asks.push_back(*a);
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
        // WELCOME's id is the connection's place in join order (agents and launchers count too);
        // the session's number is the one START gives it, as the run's database, report and
        // monitor call it: said only once it is known.
        if (!opts.quiet)
            std::fprintf(stderr, "seatmark: joined the run at %s from host %s; waiting to be activated\n",
                         peer.where().c_str(), me.host.c_str());
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
        if (!opts.quiet)
            std::fprintf(stderr, "seatmark: activated as session %u of the run at %s (host %s, profile %s)\n",
                         ctl->as.session_id, peer.where().c_str(), me.host.c_str(), ctl->as.profile_name.c_str());
        SessionOptions o = opts;
        o.workload = ctl->as.profile_name;
        o.profile_text = ctl->as.profile_text;
        if (o.device.empty()) o.device = w.device;
        o.allow_software = w.allow_software && opts.allow_software;
        o.duration_s = w.duration_s;
        o.session_id = ctl->as.session_id;
        // A watermarked session keeps its sampled references for the run to ask for (an RDP
        // launcher's SSIM, REF_ASK), beside any --reference-dir.
        if (o.watermark_cell > 0) o.reference_keep = std::make_shared<ReferenceKeep>();
        RefResponder responder(peer, ctl, o.reference_keep);
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
