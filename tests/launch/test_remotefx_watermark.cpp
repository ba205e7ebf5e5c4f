// The watermark through the codec the RDP tests meet: FreeRDP's own RemoteFX encoder and
// decoder (the real wavelet quantisation xrdp's RemoteFX uses), over a busy image.
#include <doctest/doctest.h>

#include <freerdp/codec/color.h>
#include <freerdp/codec/region.h>
#include <freerdp/codec/rfx.h>
#include <winpr/stream.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include "core/ssim.h"
#include "core/watermark.h"
#include "image/reference_frame.h"

using namespace seatmark;

namespace {

std::vector<uint8_t> busy_frame(int w, int h, uint64_t seq, unsigned seed) {
    std::vector<uint8_t> px(static_cast<size_t>(w) * h * 4);
    std::mt19937 rng(seed);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            uint8_t* p = &px[(static_cast<size_t>(y) * w + x) * 4];
            p[0] = static_cast<uint8_t>((x * 7 + rng() % 64) & 0xff);
            p[1] = static_cast<uint8_t>((y * 3 + rng() % 64) & 0xff);
            p[2] = static_cast<uint8_t>(((x ^ y) + rng() % 64) & 0xff);
            p[3] = 255;
        }
    for (const auto& b : watermark::blocks(seq))
        for (int y = b.y; y < b.y + b.h; ++y)
            for (int x = b.x; x < b.x + b.w; ++x) {
                uint8_t* p = &px[(static_cast<size_t>(y) * w + x) * 4];
                p[0] = p[1] = p[2] = b.white ? 255 : 0;
            }
    return px;
}

// Encode with RemoteFX, decode into a fresh buffer: what a client would have painted.
std::vector<uint8_t> through_remotefx(const std::vector<uint8_t>& src, int w, int h, size_t* encoded_bytes) {
    RFX_CONTEXT* enc = rfx_context_new(TRUE);
    RFX_CONTEXT* dec = rfx_context_new(FALSE);
    REQUIRE(enc);
    REQUIRE(dec);
    REQUIRE(rfx_context_reset(enc, static_cast<UINT32>(w), static_cast<UINT32>(h)));
    rfx_context_set_pixel_format(enc, PIXEL_FORMAT_BGRX32);
    RFX_RECT r{0, 0, static_cast<UINT16>(w), static_cast<UINT16>(h)};
    wStream* s = Stream_New(nullptr, 1024);
    REQUIRE(rfx_compose_message(enc, s, &r, 1, src.data(), static_cast<UINT32>(w), static_cast<UINT32>(h),
                                static_cast<UINT32>(w * 4)));
    *encoded_bytes = Stream_GetPosition(s);
    std::vector<uint8_t> out(src.size(), 0);
    REGION16 inval;
    region16_init(&inval);
    const bool ok = rfx_process_message(dec, Stream_Buffer(s), static_cast<UINT32>(Stream_GetPosition(s)), 0, 0,
                                        out.data(), PIXEL_FORMAT_BGRX32, static_cast<UINT32>(w * 4),
                                        static_cast<UINT32>(h), &inval);
    region16_uninit(&inval);
    Stream_Free(s, TRUE);
    rfx_context_free(enc);
    rfx_context_free(dec);
    REQUIRE(ok);
    return out;
}

}  // namespace

TEST_CASE("launch: the watermark survives a RemoteFX round trip and SSIM sees the codec's loss") {
    const int w = 320, h = 256;
    for (uint64_t seq : {1ull, 4242ull, 123456789ull}) {
        const auto src = busy_frame(w, h, seq, static_cast<unsigned>(seq));
        size_t bytes = 0;
        const auto got = through_remotefx(src, w, h, &bytes);
        CHECK(bytes > 0);
        CHECK(bytes < src.size());  // it did compress, so it was lossy work
        CHECK(got != src);          // and the pixels changed
        auto d = watermark::decode({got.data(), w, h, w * 4});
        REQUIRE(d);
        CHECK(d->seq == seq);
        const auto ga = ssim::gray_downscaled({src.data(), w, h, w * 4}, 0, 0, w, h, 160, 128);
        const auto gb = ssim::gray_downscaled({got.data(), w, h, w * 4}, 0, 0, w, h, 160, 128);
        const double s = ssim::mean_ssim(ga, gb);
        CHECK(s < 1.0);
        CHECK(s > 0.5);
    }
}

TEST_CASE("launch: reference frames round-trip through their PGM file and bad files are refused") {
    seatmark::image::ReferenceFrame r{42, 320, 240, 160, 120, std::vector<uint8_t>(160 * 120)};
    for (size_t i = 0; i < r.gray.size(); ++i) r.gray[i] = static_cast<uint8_t>(i * 31);
    char tmpl[] = "/tmp/seatmark-ref-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    const std::string dir = tmpl, path = dir + "/" + seatmark::image::reference_name(42);
    CHECK(seatmark::image::reference_name(42) == "ref-000000000042.pgm");
    seatmark::image::write_reference(path, r);
    auto back = seatmark::image::read_reference(path);
    REQUIRE(back);
    CHECK(back->seq == 42);
    CHECK(back->width == 320);
    CHECK(back->gray_width == 160);
    CHECK(back->gray == r.gray);
    CHECK_FALSE(seatmark::image::read_reference(dir + "/none.pgm"));
    {  // cut short: a partial file is not a reference
        std::ofstream f(path, std::ios::binary | std::ios::trunc);
        f << "P5\n# seatmark-reference seq=42 width=320 height=240\n160 120\n255\n" << std::string(100, 'x');
    }
    CHECK_FALSE(seatmark::image::read_reference(path));
    {
        std::ofstream f(path, std::ios::binary | std::ios::trunc);
        f << "P5\n160 120\n255\n";
    }
    CHECK_FALSE(seatmark::image::read_reference(path));
    std::filesystem::remove_all(dir);
}
