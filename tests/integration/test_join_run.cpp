// Join mode end to end with real processes and sockets: `seatmark run --accept` with sessions
// (`seatmark session --join`) and an agent (`seatmark agent --join`) playing two hosts on this
// machine through --host-name; faults and strangers while the run goes on; a step that cannot
// get its sessions in time.
#include <doctest/doctest.h>

#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/frames_table.h"
#include "common/clock.h"
#include "common/join_auth.h"
#include "common/join_protocol.h"
#include "monitor/db_source.h"
#include "monitor/host_groups.h"
#include "report/analysis.h"
#include "tests/support/process.h"
#include "tests/support/join_run.h"
#include "tests/support/run_db.h"

using namespace seatmark;
using seatmark::test::count_or_zero;
using seatmark::test::free_port;
using seatmark::test::JoinRun;
using seatmark::test::q;
using seatmark::test::qi;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

// A dup (pidfd_getfd) of process `pid`'s TCP socket connected to 127.0.0.1:`port`; -1 if none.
int tcp_socket_to(int pid, uint16_t port) {
    const int pidfd = int(::syscall(SYS_pidfd_open, pid, 0));
    if (pidfd < 0) return -1;
    int found = -1;
    for (const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
        const int mine = int(::syscall(SYS_pidfd_getfd, pidfd, std::stoi(e.path().filename().string()), 0));
        if (mine < 0) continue;
        sockaddr_in a{};
        socklen_t len = sizeof a;
        if (::getpeername(mine, reinterpret_cast<sockaddr*>(&a), &len) == 0 && a.sin_family == AF_INET &&
            ntohs(a.sin_port) == port) {
            found = mine;
            break;
        }
        ::close(mine);
    }
    ::close(pidfd);
    return found;
}

}  // namespace

