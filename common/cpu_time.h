#pragma once
// CPU time of this process and of the calling thread (common/cpu_time_posix.cpp: Linux
// clocks; common/cpu_time_windows.cpp: GetProcessTimes/GetThreadTimes).
#include <cstdint>

namespace seatmark {

double process_cpu_seconds();  // all threads, user + system
double thread_cpu_seconds();   // the calling thread only
int64_t process_cpu_ns();
int64_t thread_cpu_ns();

}  // namespace seatmark
