#include "orchestrator/gpu_telemetry.h"

#include <algorithm>
#include <cstdint>

namespace seatmark::orchestrator {

GpuTelemetry::GpuTelemetry(GpuBackends backends, unsigned software_cpus)
    : backends_(std::move(backends)),
      software_(software_cpus),
      backend_(backends_.hardware ? std::string(backends_.hardware->source()) : "software") {}

std::vector<std::string> GpuTelemetry::unavailable() const {
    std::vector<std::string> out;
    for (const auto& s : backends_.status)
        if (!s.available && s.name != "software") out.push_back(s.name + ": " + s.detail);
    return out;
}

std::string GpuTelemetry::describe() const {
    std::string d = backend_;
    for (const auto& s : backends_.status)
        if (s.name == backend_) d += ": " + s.detail;
    if (!backends_.hardware) d += "; no GPU telemetry here";
    for (const auto& u : unavailable()) d += "; " + u;
    return d;
}

GpuSnapshot GpuTelemetry::sample(int64_t t_ns, const std::vector<GpuClient>& clients) {
    GpuSnapshot snap;
    if (backends_.hardware) {
        snap = backends_.hardware->sample(t_ns, clients);
        for (const auto& d : snap.devices)
            if (d.mem_used_bytes && d.mem_total_bytes)
                memory_.push_back({t_ns, d.index, *d.mem_used_bytes, *d.mem_total_bytes, snap.source});
    } else {
        snap.t_ns = t_ns;
        snap.source = "software";
    }
    // Every client keeps a CPU-time baseline, so a share is ready as soon as its renderer is known.
    GpuSnapshot soft = software_.sample(t_ns, clients);
    for (auto& p : soft.processes) {
        auto c = std::find_if(clients.begin(), clients.end(), [&](const GpuClient& x) { return x.pid == p.pid; });
        if (c != clients.end() && c->renderer == Renderer::software) snap.processes.push_back(std::move(p));
    }
    return snap;
}

core::GpuMemoryCheck GpuTelemetry::check_memory(int64_t t0, int64_t t1, double limit_pct) const {
    return memory_check()(t0, t1, limit_pct);
}

void GpuTelemetry::forget_memory_before(int64_t t_ns) {
    std::erase_if(memory_, [t_ns](const core::GpuMemoryPoint& p) { return p.t_ns < t_ns; });
}

std::function<core::GpuMemoryCheck(int64_t, int64_t, double)> GpuTelemetry::memory_check() const {
    std::string why = backend_ == "software" ? "no GPU telemetry: sessions' share is process CPU time"
                                             : backend_ + " gave no device memory figures";
    return [points = memory_, why = std::move(why)](int64_t t0, int64_t t1, double limit_pct) {
        return core::check_gpu_memory(points, t0, t1, limit_pct, why);
    };
}

std::vector<store::SampleRow> gpu_sample_rows(const GpuSnapshot& s) {
    std::vector<store::SampleRow> rows;
    auto add = [&](const std::string& metric, const std::optional<double>& v) {
        if (v) rows.push_back({s.t_ns, std::nullopt, s.source, metric, *v});
    };
    auto device_rows = [&](const std::string& prefix, const GpuDeviceSample& d, bool clocks) {
        add(prefix + "util_pct", d.util_pct);
        add(prefix + "mem_util_pct", d.mem_util_pct);
        add(prefix + "mem_used_bytes", d.mem_used_bytes);
        add(prefix + "mem_total_bytes", d.mem_total_bytes);
        add(prefix + "enc_pct", d.enc_pct);
        add(prefix + "dec_pct", d.dec_pct);
        add(prefix + "power_w", d.power_w);
        add(prefix + "temp_c", d.temp_c);
        if (clocks) {
            add(prefix + "sm_clock_mhz", d.sm_clock_mhz);
            add(prefix + "mem_clock_mhz", d.mem_clock_mhz);
        }
        add(prefix + "throttle_reasons", d.throttle_reasons);
    };
    if (s.devices.size() == 1) {
        device_rows("gpu_", s.devices[0], true);
    } else if (s.devices.size() > 1) {
        GpuDeviceSample all;
        auto mean = [&](std::optional<double> GpuDeviceSample::*f) {
            double sum = 0;
            int n = 0;
            for (const auto& d : s.devices)
                if (d.*f) sum += *(d.*f), ++n;
            return n ? std::optional<double>(sum / n) : std::nullopt;
        };
        auto sum = [&](std::optional<double> GpuDeviceSample::*f) {
            std::optional<double> t;
            for (const auto& d : s.devices)
                if (d.*f) t = t.value_or(0) + *(d.*f);
            return t;
        };
        all.util_pct = mean(&GpuDeviceSample::util_pct);
        all.mem_util_pct = mean(&GpuDeviceSample::mem_util_pct);
        all.enc_pct = mean(&GpuDeviceSample::enc_pct);
        all.dec_pct = mean(&GpuDeviceSample::dec_pct);
        all.mem_used_bytes = sum(&GpuDeviceSample::mem_used_bytes);
        all.mem_total_bytes = sum(&GpuDeviceSample::mem_total_bytes);
        all.power_w = sum(&GpuDeviceSample::power_w);
        for (const auto& d : s.devices) {
            if (d.temp_c) all.temp_c = std::max(all.temp_c.value_or(*d.temp_c), *d.temp_c);
            if (d.throttle_reasons)
                all.throttle_reasons = double(uint64_t(all.throttle_reasons.value_or(0)) | uint64_t(*d.throttle_reasons));
        }
        device_rows("gpu_", all, false);
        for (const auto& d : s.devices) device_rows("gpu" + std::to_string(d.index) + "_", d, true);
    }
    for (const auto& p : s.processes) {
        if (p.session_id < 0) continue;
        auto padd = [&](const char* metric, const std::optional<double>& v) {
            if (v) rows.push_back({s.t_ns, p.session_id, p.source, metric, *v});
        };
        padd("gpu_share_pct", p.share_pct);
        padd("gpu_mem_bytes", p.mem_bytes);
        padd("gpu_mem_util_pct", p.mem_util_pct);
        padd("gpu_enc_pct", p.enc_pct);
        padd("gpu_dec_pct", p.dec_pct);
    }
    return rows;
}

}  // namespace seatmark::orchestrator