TEST_CASE("join mode: two hosts, an agent on one, steps activate sessions in join order, every frame accounted for") {
    // The SLA is wide: this test is about joining, activation and accounting, and a loaded 2-core
    // machine stalls a synthetic session now and then (a 1 % low of 3.5 FPS was seen), which would
    // fail the default SLA's frame-time bounds with nothing wrong in join mode.
    JoinRun r("join_timeout = \"60s\"\n[steps]\nlist = [1, 3]\nsettle = \"1s\"\nwindow = \"2s\"\n[[mix]]\nprofile = \"ci-tiny\"\n"
              "[sla]\np95_interval_ms = 2000\nlow1_fps = 0.5\nstutter_pct = 100\n");
    test::BackgroundProcess agent(r.agent("desk-a"));
    std::vector<std::unique_ptr<test::BackgroundProcess>> s;
    // Which process joins first is the scheduler's business: the checks read the join order
    // back from the run's own events.
    for (const char* h : {"desk-a", "desk-b", "desk-a", "desk-b"}) s.push_back(std::make_unique<test::BackgroundProcess>(r.session(h)));
    auto res = r.run->wait(120);
    INFO("run stderr: " << res.err);
    REQUIRE(res.exit_code == 0);
    for (auto& p : s) CHECK(p->wait(30).exit_code == 0);  // the fourth waited, never rendered, and was told to stop
    CHECK(agent.wait(30).exit_code == 0);
    const auto& db = r.db;
    CHECK(q(db, "SELECT status FROM runs") == "finished");
    // Activated in join order: step 1 one session, step 2 three; the fourth never.
    CHECK(qi(db, "SELECT COUNT(*) FROM sessions") == 3);
    CHECK(qi(db, "SELECT COUNT(*) FROM events WHERE kind = 'session-joined'") == 4);
    // "host H, user U, OS session S, pid P, ...": the pids in join order, then in activation order.
    const std::string joined_pids =
        q(db, "SELECT group_concat(p, ',') FROM (SELECT CAST(substr(detail, instr(detail, ', pid ') + 6) AS INTEGER) AS p"
              " FROM events WHERE kind = 'session-joined' ORDER BY t_ns LIMIT 3)");
    CHECK(joined_pids == q(db, "SELECT group_concat(pid, ',') FROM (SELECT pid FROM sessions ORDER BY id)"));
    // Every activated session is one of the test's processes, on the host it named.
    for (size_t i = 0; i < s.size(); ++i) {
        const std::string host = i % 2 ? "desk-b" : "desk-a";
        const int64_t n = qi(db, "SELECT COUNT(*) FROM sessions WHERE pid = " + std::to_string(s[i]->pid()));
        CHECK(n <= 1);
        if (n == 1) CHECK(q(db, "SELECT host FROM sessions WHERE pid = " + std::to_string(s[i]->pid())) == host);
    }
    CHECK(qi(db, "SELECT COUNT(DISTINCT host) FROM sessions") >= 1);
    CHECK(q(db, "SELECT group_concat(target_sessions, ',') FROM (SELECT DISTINCT idx, target_sessions FROM steps ORDER BY idx)") == "1,3");
    INFO("verdict reasons: " << q(db, "SELECT group_concat(step_idx || '/' || repeat || ': ' || reason, '; ') FROM verdict_reasons"));
    CHECK(qi(db, "SELECT COUNT(*) FROM verdicts WHERE repeat = -1 AND pass = 1") == 2);
    // Nothing lost: every frame each session counted arrived and is stored.
    CHECK(qi(db, "SELECT COUNT(*) FROM sessions WHERE end_reason != 'ok'") == 0);
    CHECK(qi(db, "SELECT SUM(frames_lost) FROM sessions") == 0);
    CHECK(qi(db, "SELECT COUNT(*) FROM sessions WHERE frames_sent != frames_received") == 0);
    CHECK(qi(db, "SELECT COUNT(*) FROM frames") == qi(db, "SELECT SUM(frames_sent) FROM sessions"));
    CHECK(qi(db, "SELECT COUNT(*) FROM frames") > 100);
    // Hosts: desk-a sampled by its agent, desk-b recorded as unavailable with the reason.
    CHECK(q(db, "SELECT agent FROM hosts WHERE hostname = 'desk-a'") == "agent");
    // The agent's HOST_INFO: desk-a's row carries the machine's identity, as the orchestrator's own does.
    CHECK(qi(db, "SELECT cpu_count FROM hosts WHERE hostname = 'desk-a'") == qi(db, "SELECT cpu_count FROM hosts WHERE role = 'orchestrator'"));
    CHECK(qi(db, "SELECT cpu_count FROM hosts WHERE hostname = 'desk-a'") > 0);
    CHECK(q(db, "SELECT cpu_model FROM hosts WHERE hostname = 'desk-a'") == q(db, "SELECT cpu_model FROM hosts WHERE role = 'orchestrator'"));
    CHECK(q(db, "SELECT os FROM hosts WHERE hostname = 'desk-a'") == q(db, "SELECT os FROM hosts WHERE role = 'orchestrator'"));
    CHECK(qi(db, "SELECT mem_total_bytes FROM hosts WHERE hostname = 'desk-a'") > 0);
    CHECK(qi(db, "SELECT cpu_count FROM hosts WHERE hostname = 'desk-b'") == 0);  // no agent: unknown
    CHECK(q(db, "SELECT role FROM hosts WHERE hostname = 'desk-b'") == "joined");
    CHECK(q(db, "SELECT agent FROM hosts WHERE hostname = 'desk-b'").rfind("none: no seatmark agent", 0) == 0);
    CHECK(qi(db, "SELECT COUNT(*) FROM events WHERE kind = 'host-figures-unavailable' AND detail LIKE 'host desk-b:%'") >= 1);
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE host = 'desk-a' AND metric = 'host_cpu_pct'") >= 2);
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE host = 'desk-a' AND metric = 'core0_cpu_pct'") >= 2);
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE host = 'desk-b'") == qi(db, "SELECT COUNT(*) FROM samples WHERE host = 'desk-b' AND source IN ('clock', 'join', 'bye')"));
    // Per-process figures of desk-a's sessions, matched by pid; none of desk-b's.
    // Every one of desk-a's sessions (the agent's WATCH lists them in no particular order).
    CHECK(qi(db, "SELECT COUNT(*) FROM sessions s WHERE host = 'desk-a' AND NOT EXISTS (SELECT 1 FROM samples m WHERE"
                 " m.session_id = s.id AND m.host = 'desk-a' AND m.metric = 'rss_bytes')") == 0);
    CHECK(qi(db, "SELECT COUNT(*) FROM sessions WHERE host = 'desk-a'") >= 1);
    // (Their own BYE figures, 'bye', they have: the session computed them.)
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE source NOT IN ('clock', 'bye') AND session_id IN"
                 " (SELECT id FROM sessions WHERE host = 'desk-b')") == 0);
    // The orchestrator's own /proc sampler did not sample joined sessions as its own.
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE host = '' AND session_id IS NOT NULL") == 0);
    // Clock offsets: one machine, so within the measured uncertainty (plus scheduling slack).
    CHECK(qi(db, "SELECT COUNT(*) FROM hosts WHERE role = 'joined' AND clock_uncertainty_ns IS NOT NULL") == 2);
    CHECK(qi(db, "SELECT COUNT(*) FROM hosts WHERE role = 'joined' AND ABS(clock_offset_ns) > clock_uncertainty_ns + 5000000") == 0);

    // The pool report, check and monitor read the joined run by host, as they read a pool's.
    const report::RunAnalysis a = report::analyze(db);
    REQUIRE(a.pool.hosts.size() == 2);  // the hosts its sessions joined from, not the controller's own
    std::set<std::string> names;
    uint32_t pool_sessions = 0;
    for (const auto& h : a.pool.hosts) {
        names.insert(h.host.hostname);
        pool_sessions += h.sessions;
        REQUIRE(h.steps.size() == 2);
        CHECK(h.steps[1].judged);
    }
    CHECK(names == std::set<std::string>{"desk-a", "desk-b"});
    CHECK(pool_sessions == 3);
    CHECK(a.steps[1].target == 3);
    // Host-wide figures per host that ran sessions in the step: desk-a's from its agent; desk-b
    // listed, not judged, with why; the controller, which ran none, not listed as if it had.
    const auto& use = a.steps[1].host_use;
    CHECK(a.steps[1].host_cpu_mean_pct == -1);  // two hosts' sessions: no one host stands for both
    CHECK(std::count_if(use.begin(), use.end(), [](const report::HostUse& u) { return u.host == "desk-a" && u.cpu_mean_pct >= 0; }) == 1);
    const auto b_use = std::find_if(use.begin(), use.end(), [](const report::HostUse& u) { return u.host == "desk-b"; });
    REQUIRE(b_use != use.end());
    CHECK(b_use->cpu_mean_pct == -1);
    CHECK(b_use->note.rfind("not judged: no agent on desk-b since ", 0) == 0);
    CHECK(std::none_of(use.begin(), use.end(), [](const report::HostUse& u) { return u.host.empty(); }));
    uint32_t use_sessions = 0;
    for (const auto& u : use) use_sessions += u.sessions.value_or(0);
    CHECK(use_sessions == 3);
    // Every host that took part, the controller first, with its agent status.
    REQUIRE(a.roster.size() == 3);
    CHECK(a.roster[0].role == "orchestrator");
    CHECK(a.roster[0].sessions == 0);
    CHECK(a.roster[1].host == "desk-a");
    CHECK(a.roster[1].agent == "agent");
    CHECK(a.roster[1].figures == "its agent's samples");
    CHECK(a.roster[2].host == "desk-b");
    CHECK(a.roster[2].agent.rfind("none: ", 0) == 0);
    CHECK(a.roster[2].figures.rfind("not judged: no agent on desk-b since ", 0) == 0);
    auto rep = test::run_process(test::seatmark_argv({"report", db, "--out", r.dir.file("rep"), "--quiet"}));
    INFO(rep.err);
    REQUIRE(rep.exit_code == 0);
    const auto j = nlohmann::json::parse(test::read_file(r.dir.file("rep/report.json")));
    REQUIRE(j["pool"].is_object());
    CHECK(j["pool"]["hosts"].size() == 2);
    const std::string md = test::read_file(r.dir.file("rep/summary.md"));
    INFO(md);
    CHECK(md.find("| 2 | " + std::to_string(qi(db, "SELECT COUNT(*) FROM sessions WHERE host = 'desk-a'")) + " | desk-a |") != std::string::npos);
    CHECK(md.find("## Hosts that took part") != std::string::npos);
    CHECK(md.find("| desk-b | joined | ") != std::string::npos);
    CHECK(md.find("not judged: no agent on desk-b since ") != std::string::npos);
    REQUIRE(j["hosts_taking_part"].size() == 3);
    CHECK(j["hosts_taking_part"][2]["host"] == "desk-b");
    CHECK(j["hosts_taking_part"][2]["sampled"] == false);
    // A host's step is named by its own session count there: each host's in the run's last step.
    std::string refs;
    for (const char* h : {"desk-a", "desk-b"}) {
        const std::string n = std::to_string(qi(db, std::string("SELECT COUNT(*) FROM sessions WHERE host = '") + h + "'"));
        refs += std::string("[[reference]]\nhost = \"") + h + "\"\nstep = " + n +
                "\nfailures = [0, 0, 0, \"sessions\"]\nfps_median = [30, 0, \"inf\", \"FPS\"]\n";
    }
    test::write_file(r.dir.file("refs.toml"), refs + "[[reference]]\nhost = \"pool\"\nstep = 3\nfailures = [0, 0, 0, \"sessions\"]\n");
    auto chk = test::run_process(test::seatmark_argv({"check", db, "--references", r.dir.file("refs.toml")}));
    INFO(chk.out << chk.err);
    CHECK(chk.exit_code == 0);
    CHECK(chk.out.find("desk-a") != std::string::npos);
    CHECK(chk.out.find("desk-b") != std::string::npos);
    monitor::DbSource src(db);
    const auto st = src.state_at(src.run_seconds());
    size_t grouped = 0;
    for (const auto& g : monitor::group_by_host(st)) {
        if (g.name != "desk-a" && g.name != "desk-b") {
            CHECK(g.sessions.empty());  // the controller's own host ran none
            continue;
        }
        for (size_t i : g.sessions) CHECK(st.sessions[i].host == g.name);
        grouped += g.sessions.size();
    }
    CHECK(grouped == 3);
}

