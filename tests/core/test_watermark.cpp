// The endpoint watermark and SSIM: exact round trips, degradations a remoting codec makes
// (noise, blur, contrast loss, coarse quantisation), and refusals (no grid, half-updated grid).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/ssim.h"
#include "core/watermark.h"

using namespace seatmark;

namespace {

struct Image {
    int w, h;
    std::vector<uint8_t> px;  // BGRX
    watermark::FrameView view() const { return {px.data(), w, h, w * 4}; }
    void set(int x, int y, uint8_t v) {
        uint8_t* p = &px[(static_cast<size_t>(y) * w + x) * 4];
        p[0] = p[1] = p[2] = v;
        p[3] = 255;
    }
    uint8_t get(int x, int y) const { return px[(static_cast<size_t>(y) * w + x) * 4 + 1]; }
};

// A busy background (a CAD viewport is not flat), then the watermark over it.
Image painted(uint64_t seq, int w = 320, int h = 240, watermark::Layout l = {}) {
    Image im{w, h, std::vector<uint8_t>(static_cast<size_t>(w) * h * 4)};
    std::mt19937 rng(7);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) im.set(x, y, static_cast<uint8_t>((x * 3 + y * 5 + static_cast<int>(rng() % 40)) & 0xff));
    for (const auto& b : watermark::blocks(seq, l))
        for (int y = b.y; y < std::min(b.y + b.h, h); ++y)
            for (int x = b.x; x < std::min(b.x + b.w, w); ++x) im.set(x, y, b.white ? 255 : 0);
    return im;
}

void add_noise(Image& im, double sigma, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> n(0, sigma);
    for (int y = 0; y < im.h; ++y)
        for (int x = 0; x < im.w; ++x) im.set(x, y, static_cast<uint8_t>(std::clamp(im.get(x, y) + n(rng), 0.0, 255.0)));
}

void box_blur(Image& im, int radius) {
    Image src = im;
    for (int y = 0; y < im.h; ++y)
        for (int x = 0; x < im.w; ++x) {
            int sum = 0, n = 0;
            for (int dy = -radius; dy <= radius; ++dy)
                for (int dx = -radius; dx <= radius; ++dx) {
                    const int xx = std::clamp(x + dx, 0, im.w - 1), yy = std::clamp(y + dy, 0, im.h - 1);
                    sum += src.get(xx, yy);
                    ++n;
                }
            im.set(x, y, static_cast<uint8_t>(sum / n));
        }
}

void squeeze(Image& im, int lo, int hi) {  // contrast loss: 0..255 -> lo..hi
    for (int y = 0; y < im.h; ++y)
        for (int x = 0; x < im.w; ++x) im.set(x, y, static_cast<uint8_t>(lo + im.get(x, y) * (hi - lo) / 255));
}

void quantize_blocks(Image& im, int block) {  // every block x block square to its mean: a coarse codec
    for (int by = 0; by < im.h; by += block)
        for (int bx = 0; bx < im.w; bx += block) {
            int sum = 0, n = 0;
            for (int y = by; y < std::min(by + block, im.h); ++y)
                for (int x = bx; x < std::min(bx + block, im.w); ++x) sum += im.get(x, y), ++n;
            for (int y = by; y < std::min(by + block, im.h); ++y)
                for (int x = bx; x < std::min(bx + block, im.w); ++x) im.set(x, y, static_cast<uint8_t>(sum / n));
        }
}

}  // namespace

TEST_CASE("watermark: numbers round-trip exactly, modulo 2^28") {
    for (uint64_t seq : {0ull, 1ull, 2ull, 255ull, 4096ull, 123456789ull, (1ull << 28) - 1, (1ull << 28) + 5}) {
        auto d = watermark::decode(painted(seq).view());
        REQUIRE(d);
        CHECK(d->seq == seq % watermark::seq_modulus);
        CHECK(d->contrast == doctest::Approx(255).epsilon(0.01));
    }
}

TEST_CASE("watermark: other layouts (offset grid, larger blocks)") {
    watermark::Layout l{40, 24, 24};
    auto d = watermark::decode(painted(777, 400, 300, l).view(), l);
    REQUIRE(d);
    CHECK(d->seq == 777);
    CHECK_FALSE(watermark::decode(painted(777, 400, 300, l).view()));  // looked for in the wrong place
}

