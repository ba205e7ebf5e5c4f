// The script's time line: looping, clipping, sums, jitter and look-up.
// Durations are binary fractions (1, 2, 0.5) so the arithmetic is exact.
#include <doctest/doctest.h>

#include <cmath>

#include "workloads/script.h"

using namespace seatmark::workloads;

namespace {

Segment active(SegmentKind k, double d) {
    Segment s;
    s.kind = k;
    s.duration_s = d;
    s.rate = 1;
    return s;
}

Segment think(double d, double jitter = 0) {
    Segment s;
    s.kind = SegmentKind::think;
    s.duration_s = d;
    s.jitter = jitter;
    return s;
}

Segment instant(SegmentKind k) {
    Segment s;
    s.kind = k;
    return s;
}

// orbit 2 s, mode, think 1 s, pan 1 s: 4 s per pass.
Script four_second_script(bool loop = true) {
    Script sc;
    sc.loop = loop;
    sc.segments = {active(SegmentKind::orbit, 2), instant(SegmentKind::mode), think(1), active(SegmentKind::pan, 1)};
    return sc;
}

}  // namespace

TEST_CASE("timeline: loops until the total and drops what starts at the end") {
    Timeline tl(four_second_script(), 10, 1);
    const auto& s = tl.schedule();
    // Passes at 0 and 4 s, then the orbit of the third pass fills 8..10; the mode
    // switch would start at 10 = total and is dropped.
    REQUIRE(s.size() == 9);
    const double start[] = {0, 2, 2, 3, 4, 6, 6, 7, 8};
    const double end[] = {2, 2, 3, 4, 6, 6, 7, 8, 10};
    for (size_t i = 0; i < s.size(); ++i) {
        INFO("entry ", i);
        CHECK(s[i].start_s == start[i]);
        CHECK(s[i].end_s == end[i]);
        CHECK(s[i].segment == i % 4);
        CHECK(s[i].iteration == i / 4);
    }
    CHECK(s[1].kind == SegmentKind::mode);
    CHECK(s[1].start_s == s[1].end_s);  // instants take no time
    CHECK(tl.total_s() == 10);
    CHECK(tl.end_s() == 10);
    CHECK(tl.active_s() == 8);  // 2+1 + 2+1 + 2
    CHECK(tl.think_s() == 2);
}

TEST_CASE("timeline: the last segment is clipped to the total") {
    Timeline tl(four_second_script(), 9, 1);
    const auto& s = tl.schedule();
    REQUIRE(s.size() == 9);
    CHECK(s.back().kind == SegmentKind::orbit);
    CHECK(s.back().start_s == 8);
    CHECK(s.back().end_s == 9);
    CHECK(tl.active_s() == 7);  // 2+1 + 2+1 + 1
    CHECK(tl.think_s() == 2);

    // Clipped in the middle of a think pause.
    Timeline t2(four_second_script(), 2.5, 1);
    REQUIRE(t2.schedule().size() == 3);
    CHECK(t2.schedule().back().kind == SegmentKind::think);
    CHECK(t2.schedule().back().end_s == 2.5);
    CHECK(t2.active_s() == 2);
    CHECK(t2.think_s() == 0.5);
    CHECK(t2.active_s() + t2.think_s() == t2.total_s());
}

TEST_CASE("timeline: a script that does not loop ends early") {
    Timeline tl(four_second_script(false), 10, 1);
    REQUIRE(tl.schedule().size() == 4);
    CHECK(tl.end_s() == 4);
    CHECK(tl.total_s() == 10);
    CHECK(tl.active_s() == 3);
    CHECK(tl.index_at(3.5) == 3);
    CHECK(tl.index_at(4) == tl.schedule().size());  // nothing runs after the script's end
    CHECK(tl.index_at(7) == tl.schedule().size());

    // Longer than the session: clipped like a looping one.
    Timeline short_session(four_second_script(false), 3, 1);
    CHECK(short_session.end_s() == 3);
    CHECK(short_session.schedule().size() == 3);
}

