// A peer holding the run's token is still untrusted input: `seatmark run --accept` against
// sessions the test plays itself (the real join peer, common/join_peer.h, or a raw socket doing
// the handshake by hand) that send stamps and counts which cannot be true, duplicated frames,
// garbage right after WELCOME and PONGs off their clock. Each is refused or dropped, recorded
// with why, and the run goes on (core/peer_stamps.h, orchestrator/frame_account.h).
#include <doctest/doctest.h>

#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/join_auth.h"
#include "common/join_peer.h"
#include "common/join_protocol.h"
#include "tests/support/join_run.h"
#include "tests/support/process.h"
#include "tests/support/run_db.h"

using namespace seatmark;
using namespace std::chrono_literals;
using seatmark::test::count_or_zero;
using seatmark::test::JoinRun;
using seatmark::test::q;
using seatmark::test::qi;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

// Wide SLA and failures allowed: these runs are about what is recorded, not the verdict.
const char* const wide_sla = "[[mix]]\nprofile = \"ci-tiny\"\n[sla]\np95_interval_ms = 2000\nlow1_fps = 0.5\nstutter_pct = 100\nfailures = 10\n";

FrameRecord frame(uint64_t seq) {
    FrameRecord r;
    r.seq = seq;
    r.t_begin_ns = now_ns();
    r.t_present_ns = r.t_begin_ns + 1'000'000;
    r.cpu_ns = 1'000'000;
    r.interval_ns = seq ? 16'000'000 : -1;
    r.begin_interval_ns = r.interval_ns;
    return r;
}

std::vector<uint8_t> hello(uint32_t id) {
    wire::Hello h;
    h.session_id = id;
    h.profile = "ci-tiny";
    h.device_name = h.device_type = "synthetic";
    h.t_ns = now_ns();
    std::vector<uint8_t> out;
    wire::encode(out, h);
    return out;
}

// A joined session the test plays through the real join peer (it answers the clock PINGs):
// joins under `host`, then sends what the test scripts once START came.
struct ScriptedSession {
    join::JoinPeer peer;
    std::mutex mu;
    std::condition_variable cv;
    std::optional<uint32_t> id;
    bool stop = false, lost = false;

    ScriptedSession(const JoinRun& r, const std::string& host) : peer(options(r)) {
        peer.join(join::local_identity(host));
        peer.run(
            [this](const join::JoinMessage& m) {
                std::lock_guard<std::mutex> l(mu);
                if (auto* s = std::get_if<join::Start>(&m)) id = s->session_id;
                if (std::holds_alternative<join::Stop>(m)) stop = true;
                cv.notify_all();
            },
            [this](const std::string&) {
                std::lock_guard<std::mutex> l(mu);
                lost = true;
                cv.notify_all();
            });
    }
    static join::JoinPeer::Options options(const JoinRun& r) {
        join::JoinPeer::Options o;
        o.address = {"127.0.0.1", r.port};
        o.token = JoinRun::token_text;
        o.retry_s = 20;
        return o;
    }
    // Its session id once START came; nullopt when none came within a minute.
    std::optional<uint32_t> started() {
        std::unique_lock<std::mutex> l(mu);
        cv.wait_for(l, 60s, [&] { return id.has_value() || lost; });
        return id;
    }
    bool running() {
        std::lock_guard<std::mutex> l(mu);
        return !stop && !lost;
    }
    bool send(const std::vector<uint8_t>& b) {
        std::string err;
        return peer.send(b, err);
    }
    // HELLO, then 6 frames and a heartbeat every 200 ms (each FRAMES block twice when
    // `duplicate`) until STOP, then a BYE counting `bye_count(frames sent)` frames.
    void render(bool duplicate, uint64_t (*bye_count)(uint64_t)) {
        const auto sid = started();
        if (!sid || !send(hello(*sid))) return;  // the run's checks then fail
        uint64_t seq = 0;
        while (running()) {
            wire::Frames f;
            for (int i = 0; i < 6; ++i) f.frames.push_back(frame(seq++));
            std::vector<uint8_t> out;
            wire::encode(out, f);
            if (duplicate) wire::encode(out, f);
            wire::encode(out, wire::Heartbeat{now_ns(), seq});
            if (!send(out)) return;
            std::this_thread::sleep_for(200ms);
        }
        wire::Bye b;
        b.frames_sent = bye_count(seq);
        b.frames = seq;
        std::vector<uint8_t> out;
        wire::encode(out, b);
        send(out);
        peer.close();
    }
};