TEST_CASE("join mode: a step that cannot get its sessions in time fails with the shortfall, and the run ends normally") {
    JoinRun r("join_timeout = \"2s\"\n[steps]\nlist = [2]\nsettle = \"1s\"\nwindow = \"1s\"\n[[mix]]\nprofile = \"ci-tiny\"\n");
    test::BackgroundProcess one(r.session("desk-a"));
    auto res = r.run->wait(60);
    INFO("run stderr: " << res.err);
    CHECK(res.exit_code == 0);
    CHECK(one.wait(30).exit_code == 0);
    CHECK(q(r.db, "SELECT status FROM runs") == "finished");
    const std::string why = "1 of 2 sessions joined within 2 s";
    CHECK(q(r.db, "SELECT pass FROM verdicts WHERE repeat = -1 AND host = ''") == "0");
    CHECK(q(r.db, "SELECT shortfall FROM steps WHERE idx = 0") == why);
    // The step's first reason, in the pooled verdict and its window's, as stored ...
    CHECK(q(r.db, "SELECT reason FROM verdict_reasons WHERE host = '' AND repeat = -1 AND ord = 0") == why);
    CHECK(q(r.db, "SELECT reason FROM verdict_reasons WHERE host = '' AND repeat = 0 AND ord = 0") == why);
    // ... and as the report recomputes it: the same verdict, no disagreement.
    auto rep = test::run_process(test::seatmark_argv({"report", r.db, "--out", r.dir.file("rep")}), 60);
    INFO("report stderr: " << rep.err);
    REQUIRE(rep.exit_code == 0);
    const auto rj = nlohmann::json::parse(test::read_file(r.dir.file("rep/report.json")));
    CHECK(rj["steps"][0]["reasons"][0] == why);
    CHECK(rj["steps"][0]["agrees_with_stored"] == true);  // every figure and reason, window and step
    CHECK(test::read_file(r.dir.file("rep/summary.md")).find(why) != std::string::npos);
}

