// `seatmark run` with real session processes on real Vulkan (lavapipe on CI)
// or in synthetic mode, real sockets and a real SQLite file.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <signal.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include <xxhash.h>

#include "common/clock.h"
#include "common/file_hash.h"
#include "common/wire_protocol.h"
#include "store/store_reader.h"
#include "tests/support/input_error.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

namespace {

std::string plan(const std::string& steps, const std::string& extra_run = "", const std::string& settle = "1s",
                 const std::string& window = "2s") {
    return "name = \"test\"\n[run]\nallow_software = true\nheartbeat_timeout = \"5s\"\nstop = \"max\"\n" + extra_run +
           "\n[steps]\nlist = [" + steps + "]\nsettle = \"" + settle + "\"\nwindow = \"" + window +
           "\"\n[[mix]]\nprofile = \"ci-tiny\"\n";
}

std::vector<store::SessionRow> sessions_of(const std::string& db) {
    try {
        store::StoreReader r(db);
        return r.sessions();
    } catch (...) {
        return {};
    }
}

// The Unix socket sessions report to, read from a session's command line.
std::string telemetry_socket(int pid) {
    std::string cmd = read_file("/proc/" + std::to_string(pid) + "/cmdline");
    std::vector<std::string> args;
    size_t start = 0;
    for (size_t i = 0; i < cmd.size(); ++i)
        if (cmd[i] == '\0') {
            args.push_back(cmd.substr(start, i - start));
            start = i + 1;
        }
    for (size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == "--connect") return args[i + 1];
    return {};
}

bool send_raw(const std::string& path, const std::string& bytes) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        close(fd);
        return false;
    }
    bool ok = write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    // The orchestrator must close a connection that is not a session's telemetry: wait for that
    // (EOF or reset), at most 10 s.
    bool closed = false;
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (ok && !closed && std::chrono::steady_clock::now() < end) {
        pollfd p{fd, POLLIN, 0};
        char c;
        if (poll(&p, 1, 100) > 0) closed = read(fd, &c, 1) <= 0;
    }
    close(fd);
    return ok && closed;
}

}  // namespace

TEST_CASE("a two-step run records every frame each session sent") {
    TempDir dir;
    // A valid staged asset (right size and XXH3) lets the run start.
    const std::string asset = "staged mesh bytes";
    write_file(dir.file("asset.bin"), asset);
    write_file(dir.file("plan.toml"), plan("1, 2", "assets = [{ path = \"" + dir.file("asset.bin") + "\", size = " +
                                                       std::to_string(asset.size()) + ", xxh3 = \"" +
                                                       xxh3_hex(XXH3_64bits(asset.data(), asset.size())) + "\" }]\n"));
    auto r = run_process(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--json"}), 240);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("\"max_density\"") != std::string::npos);
    const auto summary = nlohmann::json::parse(r.out);

    store::StoreReader db(dir.file("run.db"));
    CHECK(db.integrity_ok());
    CHECK(db.effective_status() == store::RunStatus::finished);
    auto steps = db.steps();
    REQUIRE(steps.size() == 2);
    CHECK(steps[0].target_sessions == 1);
    CHECK(steps[1].target_sessions == 2);
    for (auto& s : steps) {
        CHECK(s.verdict.has_value());
        CHECK(s.window_start_ns.has_value());
        CHECK(*s.window_end_ns > *s.window_start_ns);
    }
    auto sessions = db.sessions();
    REQUIRE(sessions.size() == 2);
    for (auto& s : sessions) {
        CAPTURE(s.id);
        CHECK(s.end_reason == store::SessionEnd::ok);
        REQUIRE(s.frames_sent.has_value());  // the session said BYE
        CHECK(*s.frames_sent > 0);
        CHECK(static_cast<int64_t>(db.frame_count(s.id)) == *s.frames_sent);  // sent == stored
        CHECK(s.frames_received == *s.frames_sent);
        CHECK(s.frames_lost == 0);
        CHECK(!s.device.device_name.empty());
        auto frames = db.frames(s.id);
        for (size_t i = 0; i < frames.size(); ++i) CHECK(frames[i].seq == i);
        // Its BYE's 1 % lows by both definitions, stored as 'bye' samples: MangoHud's "1% Min FPS"
        // (mean FPS of the slowest 1 % of frames) is never above seatmark's 1000 / p99.
        store::SampleQuery q;
        q.source = "bye";
        q.session_id = s.id;
        auto lows = db.samples(q);
        std::map<std::string, double> by_metric;
        for (const auto& l : lows) by_metric[l.metric] = l.value;
        REQUIRE(by_metric.count("low1_fps"));
        REQUIRE(by_metric.count("low1_min_fps"));
        CHECK(by_metric["low1_min_fps"] > 0);
        CHECK(by_metric["low1_min_fps"] <= by_metric["low1_fps"] * 1.000001);
    }
    // --json names each step's device as its sessions said (one device here: every session's).
    REQUIRE(summary["steps"].size() == 2);
    for (size_t i = 0; i < 2; ++i) {
        const auto& d = summary["steps"][i]["devices"];
        REQUIRE(d.size() == 1);
        CHECK(d[0]["device"] == sessions[0].device.device_name);
        CHECK(d[0]["software"] == sessions[0].device.software);
        CHECK(d[0]["sessions"] == i + 1);
    }
    CHECK(!db.samples({}).empty());
    CHECK(db.hosts().size() == 1);
}

