#pragma once
// Number and text formatting shared by every renderer: one way to print a figure, and "n/a"
// wherever a figure does not exist (NaN, or -1 for "not sampled").
#include <map>
#include <string>
#include <string_view>

#include "core/sla.h"
#include "report/analysis.h"

namespace seatmark::report {

std::string num(double v, int digits = 1);  // "n/a" for NaN/inf
std::string opt_num(double v, int digits = 1);  // also "n/a" for v < 0 (not sampled)
std::string pct(double share, int digits = 1);  // 0.053 -> "5.3 %"
std::string bytes(double b);                   // "1.2 GiB"
std::string seconds_text(double s);            // "2 min 05 s", "8.0 s", "1 h 02 min", "250 ms", "40 ms", "2.5 ms"

std::string html_escape(std::string_view s);
std::string csv_field(std::string_view s);  // quoted when it holds , " or a line break

// "p95 frame interval <= 33.3 ms, 1 % low >= 20 FPS, latency p95 <= 100 ms, stutter <= 5 %,
//  at most 0 failed sessions per step"; `le`/`ge` spell the comparisons (plain text or Unicode).
std::string sla_text(const Sla& sla, std::string_view le = "<=", std::string_view ge = ">=");
std::string failures_text(const std::map<std::string, uint32_t>& by_reason);  // "1 crash, 2 hang" or "none"
std::string interval_text(const Interval& ci, int digits = 1);  // "[59.3, 59.7]" or "n/a (1 window)"
std::string device_text(const DeviceUse& d);  // "llvmpipe (LLVM 15, 256 bits), cpu, llvmpipe Mesa 22.3"

}  // namespace seatmark::report