// A session peer the test plays over a raw socket: the handshake by hand with the run's token,
// then whatever the test sends.
struct RawPeer {
    asio::io_context io;
    tcp::socket s{io};
    join::Decoder dec;

    RawPeer(const JoinRun& r, const std::string& host) {
        const tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), r.port);
        boost::system::error_code ec;
        REQUIRE(test::wait_until(20, [&] {  // the run may not listen yet
            s.close(ec);
            s.connect(ep, ec);
            return !ec;
        }));
        auto ch = next();
        REQUIRE(ch);
        join::Join j;
        j.role = join::Role::session;
        j.client_nonce = join::random_nonce();
        j.host = host;
        j.user = "cad1";
        j.os_session = "rdp-1";
        j.pid = 4242;
        join::sign_join(j, std::get<join::Challenge>(*ch).nonce, JoinRun::token_text);
        send(join::JoinMessage{j});
        auto w = next();
        REQUIRE(w);
        REQUIRE(std::holds_alternative<join::Welcome>(*w));
        dec.set_limit(wire::max_payload);
    }
    // The orchestrator's next message; nullopt once it closed the connection.
    std::optional<join::JoinMessage> next() {
        std::array<uint8_t, 4096> buf;
        join::Message m;
        for (;;) {
            auto st = dec.next(m);
            if (st == wire::DecodeStatus::ok) return std::get<join::JoinMessage>(m);
            REQUIRE(st == wire::DecodeStatus::need_more);
            boost::system::error_code ec;
            const size_t n = s.read_some(asio::buffer(buf), ec);
            if (ec) return std::nullopt;
            dec.feed(buf.data(), n);
        }
    }
    void send(const join::JoinMessage& m) {
        std::vector<uint8_t> out;
        join::encode(out, m);
        send_bytes(out);
    }
    void send_bytes(const std::vector<uint8_t>& b) {
        boost::system::error_code ec;
        asio::write(s, asio::buffer(b), ec);
    }
    // Answers each PING with `stamp(n)` as its clock (n counts the PINGs from 1), up to
    // `max_pings` of them, and START with `on_start(session id)`. True when the run closed the
    // connection by then (a peer the run kept would wait here for ever).
    template <class Stamp, class OnStart>
    bool serve(Stamp stamp, OnStart on_start, int max_pings) {
        int n = 0;
        for (;;) {
            auto m = next();
            if (!m) return true;
            if (n == max_pings) return false;
            if (auto* p = std::get_if<join::Ping>(&*m)) send(join::Pong{p->seq, p->t_orch_ns, stamp(++n)});
            if (auto* st = std::get_if<join::Start>(&*m)) send_bytes(on_start(st->session_id));
        }
    }
};

constexpr int64_t far_ns = 1'000'000'000'000'000;  // 11.6 days

}  // namespace

