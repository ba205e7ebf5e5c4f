#include "launch/join_launcher.h"

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <deque>
#include <memory>
#include <map>
#include <mutex>
#include <optional>

#include "common/clock.h"
#include "common/exit_codes.h"
#include "common/join_auth.h"
#include "common/join_peer.h"
#include "common/stop_signals.h"
#include "launch/launched_session.h"

namespace seatmark::launch {

namespace {

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

// What the orchestrator asked, handed from the peer's I/O thread to the main loop.
struct Control {
    std::mutex mu;
    std::condition_variable cv;
    uint32_t logons = 0;               // LOGON counts not yet acted on
    std::deque<std::string> logoffs;   // LOGOFF users not yet acted on
    std::deque<join::Reference> references;  // REFERENCEs for the logons' SSIM
    bool stop = false, lost = false;
    std::string why;
};

// One logon: its session thread and what it saw since the last report.
struct Logon {
    std::unique_ptr<LaunchedSession> session;
    std::mutex mu;
    // References asked of the run (REF_ASK) and those it sent back, by frame number.
    std::map<uint64_t, std::optional<image::ReferenceFrame>> refs;
    std::vector<join::ArrivalEntry> arrivals;
    std::vector<join::SsimEntry> ssim;
    bool ended_sent = false;
};

}  // namespace

int run_join_launcher(const RdpTarget& base, const std::vector<TestUser>& users, const JoinLauncherOptions& o) {
    join::JoinPeer::Options po;
    po.address = join::parse_host_port(o.address, "--join");
    po.token = join::read_token_file(o.token_file);
    if (auto w = join::token_file_warning(o.token_file); !w.empty()) std::fprintf(stderr, "seatmark launch: warning: %s\n", w.c_str());
    po.role = join::Role::launcher;
    po.retry_s = o.retry_s;
    join::PeerIdentity me = join::local_identity(o.host_name);
    me.device = "rdp " + base.host + ":" + std::to_string(base.port);
    const std::string rdp_host = base.host + ":" + std::to_string(base.port);
    const std::string session_host = o.session_host.empty() ? base.host : o.session_host;

    for (int sig : stop_signals()) std::signal(sig, on_signal);
    join::JoinPeer peer(po);
    const join::Welcome w = peer.join(me);
    auto ctl = std::make_shared<Control>();
    peer.run(
        [ctl](const join::JoinMessage& m) {
            std::lock_guard<std::mutex> l(ctl->mu);
            if (auto* n = std::get_if<join::Logon>(&m)) ctl->logons += n->count;
            if (auto* f = std::get_if<join::Logoff>(&m)) ctl->logoffs.push_back(f->user);
            if (auto* r = std::get_if<join::Reference>(&m)) ctl->references.push_back(*r);
            if (std::holds_alternative<join::Stop>(m)) ctl->stop = true;
            ctl->cv.notify_all();
        },
        [ctl](const std::string& why) {
            std::lock_guard<std::mutex> l(ctl->mu);
            ctl->lost = true;
            ctl->why = why;
            ctl->cv.notify_all();
        });
    if (!o.quiet)
        std::fprintf(stderr,
                     "seatmark launch: joined the run at %s as launcher %u (%s); %zu test user(s) for %s, sessions join as host %s\n",
                     peer.where().c_str(), w.id, me.host.c_str(), users.size(), rdp_host.c_str(), session_host.c_str());

    std::vector<std::unique_ptr<Logon>> logons;
    size_t next_user = 0;
    std::string send_err;
    auto send = [&](const join::JoinMessage& m) {
        std::vector<uint8_t> b;
        join::encode(b, m);
        if (!peer.send(std::move(b), send_err)) {
            std::lock_guard<std::mutex> l(ctl->mu);
            ctl->lost = true;
            ctl->why = send_err;
        }
    };
    auto state_of = [&](const Logon& lg, uint8_t state) {
        const SessionOutcome r = lg.session->outcome();
        join::LogonState s;
        s.host = session_host;
        s.user = r.user;
        s.rdp_host = rdp_host;
        s.state = state;
        s.t_ns = state == join::LogonState::connecting ? r.started_ns : now_ns();
        s.fault = state == join::LogonState::connecting ? "none" : r.fault;
        s.detail = state == join::LogonState::connecting ? "" : r.detail.empty() ? r.ending : r.detail;
        s.codec = r.codec;
        s.payload_bytes = r.payload_bytes;
        s.paints = r.endpoint.paints;
        s.unreadable = r.endpoint.unreadable;
        s.bytes_per_s = r.payload_bytes_per_s;
        return s;
    };
    auto flush_arrivals = [&](Logon& lg) {
        join::Arrivals a;
        {
            std::lock_guard<std::mutex> l(lg.mu);
            if (lg.arrivals.empty() && lg.ssim.empty()) return;
            const size_t n = std::min<size_t>(lg.arrivals.size(), join::max_arrivals);
            const size_t k = std::min<size_t>(lg.ssim.size(), join::max_ssim);
            a.arrivals.assign(lg.arrivals.begin(), lg.arrivals.begin() + std::ptrdiff_t(n));
            lg.arrivals.erase(lg.arrivals.begin(), lg.arrivals.begin() + std::ptrdiff_t(n));
            a.ssim.assign(lg.ssim.begin(), lg.ssim.begin() + std::ptrdiff_t(k));
            lg.ssim.erase(lg.ssim.begin(), lg.ssim.begin() + std::ptrdiff_t(k));
        }
        const SessionOutcome r = lg.session->outcome();
        a.host = session_host;
        a.user = r.user;
        a.codec = r.codec;
        a.payload_bytes = r.payload_bytes;
        send(a);
    };
    auto open_logon = [&]() -> bool {
        if (next_user >= users.size()) return false;
        const TestUser& u = users[next_user++];
        RdpTarget t = base;
        t.user = u.user;
        t.password = u.password;
        t.domain = u.domain;
        std::string refs = o.references;
        for (auto at = refs.find("%u"); at != std::string::npos; at = refs.find("%u", at + t.user.size()))
            refs.replace(at, 2, t.user);
        auto lg = std::make_unique<Logon>();
        Logon* raw = lg.get();
        // Without a folder of the sessions' references, ask the run for each sampled frame's.
        SsimSampler::Provider provider;
        if (refs.empty())
            provider = [raw, &peer, session_host, user = t.user](uint64_t seq) -> std::optional<image::ReferenceFrame> {
                {
                    std::lock_guard<std::mutex> l(raw->mu);
                    auto it = raw->refs.find(seq);
                    if (it != raw->refs.end()) return it->second;
                    while (raw->refs.size() >= 16) raw->refs.erase(raw->refs.begin());  // bounded: old asks are forgotten
                    raw->refs[seq];
                }
                // From the logon's own thread: its own error text (a lost connection shows in the main loop).
                std::vector<uint8_t> b;
                join::encode(b, join::RefAsk{session_host, user, seq});
                std::string err;
                peer.send(std::move(b), err);
                return std::nullopt;
            };
        lg->session = std::make_unique<LaunchedSession>(
            t, o.logon_timeout_s, refs, o.reference_every,
            [raw](const Arrival& a) {
                std::lock_guard<std::mutex> l(raw->mu);
                raw->arrivals.push_back({a.seq, a.arrival_ns});
            },
            [raw](uint64_t seq, double v) {
                std::lock_guard<std::mutex> l(raw->mu);
                raw->ssim.push_back({seq, v});
            },
            std::move(provider));
        lg->session->start();
        // started_ns is set first thing on the session's thread: wait for it so the stamp is real.
        for (int i = 0; i < 100 && lg->session->outcome().started_ns == 0; ++i) sleep_until_ns(now_ns() + 1'000'000);
        send(state_of(*lg, join::LogonState::connecting));
        logons.push_back(std::move(lg));
        return true;
    };

    int rc = exit_code::ok;
    int64_t next_flush = now_ns(), next_keepalive = now_ns();
    for (;;) {
        uint32_t want = 0;
        std::deque<std::string> offs;
        std::deque<join::Reference> refs_in;
        bool stop = false, lost = false;
        std::string why;
        {
            std::unique_lock<std::mutex> l(ctl->mu);
            ctl->cv.wait_for(l, std::chrono::milliseconds(50));
            std::swap(want, ctl->logons);
            std::swap(offs, ctl->logoffs);
            std::swap(refs_in, ctl->references);
            stop = ctl->stop;
            lost = ctl->lost;
            why = ctl->why;
        }
        for (uint32_t i = 0; i < want; ++i) {
            if (open_logon()) continue;
            // Out of users: said once per request, so the orchestrator records the shortfall.
            join::LogonState s;
            s.host = session_host;
            s.rdp_host = rdp_host;
            s.state = join::LogonState::ended;
            s.t_ns = now_ns();
            s.fault = "no-user";
            s.detail = "every one of the " + std::to_string(users.size()) + " test users in --users already holds a logon";
            send(s);
        }
        for (auto& r : refs_in)
            for (auto& lg : logons) {
                if (lg->session->user() != r.user) continue;
                std::lock_guard<std::mutex> l(lg->mu);
                auto it = lg->refs.find(r.seq);
                if (it == lg->refs.end() || r.gray_width == 0) continue;  // not asked, or none kept: the sampler gives up
                image::ReferenceFrame f{r.seq, r.width, r.height, r.gray_width, r.gray_height, std::move(r.gray)};
                it->second = std::move(f);
            }
        for (const auto& u : offs)
            for (auto& lg : logons)
                if (lg->session->user() == u && !lg->session->done()) lg->session->stop();
        if (now_ns() >= next_keepalive) {
            next_keepalive = now_ns() + 2'000'000'000;
            send(join::Arrivals{});
        }
        const bool flush = now_ns() >= next_flush;
        if (flush) next_flush = now_ns() + 250'000'000;
        for (auto& lg : logons) {
            if (lg->ended_sent) continue;
            if (flush || lg->session->done()) flush_arrivals(*lg);
            if (lg->session->done()) {
                lg->session->join();
                flush_arrivals(*lg);
                send(state_of(*lg, join::LogonState::ended));
                lg->ended_sent = true;
            }
        }
        if (stop || lost || g_stop) {
            if (lost) {
                std::fprintf(stderr, "seatmark launch: connection to the run at %s lost (%s); ending every logon\n",
                             peer.where().c_str(), why.c_str());
                rc = exit_code::failure;
            }
            break;
        }
    }
    // End every logon (each asks its desktop to end and waits for the server's logoff), then say how each ended.
    for (auto& lg : logons) lg->session->stop();
    for (auto& lg : logons) {
        lg->session->join();
        if (lg->ended_sent) continue;
        flush_arrivals(*lg);
        send(state_of(*lg, join::LogonState::ended));
    }
    for (auto& lg : logons) {
        const SessionOutcome r = lg->session->outcome();
        if (!o.quiet)
            std::fprintf(stderr, "seatmark launch: %-20s %-10s logon %6.0f ms  %5.1f frames/s  %s\n", r.user.c_str(),
                         r.fault.c_str(), r.first_frame_ms, r.endpoint.arrivals_per_s, r.ending.c_str());
    }
    peer.close();
    return rc;
}

}  // namespace seatmark::launch