TEST_CASE("kill -9 of a session mid-step is recorded as a crash and the run finishes") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan("2, 3", "", "1s", "4s"));
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"}));
    int64_t victim = 0;
    REQUIRE(wait_until(60, [&] {
        for (auto& s : sessions_of(dir.file("run.db")))
            if (s.id == 0 && s.pid > 0) victim = s.pid;
        return victim > 0;
    }));
    // Mid-step: once its frames are being stored (not a fixed sleep).
    REQUIRE(wait_until(60, [&] {
        try {
            return store::StoreReader(dir.file("run.db")).frame_count(0) > 0;
        } catch (...) {
            return false;
        }
    }));
    signal_process(victim, SIGKILL);
    auto r = run.wait(240);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    store::StoreReader db(dir.file("run.db"));
    auto sessions = db.sessions();
    bool crash = false;
    for (auto& s : sessions)
        if (s.id == 0) {
            CHECK(s.end_reason == store::SessionEnd::crash);
            CHECK(s.signal.value_or(0) == SIGKILL);
            CHECK_FALSE(s.frames_sent.has_value());  // it never said BYE
            CHECK(s.frames_received > 0);
            CHECK(static_cast<int64_t>(db.frame_count(0)) == s.frames_received);  // everything received is stored
            // Frames its last heartbeat counted that never arrived are lost, and the row says how counted.
            if (s.frames_lost > 0) CHECK(s.detail.find("no BYE; counted by the last heartbeat") != std::string::npos);
            crash = true;
        }
    CHECK(crash);
    // Steps of 2 and 3: two sessions, then the survivor plus two new ones (one replaces the crash).
    CHECK(sessions.size() == 4);
    auto steps = db.steps();
    REQUIRE(steps.size() == 2);
    CHECK(steps[0].verdict.value_or("") == "fail");  // a crash fails its step
    CHECK(steps[0].detail.find("crash") != std::string::npos);  // and the step says why
    CHECK(db.effective_status() == store::RunStatus::finished);
}

TEST_CASE("a stopped (SIGSTOP) session is recorded as hung within the heartbeat timeout") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan("1, 2", "", "1s", "6s"));
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"}));
    int64_t victim = 0;
    REQUIRE(wait_until(60, [&] {
        for (auto& s : sessions_of(dir.file("run.db")))
            if (s.id == 0 && s.pid > 0 && s.device.device_name.size()) victim = s.pid;
        return victim > 0;
    }));
    const int64_t stopped_ns = now_ns();  // CLOCK_MONOTONIC, the clock of the database's *_ns
    signal_process(victim, SIGSTOP);
    auto r = run.wait(240);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    store::StoreReader db(dir.file("run.db"));
    bool seen = false;
    for (auto& s : db.sessions())
        if (s.id == 0) {
            seen = true;
            CHECK(s.end_reason == store::SessionEnd::hang);
            CHECK(s.signal.value_or(0) == SIGKILL);  // a stopped process is killed, not left stopped
            REQUIRE(s.ended_ns.has_value());
            // It ended when it fell silent (core::failure_time): its last frame or heartbeat, sent
            // at most a second before the stop; sanity bounds, not a performance figure.
            CHECK(*s.ended_ns <= stopped_ns);
            CHECK(double(stopped_ns - *s.ended_ns) * 1e-9 < 3.0);
        }
    CHECK(seen);
    // Declared hung within the 5 s heartbeat timeout of its last message (sent at most a second
    // before the stop), plus the 250 ms check.
    bool declared = false;
    for (const auto& e : db.events())
        if (e.kind == "session-hang" && e.session_id.value_or(-1) == 0) {
            declared = true;
            const double after_s = double(e.t_ns - stopped_ns) * 1e-9;
            CHECK(after_s > 3.5);
            CHECK(after_s < 8.0);
        }
    CHECK(declared);
    CHECK(kill(static_cast<pid_t>(victim), 0) != 0);  // and gone
}