TEST_CASE("join mode: a frame stamped near INT64_MIN is refused with its reason, and the run goes on without hanging") {
    // Found by issue 35: such a frame sent the orchestrator's loop round the recent-frames window
    // forever (t_begin_ns - 10 s wrapped), with no status, no joins and Ctrl-C ignored.
    JoinRun r("heartbeat_timeout = \"5s\"\njoin_timeout = \"60s\"\n[steps]\nlist = [2]\nsettle = \"1s\"\nwindow = \"3s\"\n" +
              std::string(wide_sla));
    test::BackgroundProcess real(r.session("desk-real"));
    ScriptedSession evil(r, "desk-evil");
    const auto id = evil.started();
    REQUIRE(id);
    std::vector<uint8_t> out = hello(*id);
    wire::Frames good;
    for (uint64_t s = 0; s < 10; ++s) good.frames.push_back(frame(s));
    wire::encode(out, good);
    wire::encode(out, wire::Heartbeat{now_ns(), 10});
    REQUIRE(evil.send(out));
    // Mid-run: once the step has its sessions and its window is open (its steps row is written then).
    REQUIRE(test::wait_until(60, [&] { return count_or_zero(r.db, "SELECT COUNT(*) FROM steps") > 0; }));
    out.clear();
    wire::Frames bad;
    bad.frames.push_back(frame(10));
    bad.frames[0].t_begin_ns = std::numeric_limits<int64_t>::min() + 1;
    wire::encode(out, bad);
    evil.send(out);
    auto res = r.run->wait(90);
    INFO("run stderr: " << res.err);
    REQUIRE_FALSE(res.timed_out);
    REQUIRE(res.exit_code == 0);
    CHECK(real.wait(30).exit_code == 0);
    const auto& db = r.db;
    CHECK(q(db, "SELECT status FROM runs") == "finished");
    const std::string evil_id = "(SELECT id FROM sessions WHERE host = 'desk-evil')";
    CHECK(q(db, "SELECT end_reason FROM sessions WHERE id = " + evil_id) == "protocol");
    const std::string detail = q(db, "SELECT detail FROM sessions WHERE id = " + evil_id);
    CHECK(detail.find("FRAMES frame seq 10 t_begin_ns -9223372036854775807 is not a monotonic clock reading") !=
          std::string::npos);
    // What came before the bad message is kept; nothing of it.
    CHECK(qi(db, "SELECT COUNT(*) FROM frames WHERE session_id = " + evil_id) == 10);
    CHECK(qi(db, "SELECT frames_received FROM sessions WHERE id = " + evil_id) == 10);
    // The real session beside it rendered through the window and ended well.
    CHECK(q(db, "SELECT end_reason FROM sessions WHERE host = 'desk-real'") == "ok");
    CHECK(qi(db, "SELECT frames_received FROM sessions WHERE host = 'desk-real'") > 30);
}

TEST_CASE("join mode: counts that cannot be true end the session as a protocol fault, and duplicated frames are counted once and said") {
    JoinRun r("heartbeat_timeout = \"5s\"\njoin_timeout = \"60s\"\n[steps]\nlist = [3]\nsettle = \"1s\"\nwindow = \"2s\"\n" +
              std::string(wide_sla));
    ScriptedSession dup(r, "desk-dup"), max(r, "desk-max"), more(r, "desk-more");
    std::thread a([&] { dup.render(true, [](uint64_t n) { return n; }); });
    std::thread b([&] { max.render(false, [](uint64_t) { return std::numeric_limits<uint64_t>::max(); }); });
    std::thread c([&] { more.render(false, [](uint64_t n) { return n + 1000; }); });
    auto res = r.run->wait(90);
    a.join();
    b.join();
    c.join();
    INFO("run stderr: " << res.err);
    REQUIRE(res.exit_code == 0);
    const auto& db = r.db;
    const auto of = [](const char* host) { return std::string("(SELECT id FROM sessions WHERE host = '") + host + "')"; };
    // Every block twice: each frame counted and stored once, the session ends well, and both its
    // events and its end row say frames came out of sequence.
    const int64_t sent = qi(db, "SELECT frames_sent FROM sessions WHERE id = " + of("desk-dup"));
    CHECK(sent > 0);
    CHECK(qi(db, "SELECT frames_received FROM sessions WHERE id = " + of("desk-dup")) == sent);
    CHECK(qi(db, "SELECT COUNT(*) FROM frames WHERE session_id = " + of("desk-dup")) == sent);
    CHECK(qi(db, "SELECT COUNT(DISTINCT seq) FROM frames WHERE session_id = " + of("desk-dup")) == sent);
    CHECK(qi(db, "SELECT frames_lost FROM sessions WHERE id = " + of("desk-dup")) == 0);
    CHECK(q(db, "SELECT end_reason FROM sessions WHERE id = " + of("desk-dup")) == "ok");
    CHECK(qi(db, "SELECT COUNT(*) FROM events WHERE kind = 'frames-out-of-sequence' AND session_id = " + of("desk-dup")) == 1);
    CHECK(q(db, "SELECT detail FROM sessions WHERE id = " + of("desk-dup"))
              .find(std::to_string(sent) + " frames out of sequence (duplicated or reordered) not counted") != std::string::npos);
    // BYE claiming 2^64-1 frames (once stored as -1 with frames_lost -N, and `ok`).
    CHECK(q(db, "SELECT end_reason FROM sessions WHERE id = " + of("desk-max")) == "protocol");
    CHECK(q(db, "SELECT detail FROM sessions WHERE id = " + of("desk-max")).find("BYE frames_sent 18446744073709551615 exceeds 2^53") !=
          std::string::npos);
    // BYE claiming 1000 frames more than it sent: they would have come before it on the same stream.
    CHECK(q(db, "SELECT end_reason FROM sessions WHERE id = " + of("desk-more")) == "protocol");
    CHECK(q(db, "SELECT detail FROM sessions WHERE id = " + of("desk-more")).find("a count that cannot be true") != std::string::npos);
    for (const char* h : {"desk-max", "desk-more"}) {
        CHECK(q(db, std::string("SELECT frames_sent FROM sessions WHERE id = ") + of(h)).empty());  // NULL: not believed
        CHECK(qi(db, std::string("SELECT frames_lost FROM sessions WHERE id = ") + of(h)) == 0);
        CHECK(qi(db, std::string("SELECT frames_received FROM sessions WHERE id = ") + of(h)) ==
              qi(db, std::string("SELECT COUNT(*) FROM frames WHERE session_id = ") + of(h)));
    }
    CHECK(qi(db, "SELECT MIN(frames_lost) FROM sessions") == 0);
    CHECK(qi(db, "SELECT MIN(frames_sent) FROM sessions") >= 0);
}

