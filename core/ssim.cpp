#include "core/ssim.h"

#include <stdexcept>

namespace seatmark::ssim {

Gray gray_downscaled(const watermark::FrameView& f, int x0, int y0, int w, int h, int out_w, int out_h, bool red_first) {
    const int ri = red_first ? 0 : 2, bi = red_first ? 2 : 0;
    if (out_w <= 0 || out_h <= 0 || out_w > w || out_h > h || x0 < 0 || y0 < 0 || x0 + w > f.width || y0 + h > f.height)
        throw std::invalid_argument("ssim::gray_downscaled: region or output size out of range");
    Gray g{out_w, out_h, std::vector<uint8_t>(static_cast<size_t>(out_w) * static_cast<size_t>(out_h))};
    for (int oy = 0; oy < out_h; ++oy) {
        const int ya = y0 + oy * h / out_h, yb = y0 + (oy + 1) * h / out_h;
        for (int ox = 0; ox < out_w; ++ox) {
            const int xa = x0 + ox * w / out_w, xb = x0 + (ox + 1) * w / out_w;
            uint64_t sum = 0, n = 0;
            for (int y = ya; y < yb; ++y) {
                const uint8_t* p = f.pixels + static_cast<size_t>(y) * static_cast<size_t>(f.stride) + static_cast<size_t>(xa) * 4;
                for (int x = xa; x < xb; ++x, p += 4, ++n)
                    sum += (static_cast<uint32_t>(p[ri]) * 77 + static_cast<uint32_t>(p[1]) * 150 + static_cast<uint32_t>(p[bi]) * 29) >> 8;
            }
            g.pixels[static_cast<size_t>(oy) * static_cast<size_t>(out_w) + static_cast<size_t>(ox)] =
                static_cast<uint8_t>(n ? (sum + n / 2) / n : 0);
        }
    }
    return g;
}

double mean_ssim(const Gray& a, const Gray& b) {
    if (a.width != b.width || a.height != b.height)
        throw std::invalid_argument("ssim::mean_ssim: images differ in size");
    if (a.width < 8 || a.height < 8) throw std::invalid_argument("ssim::mean_ssim: images under 8x8");
    constexpr double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
    double total = 0;
    int windows = 0;
    for (int y0 = 0; y0 + 8 <= a.height; y0 += 4)
        for (int x0 = 0; x0 + 8 <= a.width; x0 += 4) {
            double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
            for (int y = y0; y < y0 + 8; ++y)
                for (int x = x0; x < x0 + 8; ++x) {
                    const size_t i = static_cast<size_t>(y) * static_cast<size_t>(a.width) + static_cast<size_t>(x);
                    const double va = a.pixels[i], vb = b.pixels[i];
                    sa += va; sb += vb; saa += va * va; sbb += vb * vb; sab += va * vb;
                }
            constexpr double n = 64;
            const double ma = sa / n, mb = sb / n;
            const double va = saa / n - ma * ma, vb = sbb / n - mb * mb, cov = sab / n - ma * mb;
            total += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
            ++windows;
        }
    return total / windows;
}

}  // namespace seatmark::ssim
