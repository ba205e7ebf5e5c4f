#pragma once
// A minimal parallel loop for the report's independent jobs (judging windows, heat-map rows).
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace seatmark::report {

// Runs fn(i) for every i in [0, n) on up to `threads` threads (the caller's included), each
// taking the next index as it frees up: give the biggest jobs the lowest indexes. The first
// exception thrown is rethrown once every thread has stopped.
template <class Fn>
void parallel_for(size_t n, int threads, Fn fn) {
    std::atomic<size_t> next{0};
    std::exception_ptr error;
    std::mutex error_mutex;
    auto worker = [&] {
        for (size_t i; (i = next.fetch_add(1)) < n;) {
            try {
                fn(i);
            } catch (...) {
                std::lock_guard lock(error_mutex);
                if (!error) error = std::current_exception();
            }
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads && size_t(t) < n; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    if (error) std::rethrow_exception(error);
}

}  // namespace seatmark::report