TEST_CASE("garbage and an oversized frame on the socket close only that connection") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan("1", "", "1s", "5s"));
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"}));
    std::string sock;
    REQUIRE(wait_until(60, [&] {
        for (auto& s : sessions_of(dir.file("run.db")))
            if (s.pid > 0) sock = telemetry_socket(static_cast<int>(s.pid));
        return !sock.empty();
    }));
    CHECK(send_raw(sock, "GET / HTTP/1.1\r\n\r\nthis is not the seatmark protocol"));
    // A valid header announcing a 64 MiB FRAMES payload.
    std::string huge = {'\x53', '\x4d', char(wire::version), '\x02', '\x00', '\x00', '\x00', '\x04'};
    CHECK(send_raw(sock, huge));
    auto r = run.wait(240);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    store::StoreReader db(dir.file("run.db"));
    int rejected = 0;
    bool oversize_named = false;
    for (auto& e : db.events())
        if (e.kind == "connection-rejected") {
            ++rejected;
            oversize_named |= e.detail.find("exceeds") != std::string::npos;
        }
    CHECK(rejected == 2);
    CHECK(oversize_named);
    auto sessions = db.sessions();
    REQUIRE(sessions.size() == 1);
    CHECK(sessions[0].end_reason == store::SessionEnd::ok);  // the real session was untouched
    REQUIRE(sessions[0].frames_sent.has_value());
    CHECK(static_cast<int64_t>(db.frame_count(sessions[0].id)) == *sessions[0].frames_sent);
    // (No check of the step's verdict: whether one lavapipe session meets the SLA depends on the machine's load.)
}

TEST_CASE("kill -9 of the orchestrator leaves a consistent database that says the run did not finish") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan("1, 2", "", "1s", "10s"));
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"}));
    std::vector<int64_t> pids;
    REQUIRE(wait_until(60, [&] {
        auto s = sessions_of(dir.file("run.db"));
        if (s.empty() || s[0].device.device_name.empty()) return false;
        pids.clear();
        for (auto& x : s) pids.push_back(x.pid);
        return true;
    }));
    // Mid-run: once frames are being stored (a condition, not a fixed sleep).
    REQUIRE(wait_until(60, [&] {
        try {
            return store::StoreReader(dir.file("run.db")).frame_count() > 0;
        } catch (...) {
            return false;
        }
    }));
    run.signal(SIGKILL);
    run.wait(30);
    store::StoreReader db(dir.file("run.db"));
    CHECK(db.integrity_ok());
    CHECK(db.effective_status() == store::RunStatus::crashed);
    CHECK(db.frame_count() > 0);
    // Orphaned sessions notice the lost telemetry connection and end by themselves.
    CHECK(wait_until(30, [&] {
        for (auto p : pids)
            if (kill(static_cast<pid_t>(p), 0) == 0) {
                std::string stat = read_file("/proc/" + std::to_string(p) + "/stat");
                if (stat.find(") Z") == std::string::npos) return false;  // zombies of init are fine
            }
        return true;
    }));
}

TEST_CASE("Ctrl-C stops the sessions, saves the database and marks the run aborted") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan("1, 2", "", "1s", "20s"));
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"}));
    REQUIRE(wait_until(60, [&] {
        auto s = sessions_of(dir.file("run.db"));
        return !s.empty() && !s[0].device.device_name.empty();
    }));
    REQUIRE(wait_until(30, [&] {
        try {
            return store::StoreReader(dir.file("run.db")).frame_count() > 0;
        } catch (...) {
            return false;
        }
    }));
    run.signal(SIGINT);
    auto r = run.wait(60);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    store::StoreReader db(dir.file("run.db"));
    CHECK(db.integrity_ok());
    CHECK(db.effective_status() == store::RunStatus::aborted);
    auto sessions = db.sessions();
    REQUIRE_FALSE(sessions.empty());
    for (auto& s : sessions) {
        CAPTURE(s.id);
        CHECK(s.end_reason != store::SessionEnd::running);
        CHECK(s.ended_ns.has_value());
        // Every frame a session sent before its BYE is in the file.
        REQUIRE(s.frames_sent.has_value());
        CHECK(static_cast<int64_t>(db.frame_count(s.id)) == *s.frames_sent);
    }
}