TEST_CASE("join mode: garbage right after WELCOME and PONGs off the peer's clock are refused and recorded with the peer's host") {
    // join_timeout: the step's only session is refused, and the step then waits this long for another.
    JoinRun r("heartbeat_timeout = \"5s\"\njoin_timeout = \"10s\"\n[steps]\nlist = [1]\nsettle = \"1s\"\nwindow = \"2s\"\n" +
              std::string(wide_sla));
    {
        // Garbage at once after WELCOME: once closed with no event and no host row.
        RawPeer g(r, "desk-garbage");
        g.send_bytes({0x16, 0x03, 0x01, ' ', 'n', 'o', 't', ' ', 's', 'm'});
        while (g.next()) {  // PINGs, then the run closes it
        }
    }
    {
        // One PONG of the join-time burst off by 11.6 days: the round trips cannot all be true.
        RawPeer p(r, "desk-pong");
        CHECK(p.serve([](int n) { return now_ns() + (n == 3 ? far_ns : 0); }, [](uint32_t) { return std::vector<uint8_t>{}; },
                      8));
    }
    // Every PONG 11.6 days ahead of its clock: the burst agrees with itself, but the session's
    // stamps, on its real clock, then land 11.6 days before it joined: its HELLO is refused
    // (once accepted, and the session judged as having no frames).
    RawPeer c(r, "desk-clock");
    CHECK(c.serve([](int) { return now_ns() + far_ns; }, [](uint32_t id) { return hello(id); }, 100));
    auto res = r.run->wait(90);
    INFO("run stderr: " << res.err);
    REQUIRE(res.exit_code == 0);
    const auto& db = r.db;
    auto refused = [&](const std::string& host, const std::string& like) {
        return qi(db, "SELECT COUNT(*) FROM events WHERE kind = 'connection-refused' AND host = '" + host +
                          "' AND detail LIKE '%" + like + "%'");
    };
    CHECK(refused("desk-garbage", "after WELCOME, before its clock was measured: protocol error: bad magic") == 1);
    CHECK(refused("desk-pong", "PONG round trips disagree: round trip ") == 1);
    for (const char* h : {"desk-garbage", "desk-pong"}) {
        CHECK(q(db, std::string("SELECT role FROM hosts WHERE hostname = '") + h + "'") == "joined");
        CHECK(q(db, std::string("SELECT clock_uncertainty_ns FROM hosts WHERE hostname = '") + h + "'").empty());
    }
    CHECK(qi(db, "SELECT COUNT(*) FROM sessions WHERE host IN ('desk-garbage', 'desk-pong')") == 0);
    CHECK(q(db, "SELECT end_reason FROM sessions WHERE host = 'desk-clock'") == "protocol");
    CHECK(q(db, "SELECT detail FROM sessions WHERE host = 'desk-clock'").find("HELLO t_ns") != std::string::npos);
    CHECK(q(db, "SELECT detail FROM sessions WHERE host = 'desk-clock'").find("before the connection opened") != std::string::npos);
}
