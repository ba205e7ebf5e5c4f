// The session table: states, end reasons and frame accounting, without processes.
#include <doctest/doctest.h>

#include <signal.h>

#include "common/exit_codes.h"
#include "orchestrator/session_table.h"

using namespace seatmark;
using namespace seatmark::orchestrator;
using store::SessionEnd;

namespace {
FrameRecord frame(uint64_t seq, int64_t t) {
    FrameRecord r;
    r.seq = seq;
    r.t_begin_ns = t;
    return r;
}
ExitStatus exited_with(int c) { return ExitStatus{c, 0}; }
ExitStatus signalled(int sig) { return ExitStatus{-1, sig}; }
}  // namespace

TEST_CASE("frame accounting: gaps and frames counted but never received are lost, and say how they were counted") {
    FrameAccount a;
    for (uint64_t s : {0, 1, 2, 5, 6}) CHECK(a.add(frame(s, 0)));  // 3 and 4 missing
    CHECK(a.received == 5);
    CHECK(a.gaps == 2);
    CHECK(a.next_seq == 7);
    a.heartbeat_count = 10;  // the session emitted 10, 7 accounted for
    CHECK(a.sent() == 10);
    CHECK(a.lost() == 5);
    CHECK(a.detail() == "5 frames lost (no BYE; counted by the last heartbeat)");
    CHECK_FALSE(a.caught_up());
    CHECK(a.bye(7).empty());  // BYE's count wins over the heartbeat's
    CHECK(a.lost() == 2);
    CHECK(a.detail() == "2 frames lost (counted by BYE)");
    FrameAccount none;
    none.add(frame(0, 0));
    CHECK(none.bye(1).empty());
    CHECK(none.lost() == 0);
    CHECK(none.detail().empty());
}

TEST_CASE("frame accounting: a frame out of sequence is not taken, and a BYE count that cannot be true is refused") {
    // A duplicated block (issue 35: it doubled the frame count without a word) and a frame older
    // than one received: neither counted nor moving next_seq back; counted apart, and said.
    FrameAccount d;
    for (uint64_t s : {0, 1, 2}) CHECK(d.add(frame(s, 0)));
    for (uint64_t s : {0, 1, 2}) CHECK_FALSE(d.add(frame(s, 0)));
    CHECK(d.add(frame(3, 0)));
    CHECK(d.received == 4);
    CHECK(d.out_of_sequence == 3);
    CHECK(d.next_seq == 4);
    CHECK(d.bye(4).empty());
    CHECK(d.lost() == 0);
    CHECK(d.detail() == "3 frames out of sequence (duplicated or reordered) not counted");
    FrameAccount r;
    CHECK(r.add(frame(1, 0)));
    CHECK_FALSE(r.add(frame(0, 0)));  // reordered: the gap it would fill stays lost
    CHECK(r.gaps == 1);
    CHECK(r.next_seq == 2);
    CHECK(r.received == 1);
    CHECK(r.detail() == "1 frames lost (no BYE; counted by the last heartbeat); 1 frames out of sequence (duplicated or reordered) not counted");
    // BYE: between the frames received and the next sequence number, or it cannot be true.
    FrameAccount b;
    for (uint64_t s : {0, 1, 2, 5}) b.add(frame(s, 0));
    CHECK(b.bye(3).find("BYE says 3 frames were sent, but 4 arrived") == 0);
    CHECK(b.bye(7).find("BYE says 7 frames were sent, but the frames received are numbered below 6") == 0);
    CHECK(b.bye(UINT64_MAX).find("BYE says 18446744073709551615 frames were sent") == 0);
    CHECK_FALSE(b.bye_sent);  // none of those taken
    CHECK(b.lost() == 2);
    CHECK(b.bye(4).empty());  // the gap's two numbered, never sent
    CHECK(b.bye(6).empty());  // or counted as sent
    CHECK(b.lost() == 2);
}

