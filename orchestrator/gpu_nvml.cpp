#include "orchestrator/gpu_nvml.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "common/child_process.h"
#include "common/shared_library.h"
#include "orchestrator/gpu_nvml_api.h"

namespace seatmark::orchestrator {

namespace {

// The loaded library: its handle, the entry points found, and NVML's init state.
class NvmlLibrary {
public:
    ~NvmlLibrary() {
        if (initialized_ && shutdown) shutdown();
    }
    NvmlLibrary() = default;
    NvmlLibrary(const NvmlLibrary&) = delete;
    NvmlLibrary& operator=(const NvmlLibrary&) = delete;

    // Loads `name` and resolves the entry points; on failure returns null and says why.
    static std::unique_ptr<NvmlLibrary> load(const std::string& name, std::string& why) {
        auto lib = std::make_unique<NvmlLibrary>();
        std::string loader;
        lib->handle_ = SharedLibrary::open(name, loader);
        if (!lib->handle_) {
            why = "library missing: " + loader;
            return nullptr;
        }
        // Required: without these there is nothing to sample.
        if (!lib->sym(lib->init, {"nvmlInit_v2", "nvmlInit"}, why) ||
            !lib->sym(lib->shutdown, {"nvmlShutdown"}, why) ||
            !lib->sym(lib->device_count, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"}, why) ||
            !lib->sym(lib->device_handle, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"}, why)) {
            why = "not NVML: " + name + " lacks " + why;
            return nullptr;
        }
        // Optional: a figure whose entry point is missing is simply not sampled.
        lib->opt(lib->error_string, {"nvmlErrorString"});
        lib->opt(lib->driver_version, {"nvmlSystemGetDriverVersion"});
        lib->opt(lib->device_name, {"nvmlDeviceGetName"});
        lib->opt(lib->utilization, {"nvmlDeviceGetUtilizationRates"});
        lib->opt(lib->memory, {"nvmlDeviceGetMemoryInfo"});
        lib->opt(lib->encoder, {"nvmlDeviceGetEncoderUtilization"});
        lib->opt(lib->decoder, {"nvmlDeviceGetDecoderUtilization"});
        lib->opt(lib->power, {"nvmlDeviceGetPowerUsage"});
        lib->opt(lib->temperature, {"nvmlDeviceGetTemperature"});
        lib->opt(lib->clock, {"nvmlDeviceGetClockInfo"});
        lib->opt(lib->clock_reasons,
                 {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
        lib->opt(lib->process_utilization, {"nvmlDeviceGetProcessUtilization"});
        // The unversioned lists take a smaller struct; only the v2-layout ones are used.
        lib->opt(lib->graphics_processes,
                 {"nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v2"});
        lib->opt(lib->compute_processes,
                 {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"});
        return lib;
    }

    std::string error(nvml::Return r) const {
        const char* s = error_string ? error_string(r) : nullptr;
        return (s ? std::string(s) : std::string("NVML error")) + " (" + std::to_string(r) + ")";
    }
    void set_initialized() { initialized_ = true; }

    nvml::InitFn init = nullptr;
    nvml::ShutdownFn shutdown = nullptr;
    nvml::ErrorStringFn error_string = nullptr;
    nvml::SystemGetDriverVersionFn driver_version = nullptr;
    nvml::DeviceGetCountFn device_count = nullptr;
    nvml::DeviceGetHandleByIndexFn device_handle = nullptr;
    nvml::DeviceGetNameFn device_name = nullptr;
    nvml::DeviceGetUtilizationRatesFn utilization = nullptr;
    nvml::DeviceGetMemoryInfoFn memory = nullptr;
    nvml::DeviceGetCodecUtilizationFn encoder = nullptr, decoder = nullptr;
    nvml::DeviceGetUintFn power = nullptr;
    nvml::DeviceGetTemperatureFn temperature = nullptr;
    nvml::DeviceGetClockInfoFn clock = nullptr;
    nvml::DeviceGetULongLongFn clock_reasons = nullptr;
    nvml::DeviceGetProcessUtilizationFn process_utilization = nullptr;
    nvml::DeviceGetRunningProcessesFn graphics_processes = nullptr, compute_processes = nullptr;

private:
    template <class F>
    bool sym(F& f, std::initializer_list<const char*> names, std::string& missing) {
        opt(f, names);
        if (!f) missing = *names.begin();
        return f != nullptr;
    }
    template <class F>
    void opt(F& f, std::initializer_list<const char*> names) {
        for (const char* n : names)
            if (void* p = handle_->symbol(n)) {
                f = reinterpret_cast<F>(p);
                return;
            }
    }
    std::unique_ptr<SharedLibrary> handle_;
    bool initialized_ = false;
};

struct ProcessAcc {
    double sm = 0, mem = 0, enc = 0, dec = 0;
    int n = 0;
    std::optional<double> mem_bytes;
};

class NvmlSampler final : public GpuSampler {
public:
    NvmlSampler(std::unique_ptr<NvmlLibrary> lib, std::vector<nvml::Device> devices, std::vector<std::string> names,
                std::string proc_root)
        : lib_(std::move(lib)),
          devices_(std::move(devices)),
          names_(std::move(names)),
          last_seen_(devices_.size(), 0),
          proc_root_(std::move(proc_root)) {}

    std::string_view source() const override { return "nvml"; }

    GpuSnapshot sample(int64_t t_ns, const std::vector<GpuClient>& clients) override {
        GpuSnapshot snap;
        snap.t_ns = t_ns;
        snap.source = "nvml";
        errors_ = &snap.errors;
        std::map<pid_t, ProcessAcc> procs;  // over every device
        for (uint32_t i = 0; i < devices_.size(); ++i) {
            snap.devices.push_back(device_figures(i));
            std::map<pid_t, ProcessAcc> here;
            bool covered = process_utilization(i, here);
            running_processes(i, lib_->graphics_processes, "nvmlDeviceGetGraphicsRunningProcesses", here);
            running_processes(i, lib_->compute_processes, "nvmlDeviceGetComputeRunningProcesses", here);
            // NVML lists only processes that were busy in the period: when it returned a new period,
            // a process holding a context on the device without a sample used none of it.
            if (covered)
                for (auto& [pid, a] : here)
                    if (!a.n) a.n = 1;
            // A process on several devices: its busiest device's share, its memory on all of them.
            for (auto& [pid, a] : here) {
                auto [it, fresh] = procs.try_emplace(pid, a);
                if (fresh) continue;
                ProcessAcc& t = it->second;
                if (a.n && (!t.n || a.sm / a.n > t.sm / t.n)) {
                    t.sm = a.sm, t.mem = a.mem, t.enc = a.enc, t.dec = a.dec, t.n = a.n;
                }
                if (a.mem_bytes) t.mem_bytes = t.mem_bytes.value_or(0) + *a.mem_bytes;
            }
        }
        std::map<pid_t, int> session_of;
        for (const auto& c : clients) session_of[c.pid] = c.session_id;
        for (auto& [pid, a] : procs) {
            GpuProcessSample p;
            p.pid = pid;
            auto s = session_of.find(pid);
            p.session_id = s == session_of.end() ? -1 : s->second;
            p.source = "nvml";
            if (a.n) {
                p.share_pct = a.sm / a.n;
                p.mem_util_pct = a.mem / a.n;
                p.enc_pct = a.enc / a.n;
                p.dec_pct = a.dec / a.n;
            }
            p.mem_bytes = a.mem_bytes;
            snap.processes.push_back(p);
        }
        errors_ = nullptr;
        return snap;
    }

private:
    // true on success; errors other than "not supported" are reported once per (function, device, code).
    bool ok(nvml::Return r, const char* fn, uint32_t dev) {
        if (r == nvml::success) return true;
        auto key = std::make_pair(std::string(fn), dev);
        if (r == nvml::error_not_supported) {
            unsupported_.insert(key);
            return false;
        }
        auto& last = reported_[key];
        if (last != r && errors_)
            errors_->push_back(std::string(fn) + " (device " + std::to_string(dev) + "): " + lib_->error(r));
        last = r;
        return false;
    }
    bool supported(const char* fn, uint32_t dev) const { return !unsupported_.count({std::string(fn), dev}); }

    bool pid_alive(pid_t pid) const {
        return pid > 0 && process_exists(uint32_t(pid), proc_root_);
    }

    static std::optional<double> pct(unsigned int v) {
        return v <= 100 ? std::optional<double>(v) : std::nullopt;  // over 100: a bogus reading
    }

    GpuDeviceSample device_figures(uint32_t i) {
        nvml::Device d = devices_[i];
        GpuDeviceSample s;
        s.index = i;
        s.name = names_[i];
        if (lib_->utilization && supported("nvmlDeviceGetUtilizationRates", i)) {
            nvml::Utilization u{};
            if (ok(lib_->utilization(d, &u), "nvmlDeviceGetUtilizationRates", i)) {
                s.util_pct = pct(u.gpu);
                s.mem_util_pct = pct(u.memory);
            }
        }
        if (lib_->memory && supported("nvmlDeviceGetMemoryInfo", i)) {
            nvml::Memory m{};
            if (ok(lib_->memory(d, &m), "nvmlDeviceGetMemoryInfo", i) && m.total > 0) {
                s.mem_used_bytes = double(m.used);
                s.mem_total_bytes = double(m.total);
            }
        }
        unsigned int v = 0, period = 0;
        if (lib_->encoder && supported("nvmlDeviceGetEncoderUtilization", i) &&
            ok(lib_->encoder(d, &v, &period), "nvmlDeviceGetEncoderUtilization", i))
            s.enc_pct = pct(v);
        if (lib_->decoder && supported("nvmlDeviceGetDecoderUtilization", i) &&
            ok(lib_->decoder(d, &v, &period), "nvmlDeviceGetDecoderUtilization", i))
            s.dec_pct = pct(v);
        if (lib_->power && supported("nvmlDeviceGetPowerUsage", i) &&
            ok(lib_->power(d, &v), "nvmlDeviceGetPowerUsage", i))
            s.power_w = double(v) / 1000.0;
        if (lib_->temperature && supported("nvmlDeviceGetTemperature", i) &&
            ok(lib_->temperature(d, nvml::temperature_gpu, &v), "nvmlDeviceGetTemperature", i))
            s.temp_c = double(v);
        if (lib_->clock && supported("nvmlDeviceGetClockInfo", i)) {
            if (ok(lib_->clock(d, nvml::clock_sm, &v), "nvmlDeviceGetClockInfo", i)) s.sm_clock_mhz = double(v);
            if (ok(lib_->clock(d, nvml::clock_mem, &v), "nvmlDeviceGetClockInfo", i)) s.mem_clock_mhz = double(v);
        }
        unsigned long long reasons = 0;
        if (lib_->clock_reasons && supported("nvmlDeviceGetCurrentClocksEventReasons", i) &&
            ok(lib_->clock_reasons(d, &reasons), "nvmlDeviceGetCurrentClocksEventReasons", i))
            s.throttle_reasons = double(reasons);
        return s;
    }

    // New per-process samples since the last call's newest one; the newest timestamp is carried on.
    // Returns whether NVML returned a new sample period (any sample newer than the last seen).
    bool process_utilization(uint32_t i, std::map<pid_t, ProcessAcc>& out) {
        const char* fn = "nvmlDeviceGetProcessUtilization";
        if (!lib_->process_utilization || !supported(fn, i)) return false;
        unsigned int count = 0;
        nvml::Return r = lib_->process_utilization(devices_[i], nullptr, &count, last_seen_[i]);
        if (r == nvml::error_not_found || (r == nvml::success && count == 0)) return false;  // nothing new
        std::vector<nvml::ProcessUtilizationSample> buf;
        if (r == nvml::error_insufficient_size) {
            buf.resize(count);
            r = lib_->process_utilization(devices_[i], buf.data(), &count, last_seen_[i]);
            if (r == nvml::error_not_found) return false;
        }
        if (!ok(r, fn, i)) return false;
        count = std::min<unsigned int>(count, static_cast<unsigned int>(buf.size()));
        unsigned long long newest = last_seen_[i];
        for (unsigned int k = 0; k < count; ++k) {
            const auto& s = buf[k];
            if (s.timeStamp <= last_seen_[i]) continue;  // stale: NVML returned an old sample again
            newest = std::max(newest, s.timeStamp);
            if (s.smUtil > 100 || s.memUtil > 100 || s.encUtil > 100 || s.decUtil > 100) continue;  // bogus
            if (!pid_alive(static_cast<pid_t>(s.pid))) continue;  // stale pid: the process is gone
            ProcessAcc& a = out[static_cast<pid_t>(s.pid)];
            a.sm += s.smUtil, a.mem += s.memUtil, a.enc += s.encUtil, a.dec += s.decUtil;
            ++a.n;
        }
        bool covered = newest > last_seen_[i];
        last_seen_[i] = newest;
        return covered;
    }

    // Device memory per process; a process on both lists (graphics and compute) counts once.
    void running_processes(uint32_t i, nvml::DeviceGetRunningProcessesFn f, const char* fn,
                           std::map<pid_t, ProcessAcc>& out) {
        if (!f || !supported(fn, i)) return;
        unsigned int count = 0;
        nvml::Return r = f(devices_[i], &count, nullptr);
        if (r == nvml::success) return;  // no process
        std::vector<nvml::ProcessInfo> buf;
        if (r == nvml::error_insufficient_size) {
            buf.resize(count + 8);  // processes may start between the two calls
            count = static_cast<unsigned int>(buf.size());
            r = f(devices_[i], &count, buf.data());
        }
        if (!ok(r, fn, i)) return;
        count = std::min<unsigned int>(count, static_cast<unsigned int>(buf.size()));
        for (unsigned int k = 0; k < count; ++k) {
            const auto& p = buf[k];
            if (!pid_alive(static_cast<pid_t>(p.pid))) continue;
            ProcessAcc& a = out[static_cast<pid_t>(p.pid)];
            if (p.usedGpuMemory != nvml::value_not_available)
                a.mem_bytes = std::max(a.mem_bytes.value_or(0), double(p.usedGpuMemory));
        }
    }

    std::unique_ptr<NvmlLibrary> lib_;
    std::vector<nvml::Device> devices_;
    std::vector<std::string> names_;
    std::vector<unsigned long long> last_seen_;  // per device, NVML's microsecond timestamps
    std::string proc_root_;
    std::set<std::pair<std::string, uint32_t>> unsupported_;
    std::map<std::pair<std::string, uint32_t>, nvml::Return> reported_;
    std::vector<std::string>* errors_ = nullptr;
};

std::string reason_for(const NvmlLibrary& lib, const char* what, nvml::Return r) {
    std::string prefix = r == nvml::error_no_permission       ? "no permission: "
                         : r == nvml::error_driver_not_loaded ? "NVIDIA driver not loaded: "
                                                              : "";
    return prefix + what + " failed: " + lib.error(r);
}

}  // namespace

std::string nvml_library_name(const std::string& name) {
    if (!name.empty()) return name;
    const char* env = std::getenv(nvml_library_env);
    return env && *env ? std::string(env) : nvml_system_library();
}

NvmlOpen open_nvml(const std::string& library, const std::string& proc_root) {
    NvmlOpen out;
    out.status.name = "nvml";
    const std::string name = nvml_library_name(library);
    std::string why;
    auto lib = NvmlLibrary::load(name, why);
    if (!lib) {
        out.status.detail = why;
        return out;
    }
    nvml::Return r = lib->init();
    if (r != nvml::success) {
        out.status.detail = reason_for(*lib, "nvmlInit_v2", r);
        return out;
    }
    lib->set_initialized();
    unsigned int count = 0;
    r = lib->device_count(&count);
    if (r != nvml::success) {
        out.status.detail = reason_for(*lib, "nvmlDeviceGetCount_v2", r);
        return out;
    }
    if (count == 0) {
        out.status.detail = "no NVIDIA GPU: NVML reports 0 devices";
        return out;
    }
    std::vector<nvml::Device> devices;
    std::vector<std::string> names;
    std::string first_error;
    for (unsigned int i = 0; i < count; ++i) {
        nvml::Device d = nullptr;
        r = lib->device_handle(i, &d);
        if (r != nvml::success) {
            if (first_error.empty()) first_error = reason_for(*lib, "nvmlDeviceGetHandleByIndex_v2", r);
            continue;
        }
        char buf[96] = {};
        std::string dev_name = "NVIDIA GPU " + std::to_string(i);
        if (lib->device_name && lib->device_name(d, buf, sizeof buf) == nvml::success) dev_name = buf;
        std::string line = std::to_string(devices.size()) + ": " + dev_name;
        nvml::Memory m{};
        if (lib->memory && lib->memory(d, &m) == nvml::success && m.total)
            line += ", " + std::to_string(m.total >> 20) + " MiB";
        out.status.devices.push_back(line);
        devices.push_back(d);
        names.push_back(dev_name);
    }
    if (devices.empty()) {
        out.status.detail = first_error;
        return out;
    }
    char drv[96] = {};
    std::string version =
        lib->driver_version && lib->driver_version(drv, sizeof drv) == nvml::success ? std::string(drv) : "?";
    out.status.available = true;
    out.status.detail = "NVIDIA driver " + version + " via " + name + ": " + std::to_string(devices.size()) +
                        " device(s); per-session share = NVML per-process SM utilization";
    if (!first_error.empty()) out.status.detail += "; " + first_error;
    out.sampler = std::make_unique<NvmlSampler>(std::move(lib), std::move(devices), std::move(names), proc_root);
    return out;
}

}  // namespace seatmark::orchestrator
