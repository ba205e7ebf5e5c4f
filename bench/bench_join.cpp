// Join mode's cost: one orchestrator (this process, `run --accept` in-process) with N joined
// synthetic sessions at 60 FPS (`seatmark-session --join ... --synthetic-fps 60`, spread over 8
// "hosts" with --host-name), then the same N spawned the usual way as the peer measured in the
// same run. Prints the orchestrator's CPU against one core in the measurement window for both and
// their ratio, frames unaccounted (sent by BYE - stored), and the handshake time per session
// (TCP accept to the end of the join-time clock round trips: samples join/handshake_ms).
// The figure is N = 1,000; a small machine may not hold 1,000 session processes, so N is
// an argument and the bench prints what it ran.
// Sessions are started at RATE per second (--rate, default 50): on a small machine starting
// processes faster starves the orchestrator itself, which is not what the bench measures.
// Usage: bench_join [SESSIONS (1000)] [WINDOW (20s)] [--no-peer] [--rate N]
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/plan.h"
#include "orchestrator/join_source.h"
#include "orchestrator/run_controller.h"
#include "store/store_reader.h"

extern char** environ;

using namespace seatmark;
namespace fs = std::filesystem;

namespace {

struct Result {
    orchestrator::RunOutcome run;
    int64_t sent = 0, stored = 0, without_bye = 0, sessions = 0;
    std::vector<double> handshake_ms;
};

Result read_back(orchestrator::RunOutcome r) {
    Result out;
    store::StoreReader db(r.db_path);
    for (const auto& s : db.sessions()) {
        ++out.sessions;
        if (s.frames_sent) out.sent += *s.frames_sent;
        else ++out.without_bye;
        out.stored += static_cast<int64_t>(db.frame_count(s.id));
    }
    store::SampleQuery q;
    q.source = "join";
    q.metric = "handshake_ms";
    for (const auto& smp : db.samples(q)) out.handshake_ms.push_back(smp.value);
    std::sort(out.handshake_ms.begin(), out.handshake_ms.end());
    out.run = std::move(r);
    return out;
}

pid_t spawn(const std::vector<std::string>& args) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return -1;
    return pid;
}

double pct(const std::vector<double>& v, double q) {
    if (v.empty()) return NAN;
    return v[std::min(v.size() - 1, static_cast<size_t>(q * double(v.size())))];
}

std::string plan_text(int sessions, const std::string& window, bool join) {
    return "name = \"bench-join\"\n[run]\nheartbeat_timeout = \"30s\"\n" +
           std::string(join ? "sessions = \"join\"\njoin_timeout = \"10m\"\n" : "") + "[steps]\nlist = [" +
           std::to_string(sessions) + "]\nsettle = \"3s\"\nwindow = \"" + window +
           "\"\n[[mix]]\nprofile = \"ci-tiny\"\n[sla]\nlatency_p95_ms = 1000\nfailures = 100000\n";
}

void print(const char* what, const Result& r) {
    const double share = r.run.measured_cpu_s / r.run.measured_wall_s * 100;
    std::printf("  %-7s %5lld sessions  run %s in %.1f s; orchestrator CPU / one core, steady %6.2f %% over %.1f s;"
                " frames stored %lld, sent - stored %lld (without BYE: %lld)\n",
                what, static_cast<long long>(r.sessions), r.run.status.c_str(), r.run.wall_s, share,
                r.run.measured_wall_s, static_cast<long long>(r.stored), static_cast<long long>(r.sent - r.stored),
                static_cast<long long>(r.without_bye));
}

}  // namespace

