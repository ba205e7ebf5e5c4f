// How many RDP sessions one launcher core holds at 30 FPS of arrivals (issue 18; Login
// Enterprise's guidance is 30 sessions per launcher).
//
//   bench_launch [SESSIONS] [SECONDS]
//
// 1. Client work per frame, no server: FreeRDP's RemoteFX decoder painting a full desktop
//    (1024x768, a new busy frame each time, encoded once beforehand by FreeRDP's encoder) plus
//    the watermark decode; one core's budget at 30 FPS (33.3 ms per frame per session) divided
//    by it is the ceiling.
// 2. As root, on the real xrdp (scripts/rdp_host.sh): SESSIONS desktops running seatmark
//    session --window --watermark, one `seatmark launch` holding them for SECONDS; the launcher
//    threads' own CPU per arrival gives sessions per core at 30 FPS as measured, beside the
//    arrival rate the host could deliver here (lavapipe renders the desktops on this CPU).
#include <freerdp/codec/color.h>
#include <freerdp/codec/region.h>
#include <freerdp/codec/rfx.h>
#include <nlohmann/json.hpp>
#include <winpr/stream.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/self_exe.h"
#include "core/watermark.h"

using namespace seatmark;

namespace {

double thread_cpu_s() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

double client_ms_per_frame() {
    const int w = 1024, h = 768, frames = 60;
    RFX_CONTEXT* enc = rfx_context_new(TRUE);
    RFX_CONTEXT* dec = rfx_context_new(FALSE);
    rfx_context_reset(enc, w, h);
    rfx_context_set_pixel_format(enc, PIXEL_FORMAT_BGRX32);
    std::vector<wStream*> msgs;
    std::mt19937 rng(1);
    std::vector<uint8_t> px(static_cast<size_t>(w) * h * 4);
    for (int f = 0; f < frames; ++f) {
        for (size_t i = 0; i < px.size(); ++i) px[i] = static_cast<uint8_t>((i * 7 + f * 13 + rng() % 32) & 0xff);
        for (const auto& b : watermark::blocks(static_cast<uint64_t>(f)))
            for (int y = b.y; y < b.y + b.h; ++y)
                for (int x = b.x; x < b.x + b.w; ++x)
                    for (int c = 0; c < 3; ++c) px[(static_cast<size_t>(y) * w + x) * 4 + c] = b.white ? 255 : 0;
        RFX_RECT r{0, 0, static_cast<UINT16>(w), static_cast<UINT16>(h)};
        wStream* s = Stream_New(nullptr, 1024);
        rfx_compose_message(enc, s, &r, 1, px.data(), w, h, w * 4);
        msgs.push_back(s);
    }
    std::vector<uint8_t> screen(px.size());
    int decoded = 0;
    const double t0 = thread_cpu_s();
    for (int round = 0; round < 3; ++round)
        for (auto* s : msgs) {
            REGION16 inval;
            region16_init(&inval);
            rfx_process_message(dec, Stream_Buffer(s), static_cast<UINT32>(Stream_GetPosition(s)), 0, 0, screen.data(),
                                PIXEL_FORMAT_BGRX32, w * 4, h, &inval);
            region16_uninit(&inval);
            if (watermark::decode({screen.data(), w, h, w * 4})) ++decoded;
        }
    const double ms = (thread_cpu_s() - t0) * 1000.0 / (3.0 * frames);
    for (auto* s : msgs) Stream_Free(s, TRUE);
    rfx_context_free(enc);
    rfx_context_free(dec);
    if (decoded != 3 * frames) std::printf("  WARNING: %d of %d watermarks decoded\n", decoded, 3 * frames);
    return ms;
}

int sh(const std::string& cmd) { return std::system(cmd.c_str()); }

}  // namespace

int main(int argc, char** argv) {
    const int sessions = argc > 1 ? std::atoi(argv[1]) : 2;
    const int seconds = argc > 2 ? std::atoi(argv[2]) : 20;
    const double budget_ms = 1000.0 / 30.0;

    const double client_ms = client_ms_per_frame();
    std::printf("client work per full 1024x768 RemoteFX frame: %.2f ms CPU (decode + paint + watermark)\n", client_ms);
    std::printf("  -> one core at 30 FPS per session: %.1f sessions (budget %.1f ms / %.2f ms)\n", budget_ms / client_ms,
                budget_ms, client_ms);

    if (::geteuid() != 0) {
        std::printf("real xrdp part skipped: needs root (test users, xrdp-sesman)\n");
        return 0;
    }
    const std::string src = SEATMARK_SOURCE_DIR, bin = sibling_exe("../seatmark"), state = "/tmp/seatmark-bench-launch";
    const std::string xs = state + ".xsession";
    std::ofstream(xs) << "#!/bin/sh\nexec " << bin << " session --window --watermark --workload ci-tiny --duration "
                      << seconds + 120 << "s > \"$HOME/session.log\" 2>&1\n";
    sh(src + "/scripts/rdp_host.sh stop " + state + " >/dev/null");
    if (sh(src + "/scripts/rdp_host.sh start " + state + " --users " + std::to_string(sessions) + " --port 33891 --xsession " + xs) != 0)
        return 1;
    const std::string json = state + ".json";
    sh(bin + " launch --rdp 127.0.0.1:33891 --users " + state + "/users --duration " + std::to_string(seconds) +
       "s --logon-timeout 60s --ignore-certificate --json " + json + " > /dev/null");
    sh(src + "/scripts/rdp_host.sh stop " + state + " >/dev/null");
    std::ifstream in(json);
    if (!in) return 1;
    const auto all = nlohmann::json::parse(in);
    double cpu = 0, arrivals = 0, fps = 0;
    for (const auto& s : all) {
        cpu += s["launcher_cpu_s"].get<double>();
        arrivals += s["arrivals"].get<double>();
        fps += s["arrivals_per_s"].get<double>();
        std::printf("  %s: %s, %.1f frames/s arriving, delivered %.0f %%, %s, launcher CPU %.2f ms per arrival\n",
                    s["user"].get<std::string>().c_str(), s["fault"].get<std::string>().c_str(),
                    s["arrivals_per_s"].get<double>(), 100 * s["delivered_ratio"].get<double>(),
                    s["codec"].get<std::string>().c_str(), s["launcher_cpu_ms_per_arrival"].get<double>());
    }
    if (arrivals <= 0) {
        std::printf("real xrdp: no frames arrived\n");
        return 1;
    }
    const double per = 1000.0 * cpu / arrivals;
    std::printf("real xrdp, %d sessions, %d s: %.0f arrivals (%.1f frames/s per session), launcher CPU %.2f ms per arrival\n",
                sessions, seconds, arrivals, fps / all.size(), per);
    std::printf("  -> one launcher core at 30 FPS per session: %.1f sessions (budget %.1f ms / %.2f ms)\n", budget_ms / per,
                budget_ms, per);
    return 0;
}
