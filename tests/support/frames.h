#pragma once
// Frames whose every column differs from its neighbours', with the -1 "not measured" values: what
// the store's tests write and read back (tests/store/).
#include <cstdint>
#include <vector>

#include "common/frame_record.h"

namespace seatmark::test {

inline std::vector<FrameRecord> frames_of(uint64_t first, size_t n, int64_t t0 = 1'000'000'000) {
    std::vector<FrameRecord> v(n);
    for (size_t i = 0; i < n; ++i) {
        FrameRecord& f = v[i];
        f.seq = first + i;
        f.t_begin_ns = t0 + static_cast<int64_t>(f.seq) * 16'000'000;
        f.cpu_ns = 1000 + static_cast<int64_t>(f.seq % 7);
        f.gpu_ns = f.seq % 5 == 0 ? -1 : 2000 + static_cast<int64_t>(f.seq);
        f.interval_ns = f.seq % 10 == 0 ? -1 : 16'000'000 + static_cast<int64_t>(f.seq % 11);
        f.latency_ns = f.seq % 3 == 0 ? 30'000'000 : -1;
        f.stretch = static_cast<uint32_t>(f.seq / 10);
        f.mode = static_cast<uint16_t>(f.seq % 6);
        f.flags = static_cast<uint16_t>(f.seq % 8);
        f.begin_interval_ns = f.seq % 10 == 0 ? -1 : 16'000'000 + static_cast<int64_t>(f.seq % 3);
        f.t_present_ns = f.t_begin_ns + 4'000'000 + static_cast<int64_t>(f.seq);
    }
    return v;
}

}  // namespace seatmark::test