TEST_CASE("timeline: index_at at and between boundaries") {
    Timeline tl(four_second_script(), 10, 1);
    CHECK(tl.index_at(-1) == 0);
    CHECK(tl.index_at(0) == 0);
    CHECK(tl.index_at(1.999) == 0);
    CHECK(tl.index_at(2) == 1);    // the instant at 2 s comes first
    CHECK(tl.index_at(2.5) == 2);  // think 2..3
    CHECK(tl.index_at(3) == 3);    // pan starts as think ends
    CHECK(tl.index_at(4) == 4);    // second pass
    CHECK(tl.index_at(6) == 5);
    CHECK(tl.index_at(9.999) == 8);
    CHECK(tl.index_at(10) == tl.schedule().size());
    CHECK(tl.index_at(11) == tl.schedule().size());

    // Several instants at one time: the first of them.
    Script sc;
    sc.segments = {active(SegmentKind::orbit, 1), instant(SegmentKind::mode), instant(SegmentKind::select),
                   active(SegmentKind::zoom, 1)};
    Timeline t2(sc, 4, 1);
    CHECK(t2.index_at(1) == 1);
    CHECK(t2.index_at(1.5) == 3);
    CHECK(t2.schedule()[2].start_s == 1);
    CHECK(t2.schedule()[2].end_s == 1);
    // A pass that starts with instants: at the loop boundary the first instant runs.
    Script starts_with_mode;
    starts_with_mode.segments = {instant(SegmentKind::mode), active(SegmentKind::orbit, 1)};
    Timeline t3(starts_with_mode, 3, 1);
    REQUIRE(t3.schedule().size() == 6);
    CHECK(t3.index_at(0) == 0);
    CHECK(t3.index_at(1) == 2);
    CHECK(t3.schedule()[2].kind == SegmentKind::mode);
    CHECK(t3.schedule()[2].iteration == 1);
}

TEST_CASE("timeline: think jitter is deterministic per seed and within bounds") {
    Script sc;
    sc.segments = {active(SegmentKind::orbit, 1), think(1, 0.5)};
    Timeline a(sc, 200, 42), b(sc, 200, 42), c(sc, 200, 43);
    REQUIRE(a.schedule().size() == b.schedule().size());
    for (size_t i = 0; i < a.schedule().size(); ++i) CHECK(a.schedule()[i].end_s == b.schedule()[i].end_s);

    double lo = 10, hi = 0;
    int thinks = 0;
    for (const auto& s : a.schedule()) {
        if (s.kind != SegmentKind::think || s.end_s == a.total_s()) continue;  // skip a clipped last one
        double len = s.end_s - s.start_s;
        CHECK(len >= 0.5);
        CHECK(len < 1.5);
        lo = std::min(lo, len);
        hi = std::max(hi, len);
        ++thinks;
    }
    CHECK(thinks > 50);
    CHECK(hi - lo > 0.5);  // the lengths really vary (about 100 draws over [0.5, 1.5))
    // Different seed, different pauses.
    bool differs = false;
    for (size_t i = 0; i < std::min(a.schedule().size(), c.schedule().size()); ++i)
        differs = differs || a.schedule()[i].end_s != c.schedule()[i].end_s;
    CHECK(differs);
    // A shorter session is a prefix of a longer one with the same seed.
    Timeline shorter(sc, 50, 42);
    for (size_t i = 0; i + 1 < shorter.schedule().size(); ++i) {
        CHECK(shorter.schedule()[i].start_s == a.schedule()[i].start_s);
        CHECK(shorter.schedule()[i].end_s == a.schedule()[i].end_s);
    }
    // Sums still add up.
    CHECK(a.active_s() + a.think_s() == doctest::Approx(200));
}

TEST_CASE("timeline: degenerate scripts and totals") {
    CHECK(Timeline(four_second_script(), 0, 1).schedule().empty());
    CHECK(Timeline(four_second_script(), -5, 1).schedule().empty());
    CHECK(Timeline(four_second_script(), std::nan(""), 1).schedule().empty());
    CHECK(Timeline(Script{}, 10, 1).schedule().empty());
    CHECK(Timeline(Script{}, 10, 1).index_at(1) == 0);
    // Only instants: laid out once rather than looping forever.
    Script instants;
    instants.segments = {instant(SegmentKind::mode), instant(SegmentKind::select)};
    Timeline tl(instants, 10, 1);
    CHECK(tl.schedule().size() == 2);
    CHECK(tl.active_s() == 0);
    CHECK(tl.end_s() == 0);
}
