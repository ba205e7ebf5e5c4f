#pragma once
// Image quality at the endpoint: SSIM (Wang, Bovik, Sheikh, Simoncelli 2004) of the frame a
// launcher received against the session's own rendering of the same frame. Written here
// rather than taken from a library: Debian's only packaged SSIM is OpenCV contrib's quality
// module, far too much to pull into a launcher for one formula.
#include <cstdint>
#include <vector>

#include "core/watermark.h"

namespace seatmark::ssim {

// An 8-bit gray image, row-major, no padding.
struct Gray {
    int width = 0, height = 0;
    std::vector<uint8_t> pixels;
};

// Luma (BT.601) of a BGRA/BGRX frame's region [x0, x0+w) x [y0, y0+h), box-averaged down to
// out_w x out_h (out_w <= w, out_h <= h). Both sides downscale the same way before comparing,
// so the figure is about what the codec did, not about scaling.
// red_first: the pixels are RGBA (a Vulkan R8G8B8A8 readback) rather than BGRA.
Gray gray_downscaled(const watermark::FrameView& frame, int x0, int y0, int w, int h, int out_w, int out_h,
                     bool red_first = false);



// Mean SSIM over 8x8 windows with stride 4 (constants K1 = 0.01, K2 = 0.03, L = 255).
// 1 for identical images; throws std::invalid_argument when sizes differ or are under 8x8.
double mean_ssim(const Gray& a, const Gray& b);

}  // namespace seatmark::ssim
