// A session's CPU time as the Windows agent reads it (orchestrator/host_proc_windows.cpp), against
// a child of known CPU use (tests/windows/busy_threads.cpp: 2 threads, 1.5 s of CPU each, by
// their own clocks). Run as a Windows executable under Wine (tests/wine/), where GetProcessTimes
// of another process counts only its main thread: a 2-thread busy child for 3 s read 0.09 s.
#include <doctest/doctest.h>

#include <windows.h>

#include <string>

#include "common/self_exe.h"
#include "common/win_text.h"
#include "orchestrator/host_proc.h"

using namespace seatmark;

TEST_CASE("a process's CPU time counts every thread of it (the agent's per-session CPU)") {
    const std::string exe = sibling_exe("busy-threads.exe");
    SECURITY_ATTRIBUTES sa{sizeof sa, nullptr, TRUE};
    HANDLE out_r = nullptr, out_w = nullptr;
    REQUIRE(CreatePipe(&out_r, &out_w, &sa, 0));
    SetHandleInformation(out_r, HANDLE_FLAG_INHERIT, 0);
    STARTUPINFOW si{};
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdOutput = out_w;
    si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
    si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    std::wstring cmd = L"\"" + wide(exe) + L"\" 2 1.5";
    PROCESS_INFORMATION pi{};
    const BOOL started = CreateProcessW(nullptr, cmd.data(), nullptr, nullptr, TRUE, CREATE_NO_WINDOW, nullptr, nullptr, &si, &pi);
    CloseHandle(out_w);
    REQUIRE_MESSAGE(started, exe << ": " << win_error_text(GetLastError()));
    struct End {
        PROCESS_INFORMATION& pi;
        ~End() {
            TerminateProcess(pi.hProcess, 0);
            WaitForSingleObject(pi.hProcess, 10000);
            CloseHandle(pi.hThread);
            CloseHandle(pi.hProcess);
        }
    } end{pi};
    // "done SECONDS" once both threads have used their 1.5 s (they stay alive, idle).
    std::string line;
    char c = 0;
    DWORD got = 0;
    while (line.find('\n') == std::string::npos && ReadFile(out_r, &c, 1, &got, nullptr) && got == 1) line += c;
    CloseHandle(out_r);
    INFO("child said: " << line);
    REQUIRE(line.rfind("done ", 0) == 0);
    const double known = std::stod(line.substr(5));
    CHECK(known >= 2 * 1.5 * 0.99);  // the child reached its target (or gave up on a machine far too busy)

    orchestrator::ProcessUsageReader reader;
    const auto u = reader.read(pid_t(pi.dwProcessId));
    REQUIRE(u);
    MESSAGE("busy threads' own CPU " << known << " s; read for the process " << u->cpu_seconds << " s");
    // Every thread counted: at least the busy threads' time, and not much more (the main thread
    // started them and waits; a second is a sanity bound, not a timing claim).
    CHECK(u->cpu_seconds >= known * 0.98);
    CHECK(u->cpu_seconds <= known + 1.0);
    reader.sweep();
}