TEST_CASE("watermark: survives noise, blur, contrast loss and coarse quantisation") {
    for (uint64_t seq : {3ull, 99999ull, 200000000ull}) {
        Image a = painted(seq);
        add_noise(a, 25, static_cast<unsigned>(seq));
        CHECK(watermark::decode(a.view())->seq == seq);
        Image b = painted(seq);
        box_blur(b, 3);
        CHECK(watermark::decode(b.view())->seq == seq);
        Image c = painted(seq);
        squeeze(c, 60, 180);
        add_noise(c, 10, 1);
        auto dc = watermark::decode(c.view());
        REQUIRE(dc);
        CHECK(dc->seq == seq);
        CHECK(dc->contrast < 130);
        Image d = painted(seq);
        quantize_blocks(d, 8);
        CHECK(watermark::decode(d.view())->seq == seq);
    }
}

TEST_CASE("watermark: refuses frames without a readable grid") {
    Image flat{320, 240, std::vector<uint8_t>(320 * 240 * 4, 128)};
    CHECK_FALSE(watermark::decode(flat.view()));
    Image tiny = painted(5, 100, 40);  // the grid (160 x 64) does not fit
    CHECK_FALSE(watermark::decode(tiny.view()));
    Image washed = painted(5);
    squeeze(washed, 100, 140);  // contrast 40 of 255: not trusted
    CHECK_FALSE(watermark::decode(washed.view()));
}

TEST_CASE("watermark: a half-updated grid is rejected by its CRC, not misread") {
    // Top rows from one frame, bottom rows from the next: what a torn update shows.
    int misread = 0, rejected = 0;
    for (uint64_t seq = 1000; seq < 1400; ++seq) {
        Image a = painted(seq), b = painted(seq + 1);
        std::copy(b.px.begin() + 2 * 16 * a.w * 4, b.px.end(), a.px.begin() + 2 * 16 * a.w * 4);
        auto d = watermark::decode(a.view());
        if (!d) ++rejected;
        else if (d->seq != seq && d->seq != seq + 1) ++misread;
    }
    CHECK(misread == 0);
    CHECK(rejected > 0);
}

TEST_CASE("watermark: unwrap picks the full number nearest the last one") {
    const uint64_t m = watermark::seq_modulus;
    CHECK(watermark::unwrap(5, 3) == 5);
    CHECK(watermark::unwrap(2, m - 3) == m + 2);          // wrapped forwards
    CHECK(watermark::unwrap(static_cast<uint32_t>(m - 2), m + 1) == m - 2);  // a late frame from before the wrap
    CHECK(watermark::unwrap(0, 0) == 0);
}

TEST_CASE("ssim: 1 for identical images, falls with degradation, refuses mismatched sizes") {
    Image a = painted(42);
    auto ga = ssim::gray_downscaled(a.view(), 0, 0, a.w, a.h, 160, 120);
    CHECK(ssim::mean_ssim(ga, ga) == doctest::Approx(1.0));
    double last = 1.0;
    for (double sigma : {5.0, 20.0, 60.0}) {
        Image n = painted(42);
        add_noise(n, sigma, 3);
        const double s = ssim::mean_ssim(ga, ssim::gray_downscaled(n.view(), 0, 0, n.w, n.h, 160, 120));
        CHECK(s < last);
        CHECK(s > 0);
        last = s;
    }
    auto small = ssim::gray_downscaled(a.view(), 0, 0, a.w, a.h, 80, 60);
    CHECK_THROWS_AS(ssim::mean_ssim(ga, small), std::invalid_argument);
    CHECK_THROWS_AS(ssim::gray_downscaled(a.view(), 0, 0, a.w + 1, a.h, 80, 60), std::invalid_argument);
}

TEST_CASE("watermark: located anywhere in a desktop, also blurred and noisy") {
    for (auto at : {std::pair{0, 0}, std::pair{37, 61}, std::pair{203, 9}, std::pair{5, 150}}) {
        const int x0 = at.first, y0 = at.second;  // not a structured binding: clang 14 cannot capture one
        CAPTURE(x0);
        CAPTURE(y0);
        watermark::Layout l{x0, y0, 16};
        Image im = painted(123456, 400, 240, l);
        box_blur(im, 1);
        add_noise(im, 12, 5);
        const auto found = watermark::locate(im.view());
        REQUIRE(found);
        CHECK(std::abs(found->x0 - x0) <= 4);
        CHECK(std::abs(found->y0 - y0) <= 4);
        CHECK(watermark::decode(im.view(), *found)->seq == 123456);
    }
    Image flat{320, 240, std::vector<uint8_t>(320 * 240 * 4, 200)};
    CHECK_FALSE(watermark::locate(flat.view()));
}
