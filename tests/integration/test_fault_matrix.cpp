// The fault matrix: each process kind is killed, stopped or cut off at a phase of a real run, and
// what survives is checked the same way every time (survivors_hold): the database opens and is
// consistent, every session ended, every frame is stored or counted lost with a reason, no
// session process is left, and the run's private folder is gone unless its owner was SIGKILLed
// (then the next run removes it). Rows covered elsewhere, with the same checks:
//   session kill -9 mid-window, SIGSTOP (hang)       tests/integration/test_run.cpp
//   orchestrator kill -9 mid-window, Ctrl-C, 2x Ctrl-C tests/integration/test_run.cpp
//   database disk full / short of space (store fails) tests/integration/test_store_full.cpp
//   stage rank killed mid-transfer, SIGKILL cleanup  tests/stage/test_stage.cpp
//   live API server gone under the monitor           tests/monitor/test_live_source.cpp (in-process), and
//                                                    here (the run's process killed, a connection cut)
//   the database's path lost (store/path_watch.h)    tests/store/test_store_failures.cpp (the writer alone)
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "common/clock.h"
#include "core/plan.h"
#include "report/analysis.h"
#include "monitor/live_source.h"
#include "orchestrator/run_controller.h"
#include "store/store_reader.h"
#include "tests/launch/tcp_proxy.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;
namespace fs = std::filesystem;

namespace {

std::string plan_text(const std::string& steps, const std::string& window, const std::string& settle = "1s") {
    return "name = \"faults\"\n[run]\nallow_software = true\nheartbeat_timeout = \"5s\"\nstop = \"max\"\n[steps]\nlist = [" + steps +
           "]\nsettle = \"" + settle + "\"\nwindow = \"" + window + "\"\n[[mix]]\nprofile = \"ci-tiny\"\n";
}

std::vector<store::SessionRow> sessions_of(const std::string& db) {
    try {
        return store::StoreReader(db).sessions();
    } catch (...) {
        return {};
    }
}

uint64_t frames_of(const std::string& db) {
    try {
        return store::StoreReader(db).frame_count();
    } catch (...) {
        return 0;
    }
}

bool gone(int64_t pid) {
    if (::kill(pid_t(pid), 0) != 0) return true;
    // A zombie reparented to init is gone for our purpose.
    return read_file("/proc/" + std::to_string(pid) + "/stat").find(") Z") != std::string::npos;
}

// The run folders (PARENT/seatmark-run-*) whose owner file names this pid.
std::vector<std::string> run_dirs_of(int pid, const std::string& parent = "/tmp") {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(parent, ec)) {
        if (e.path().filename().string().rfind("seatmark-run-", 0) != 0) continue;
        std::ifstream owner(e.path() / "owner");
        long long p = 0;
        if (owner >> p && p == pid) out.push_back(e.path().string());
    }
    return out;
}

// What must hold after any fault. `owner_killed`: the orchestrator died by SIGKILL, so its
// folder stays (for the next run to remove) and sessions may still be ending on their own.
// `run_parent`: where the run made its folder. A killed run's folder is removed by the next run
// started in the same parent, so tests that kill the orchestrator give it a TMPDIR of its own:
// in /tmp, any run of a test running in parallel would sweep it.
void survivors_hold(const std::string& db_path, int orchestrator_pid, bool owner_killed,
                    const std::string& run_parent = "/tmp") {
    store::StoreReader db(db_path);
    CHECK(db.integrity_ok());
    uint64_t stored = 0;
    for (const auto& s : db.sessions()) {
        CAPTURE(s.id);
        CAPTURE(s.detail);
        const uint64_t n = db.frame_count(s.id);
        stored += n;
        if (owner_killed) {
            // A killed orchestrator never wrote frames_received (the session's end does): what it
            // committed is whole batches, so each session's stored frames are a prefix of what it
            // sent: in order, none twice.
            const auto frames = db.frames(s.id);
            for (size_t i = 1; i < frames.size(); ++i)
                if (frames[i].seq <= frames[i - 1].seq) FAIL_CHECK("frame seq " << frames[i].seq << " after " << frames[i - 1].seq);
        } else {
            CHECK(int64_t(n) == s.frames_received);  // everything received is stored
        }
        if (!owner_killed) {
            CHECK(s.end_reason != store::SessionEnd::running);
            CHECK(s.ended_ns.has_value());
            // Every frame the session said it sent is stored or counted lost, and a loss says why.
            if (s.frames_sent) CHECK(*s.frames_sent == s.frames_received + s.frames_lost);
            if (s.frames_lost > 0) CHECK(s.detail.find("frames lost") != std::string::npos);
        }
        CHECK(wait_until(30, [&] { return gone(s.pid); }));  // no session left behind
    }
    CHECK(stored == db.frame_count());
    CHECK(run_dirs_of(orchestrator_pid, run_parent).size() == (owner_killed ? 1u : 0u));
}

