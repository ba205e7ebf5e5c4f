#pragma once
// CPU time of this process and of the calling thread, in seconds (Linux clocks).
namespace seatmark {

double process_cpu_seconds();  // all threads, user + system
double thread_cpu_seconds();   // the calling thread only

}  // namespace seatmark