TEST_CASE("join mode: strangers, faults and a lost agent are recorded with their reasons while the run goes on") {
    // failures = 10: the step goes on through every fault (with 0 the first would end it at once).
    JoinRun r("heartbeat_timeout = \"3s\"\njoin_timeout = \"60s\"\n[steps]\nlist = [4]\nsettle = \"1s\"\nwindow = \"8s\"\n"
              "[[mix]]\nprofile = \"ci-tiny\"\n[sla]\nfailures = 10\n");
    test::BackgroundProcess agent(r.agent("desk-a"));
    std::vector<std::unique_ptr<test::BackgroundProcess>> s;
    for (int i = 0; i < 4; ++i) s.push_back(std::make_unique<test::BackgroundProcess>(r.session("desk-a")));
    // Strangers while it runs: a wrong token, no token, garbage, an oversized message, a replayed
    // JOIN and 300 connections that never authenticate.
    asio::io_context io;
    const tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), r.port);
    auto challenge = [&](tcp::socket& c) {
        join::Decoder d;
        std::array<uint8_t, 256> buf;
        join::Message m;
        while (d.next(m) != wire::DecodeStatus::ok) d.feed(buf.data(), c.read_some(asio::buffer(buf)));
        return std::get<join::Challenge>(std::get<join::JoinMessage>(m)).nonce;
    };
    auto wrong = test::run_process(test::seatmark_argv({"session", "--join", r.addr, "--token-file", r.dir.file("wrong"),
                                                        "--synthetic-fps", "60"}),
                                   30, {});
    CHECK(wrong.exit_code == 2);  // no such token file
    test::write_file(r.dir.file("wrong"), "not-it\n");
    wrong = test::run_process(test::seatmark_argv({"session", "--join", r.addr, "--token-file", r.dir.file("wrong"),
                                                   "--synthetic-fps", "60", "--retry-for", "20s"}),
                              30, {});
    CHECK(wrong.exit_code == 2);
    {
        tcp::socket c(io);
        c.connect(ep);
        auto n = challenge(c);
        join::Join j;
        j.host = "intruder";
        std::vector<uint8_t> out;
        join::encode(out, join::JoinMessage{j});  // no token: an empty proof
        asio::write(c, asio::buffer(out));
        // Replay: a JOIN properly signed for this connection's challenge, sent on another.
        join::sign_join(j, n, "a3f1c2-join-run-token");
        out.clear();
        join::encode(out, join::JoinMessage{j});
        tcp::socket c2(io);
        c2.connect(ep);
        challenge(c2);
        asio::write(c2, asio::buffer(out));
        tcp::socket g(io);
        g.connect(ep);
        asio::write(g, asio::buffer(std::string("\x16\x03\x01 not seatmark")));
        tcp::socket big(io);
        big.connect(ep);
        std::vector<uint8_t> hdr = {0x53, 0x4D, wire::version, 17, 0, 0, 0, 1};  // a 16 MiB JOIN
        asio::write(big, asio::buffer(hdr));
        std::vector<std::unique_ptr<tcp::socket>> idle;
        for (int i = 0; i < 300; ++i) {
            idle.push_back(std::make_unique<tcp::socket>(io));
            idle.back()->connect(ep);
        }
        // Held open until the run has refused the strangers that said something (their events
        // in its database); the idle ones are refused however they end.
        auto refused_now = [&](const std::string& like) {
            return count_or_zero(r.db, "SELECT COUNT(*) FROM events WHERE kind = 'connection-refused' AND detail LIKE '%" +
                                           like + "%'");
        };
        CHECK(test::wait_until(15, [&] {
            return refused_now("authentication failed") >= 3 && refused_now("bad magic") == 1 &&
                   refused_now("exceeds limit 4096") == 1;
        }));
    }
    // Faults inside the window (its steps row is written when it opens): one killed, one
    // stopped, one cut off (its socket shut down under it), and the agent disappears.
    REQUIRE(test::wait_until(60, [&] { return count_or_zero(r.db, "SELECT COUNT(*) FROM steps") > 0; }));
    // ... once every session's frames begun inside the window are in the database (they travel
    // once a second with a heartbeat), so each fault comes after frames of the window were
    // counted. The window's start is stored only when it closes: frames begun after this test
    // saw its row (one machine, one monotonic clock) are inside it.
    const int64_t window_open = now_ns();
    REQUIRE(test::wait_until(30, [&] {
        return count_or_zero(r.db, "SELECT COUNT(DISTINCT session_id) FROM frames WHERE t_begin_ns >= " +
                                       std::to_string(window_open)) >= 4;
    }));
    const int cut = tcp_socket_to(s[2]->pid(), r.port);
    REQUIRE(cut >= 0);
    s[0]->signal(SIGKILL);
    s[1]->signal(SIGSTOP);
    ::shutdown(cut, SHUT_RDWR);
    ::close(cut);
    agent.signal(SIGKILL);
    auto res = r.run->wait(120);
    s[1]->signal(SIGCONT);
    INFO("run stderr: " << res.err);
    REQUIRE(res.exit_code == 0);
    const auto& db = r.db;
    const auto first_of = [&](int i) { return "(SELECT MIN(id) FROM sessions WHERE pid = " + std::to_string(s[size_t(i)]->pid()) + ")"; };
    CHECK(q(db, "SELECT status FROM runs") == "finished");
    CHECK(q(db, "SELECT end_reason FROM sessions WHERE id = " + first_of(0)) == "disconnected");
    CHECK(q(db, "SELECT end_reason FROM sessions WHERE id = " + first_of(1)) == "hang");
    CHECK(q(db, "SELECT end_reason FROM sessions WHERE id = " + first_of(2)) == "disconnected");
    // The cut session stopped rendering and joined again, but waited: a settled step takes no
    // newcomer (the next step would). The untouched one ended ok.
    CHECK(qi(db, "SELECT COUNT(*) FROM sessions WHERE pid = " + std::to_string(s[2]->pid())) == 1);
    CHECK(qi(db, "SELECT COUNT(*) FROM events WHERE kind = 'session-joined' AND detail LIKE '%pid " +
                     std::to_string(s[2]->pid()) + ",%'") == 2);
    CHECK(qi(db, "SELECT COUNT(*) FROM sessions WHERE end_reason = 'ok'") == 1);
    // frames sent / stored / lost for the failures: counted by their last heartbeat.
    for (int i : {0, 2}) {
        CHECK(q(db, "SELECT detail FROM sessions WHERE id = " + first_of(i)).find("without BYE") != std::string::npos);
        CHECK(qi(db, "SELECT frames_received FROM sessions WHERE id = " + first_of(i)) > 0);
        CHECK(qi(db, "SELECT COUNT(*) FROM frames WHERE session_id = " + first_of(i)) ==
              qi(db, "SELECT frames_received FROM sessions WHERE id = " + first_of(i)));
    }
    auto refused = [&](const std::string& like) {
        return qi(db, "SELECT COUNT(*) FROM events WHERE kind = 'connection-refused' AND detail LIKE '%" + like + "%'");
    };
    CHECK(refused("authentication failed") >= 3);  // wrong token, no token, replay
    CHECK(refused("bad magic") == 1);
    CHECK(refused("exceeds limit 4096") == 1);
    CHECK(refused("evicted") + refused("no JOIN within") + refused("closed before JOIN") >= 300);
    CHECK(qi(db, "SELECT COUNT(*) FROM events WHERE kind = 'host-figures-unavailable' AND detail LIKE 'host desk-a: agent disconnected%'") == 1);
    const int64_t lost_at = qi(db, "SELECT t_ns FROM events WHERE kind = 'host-figures-unavailable' AND detail LIKE 'host desk-a: agent%'");
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE host = 'desk-a' AND source = 'proc' AND t_ns < " + std::to_string(lost_at)) > 0);
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE host = 'desk-a' AND source = 'proc' AND t_ns > " + std::to_string(lost_at)) == 0);
    CHECK(q(db, "SELECT agent FROM hosts WHERE hostname = 'desk-a'").rfind("none: agent disconnected", 0) == 0);
    for (int i = 2; i < 4; ++i) CHECK(s[size_t(i)]->wait(30).exit_code == 0);
}