// A dup of another process's connected Unix socket whose peer path is `peer` (pidfd_getfd).
int steal_socket(int pid, const std::string& peer) {
    const int pidfd = int(::syscall(SYS_pidfd_open, pid, 0));
    if (pidfd < 0) return -1;
    int found = -1;
    for (const auto& e : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
        const int fd = std::stoi(e.path().filename().string());
        const int mine = int(::syscall(SYS_pidfd_getfd, pidfd, fd, 0));
        if (mine < 0) continue;
        sockaddr_un a{};
        socklen_t len = sizeof a;
        if (::getpeername(mine, reinterpret_cast<sockaddr*>(&a), &len) == 0 && a.sun_family == AF_UNIX &&
            peer == a.sun_path) {
            found = mine;
            break;
        }
        ::close(mine);
    }
    ::close(pidfd);
    return found;
}

std::string arg_after(int pid, const std::string& flag) {
    const std::string cmd = read_file("/proc/" + std::to_string(pid) + "/cmdline");
    std::vector<std::string> args;
    for (size_t a = 0, b; a < cmd.size(); a = b + 1) {
        b = cmd.find('\0', a);
        if (b == std::string::npos) b = cmd.size();
        args.push_back(cmd.substr(a, b - a));
    }
    for (size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == flag) return args[i + 1];
    return "";
}

}  // namespace

namespace {
orchestrator::RunOptions standin_options(const std::string& db) {
    orchestrator::RunOptions o;
    o.db_path = db;
    o.quiet = true;
    o.session_exe = SEATMARK_SESSION_STANDIN;
    // Session 0 says HELLO, sends 10 frames with a gap of 2 (seq 3, 4), counts 25 in a heartbeat and
    // dies by SIGKILL; the others behave and say BYE when stopped.
    o.extra_session_args = {"--standin-sent", "10", "--standin-skip", "2", "--standin-counted", "25"};
    return o;
}
}  // namespace

TEST_CASE("a session that dies without BYE: frames its last heartbeat counted and gaps are lost, named as such") {
    TempDir dir;
    const auto o = standin_options(dir.file("run.db"));
    const auto r = orchestrator::run_plan(core::parse_plan(plan_text("1, 2", "2s"), "fault plan"), o);
    CHECK(r.frames_lost == 15);
    survivors_hold(o.db_path, ::getpid(), false);
    store::StoreReader db(o.db_path);
    auto sessions = db.sessions();
    REQUIRE(sessions.size() == 3);  // the victim, then two for the second step
    const auto& s = sessions[0];
    CHECK(s.end_reason == store::SessionEnd::crash);
    CHECK(s.signal.value_or(0) == SIGKILL);
    CHECK_FALSE(s.frames_sent.has_value());  // no BYE
    CHECK(s.frames_received == 10);
    CHECK(db.frame_count(s.id) == 10);
    CHECK(s.frames_lost == 15);  // 2 in the gap + 13 the heartbeat counted that never came
    CHECK(s.detail.find("15 frames lost (no BYE; counted by the last heartbeat)") != std::string::npos);
    for (size_t i = 1; i < sessions.size(); ++i) {
        CHECK(sessions[i].end_reason == store::SessionEnd::ok);
        CHECK(sessions[i].frames_lost == 0);
    }
    CHECK(r.frames_stored == db.frame_count());
}