TEST_CASE("session table: states from start to end, and the end reason an exit implies") {
    SessionTable t;
    Session& a = t.add(0);
    Session& b = t.add(1);
    Session& c = t.add(2);
    CHECK(t.next_id() == 3);
    CHECK(t.find(1) == &b);
    CHECK(t.find(7) == nullptr);
    CHECK(t.active() == 3);
    CHECK_FALSE(t.ready());  // nobody said HELLO
    t.hello(a, 10);
    t.hello(b, 10);
    t.hello(c, 10);
    CHECK(a.state == SessionState::running);
    CHECK(t.ready());

    SUBCASE("asked to stop: stopping, alive but not active, the step waits for it; exit 0 is ok, SIGKILL killed") {
        t.request_stop(c);
        CHECK(c.state == SessionState::stopping);
        CHECK(c.alive());
        CHECK(t.active() == 2);
        CHECK(t.alive() == 3);
        CHECK_FALSE(t.ready());
        CHECK(t.exited(c, signalled(SIGKILL), 50) == SessionEnd::ok);
        CHECK(c.reason == SessionEnd::killed);
        CHECK(c.ended_ns == 50);
        CHECK(t.ready());
        t.request_stop(b);
        CHECK(t.exited(b, exited_with(0), 60) == SessionEnd::ok);
        CHECK(b.reason == SessionEnd::ok);
    }
    SUBCASE("an unasked exit: the failure it implies is the caller's to declare") {
        CHECK(t.exited(a, signalled(SIGKILL), 40) == SessionEnd::crash);
        CHECK(a.reason == SessionEnd::running);  // not declared yet
        CHECK(t.exited(b, exited_with(exit_code::device_lost), 40) == SessionEnd::device_lost);
        CHECK(t.exited(c, exited_with(exit_code::ok), 40) == SessionEnd::ok);
        CHECK(c.reason == SessionEnd::ok);
        Session& d = t.add(3);
        CHECK(t.exited(d, exited_with(exit_code::software_fallback), 40) == SessionEnd::software_fallback);
        Session& e = t.add(4);
        CHECK(t.exited(e, exited_with(77), 40) == SessionEnd::error);
    }
    SUBCASE("declared failed: the first reason and its time stand; the exit changes neither") {
        CHECK(t.declare_failed(a, SessionEnd::hang, "no heartbeat", 30));
        CHECK(a.state == SessionState::failed);
        CHECK_FALSE(a.alive());
        CHECK_FALSE(t.declare_failed(a, SessionEnd::protocol, "later", 35));
        CHECK(a.reason == SessionEnd::hang);
        CHECK(t.exited(a, signalled(SIGKILL), 45) == SessionEnd::ok);
        CHECK(a.reason == SessionEnd::hang);
        CHECK(a.ended_ns == 30);
        CHECK(a.state == SessionState::exited);
        CHECK(t.failures_since(30) == 1);
        CHECK(t.failures_since(31) == 0);  // it failed before that step began
        t.ended(a, 50);
        CHECK(a.state == SessionState::ended);
        auto spans = t.spans();
        REQUIRE(spans.size() == 3);
        CHECK(spans[0].failure == "hang");
        CHECK(*spans[0].ended_ns == 30);
        CHECK_FALSE(spans[1].ended_ns.has_value());
    }
}

TEST_CASE("session table: lost frames add to the run's total once, when a session's end is stored") {
    SessionTable t;
    Session& a = t.add(0);
    a.frames.add(frame(0, 0));
    a.frames.add(frame(3, 0));
    a.frames.heartbeat_count = 6;
    CHECK(t.lost_total() == 0);
    t.exited(a, signalled(SIGKILL), 10);
    t.ended(a, 10);
    CHECK(t.lost_total() == 4);  // 2 in the gap, 2 counted after the last received
    t.ended(a, 20);              // once
    CHECK(t.lost_total() == 4);
    CHECK(a.reason == SessionEnd::ok);  // no failure was declared for it: it is stored as ok
}

TEST_CASE("session table: telemetry has passed t once every running session sent a frame from t on, or a later heartbeat") {
    SessionTable t;
    Session& a = t.add(0);
    Session& b = t.add(1);
    a.started_ns = b.started_ns = 0;
    const int64_t s = 1'000'000'000;
    a.last_frame_begin_ns = 5 * s;
    b.last_frame_begin_ns = 3 * s;  // in a think pause
    CHECK_FALSE(t.telemetry_past(4 * s));
    b.last_heartbeat_ns = 4 * s + s / 2;  // not a second past
    CHECK_FALSE(t.telemetry_past(4 * s));
    b.last_heartbeat_ns = 5 * s;
    b.frames.heartbeat_count = 3;  // counts 3 frames, 2 received
    b.frames.add(frame(0, 0));
    b.frames.add(frame(1, 0));
    CHECK_FALSE(t.telemetry_past(4 * s));
    b.frames.add(frame(2, 0));
    CHECK(t.telemetry_past(4 * s));
    Session& late = t.add(2);  // started after t: nothing of it is owed
    late.started_ns = 6 * s;
    CHECK(t.telemetry_past(4 * s));
    b.last_heartbeat_ns = 7 * s;
    CHECK_FALSE(t.telemetry_past(5 * s + 1));  // a's newest frame began before it
    t.declare_failed(a, SessionEnd::hang, "", 6 * s);  // a failed one is not waited for
    CHECK(t.telemetry_past(5 * s + 1));
}

TEST_CASE("session table: a hang ends when the session fell silent (its newest frame or heartbeat), not when it was noticed") {
    SessionTable t;
    Session& a = t.add(0);
    Session& b = t.add(1);
    a.started_ns = b.started_ns = 0;
    const int64_t s = 1'000'000'000;
    a.last_frame_begin_ns = 12 * s;
    a.last_heartbeat_ns = 11 * s;
    CHECK(t.declare_failed(a, SessionEnd::hang, "no heartbeat for 10 s; killed", 22 * s));
    CHECK(a.ended_ns == 12 * s);
    b.last_frame_begin_ns = 12 * s;
    CHECK(t.declare_failed(b, SessionEnd::protocol, "garbage", 22 * s));
    CHECK(b.ended_ns == 22 * s);  // any other failure: when it was seen
}
