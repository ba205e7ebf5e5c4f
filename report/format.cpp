#include "report/format.h"

#include <cmath>
#include <cstdio>

namespace seatmark::report {

std::string num(double v, int digits) {
    if (!std::isfinite(v)) return "n/a";
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", digits, v);
    return b;
}

std::string opt_num(double v, int digits) { return v < 0 ? "n/a" : num(v, digits); }

std::string pct(double share, int digits) {
    if (!std::isfinite(share)) return "n/a";
    return num(share * 100, digits) + " %";
}

std::string bytes(double b) {
    if (!std::isfinite(b) || b < 0) return "n/a";
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4) {
        b /= 1024;
        ++u;
    }
    return num(b, u == 0 ? 0 : 1) + " " + units[u];
}

std::string seconds_text(double s) {
    if (!std::isfinite(s)) return "n/a";
    char b[64];
    // Under a second in ms: a 40 ms heat-map bin read "0.0 s".
    if (std::abs(s) < 0.0995) std::snprintf(b, sizeof b, "%.3g ms", s * 1e3);
    else if (s < 1) std::snprintf(b, sizeof b, "%.0f ms", s * 1e3);
    else if (s < 60) std::snprintf(b, sizeof b, "%.1f s", s);
    else if (s < 3600) std::snprintf(b, sizeof b, "%d min %02d s", int(s) / 60, int(s) % 60);
    else std::snprintf(b, sizeof b, "%d h %02d min", int(s) / 3600, (int(s) % 3600) / 60);
    return b;
}

std::string html_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string csv_field(std::string_view s) {
    if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string sla_text(const Sla& sla, std::string_view le, std::string_view ge) {
    std::string s;
    s += "p95 frame interval " + std::string(le) + " " + num(sla.p95_interval_ms) + " ms";
    s += ", 1 % low " + std::string(ge) + " " + num(sla.low1_fps, sla.low1_fps == std::floor(sla.low1_fps) ? 0 : 1) + " FPS";
    s += ", latency p95 " + std::string(le) + " " + num(sla.latency_p95_ms, 0) + " ms";
    s += ", stutter " + std::string(le) + " " + num(sla.stutter_pct, sla.stutter_pct == std::floor(sla.stutter_pct) ? 0 : 1) + " %";
    if (sla.model_open_ms > 0) s += ", model open " + std::string(le) + " " + num(sla.model_open_ms, 0) + " ms";
    if (sla.endpoint_fps > 0) s += ", endpoint FPS " + std::string(ge) + " " + num(sla.endpoint_fps, 0);
    if (sla.endpoint_latency_p95_ms > 0)
        s += ", endpoint latency p95 " + std::string(le) + " " + num(sla.endpoint_latency_p95_ms, 0) + " ms";
    if (sla.delivered_ratio > 0) s += ", delivered " + std::string(ge) + " " + pct(sla.delivered_ratio, 0);
    if (sla.ssim > 0) s += ", SSIM " + std::string(ge) + " " + num(sla.ssim, 3);
    s += ", at most " + std::to_string(sla.failures) + " failed session" + (sla.failures == 1 ? "" : "s") + " per step";
    return s;
}

std::string failures_text(const std::map<std::string, uint32_t>& by_reason) {
    std::string s;
    for (const auto& [reason, n] : by_reason) s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + reason;
    return s.empty() ? "none" : s;
}

std::string interval_text(const Interval& ci, int digits) {
    if (!ci.available()) return "n/a (" + std::to_string(ci.n) + (ci.n == 1 ? " window)" : " windows)");
    return "[" + num(ci.lo, digits) + ", " + num(ci.hi, digits) + "]";
}

std::string device_text(const DeviceUse& d) {
    if (d.device_name.empty()) return "unknown (the session never reported its device)";
    std::string s = d.device_name;
    if (!d.device_type.empty()) s += ", " + d.device_type;
    std::string drv = d.driver_name;
    if (!d.driver_info.empty()) drv += (drv.empty() ? "" : " ") + d.driver_info;
    if (!drv.empty()) s += ", driver " + drv;
    return s;
}

}  // namespace seatmark::report