// Found by this file: a run that ended inside the controller's tick (here: the only session of
// the last step crashed) went on to sample into the finished store writer and failed with "store
// writer used after finish()" (fixed in the step machine's rework).
TEST_CASE("a run whose last step's only session crashes ends cleanly") {
    TempDir dir;
    const auto o = standin_options(dir.file("run.db"));
    orchestrator::RunOutcome r;
    REQUIRE_NOTHROW(r = orchestrator::run_plan(core::parse_plan(plan_text("1", "2s"), "fault plan"), o));
    CHECK(r.frames_lost == 15);
    survivors_hold(o.db_path, ::getpid(), false);
}

TEST_CASE("a session killed during start-up, before its HELLO, is a crash with nothing lost") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan_text("1, 2", "2s"));
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"}));
    int64_t victim = 0;
    // The row is written when the process is started, before its Vulkan set-up (~0.5 s on lavapipe).
    REQUIRE(wait_until(60, [&] {
        for (auto& s : sessions_of(dir.file("run.db")))
            if (s.pid > 0) victim = s.pid;
        return victim > 0;
    }));
    signal_process(victim, SIGKILL);
    auto r = run.wait(120);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    survivors_hold(dir.file("run.db"), run.pid(), false);
    auto sessions = sessions_of(dir.file("run.db"));
    REQUIRE(!sessions.empty());
    CHECK(sessions[0].end_reason == store::SessionEnd::crash);
    CHECK(sessions[0].signal.value_or(0) == SIGKILL);
    CHECK(sessions[0].frames_lost == 0);
}

TEST_CASE("a session's telemetry connection cut mid-window: the session ends, its frames are stored or counted") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan_text("1, 2", "3s"));
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"}));
    int64_t victim = 0;
    REQUIRE(wait_until(60, [&] {
        for (auto& s : sessions_of(dir.file("run.db")))
            if (s.pid > 0 && !s.device.device_name.empty()) victim = s.pid;
        return victim > 0 && frames_of(dir.file("run.db")) > 0;
    }));
    const std::string sock = arg_after(int(victim), "--connect");
    REQUIRE(!sock.empty());
    const int fd = steal_socket(int(victim), sock);
    REQUIRE_MESSAGE(fd >= 0, "no connected socket to " << sock << " in session " << victim);
    CHECK(::shutdown(fd, SHUT_RDWR) == 0);  // both ends see the connection end, as a cut cable would give
    ::close(fd);
    auto r = run.wait(120);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    survivors_hold(dir.file("run.db"), run.pid(), false);
    auto sessions = sessions_of(dir.file("run.db"));
    REQUIRE(!sessions.empty());
    CHECK(sessions[0].end_reason != store::SessionEnd::ok);  // it did not finish its run normally
    CHECK(!sessions[0].detail.empty());                      // and the row says what happened
}

TEST_CASE("the orchestrator stopped (SIGSTOP) for 2 s mid-window resumes: nothing is lost, no session is called hung") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan_text("1", "6s"));
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"}));
    REQUIRE(wait_until(60, [&] {
        auto s = sessions_of(dir.file("run.db"));
        return !s.empty() && !s[0].device.device_name.empty() && frames_of(dir.file("run.db")) > 0;
    }));
    run.signal(SIGSTOP);
    std::this_thread::sleep_for(std::chrono::seconds(2));  // the fault itself lasts 2 s (below the 5 s heartbeat timeout)
    run.signal(SIGCONT);
    auto r = run.wait(120);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    survivors_hold(dir.file("run.db"), run.pid(), false);
    for (const auto& s : sessions_of(dir.file("run.db"))) {
        CAPTURE(s.detail);
        CHECK(s.end_reason == store::SessionEnd::ok);
        REQUIRE(s.frames_sent.has_value());
        CHECK(s.frames_lost == 0);
    }
}

