#include "store/frame_row.h"

namespace seatmark::store {

FrameRecord frame_row(const Stmt& s, int first) {
    FrameRecord f;
    f.seq = static_cast<uint64_t>(s.col_int(first + 0));
    f.t_begin_ns = s.col_int(first + 1);
    f.cpu_ns = s.col_int(first + 2);
    f.gpu_ns = s.col_int(first + 3);
    f.interval_ns = s.col_int(first + 4);
    f.latency_ns = s.col_int(first + 5);
    f.stretch = static_cast<uint32_t>(s.col_int(first + 6));
    f.mode = static_cast<uint16_t>(s.col_int(first + 7));
    f.flags = static_cast<uint16_t>(s.col_int(first + 8));
    f.begin_interval_ns = s.col_int(first + 9);
    f.t_present_ns = s.col_int(first + 10);
    return f;
}

}  // namespace seatmark::store
