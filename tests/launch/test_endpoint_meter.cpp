// The endpoint meter on painted frames: arrivals are new numbers only, the grid is found where a
// window manager put it, and the summary's ratios follow from the numbers seen.
#include <doctest/doctest.h>

#include <vector>

#include "launch/endpoint_meter.h"

using namespace seatmark;

namespace {

std::vector<uint8_t> desktop(int w, int h, uint64_t seq, watermark::Layout l) {
    std::vector<uint8_t> px(static_cast<size_t>(w) * h * 4, 90);
    for (const auto& b : watermark::blocks(seq, l))
        for (int y = b.y; y < b.y + b.h; ++y)
            for (int x = b.x; x < b.x + b.w; ++x)
                for (int c = 0; c < 3; ++c) px[(static_cast<size_t>(y) * w + x) * 4 + c] = b.white ? 255 : 0;
    return px;
}

}  // namespace

TEST_CASE("launch endpoint meter: new numbers are arrivals, repeats are not, a moved window is found") {
    const int w = 640, h = 480;
    launch::EndpointMeter m;
    const watermark::Layout placed{100, 60, 16};  // where a window manager put the window
    int64_t t = 1'000'000'000;
    int arrivals = 0;
    // Rendered 0..19, every other one delivered, each painted twice (two updates per frame).
    for (uint64_t seq = 0; seq < 20; seq += 2) {
        auto px = desktop(w, h, seq, placed);
        for (int rep = 0; rep < 2; ++rep) {
            t += 20'000'000;
            if (m.on_paint({px.data(), w, h, w * 4}, t, 0, 0, w, h)) ++arrivals;
        }
    }
    CHECK(m.layout().x0 == doctest::Approx(100).epsilon(0.05));
    CHECK(arrivals >= 8);  // the first paints may pass while the grid is being looked for
    const auto s = m.summary();
    CHECK(s.arrivals == static_cast<uint64_t>(arrivals));
    CHECK(s.last_seq == 18);
    CHECK(s.delivered_ratio == doctest::Approx(static_cast<double>(arrivals) / static_cast<double>(s.last_seq - s.first_seq + 1)));
    CHECK(s.delivered_ratio < 0.6);
    CHECK(s.interval_p50_ms == doctest::Approx(40));
    CHECK(s.arrivals_per_s == doctest::Approx(25).epsilon(0.01));
    // An older number painted late is not an arrival.
    auto old = desktop(w, h, 4, placed);
    CHECK_FALSE(m.on_paint({old.data(), w, h, w * 4}, t + 1, 0, 0, w, h));
}