TEST_CASE("the orchestrator killed (SIGKILL) while sessions settle: consistent database, sessions end, the next run removes its folder") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan_text("1", "10s", "20s"));
    const std::vector<std::string> own_tmp = {"TMPDIR=" + dir.path};
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"}), own_tmp);
    REQUIRE(wait_until(60, [&] {
        auto s = sessions_of(dir.file("run.db"));
        return !s.empty() && !s[0].device.device_name.empty();
    }));
    const int killed = run.pid();
    run.signal(SIGKILL);
    run.wait(30);
    survivors_hold(dir.file("run.db"), killed, true, dir.path);
    CHECK(store::StoreReader(dir.file("run.db")).effective_status() == store::RunStatus::crashed);
    // The next run (a short one) clears the dead run's folder.
    write_file(dir.file("plan2.toml"), plan_text("1", "1s"));
    auto next = run_process(seatmark_argv({"run", dir.file("plan2.toml"), "--db", dir.file("next.db"), "--quiet"}), 120, own_tmp);
    INFO(next.out << next.err);
    CHECK(next.exit_code == 0);
    CHECK(run_dirs_of(killed, dir.path).empty());
}

namespace {
uint16_t free_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}
monitor::LiveSourceOptions watch(int port) {
    monitor::LiveSourceOptions o;
    o.url = "http://127.0.0.1:" + std::to_string(port);
    o.poll_s = 0.1;
    o.timeout_s = 1;
    return o;
}
}  // namespace

TEST_CASE("the live API's run killed mid-watch, and a connection cut: the monitor says DISCONNECTED, keeps the last state, retries") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan_text("1", "60s"));
    const int port = free_port();
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet", "--listen",
                                         "127.0.0.1:" + std::to_string(port)}),
                          {"TMPDIR=" + dir.path});  // its folder must outlive the kill (survivors_hold)
    auto proxy = std::make_unique<TcpProxy>(port);
    monitor::LiveApiSource direct(watch(port)), through(watch(proxy->port()));
    auto live_with_session = [](monitor::LiveApiSource& w) {
        auto d = w.snapshot();
        return d->link == monitor::Link::live && d->state.alive >= 1;
    };
    REQUIRE(wait_until(60, [&] { return live_with_session(direct) && live_with_session(through); }));
    // A cut connection: the next poll connects again, and the watch goes on.
    const double before = through.snapshot()->state.elapsed_s;
    proxy->cut();
    CHECK(wait_until(10, [&] { return live_with_session(through) && through.snapshot()->state.elapsed_s > before + 0.5; }));
    // The path gone for good: that watcher says so and keeps what it last saw; the run is untouched.
    proxy.reset();
    REQUIRE(wait_until(10, [&] { return through.snapshot()->link == monitor::Link::lost; }));
    auto cut = through.snapshot();
    CHECK(cut->state.plan == "faults");
    CHECK(cut->state.alive >= 1);
    CHECK(cut->link_note.find("no live API at") != std::string::npos);
    CHECK(cut->link_note.find("retrying") != std::string::npos);
    CHECK(direct.snapshot()->link == monitor::Link::live);
    // The run's process killed: the direct watcher too, with the run's last state on screen.
    const int killed = run.pid();
    run.signal(SIGKILL);
    run.wait(30);
    REQUIRE(wait_until(10, [&] { return direct.snapshot()->link == monitor::Link::lost; }));
    auto last = direct.snapshot();
    CHECK(last->state.status == "running");  // as last seen: nobody said it ended
    CHECK(last->state.alive >= 1);
    CHECK(last->link_note.find("retrying") != std::string::npos);
    survivors_hold(dir.file("run.db"), killed, true, dir.path);
}

namespace {
const store::EventRow* event_of(const std::vector<store::EventRow>& events, const std::string& kind) {
    for (const auto& e : events)
        if (e.kind == kind) return &e;
    return nullptr;
}
}  // namespace

