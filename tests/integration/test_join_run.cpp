// Join mode end to end with real processes and sockets: `seatmark run --accept` with sessions
// (`seatmark session --join`) and an agent (`seatmark agent --join`) playing two hosts on this
// machine through --host-name; faults and strangers while the run goes on; a step that cannot
// get its sessions in time.
#include <doctest/doctest.h>

#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <sqlite3.h>

#include <csignal>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/join_auth.h"
#include "common/join_protocol.h"
#include "tests/support/process.h"

using namespace seatmark;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

uint16_t free_port() {
    asio::io_context io;
    tcp::acceptor a(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    return a.local_endpoint().port();
}

// One value (or "" for NULL / no row) from a finished run's database.
std::string q(const std::string& db, const std::string& sql) {
    sqlite3* h = nullptr;
    REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    REQUIRE_MESSAGE(sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK, sqlite3_errmsg(h));
    std::string out;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(h);
    return out;
}
int64_t qi(const std::string& db, const std::string& sql) {
    auto v = q(db, sql);
    return v.empty() ? -1 : std::stoll(v);
}

struct JoinRun {
    test::TempDir dir;
    uint16_t port = free_port();
    std::string token, db, addr;
    std::unique_ptr<test::BackgroundProcess> run;
    explicit JoinRun(const std::string& plan_body) {
        token = dir.file("token");
        test::write_file(token, "a3f1c2-join-run-token\n");
        db = dir.file("run.db");
        addr = "127.0.0.1:" + std::to_string(port);
        test::write_file(dir.file("plan.toml"), "name = \"join\"\n[run]\nsessions = \"join\"\nstop = \"max\"\n" + plan_body);
        run = std::make_unique<test::BackgroundProcess>(test::seatmark_argv(
            {"run", dir.file("plan.toml"), "--db", db, "--accept", addr, "--token-file", token, "--listen", "off", "-q"}));
    }
    std::vector<std::string> session(const std::string& host) const {
        return test::seatmark_argv({"session", "--join", addr, "--token-file", token, "--host-name", host,
                                    "--synthetic-fps", "60", "--quiet", "--retry-for", "20s"});
    }
    std::vector<std::string> agent(const std::string& host) const {
        return test::seatmark_argv({"agent", "--join", addr, "--token-file", token, "--host-name", host, "--quiet",
                                    "--interval", "250ms", "--retry-for", "20s"});
    }
};

}  // namespace

TEST_CASE("join mode: two hosts, an agent on one, steps activate sessions in join order, every frame accounted for") {
    JoinRun r("join_timeout = \"60s\"\n[steps]\nlist = [1, 3]\nsettle = \"1s\"\nwindow = \"2s\"\n[[mix]]\nprofile = \"ci-tiny\"\n");
    test::BackgroundProcess agent(r.agent("desk-a"));
    std::vector<std::unique_ptr<test::BackgroundProcess>> s;
    for (const char* h : {"desk-a", "desk-b", "desk-a", "desk-b"}) {
        s.push_back(std::make_unique<test::BackgroundProcess>(r.session(h)));
        std::this_thread::sleep_for(std::chrono::milliseconds(300));  // a known join order
    }
    auto res = r.run->wait(120);
    INFO("run stderr: " << res.err);
    REQUIRE(res.exit_code == 0);
    for (auto& p : s) CHECK(p->wait(30).exit_code == 0);  // the fourth waited, never rendered, and was told to stop
    CHECK(agent.wait(30).exit_code == 0);
    const auto& db = r.db;
    CHECK(q(db, "SELECT status FROM runs") == "finished");
    // Activated in join order: step 1 one session, step 2 three; the fourth never.
    CHECK(qi(db, "SELECT COUNT(*) FROM sessions") == 3);
    CHECK(q(db, "SELECT group_concat(host, ',') FROM (SELECT host FROM sessions ORDER BY id)") == "desk-a,desk-b,desk-a");
    CHECK(qi(db, "SELECT pid FROM sessions WHERE id = 0") == s[0]->pid());
    CHECK(qi(db, "SELECT pid FROM sessions WHERE id = 2") == s[2]->pid());
    CHECK(q(db, "SELECT group_concat(target_sessions, ',') FROM (SELECT DISTINCT idx, target_sessions FROM steps ORDER BY idx)") == "1,3");
    CHECK(qi(db, "SELECT COUNT(*) FROM verdicts WHERE repeat = -1 AND pass = 1") == 2);
    // Nothing lost: every frame each session counted arrived and is stored.
    CHECK(qi(db, "SELECT COUNT(*) FROM sessions WHERE end_reason != 'ok'") == 0);
    CHECK(qi(db, "SELECT SUM(frames_lost) FROM sessions") == 0);
    CHECK(qi(db, "SELECT COUNT(*) FROM sessions WHERE frames_sent != frames_received") == 0);
    CHECK(qi(db, "SELECT COUNT(*) FROM frames") == qi(db, "SELECT SUM(frames_sent) FROM sessions"));
    CHECK(qi(db, "SELECT COUNT(*) FROM frames") > 100);
    // Hosts: desk-a sampled by its agent, desk-b recorded as unavailable with the reason.
    CHECK(q(db, "SELECT agent FROM hosts WHERE hostname = 'desk-a'") == "agent");
    CHECK(q(db, "SELECT role FROM hosts WHERE hostname = 'desk-b'") == "joined");
    CHECK(q(db, "SELECT agent FROM hosts WHERE hostname = 'desk-b'").rfind("none: no seatmark agent", 0) == 0);
    CHECK(qi(db, "SELECT COUNT(*) FROM events WHERE kind = 'host-figures-unavailable' AND detail LIKE 'host desk-b:%'") >= 1);
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE host = 'desk-a' AND metric = 'host_cpu_pct'") >= 2);
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE host = 'desk-a' AND metric = 'core0_cpu_pct'") >= 2);
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE host = 'desk-b'") == qi(db, "SELECT COUNT(*) FROM samples WHERE host = 'desk-b' AND source = 'clock'"));
    // Per-process figures of desk-a's sessions, matched by pid; none of desk-b's.
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE host = 'desk-a' AND session_id = 0 AND metric = 'rss_bytes'") >= 1);
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE session_id = 1 AND source != 'clock'") == 0);
    // The orchestrator's own /proc sampler did not sample joined sessions as its own.
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE host = '' AND session_id IS NOT NULL") == 0);
    // Clock offsets: one machine, so within the measured uncertainty (plus scheduling slack).
    CHECK(qi(db, "SELECT COUNT(*) FROM hosts WHERE role = 'joined' AND clock_uncertainty_ns IS NOT NULL") == 2);
    CHECK(qi(db, "SELECT COUNT(*) FROM hosts WHERE role = 'joined' AND ABS(clock_offset_ns) > clock_uncertainty_ns + 5000000") == 0);
}

