// Every statistic of docs/design.md "Metrics, defined once" on hand-computed inputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/stats.h"

using namespace seatmark;
using namespace seatmark::stats;

namespace {

std::vector<double> one_to(int n) {
    std::vector<double> v(static_cast<size_t>(n));
    std::iota(v.begin(), v.end(), 1.0);
    return v;
}

}  // namespace

TEST_CASE("stats: nearest-rank percentiles of 1..100") {
    std::vector<double> v = one_to(100);
    std::reverse(v.begin(), v.end());  // input need not be sorted
    CHECK(percentile_nearest_rank(v, 50) == 50);
    CHECK(percentile_nearest_rank(v, 95) == 95);
    CHECK(percentile_nearest_rank(v, 99) == 99);
    CHECK(percentile_nearest_rank(v, 100) == 100);
    CHECK(percentile_nearest_rank(v, 1) == 1);
    CHECK(percentile_nearest_rank(v, 0.5) == 1);   // ceil(0.5) = rank 1
    CHECK(percentile_nearest_rank(v, 0) == 1);     // p = 0: the minimum
    CHECK(percentile_nearest_rank(v, 95.5) == 96);  // ceil(95.5)
    CHECK(median(v) == 50);
}

TEST_CASE("stats: nearest rank on small and awkward counts") {
    // 10 values: p95 -> rank ceil(9.5) = 10, the largest; p90 -> rank 9.
    std::vector<double> ten = {7, 3, 10, 1, 9, 2, 8, 4, 6, 5};
    CHECK(percentile_nearest_rank(ten, 95) == 10);
    CHECK(percentile_nearest_rank(ten, 90) == 9);
    CHECK(percentile_nearest_rank(ten, 91) == 10);

    // Even count: the median is a value of the set (rank n/2), not an average.
    std::vector<double> four = {4, 1, 3, 2};
    CHECK(median(four) == 2);
    CHECK(percentile_nearest_rank(four, 50.1) == 3);

    // 99.9 % of 1000 is rank 999 exactly, despite 99.9 not being exact in binary.
    CHECK(percentile_nearest_rank(one_to(1000), 99.9) == 999);
    CHECK(percentile_nearest_rank(one_to(1000), 99.95) == 1000);

    std::vector<double> single = {42};
    CHECK(percentile_nearest_rank(single, 1) == 42);
    CHECK(percentile_nearest_rank(single, 99) == 42);

    CHECK(std::isnan(percentile_nearest_rank(std::vector<double>{}, 50)));
    CHECK(std::isnan(median(std::vector<double>{})));
}

TEST_CASE("stats: 1 % low FPS is 1000 / p99 interval") {
    CHECK(one_percent_low_fps(20) == 50);
    CHECK(one_percent_low_fps(40) == 25);
    CHECK(std::isnan(one_percent_low_fps(0)));
    CHECK(std::isnan(one_percent_low_fps(std::nan(""))));
}

TEST_CASE("stats: time-weighted 1 % low") {
    // 99 frames of 10 ms and one of 100 ms: 1 % of 1090 ms is 10.9 ms, which the
    // 100 ms frame alone covers: 1 frame / 100 ms = 10 FPS.
    std::vector<double> a(99, 10.0);
    a.push_back(100);
    CHECK(one_percent_low_fps_time_weighted(a) == doctest::Approx(10));

    // 1000 frames of 10 ms and 5 of 30 ms: total 10150 ms, 1 % = 101.5 ms. The slowest
    // frames reach it after 4 x 30 = 120 ms: 4 frames / 120 ms = 33.33 FPS.
    // The count-based 1 % low differs: p99 is rank ceil(994.95) = 995, a 10 ms frame -> 100 FPS.
    std::vector<double> b(1000, 10.0);
    for (int i = 0; i < 5; ++i) b.push_back(30);
    CHECK(one_percent_low_fps_time_weighted(b) == doctest::Approx(4000.0 / 120.0));
    CHECK(one_percent_low_fps(percentile_nearest_rank(b, 99)) == doctest::Approx(100));

    // Uniform frames: any one covers 1 % of 100 frames' time: 1000 / 16 FPS.
    std::vector<double> c(100, 16.0);
    CHECK(one_percent_low_fps_time_weighted(c) == doctest::Approx(62.5));

    CHECK(std::isnan(one_percent_low_fps_time_weighted(std::vector<double>{})));
}

TEST_CASE("stats: stutter share counts intervals above 2.5 x median") {
    // 17 x 10 ms, one at exactly 25 ms (2.5 x, not above), two spikes of 30 ms: median 10.
    std::vector<double> v(17, 10.0);
    v.push_back(25);
    v.push_back(30);
    v.push_back(30);
    CHECK(stutter_share(v) == doctest::Approx(2.0 / 20.0));
    CHECK(stutter_share(v, 2.0) == doctest::Approx(3.0 / 20.0));  // 25 > 20 now counts
    CHECK(stutter_share(std::vector<double>(10, 16.0)) == 0);
    CHECK(std::isnan(stutter_share(std::vector<double>{})));
}

TEST_CASE("stats: dropped frames are gaps in the sequence") {
    std::vector<uint64_t> gaps = {0, 1, 2, 5, 6};
    CHECK(dropped_frames(gaps) == 2);  // 3 and 4
    std::vector<uint64_t> shuffled = {6, 0, 5, 2, 1};
    CHECK(dropped_frames(shuffled) == 2);
    std::vector<uint64_t> duplicate = {0, 1, 1, 2};
    CHECK(dropped_frames(duplicate) == 0);
    std::vector<uint64_t> late_start = {10, 11, 13};
    CHECK(dropped_frames(late_start) == 1);  // counts from the first seen, not from 0
    CHECK(dropped_frames(std::vector<uint64_t>{}) == 0);
}