TEST_CASE("a second Ctrl-C kills sessions that do not stop, at once") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan("1", "", "1s", "30s"));
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"}));
    int64_t victim = 0;
    REQUIRE(wait_until(60, [&] {
        for (auto& s : sessions_of(dir.file("run.db")))
            if (s.pid > 0 && !s.device.device_name.empty()) victim = s.pid;
        return victim > 0;
    }));
    signal_process(victim, SIGSTOP);  // it cannot act on the SIGTERM the first Ctrl-C sends
    run.signal(SIGINT);
    // The first Ctrl-C taken (it says so), and the run still waiting for the stopped session
    // (up to its 15 s grace).
    REQUIRE(wait_until(10, [&] { return run.err_so_far().find("stopping sessions") != std::string::npos; }));
    REQUIRE(run.running());
    const int64_t second_ns = now_ns();
    run.signal(SIGINT);
    auto r = run.wait(60);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK(double(now_ns() - second_ns) * 1e-9 < 10);  // well before the grace ran out
    CHECK(r.err.find("killing every session now") != std::string::npos);
    CHECK(kill(static_cast<pid_t>(victim), 0) != 0);
    store::StoreReader db(dir.file("run.db"));
    CHECK(db.effective_status() == store::RunStatus::aborted);
}

TEST_CASE("a bad plan or an existing database stops before anything starts") {
    TempDir dir;
    write_file(dir.file("bad.toml"), "name = \"x\"\n[steps]\nlist = [1, 1]\n[[mix]]\nprofile = \"ci-tiny\"\n");
    auto r = run_process(seatmark_argv({"run", dir.file("bad.toml"), "--db", dir.file("x.db")}), 30);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("bad.toml:3") != std::string::npos);
    CHECK(!std::filesystem::exists(dir.file("x.db")));

    write_file(dir.file("plan.toml"), plan("1"));
    write_file(dir.file("exists.db"), "precious");
    auto e = run_process(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("exists.db")}), 30);
    CHECK(e.exit_code == 2);
    CHECK(e.err.find("exists") != std::string::npos);
    CHECK(read_file(dir.file("exists.db")) == "precious");

    write_file(dir.file("assets.toml"), plan("1", "assets = [\"/nonexistent/asset.bin\"]\n"));
    auto a = run_process(seatmark_argv({"run", dir.file("assets.toml"), "--db", dir.file("a.db")}), 30);
    CHECK(a.exit_code == 2);
    CHECK(a.err.find("/nonexistent/asset.bin") != std::string::npos);
    CHECK(a.err.find("assets.toml:") != std::string::npos);
    CHECK(!std::filesystem::exists(dir.file("a.db")));
}

TEST_CASE("a step that needs more open files than the hard limit allows stops before anything starts") {
    TempDir dir;
    write_file(dir.file("p.toml"), plan("1, 64"));
    // `ulimit -n` in sh sets the soft and the hard limit: seatmark cannot raise it past 100.
    std::string cmd = "ulimit -n 100 && exec";
    for (auto& a : seatmark_argv({"run", dir.file("p.toml"), "--db", dir.file("a.db")})) cmd += " '" + a + "'";
    auto r = run_process({"/bin/sh", "-c", cmd}, 30);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("a step of 64 sessions needs about 384 open files, and this process may open 100") != std::string::npos);
    CHECK(r.err.find("ulimit -Hn") != std::string::npos);
    CHECK(!std::filesystem::exists(dir.file("a.db")));
}

TEST_CASE("a plan's assets must be valid: a stale size or other content stops the run before any session") {
    TempDir dir;
    write_file(dir.file("asset.bin"), "the staged content");
    const std::string good = "0123456789abcdef";  // not its hash
    struct Case {
        std::string entry, expect;
    };
    const std::string path = dir.file("asset.bin");
    for (const Case& c : {Case{"{ path = \"" + path + "\", size = 99 }", "is 18 bytes, the plan says 99"},
                          Case{"{ path = \"" + path + "\", xxh3 = \"" + good + "\" }", "the plan says 0123456789abcdef"},
                          Case{"\"" + dir.path + "\"", "not a regular file"}}) {
        CAPTURE(c.entry);
        const std::string text = plan("1", "assets = [" + c.entry + "]\n");
        write_file(dir.file("p.toml"), text);
        auto r = run_process(seatmark_argv({"run", dir.file("p.toml"), "--db", dir.file("a.db")}), 30);
        INFO(r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find(c.expect) != std::string::npos);
        CHECK(r.err.find(test::file_line("p.toml", text, "assets =")) != std::string::npos);
        CHECK(r.err.find("seatmark stage") != std::string::npos);
        CHECK(!std::filesystem::exists(dir.file("a.db")));
    }
}
