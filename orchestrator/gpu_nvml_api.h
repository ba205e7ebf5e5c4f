#pragma once
// The few NVML types and entry points seatmark uses, declared here so that the
// build needs no NVIDIA package: the library itself is loaded at run time with
// dlopen (gpu_nvml.h). Layouts and values follow NVIDIA's nvml.h (API v11/12).
// Only queries are declared: seatmark never calls an nvmlDeviceSet* function.
namespace seatmark::orchestrator::nvml {

using Return = int;  // nvmlReturn_t (an enum: int-sized in the C ABI)
struct DeviceSt;
using Device = DeviceSt*;  // nvmlDevice_t

constexpr Return success = 0;
constexpr Return error_uninitialized = 1;
constexpr Return error_not_supported = 3;
constexpr Return error_no_permission = 4;
constexpr Return error_not_found = 6;
constexpr Return error_insufficient_size = 7;
constexpr Return error_driver_not_loaded = 9;
constexpr Return error_gpu_is_lost = 15;

constexpr unsigned long long value_not_available = ~0ull;  // NVML_VALUE_NOT_AVAILABLE
constexpr int temperature_gpu = 0;                          // NVML_TEMPERATURE_GPU
constexpr int clock_sm = 1, clock_mem = 2;                  // nvmlClockType_t

struct Utilization {  // nvmlUtilization_t
    unsigned int gpu, memory;
};
struct Memory {  // nvmlMemory_t
    unsigned long long total, free, used;
};
struct ProcessInfo {  // nvmlProcessInfo_t (v2 layout), for the *_v3 and *_v2 running-process lists
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
};
struct ProcessUtilizationSample {  // nvmlProcessUtilizationSample_t
    unsigned int pid;
    unsigned long long timeStamp;  // CPU timestamp, microseconds
    unsigned int smUtil, memUtil, encUtil, decUtil;
};

extern "C" {
using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using ErrorStringFn = const char* (*)(Return);
using SystemGetDriverVersionFn = Return (*)(char*, unsigned int);
using DeviceGetCountFn = Return (*)(unsigned int*);
using DeviceGetHandleByIndexFn = Return (*)(unsigned int, Device*);
using DeviceGetNameFn = Return (*)(Device, char*, unsigned int);
using DeviceGetUtilizationRatesFn = Return (*)(Device, Utilization*);
using DeviceGetMemoryInfoFn = Return (*)(Device, Memory*);
using DeviceGetCodecUtilizationFn = Return (*)(Device, unsigned int*, unsigned int*);  // encoder / decoder
using DeviceGetUintFn = Return (*)(Device, unsigned int*);                              // power (mW)
using DeviceGetTemperatureFn = Return (*)(Device, int, unsigned int*);
using DeviceGetClockInfoFn = Return (*)(Device, int, unsigned int*);
using DeviceGetULongLongFn = Return (*)(Device, unsigned long long*);                  // clock event reasons
using DeviceGetProcessUtilizationFn = Return (*)(Device, ProcessUtilizationSample*, unsigned int*,
                                                  unsigned long long);
using DeviceGetRunningProcessesFn = Return (*)(Device, unsigned int*, ProcessInfo*);
}

}  // namespace seatmark::orchestrator::nvml