int main(int argc, char** argv) {
    int sessions = 1000;
    std::string window = "20s";
    bool peer = true;
    int rate = 50;
    std::vector<std::string> pos;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--no-peer") == 0) peer = false;
        else if (std::strcmp(argv[i], "--rate") == 0 && i + 1 < argc) rate = std::atoi(argv[++i]);
        else pos.push_back(argv[i]);
    }
    if (!pos.empty()) sessions = std::atoi(pos[0].c_str());
    if (pos.size() > 1) window = pos[1];
    if (sessions < 1 || rate < 1) {
        std::fprintf(stderr, "usage: bench_join [SESSIONS (1000)] [WINDOW (20s)] [--no-peer] [--rate N]\n");
        return 2;
    }
    const auto dir = fs::temp_directory_path() / ("seatmark-bench-join-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string exe = (fs::read_symlink("/proc/self/exe").parent_path().parent_path() / "seatmark-session").string();
    const std::string token_file = (dir / "token").string();
    std::ofstream(token_file) << "bench-join-token-0123456789abcdef\n";
    fs::permissions(token_file, fs::perms::owner_read | fs::perms::owner_write);
    std::printf("bench_join: %d joined synthetic sessions at 60 FPS over 8 hosts (started %d/s), window %s%s ...\n",
                sessions, rate, window.c_str(), peer ? ", then the same spawned" : "");
    std::fflush(stdout);

    // Join mode: the listener on a port the kernel picks; sessions learn it from a file the
    // source's factory writes, and retry until it is there.
    core::Plan jplan = core::parse_plan(plan_text(sessions, window, true), "bench plan (join)");
    orchestrator::RunOptions jo;
    jo.db_path = (dir / "join.db").string();
    jo.quiet = true;
    std::atomic<int> port{0};
    orchestrator::JoinListener::Options lo;
    lo.address = orchestrator::parse_listen("127.0.0.1:0", "--accept");
    lo.token = "bench-join-token-0123456789abcdef";
    lo.idle_timeout_s = 30;
    jo.session_source = [&](orchestrator::SessionHost& host) -> std::unique_ptr<orchestrator::SessionSource> {
        auto s = std::make_unique<orchestrator::JoinSessionSource>(host, jplan, lo, true);
        port = std::stoi(s->url().substr(s->url().rfind(':') + 1));
        return s;
    };
    std::vector<pid_t> pids;
    std::thread spawner([&] {
        while (port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        const std::string addr = "127.0.0.1:" + std::to_string(port.load());
        // Paced at `rate` per second, every one from 127.0.0.1 as desktops behind one NAT address
        // would be: one the listener sheds while it is pending joins again (join_listener.h).
        for (int i = 0; i < sessions; ++i) {
            pids.push_back(spawn({exe, "--join", addr, "--token-file", token_file, "--host-name",
                                  "bench-" + std::to_string(i % 8), "--synthetic-fps", "60", "--quiet", "--retry-for",
                                  "60s"}));
            std::this_thread::sleep_for(std::chrono::microseconds(1'000'000 / rate));
        }
    });
    Result join = read_back(orchestrator::run_plan(jplan, jo));
    spawner.join();
    for (pid_t p : pids) {
        if (p <= 0) continue;
        for (int k = 0; k < 100 && waitpid(p, nullptr, WNOHANG) == 0; ++k)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (waitpid(p, nullptr, WNOHANG) == 0) {
            kill(p, SIGKILL);
            waitpid(p, nullptr, 0);
        }
    }
    print("joined", join);
    const auto& h = join.handshake_ms;
    std::printf("  handshake per session (accept -> 8 clock round trips done): median %.2f ms, p95 %.2f ms, max %.2f ms"
                " over %zu connections\n",
                pct(h, 0.5), pct(h, 0.95), h.empty() ? NAN : h.back(), h.size());
    int rc = join.sent == join.stored && join.without_bye == 0 ? 0 : 1;

    if (peer) {
        core::Plan splan = core::parse_plan(plan_text(sessions, window, false), "bench plan (spawn)");
        orchestrator::RunOptions so;
        so.db_path = (dir / "spawn.db").string();
        so.quiet = true;
        so.extra_session_args = {"--synthetic-fps", "60"};
        so.session_exe = exe;
        Result spawned = read_back(orchestrator::run_plan(splan, so));
        print("spawned", spawned);
        const double js = join.run.measured_cpu_s / join.run.measured_wall_s;
        const double ss = spawned.run.measured_cpu_s / spawned.run.measured_wall_s;
        std::printf("  ratio joined / spawned orchestrator CPU   %.2f  (TCP + HMAC-authenticated peers vs Unix sockets)\n",
                    js / ss);
    }
    std::printf("  frames unaccounted (joined)              %lld of %lld sent (%.4f %%)\n",
                static_cast<long long>(join.sent - join.stored), static_cast<long long>(join.sent),
                join.sent ? double(join.sent - join.stored) * 100 / double(join.sent) : 0.0);
    fs::remove_all(dir);
    return rc;
}