TEST_CASE("join mode: a step that cannot get its sessions in time fails with the shortfall, and the run ends normally") {
    JoinRun r("join_timeout = \"2s\"\n[steps]\nlist = [2]\nsettle = \"1s\"\nwindow = \"1s\"\n[[mix]]\nprofile = \"ci-tiny\"\n");
    test::BackgroundProcess one(r.session("desk-a"));
    auto res = r.run->wait(60);
    INFO("run stderr: " << res.err);
    CHECK(res.exit_code == 0);
    CHECK(one.wait(30).exit_code == 0);
    CHECK(q(r.db, "SELECT status FROM runs") == "finished");
    CHECK(q(r.db, "SELECT pass FROM verdicts WHERE repeat = -1") == "0");
    CHECK(q(r.db, "SELECT reason FROM verdict_reasons ORDER BY ord LIMIT 1").find("1 of 2 sessions joined within 2 s") !=
          std::string::npos);
}

TEST_CASE("join mode: strangers, faults and a lost agent are recorded with their reasons while the run goes on") {
    JoinRun r("heartbeat_timeout = \"2s\"\njoin_timeout = \"60s\"\n[steps]\nlist = [4]\nsettle = \"1s\"\nwindow = \"8s\"\n[[mix]]\nprofile = \"ci-tiny\"\n");
    test::BackgroundProcess agent(r.agent("desk-a"));
    std::vector<std::unique_ptr<test::BackgroundProcess>> s;
    for (int i = 0; i < 4; ++i) {
        s.push_back(std::make_unique<test::BackgroundProcess>(r.session("desk-a")));
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
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
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    }
    // Faults inside the window: one killed, one stopped, and the agent disappears.
    std::this_thread::sleep_for(std::chrono::milliseconds(3500));
    s[0]->signal(SIGKILL);
    s[1]->signal(SIGSTOP);
    agent.signal(SIGKILL);
    auto res = r.run->wait(120);
    s[1]->signal(SIGCONT);
    INFO("run stderr: " << res.err);
    REQUIRE(res.exit_code == 0);
    const auto& db = r.db;
    CHECK(q(db, "SELECT status FROM runs") == "finished");
    CHECK(q(db, "SELECT end_reason FROM sessions WHERE pid = " + std::to_string(s[0]->pid())) == "disconnected");
    CHECK(q(db, "SELECT end_reason FROM sessions WHERE pid = " + std::to_string(s[1]->pid())) == "hang");
    CHECK(qi(db, "SELECT COUNT(*) FROM sessions WHERE end_reason = 'ok'") == 2);
    // frames sent / stored / lost for the failures: the killed one counted by its last heartbeat.
    CHECK(q(db, "SELECT detail FROM sessions WHERE pid = " + std::to_string(s[0]->pid())).find("without BYE") != std::string::npos);
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
    for (int i = 2; i < 4; ++i) CHECK(s[i]->wait(30).exit_code == 0);
}
