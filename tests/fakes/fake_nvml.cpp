// libfake-nvml.so: a stand-in for libnvidia-ml.so.1 that exports the NVML
// functions seatmark uses, answering from a script, and records what it was
// asked. Tests load it through seatmark's real loader (SEATMARK_NVML_LIBRARY).
//
// The declarations below are transcribed from NVIDIA's nvml.h independently of
// orchestrator/gpu_nvml_api.h, so a layout slip on either side shows up as
// wrong numbers in the tests.
//
// Script: the file named by $SEATMARK_FAKE_NVML_SCRIPT, read at nvmlInit_v2; one
// directive per line, `key=value` tokens (values may be "quoted"), # comments:
//   init rc=N                      nvmlInit_v2's answer (default 0)
//   driver version=550.54.14
//   log path=FILE                  append one line per call to FILE
//   device name="..." util=57 mem_util=21 mem_total=B mem_used=B enc=3 dec=4 power_mw=212345
//          temp=61 sm_mhz=1980 mem_mhz=9001 reasons=4 proc_util_rc=N
//                                  proc_util_rc: nvmlDeviceGetProcessUtilization's answer (0: samples)
//   sample pid=P sm=S mem=M enc=E dec=D [stale]
//                                  a per-process sample on the last device; a stale one carries a
//                                  timestamp equal to the caller's lastSeenTimeStamp (as real NVML
//                                  sometimes returns), a fresh one a newer timestamp
//   graphics pid=P mem=B           an entry of the graphics running-process list of the last device
//   compute pid=P mem=B            ... of the compute list
// Log lines: "<function> [key=value ...]"; nvmlDeviceGetProcessUtilization logs
// `last_seen=T` and, when it returns samples, `newest=T` (the newest fresh timestamp).
#include <sys/time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
typedef enum nvmlReturn_enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;
typedef struct nvmlUtilization_st {
    unsigned int gpu;
    unsigned int memory;
} nvmlUtilization_t;
typedef struct nvmlMemory_st {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;
typedef struct nvmlProcessInfo_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlProcessInfo_t;
typedef struct nvmlProcessUtilizationSample_st {
    unsigned int pid;
    unsigned long long timeStamp;
    unsigned int smUtil;
    unsigned int memUtil;
    unsigned int encUtil;
    unsigned int decUtil;
} nvmlProcessUtilizationSample_t;
typedef enum nvmlTemperatureSensors_enum { NVML_TEMPERATURE_GPU = 0 } nvmlTemperatureSensors_t;
typedef enum nvmlClockType_enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 } nvmlClockType_t;
}

struct nvmlDevice_st {
    std::map<std::string, std::string> v;
    std::vector<nvmlProcessUtilizationSample_t> samples;
    std::vector<bool> stale;
    std::vector<nvmlProcessInfo_t> graphics, compute;
    unsigned long long num(const char* k, unsigned long long d = 0) const {
        auto it = v.find(k);
        return it == v.end() ? d : std::strtoull(it->second.c_str(), nullptr, 10);
    }
};