TEST_CASE("stats: Jain's fairness index") {
    CHECK(jain_fairness(std::vector<double>{1, 1, 1, 1}) == doctest::Approx(1));
    CHECK(jain_fairness(std::vector<double>{1, 0, 0, 0}) == doctest::Approx(0.25));
    CHECK(jain_fairness(std::vector<double>{1, 2}) == doctest::Approx(9.0 / 10.0));  // 3^2 / (2 x 5)
    CHECK(jain_fairness(std::vector<double>{30, 30, 60}) == doctest::Approx(14400.0 / 16200.0));
    CHECK(jain_fairness(std::vector<double>{}) == 1);
    CHECK(jain_fairness(std::vector<double>{0, 0}) == 1);
}

TEST_CASE("stats: summarize crafted frames") {
    constexpr int64_t ms = 1'000'000;
    // Two active stretches; each starts with interval -1 (no interval across the think pause).
    // seq 7 is missing (one dropped frame).
    const int64_t intervals_ms[] = {-1, 10, 10, 10, 40, -1, 10, 20, 10, 10};
    const uint64_t seqs[] = {0, 1, 2, 3, 4, 5, 6, 8, 9, 10};
    std::vector<FrameRecord> frames;
    int64_t t = 0;
    for (int i = 0; i < 10; ++i) {
        FrameRecord f;
        f.seq = seqs[i];
        f.interval_ns = intervals_ms[i] < 0 ? -1 : intervals_ms[i] * ms;
        t += intervals_ms[i] < 0 ? 500 * ms : f.interval_ns;
        f.t_begin_ns = t;
        f.cpu_ns = (i + 1) * ms;  // 1..10 ms
        f.stretch = i < 5 ? 0 : 1;
        if (i == 0 || i == 5) f.flags = frame_flag_stretch_start;
        frames.push_back(f);
    }
    frames[2].latency_ns = 30 * ms;
    frames[6].latency_ns = 50 * ms;

    FrameSummary s = summarize(frames, 0.5);
    CHECK(s.frames == 10);
    CHECK(s.active_s == 0.5);
    CHECK(s.fps == doctest::Approx(20));  // 10 frames / 0.5 s
    // Intervals {10,10,10,40,10,20,10,10}: sorted 10 x 6, 20, 40.
    CHECK(s.p50_ms == doctest::Approx(10));  // rank 4
    CHECK(s.p95_ms == doctest::Approx(40));  // rank ceil(7.6) = 8
    CHECK(s.p99_ms == doctest::Approx(40));
    CHECK(s.low1_fps == doctest::Approx(25));
    CHECK(s.low1_tw_fps == doctest::Approx(25));  // 1 % of 120 ms is covered by the 40 ms frame
    CHECK(s.stutter == doctest::Approx(1.0 / 8.0));  // only 40 > 25
    CHECK(s.latency_p95_ms == doctest::Approx(50));  // two samples: rank 2
    CHECK(s.cpu_p50_ms == doctest::Approx(5));
    CHECK(std::isnan(s.gpu_p50_ms));  // no timestamps
    CHECK(s.dropped == 1);

    for (size_t i = 0; i < frames.size(); ++i) frames[i].gpu_ns = static_cast<int64_t>(i) * ms;  // 0..9 ms
    CHECK(summarize(frames, 0.5).gpu_p50_ms == doctest::Approx(4));
}

TEST_CASE("stats: summarize without data gives NaN, not zero") {
    FrameSummary empty = summarize(std::span<const FrameRecord>{}, 0);
    CHECK(empty.frames == 0);
    CHECK(std::isnan(empty.fps));
    CHECK(std::isnan(empty.p50_ms));
    CHECK(std::isnan(empty.low1_fps));
    CHECK(std::isnan(empty.low1_tw_fps));
    CHECK(std::isnan(empty.stutter));
    CHECK(std::isnan(empty.latency_p95_ms));
    CHECK(std::isnan(empty.cpu_p50_ms));
    CHECK(empty.dropped == 0);

    // Only stretch starts: frames counted for FPS, but no interval statistics.
    std::vector<FrameRecord> starts(3);
    for (uint64_t i = 0; i < 3; ++i) starts[i].seq = i;
    FrameSummary s = summarize(starts, 1.5);
    CHECK(s.fps == doctest::Approx(2));
    CHECK(std::isnan(s.p95_ms));
    CHECK(std::isnan(s.latency_p95_ms));
}

TEST_CASE("MangoHud's 1% min FPS is the mean per-frame FPS of the slowest 1 % of frames, beside 1000 / p99") {
    std::vector<double> iv(198, 10.0);  // 200 frames: the slowest 1 % are two
    iv.push_back(40.0);
    iv.push_back(20.0);
    CHECK(stats::one_percent_min_fps_mangohud(iv) == doctest::Approx((25.0 + 50.0) / 2));
    // seatmark's figure for the same frames: p99 (rank 198 of 200) is 10 ms, so 100 FPS.
    CHECK(stats::one_percent_low_fps(stats::percentile_nearest_rank(iv, 99)) == doctest::Approx(100.0));
    std::vector<double> few = {10, 30, 20};  // under 100 frames: the slowest one
    CHECK(stats::one_percent_min_fps_mangohud(few) == doctest::Approx(1000.0 / 30));
    CHECK(std::isnan(stats::one_percent_min_fps_mangohud({})));
    std::vector<double> zeros = {0.0, -1.0};
    CHECK(std::isnan(stats::one_percent_min_fps_mangohud(zeros)));
}
