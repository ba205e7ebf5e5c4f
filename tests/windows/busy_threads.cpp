// A child of known CPU use for tests/windows/test_process_cpu_windows.cpp: `busy-threads.exe N
// SECONDS` spins N threads until each has used SECONDS of its own CPU time (GetThreadTimes on
// itself, which Wine reads from /proc/self/task/TID/stat), prints "done" and the CPU time its
// busy threads used, then keeps them alive and idle until it is ended: a thread that exited
// would take its time out of a sum over live threads.
#include <cstdint>
#include <windows.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

double seconds_of(HANDLE thread) {
    FILETIME c, e, k, u;
    if (!GetThreadTimes(thread, &c, &e, &k, &u)) return 0;
    auto t = [](const FILETIME& f) { return double((uint64_t(f.dwHighDateTime) << 32) | f.dwLowDateTime) * 1e-7; };
    return t(k) + t(u);
}

struct Busy {
    double target = 0;
    HANDLE reached = nullptr, never = nullptr;
    double used = 0;
};

DWORD WINAPI spin(void* arg) {
    auto* b = static_cast<Busy*>(arg);
    const ULONGLONG give_up = GetTickCount64() + ULONGLONG(b->target * 20 * 1000);  // a machine this busy: stop anyway
    volatile uint64_t x = 0;
    while (seconds_of(GetCurrentThread()) < b->target && GetTickCount64() < give_up)
        for (int i = 0; i < 1000000; ++i) x = x + uint64_t(i);
    b->used = seconds_of(GetCurrentThread());
    SetEvent(b->reached);
    WaitForSingleObject(b->never, INFINITE);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: busy-threads N SECONDS\n");
        return 2;
    }
    const int n = std::atoi(argv[1]);
    const double seconds = std::atof(argv[2]);
    HANDLE never = CreateEventW(nullptr, TRUE, FALSE, nullptr);
    std::vector<Busy> busy(size_t(n > 0 ? n : 0));
    std::vector<HANDLE> reached;
    for (auto& b : busy) {
        b.target = seconds;
        b.never = never;
        b.reached = CreateEventW(nullptr, TRUE, FALSE, nullptr);
        reached.push_back(b.reached);
        CreateThread(nullptr, 0, spin, &b, 0, nullptr);
    }
    WaitForMultipleObjects(DWORD(reached.size()), reached.data(), TRUE, INFINITE);
    double used = 0;
    for (const auto& b : busy) used += b.used;
    std::printf("done %.3f\n", used);
    std::fflush(stdout);
    WaitForSingleObject(never, INFINITE);
    return 0;
}