// Issue 35, cause 3: the run kept writing to the unlinked file and said "finished ... database
// DIR/run.db" about a path that no longer existed: everything was lost, with exit 0.
TEST_CASE("the run database's folder removed mid-run: said at once, the run aborts with exit 1 and names the copy that keeps every frame") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan_text("1, 2", "20s"));
    fs::create_directories(dir.file("out"));
    const std::string db_path = dir.file("out") + "/run.db";
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", db_path, "--quiet"}), {"TMPDIR=" + dir.path});
    REQUIRE(wait_until(60, [&] {
        auto s = sessions_of(db_path);
        return !s.empty() && !s[0].device.device_name.empty() && frames_of(db_path) > 0;
    }));
    const int64_t removed_ns = now_ns();
    fs::remove_all(dir.file("out"));
    auto r = run.wait(120);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find(db_path + " is gone: its folder " + dir.file("out") + " was removed") != std::string::npos);
    const std::string said = "everything the run stored is kept in ";
    const size_t at = r.err.rfind(said);
    REQUIRE(at != std::string::npos);
    const std::string kept = r.err.substr(at + said.size(), r.err.find(' ', at + said.size()) - at - said.size());
    INFO("kept in " << kept);
    struct Remove {
        std::string path;
        ~Remove() { std::error_code ec; fs::remove(path, ec); }
    } remove_kept{kept};
    REQUIRE(fs::is_regular_file(kept));
    CHECK(r.out.find("database " + kept) != std::string::npos);  // the closing line names where the data is
    CHECK(r.out.find("run aborted") != std::string::npos);
    CHECK(r.out.find("database " + db_path) == std::string::npos);
    survivors_hold(kept, run.pid(), false, dir.path);
    store::StoreReader db(kept);
    CHECK(db.effective_status() == store::RunStatus::aborted);
    CHECK(db.frame_count() > 0);
    const auto events = db.events();
    const store::EventRow* lost = event_of(events, "database-lost");
    REQUIRE(lost != nullptr);
    CHECK(lost->detail.find(kept) != std::string::npos);
    // Noticed within a commit interval or two of the removal (a sanity bound, not a figure).
    CHECK(double(lost->t_ns - removed_ns) * 1e-9 < 5);
    for (const auto& s : db.sessions()) CHECK(s.end_reason != store::SessionEnd::running);
}

// Issue 35, cause 3 (its second half): a session whose log could not be created was a failed
// session, and failed its step as if it had crashed.
TEST_CASE("a session whose log cannot be created runs without one: recorded as that, its step judged on its frames") {
    TempDir dir;
    write_file(dir.file("plan.toml"), plan_text("1, 2", "2s"));
    const std::string db_path = dir.file("run.db");
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", db_path, "--quiet"}));
    REQUIRE(wait_until(60, [&] { return !sessions_of(db_path).empty(); }));
    // The first session's log is open; the second's, started for step 2, has no folder to go in.
    fs::remove_all(db_path + ".logs");
    auto r = run.wait(120);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("cannot create session log") != std::string::npos);
    survivors_hold(db_path, run.pid(), false);
    store::StoreReader db(db_path);
    const auto sessions = db.sessions();
    REQUIRE(sessions.size() == 2);
    for (const auto& s : sessions) {
        CAPTURE(s.id);
        CAPTURE(s.detail);
        CHECK(s.end_reason == store::SessionEnd::ok);
        CHECK(db.frame_count(s.id) > 0);
    }
    const auto events = db.events();
    const store::EventRow* missing = event_of(events, "session-log-missing");
    REQUIRE(missing != nullptr);
    CHECK(missing->session_id.value_or(-1) == 1);
    CHECK(missing->detail.find("session-1.log") != std::string::npos);
    for (const auto& st : db.steps()) CHECK(st.detail.find("error") == std::string::npos);
}

