// The Windows build joins a Linux run under Wine: `seatmark run --accept` here, with
// `seatmark.exe session --join` (rendering ci-tiny on lavapipe through winevulkan) and
// `seatmark.exe agent --join` as the Windows host "winhost". The session's frames land in the
// run database under the Windows host's name with nothing unaccounted, and the agent's Win32
// host figures and the session's per-process figures (matched by its Windows pid) land as
// winhost's samples. Also the token-file warning end to end: Wine answers GetNamedSecurityInfo
// with an access list made from the Unix mode bits, so a token chmod-ed 644 is readable by
// Everyone and one chmod-ed 600 is not.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <sqlite3.h>

#include <string>

#include "tests/support/run_db.h"
#include "tests/wine/wine.h"

using namespace seatmark;
using seatmark::test::free_port;
using seatmark::test::q;
using seatmark::test::qi;
namespace wine = seatmark::test::wine;


TEST_CASE("a Windows session and agent under Wine join a Linux run: frames and host figures land as winhost's") {
    test::TempDir dir;
    const std::string token = dir.file("token"), open_token = dir.file("token-everyone"), db = dir.file("run.db");
    test::write_file(token, "7d1e0c-wine-join-token\n");
    test::write_file(open_token, "7d1e0c-wine-join-token\n");
    REQUIRE(::chmod(token.c_str(), 0600) == 0);
    REQUIRE(::chmod(open_token.c_str(), 0644) == 0);
    const std::string addr = "127.0.0.1:" + std::to_string(free_port());
    test::write_file(dir.file("plan.toml"),
                     "name = \"wine-join\"\n[run]\nallow_software = true\nsessions = \"join\"\njoin_timeout = \"90s\"\nstop = \"max\"\n"
                     "[steps]\nlist = [1]\nsettle = \"1s\"\nwindow = \"2s\"\n[[mix]]\nprofile = \"ci-tiny\"\n");
    test::BackgroundProcess run(test::seatmark_argv(
        {"run", dir.file("plan.toml"), "--db", db, "--accept", addr, "--token-file", token, "--listen", "off", "-q"}));
    // The agent reads the 644 copy of the token (a warning, not a refusal); the session the 600 one.
    test::BackgroundProcess agent(wine::argv("seatmark.exe", {"agent", "--join", addr, "--token-file", wine::win_path(open_token),
                                                              "--host-name", "winhost", "--interval", "250ms", "--retry-for", "60s"}),
                                  wine::env());
    test::BackgroundProcess session(wine::argv("seatmark.exe", {"session", "--join", addr, "--token-file", wine::win_path(token),
                                                                "--host-name", "winhost", "--retry-for", "60s"}),
                                    wine::env());
    auto r = run.wait(150);
    INFO("run: " << r.err);
    REQUIRE(r.exit_code == 0);
    auto s = session.wait(60);
    auto a = agent.wait(60);
    INFO("session: " << s.out << s.err);
    INFO("agent: " << a.err);
    CHECK(s.exit_code == 0);
    CHECK(a.exit_code == 0);
    CHECK(a.err.find("can be read by Everyone") != std::string::npos);
    CHECK(a.err.find("icacls") != std::string::npos);
    CHECK(s.err.find("can be read by") == std::string::npos);
    CHECK(a.err.find("host figures from win32") != std::string::npos);

    CHECK(q(db, "SELECT status FROM runs") == "finished");
    // The session: on the Windows host, under its Windows pid, every frame it sent stored.
    CHECK(qi(db, "SELECT COUNT(*) FROM sessions") == 1);
    CHECK(q(db, "SELECT host FROM sessions WHERE id = 0") == "winhost");
    CHECK(q(db, "SELECT end_reason FROM sessions WHERE id = 0") == "ok");
    CHECK(qi(db, "SELECT frames_lost FROM sessions WHERE id = 0") == 0);
    CHECK(qi(db, "SELECT frames_sent - frames_received FROM sessions WHERE id = 0") == 0);
    CHECK(qi(db, "SELECT COUNT(*) FROM frames") == qi(db, "SELECT frames_sent FROM sessions WHERE id = 0"));
    CHECK(qi(db, "SELECT COUNT(*) FROM frames") >= 10);  // a sanity bound: lavapipe under Wine is slow
    CHECK(q(db, "SELECT role FROM hosts WHERE hostname = 'winhost'") == "joined");
    CHECK(q(db, "SELECT agent FROM hosts WHERE hostname = 'winhost'") == "agent");
    // HOST_INFO from the Windows agent: Wine reports a Windows version and this machine's CPUs.
    CHECK(q(db, "SELECT os FROM hosts WHERE hostname = 'winhost'").find("Windows") != std::string::npos);
    CHECK(q(db, "SELECT cpu_count FROM hosts WHERE hostname = 'winhost'") != "0");
    // The agent: Win32 host figures (whole machine, per core, memory) and the session's process
    // (CPU share, working set) matched by the pid the session joined with.
    for (const char* m : {"host_cpu_pct", "core0_cpu_pct", "host_mem_used_bytes"}) {
        INFO(m);
        CHECK(qi(db, std::string("SELECT COUNT(*) FROM samples WHERE host = 'winhost' AND source = 'win32' AND metric = '") + m +
                         "' AND session_id IS NULL") >= 2);
    }
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE host = 'winhost' AND source = 'win32' AND metric = 'host_cpu_pct' "
                 "AND (value < 0 OR value > 100.001)") == 0);
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE host = 'winhost' AND source = 'win32' AND session_id = 0 AND metric = 'rss_bytes' "
                 "AND value > 1e6") >= 1);
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE host = 'winhost' AND source = 'win32' AND session_id = 0 AND metric = 'cpu_pct'") >= 1);
    // lavapipe is a CPU renderer: its GPU share is its process CPU time, labelled software.
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE host = 'winhost' AND source = 'software' AND session_id = 0 "
                 "AND metric = 'gpu_share_pct'") >= 1);
    // Nothing claims a GPU: Wine has no nvml.dll and no GPU counters.
    CHECK(qi(db, "SELECT COUNT(*) FROM samples WHERE host = 'winhost' AND source IN ('nvml', 'pdh')") == 0);
}