namespace {

struct State {
    bool initialized = false;
    std::string driver = "999.99", log;
    std::vector<nvmlDevice_st> devices;  // filled at init; handles point into it until the next init
} g;

void log_line(const std::string& line) {
    if (g.log.empty()) return;
    std::ofstream(g.log, std::ios::app) << line << "\n";
}

std::map<std::string, std::string> tokens(const std::string& rest, std::vector<std::string>& flags) {
    std::map<std::string, std::string> kv;
    size_t i = 0;
    while (i < rest.size()) {
        while (i < rest.size() && rest[i] == ' ') ++i;
        size_t start = i;
        while (i < rest.size() && rest[i] != ' ' && rest[i] != '=') ++i;
        std::string key = rest.substr(start, i - start);
        if (key.empty()) break;
        if (i < rest.size() && rest[i] == '=') {
            ++i;
            std::string val;
            if (i < rest.size() && rest[i] == '"') {
                size_t end = rest.find('"', i + 1);
                val = rest.substr(i + 1, end - i - 1);
                i = end == std::string::npos ? rest.size() : end + 1;
            } else {
                size_t end = rest.find(' ', i);
                val = rest.substr(i, end == std::string::npos ? std::string::npos : end - i);
                i = end == std::string::npos ? rest.size() : end;
            }
            kv[key] = val;
        } else {
            flags.push_back(key);
        }
    }
    return kv;
}

unsigned long long u(const std::map<std::string, std::string>& kv, const char* k) {
    auto it = kv.find(k);
    return it == kv.end() ? 0 : std::strtoull(it->second.c_str(), nullptr, 10);
}

int load_script() {
    g.devices.clear();
    g.log.clear();
    const char* path = std::getenv("SEATMARK_FAKE_NVML_SCRIPT");
    if (!path) return NVML_ERROR_DRIVER_NOT_LOADED;
    std::ifstream in(path);
    if (!in) return NVML_ERROR_DRIVER_NOT_LOADED;
    int rc = NVML_SUCCESS;
    for (std::string line; std::getline(in, line);) {
        if (auto h = line.find('#'); h != std::string::npos) line.erase(h);
        std::istringstream ls(line);
        std::string what;
        if (!(ls >> what)) continue;
        std::string rest;
        std::getline(ls, rest);
        std::vector<std::string> flags;
        auto kv = tokens(rest, flags);
        if (what == "init") {
            rc = static_cast<int>(u(kv, "rc"));
        } else if (what == "driver") {
            g.driver = kv["version"];
        } else if (what == "log") {
            g.log = kv["path"];
        } else if (what == "device") {
            g.devices.emplace_back();
            g.devices.back().v = kv;
        } else if (!g.devices.empty() && what == "sample") {
            nvmlProcessUtilizationSample_t s{};
            s.pid = static_cast<unsigned>(u(kv, "pid"));
            s.smUtil = static_cast<unsigned>(u(kv, "sm"));
            s.memUtil = static_cast<unsigned>(u(kv, "mem"));
            s.encUtil = static_cast<unsigned>(u(kv, "enc"));
            s.decUtil = static_cast<unsigned>(u(kv, "dec"));
            g.devices.back().samples.push_back(s);
            g.devices.back().stale.push_back(!flags.empty() && flags[0] == "stale");
        } else if (!g.devices.empty() && (what == "graphics" || what == "compute")) {
            nvmlProcessInfo_t p{};
            p.pid = static_cast<unsigned>(u(kv, "pid"));
            p.usedGpuMemory = u(kv, "mem");
            (what == "graphics" ? g.devices.back().graphics : g.devices.back().compute).push_back(p);
        }
    }
    return rc;
}

unsigned long long now_us() {
    timeval tv{};
    gettimeofday(&tv, nullptr);
    return static_cast<unsigned long long>(tv.tv_sec) * 1000000ull + static_cast<unsigned long long>(tv.tv_usec);
}

nvmlReturn_t device_value(nvmlDevice_t d, const char* fn, const char* key, unsigned int* out) {
    log_line(fn);
    if (!g.initialized) return NVML_ERROR_UNINITIALIZED;
    if (!d || !out) return NVML_ERROR_INVALID_ARGUMENT;
    if (!d->v.count(key)) return NVML_ERROR_NOT_SUPPORTED;
    *out = static_cast<unsigned int>(d->num(key));
    return NVML_SUCCESS;
}

nvmlReturn_t process_list(nvmlDevice_t d, const char* fn, const std::vector<nvmlProcessInfo_t>& list,
                          unsigned int* count, nvmlProcessInfo_t* infos) {
    log_line(std::string(fn) + " capacity=" + std::to_string(count ? *count : 0));
    if (!g.initialized) return NVML_ERROR_UNINITIALIZED;
    if (!d || !count) return NVML_ERROR_INVALID_ARGUMENT;
    unsigned int have = *count;
    *count = static_cast<unsigned int>(list.size());
    if (list.empty()) return NVML_SUCCESS;
    if (!infos || have < list.size()) return NVML_ERROR_INSUFFICIENT_SIZE;
    for (size_t i = 0; i < list.size(); ++i) infos[i] = list[i];
    return NVML_SUCCESS;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) nvmlReturn_t nvmlInit_v2(void) {
    int rc = load_script();
    log_line("nvmlInit_v2 rc=" + std::to_string(rc));
    g.initialized = rc == NVML_SUCCESS;
    return static_cast<nvmlReturn_t>(rc);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlShutdown(void) {
    log_line("nvmlShutdown");
    if (!g.initialized) return NVML_ERROR_UNINITIALIZED;
    g.initialized = false;
    return NVML_SUCCESS;
}

__attribute__((visibility("default"))) const char* nvmlErrorString(nvmlReturn_t r) {
    switch (r) {
        case NVML_SUCCESS: return "Success";
        case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
        case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
        case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
        case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
        case NVML_ERROR_NOT_FOUND: return "Not Found";
        case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
        case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
        case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
        default: return "Unknown Error";
    }
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
    log_line("nvmlSystemGetDriverVersion");
    if (!g.initialized) return NVML_ERROR_UNINITIALIZED;
    if (!version || length <= g.driver.size()) return NVML_ERROR_INSUFFICIENT_SIZE;
    std::strcpy(version, g.driver.c_str());
    return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
    log_line("nvmlDeviceGetCount_v2");
    if (!g.initialized) return NVML_ERROR_UNINITIALIZED;
    *count = static_cast<unsigned int>(g.devices.size());
    return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index,
                                                                                  nvmlDevice_t* device) {
    log_line("nvmlDeviceGetHandleByIndex_v2 index=" + std::to_string(index));
    if (!g.initialized) return NVML_ERROR_UNINITIALIZED;
    if (index >= g.devices.size() || !device) return NVML_ERROR_INVALID_ARGUMENT;
    *device = &g.devices[index];
    return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* name,
                                                                      unsigned int length) {
    log_line("nvmlDeviceGetName");
    if (!g.initialized) return NVML_ERROR_UNINITIALIZED;
    std::string n = d->v.count("name") ? d->v.at("name") : "Fake GPU";
    if (!name || length <= n.size()) return NVML_ERROR_INSUFFICIENT_SIZE;
    std::strcpy(name, n.c_str());
    return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d,
                                                                                  nvmlUtilization_t* util) {
    unsigned int gpu = 0, mem = 0;
    nvmlReturn_t r = device_value(d, "nvmlDeviceGetUtilizationRates", "util", &gpu);
    if (r != NVML_SUCCESS) return r;
    mem = static_cast<unsigned int>(d->num("mem_util"));
    util->gpu = gpu;
    util->memory = mem;
    return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* memory) {
    log_line("nvmlDeviceGetMemoryInfo");
    if (!g.initialized) return NVML_ERROR_UNINITIALIZED;
    if (!d->v.count("mem_total")) return NVML_ERROR_NOT_SUPPORTED;
    memory->total = d->num("mem_total");
    memory->used = d->num("mem_used");
    memory->free = memory->total - memory->used;
    return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t d,
                                                                                    unsigned int* util,
                                                                                    unsigned int* period_us) {
    *period_us = 167000;
    return device_value(d, "nvmlDeviceGetEncoderUtilization", "enc", util);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t d,
                                                                                    unsigned int* util,
                                                                                    unsigned int* period_us) {
    *period_us = 167000;
    return device_value(d, "nvmlDeviceGetDecoderUtilization", "dec", util);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int* mw) {
    return device_value(d, "nvmlDeviceGetPowerUsage", "power_mw", mw);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d,
                                                                             nvmlTemperatureSensors_t sensor,
                                                                             unsigned int* temp) {
    if (sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
    return device_value(d, "nvmlDeviceGetTemperature", "temp", temp);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, nvmlClockType_t type,
                                                                           unsigned int* mhz) {
    if (type == NVML_CLOCK_SM) return device_value(d, "nvmlDeviceGetClockInfo", "sm_mhz", mhz);
    if (type == NVML_CLOCK_MEM) return device_value(d, "nvmlDeviceGetClockInfo", "mem_mhz", mhz);
    return NVML_ERROR_INVALID_ARGUMENT;
}

// Only the older name: seatmark must fall back to it when the newer one is absent.
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(
    nvmlDevice_t d, unsigned long long* reasons) {
    log_line("nvmlDeviceGetCurrentClocksThrottleReasons");
    if (!g.initialized) return NVML_ERROR_UNINITIALIZED;
    if (!d->v.count("reasons")) return NVML_ERROR_NOT_SUPPORTED;
    *reasons = d->num("reasons");
    return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetProcessUtilization(
    nvmlDevice_t d, nvmlProcessUtilizationSample_t* utilization, unsigned int* count,
    unsigned long long last_seen) {
    std::string line = "nvmlDeviceGetProcessUtilization last_seen=" + std::to_string(last_seen) +
                       " capacity=" + std::to_string(count ? *count : 0);
    if (!g.initialized) return log_line(line), NVML_ERROR_UNINITIALIZED;
    if (!d || !count) return log_line(line), NVML_ERROR_INVALID_ARGUMENT;
    auto rc = static_cast<nvmlReturn_t>(d->num("proc_util_rc"));
    if (rc != NVML_SUCCESS) return log_line(line + " rc=" + std::to_string(rc)), rc;
    if (d->samples.empty()) return log_line(line + " rc=6"), NVML_ERROR_NOT_FOUND;
    unsigned int have = *count;
    *count = static_cast<unsigned int>(d->samples.size());
    if (!utilization || have < d->samples.size()) return log_line(line + " rc=7"), NVML_ERROR_INSUFFICIENT_SIZE;
    unsigned long long base = std::max(now_us(), last_seen + 1), newest = 0;
    for (size_t i = 0; i < d->samples.size(); ++i) {
        utilization[i] = d->samples[i];
        utilization[i].timeStamp = d->stale[i] ? last_seen : base + i;
        if (!d->stale[i]) newest = std::max(newest, utilization[i].timeStamp);
    }
    log_line(line + " rc=0 newest=" + std::to_string(newest));
    return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(
    nvmlDevice_t d, unsigned int* count, nvmlProcessInfo_t* infos) {
    return process_list(d, "nvmlDeviceGetGraphicsRunningProcesses_v3", d ? d->graphics : std::vector<nvmlProcessInfo_t>{},
                        count, infos);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(
    nvmlDevice_t d, unsigned int* count, nvmlProcessInfo_t* infos) {
    return process_list(d, "nvmlDeviceGetComputeRunningProcesses_v3", d ? d->compute : std::vector<nvmlProcessInfo_t>{},
                        count, infos);
}

}  // extern "C"