// Issue 35, cause 4: SIGSTOP of a session inside a window: the hang was declared after the window
// closed, so the session was judged as running on the frames it sent before it froze, and the
// window passed. The silence is the failure, and it began inside the window.
TEST_CASE("a session frozen (SIGSTOP) inside a window fails that window, though the hang is declared after it closed") {
    TempDir dir;
    // A 6 s window and a 5 s heartbeat timeout: frozen 2 s or more into the window (its frames of
    // those seconds sent), the session is declared hung only after the window closed.
    write_file(dir.file("plan.toml"), plan_text("1", "6s"));
    const std::string db_path = dir.file("run.db");
    const int port = free_port();
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", db_path, "--quiet", "--listen",
                                         "127.0.0.1:" + std::to_string(port)}));
    monitor::LiveApiSource live(watch(port));
    REQUIRE(wait_until(90, [&] {
        auto d = live.snapshot();
        return d->link == monitor::Link::live && d->state.phase == "measuring" && d->state.phase_left_s < 3.5;
    }));
    const auto before = sessions_of(db_path);
    REQUIRE(before.size() == 1);
    const int64_t stopped_ns = now_ns();
    signal_process(before[0].pid, SIGSTOP);
    auto r = run.wait(120);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    survivors_hold(db_path, run.pid(), false);
    store::StoreReader db(db_path);
    const auto sessions = db.sessions();
    REQUIRE(sessions.size() == 1);
    const auto& s = sessions[0];
    CHECK(s.end_reason == store::SessionEnd::hang);
    const auto steps = db.steps();
    REQUIRE(steps.size() == 1);
    REQUIRE(steps[0].window_end_ns.has_value());
    REQUIRE(s.ended_ns.has_value());
    // It failed when it fell silent (its last sign of life, before the stop), inside the window...
    CHECK(*s.ended_ns <= stopped_ns);
    CHECK(*s.ended_ns >= *steps[0].window_start_ns);
    CHECK(*s.ended_ns < *steps[0].window_end_ns);
    // ...and was declared hung after the window closed: the case this covers.
    const auto events = db.events();
    const store::EventRow* hang = event_of(events, "session-hang");
    REQUIRE(hang != nullptr);
    CHECK(hang->t_ns > *steps[0].window_end_ns);
    CHECK(steps[0].verdict.value_or("") == "fail");
    CHECK(steps[0].detail.find("hang") != std::string::npos);
    // The report, judging from the database with the same rules, agrees.
    report::RunAnalysis a = report::analyze(db_path);
    REQUIRE(a.steps.size() == 1);
    CHECK_FALSE(a.steps[0].verdict.pass);
    CHECK(a.steps[0].agrees);
    CHECK(a.steps[0].disagreements.empty());
}

// Issue 35, cause 13 (in part): a closed terminal sends SIGHUP, which ended the orchestrator by
// its default action: no aborted mark, sessions left running until their own duration ran out.
TEST_CASE("SIGHUP ends a run as SIGTERM does (aborted, sessions stopped, nothing lost), and under nohup it is ignored") {
    // A test runner started under nohup would pass SIGHUP's SIG_IGN on to the run.
    struct sigaction dfl {}, old {};
    dfl.sa_handler = SIG_DFL;
    ::sigaction(SIGHUP, &dfl, &old);
    struct Restore {
        struct sigaction a;
        ~Restore() { ::sigaction(SIGHUP, &a, nullptr); }
    } restore{old};
    TempDir dir;
    SUBCASE("from a terminal") {
        write_file(dir.file("plan.toml"), plan_text("1, 2", "20s"));
        BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"}));
        REQUIRE(wait_until(60, [&] {
            auto s = sessions_of(dir.file("run.db"));
            return !s.empty() && !s[0].device.device_name.empty() && frames_of(dir.file("run.db")) > 0;
        }));
        run.signal(SIGHUP);
        auto r = run.wait(60);
        INFO(r.out << r.err);
        CHECK(r.exit_code == 1);
        CHECK(r.err.find("received Hangup") != std::string::npos);
        survivors_hold(dir.file("run.db"), run.pid(), false);
        store::StoreReader db(dir.file("run.db"));
        CHECK(db.effective_status() == store::RunStatus::aborted);
        const auto events = db.events();
        const store::EventRow* abort = event_of(events, "run-abort");
        REQUIRE(abort != nullptr);
        CHECK(abort->detail == "Hangup");
    }
    SUBCASE("under nohup") {
        write_file(dir.file("plan.toml"), plan_text("1", "3s"));
        auto argv = seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--quiet"});
        argv.insert(argv.begin(), "/usr/bin/nohup");
        BackgroundProcess run(argv);
        REQUIRE(wait_until(60, [&] {
            auto s = sessions_of(dir.file("run.db"));
            return !s.empty() && !s[0].device.device_name.empty();
        }));
        run.signal(SIGHUP);
        auto r = run.wait(120);
        INFO(r.out << r.err);
        CHECK(r.exit_code == 0);
        survivors_hold(dir.file("run.db"), run.pid(), false);
        CHECK(store::StoreReader(dir.file("run.db")).effective_status() == store::RunStatus::finished);
    }
}
