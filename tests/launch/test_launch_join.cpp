// A join-mode run with RDP launchers against a real xrdp on this machine: `seatmark run
// --accept` asks three launchers (`seatmark launch --join`) for logons; each desktop's
// ~/.xsession starts `seatmark session --join`, which joins the run itself and is matched to
// its logon by (host, user). Two sessions run end to end with watermarks decoded and their
// endpoint figures stored; a wrong password, a host that refuses, a connection cut and a
// session killed inside its desktop are recorded with their reasons while the run goes on; the
// live API shows the endpoint figures while the window runs, the SLA judges them and the report
// shows them. Kept short (one step, a 20 s window): RDP on two cores is slow. The window is long
// enough that both logons show their endpoint figures and the faults land inside it even when the
// machine is busy with other tests (with 8 s, CI once saw it close before P's session showed its figures).
#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <pwd.h>
#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/live_json.h"
#include "store/frames_table.h"
#include "tests/launch/rdp_host.h"
#include "tests/launch/tcp_proxy.h"
#include "tests/orchestrator/http_test_client.h"
#include "tests/support/process.h"
#include "tests/support/run_db.h"
#include "tests/support/skip.h"

using namespace seatmark;
using namespace seatmark::test;

namespace {

// The same while the run writes: "" until the file and its tables are there.
std::string poll(const std::string& db, const std::string& sql) {
    sqlite3* h = nullptr;
    std::string out;
    if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        store::register_frames_table(h);  // `frames` of a schema-4 file (store/frames_table.h)
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
            sqlite3_column_type(st, 0) != SQLITE_NULL)
            out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return out;
}
// Every row's first column, one a line (for the failure messages).
std::string all_rows(const std::string& db, const std::string& sql) {
    sqlite3* h = nullptr;
    std::string out;
    if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        store::register_frames_table(h);  // `frames` of a schema-4 file (store/frames_table.h)
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK)
            while (sqlite3_step(st) == SQLITE_ROW)
                if (sqlite3_column_type(st, 0) != SQLITE_NULL)
                    out += std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))) + "\n";
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return out;
}
double qd(const std::string& db, const std::string& sql) {
    const auto v = q(db, sql);
    return v.empty() ? NAN : std::stod(v);
}

std::string hostname() {
    char b[256] = {};
    ::gethostname(b, sizeof b - 1);
    return b;
}

}  // namespace

TEST_CASE("launch: a join-mode run with three launchers on xrdp, endpoint figures stored, faults recorded while it goes on") {
    if (!RdpHost::can_run()) SEATMARK_SKIP("needs root (test users, xrdp-sesman)");
    TempDir dir;
    const uint16_t port = free_port(), live_port = free_port();
    const std::string addr = "127.0.0.1:" + std::to_string(port);
    // Readable by the test users: their desktops' sessions join with it.
    const std::string token = dir.file("token");
    write_file(token, "9d2e71-launch-join-token\n");
    ::chmod(dir.path.c_str(), 0755);
    ::chmod(token.c_str(), 0644);
    const std::string db = dir.file("run.db");
    std::vector<RdpUser> users;
    {
        RdpHost host(3, "#!/bin/sh\nmkdir -p \"$HOME/refs\"\nexec " + std::string(SEATMARK_BIN) + " session --join " + addr + " --token-file " + token +
                            " --window --watermark --reference-dir \"$HOME/refs\" --reference-every 10 --retry-for 30s"
                            " > \"$HOME/session.log\" 2>&1\n");
        users = host.users();
        const auto &u1 = users[0], &u2 = users[1], &u3 = users[2];
        write_file(dir.file("plan.toml"),
                   "name = \"rdp\"\n[run]\nallow_software = true\nsessions = \"join\"\njoin_timeout = \"60s\"\nstop = \"max\"\n"
                   "[steps]\nlist = [2]\nsettle = \"2s\"\nwindow = \"20s\"\n[[mix]]\nprofile = \"ci-tiny\"\n"
                   // Host-side bounds loose enough to pass here; one endpoint bound no RDP link meets
                   // (a 0.01 ms render-to-arrival p95), so the verdict shows the endpoint figures judged.
                   "[sla]\nfailures = 1\np95_interval_ms = 10000\nlow1_fps = 0\nlatency_p95_ms = 10000\nstutter_pct = 100\n"
                   "endpoint_fps = 0.1\nendpoint_latency_p95_ms = 0.01\ndelivered_ratio = 0.01\n");
        BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", db, "--accept", addr, "--token-file", token,
                                             "--listen", "127.0.0.1:" + std::to_string(live_port), "-q"}));
        // A: a wrong password first (xrdp answers it with its own logon screen: the logon timeout
        // decides), then u1. P: u2 through a proxy that is cut later. B: a port nobody listens on.
        write_file(dir.file("a"), u3.name + ":not-" + u3.password + "\n" + u1.name + ":" + u1.password + "\n");
        write_file(dir.file("p"), u2.name + ":" + u2.password + "\n");
        write_file(dir.file("b"), u1.name + ":" + u1.password + "\n");
        TcpProxy proxy(RdpHost::port);
        // SSIM references: P reads the sessions' folder; A asks each session for them through the run.
        // A's logon timeout decides its wrong password, so it stays short; P's only has to succeed.
        auto launcher = [&](const std::string& users_file, int rdp_port, const char* name, bool folder,
                            const char* logon_timeout = "6s") {
            auto argv = seatmark_argv({"launch", "--rdp", "127.0.0.1:" + std::to_string(rdp_port), "--users", users_file,
                                       "--join", addr, "--token-file", token, "--host-name", name, "--session-host",
                                       hostname(), "--size", "640x480", "--ignore-certificate", "--logon-timeout", logon_timeout,
                                       "--reference-every", "10", "--retry-for", "30s"});
            if (folder) {
                argv.push_back("--references");
                argv.push_back("/home/%u/refs");
            }
            return argv;
        };
        // P and B join first, so each is asked for a logon whatever their order; A after them.
        BackgroundProcess lp(launcher(dir.file("p"), proxy.port(), "lab-p", true, "20s"));
        BackgroundProcess lb(launcher(dir.file("b"), 1, "lab-b", true));
        REQUIRE(wait_until(30, [&] { return poll(db, "SELECT count(*) FROM events WHERE kind = 'launcher-joined'") == "2"; }));
        BackgroundProcess la(launcher(dir.file("a"), RdpHost::port, "lab-a", false));

        // The window runs once both sessions rendered 3 references; then the faults, mid-window.
        auto refs = [&](const RdpUser& u) {
            std::error_code ec;
            size_t n = 0;
            for (auto it = std::filesystem::directory_iterator(host.home(u) + "/refs", ec);
                 !ec && it != std::filesystem::directory_iterator(); ++it)
                ++n;
            return n;
        };
        REQUIRE_MESSAGE(wait_until(70, [&] { return refs(u1) >= 6 && refs(u2) >= 6; }),
                        read_if_there(host.home(u1) + "/session.log") << read_if_there(host.home(u2) + "/session.log"));
        // Live: each launched session's endpoint object (its logon's user and launcher, arrivals).
        nlohmann::json live;
        const bool live_ok = wait_until(40, [&] {
            const auto r = http_get(live_port, "/api/v1/state");
            if (r.status != 200) return false;
            live = nlohmann::json::parse(r.body, nullptr, false);
            if (live.is_discarded()) return false;
            int seen = 0;
            for (const auto& s : live["sessions"])
                // At least the 5 arrivals each that the stored figures are checked for below.
                if (auto e = s.find("endpoint"); e != s.end() && e->is_object() && (*e)["arrivals"].get<int64_t>() >= 5 &&
                                                   (*e)["fps"].is_number() && (*e)["fps"].get<double>() > 0)
                    ++seen;
            return seen == 2;
        });
        INFO(live.dump());
        if (!live_ok)  // what the run and the launchers said, to tell a slow logon from a lost one
            MESSAGE("run: " << run.err_so_far() << "\nlab-a: " << la.err_so_far() << "\nlab-p: " << lp.err_so_far()
                            << "\nlab-b: " << lb.err_so_far());
        CHECK(live_ok);
        // As the monitor reads it (core::state_from_json, monitor/live_source.cpp): each session's
        // RDP user, launcher, codec and logon time beside its own FPS.
        if (live_ok) {
            const core::LiveState ls = core::state_from_json(live);
            int launched = 0;
            for (const auto& x : ls.sessions) {
                if (!x.endpoint) continue;
                ++launched;
                CHECK((x.endpoint->launcher == "lab-a" || x.endpoint->launcher == "lab-p"));
                CHECK((x.endpoint->user == u1.name || x.endpoint->user == u2.name));
                CHECK(x.endpoint->codec == "remotefx");
                CHECK(x.endpoint->logon_ms > 0);
                CHECK(x.endpoint->fps > 0);
                CHECK(x.endpoint->fault == "none");
            }
            CHECK(launched == 2);
        }
        // The faults go mid-window: 3 s of the 20 s window measured first, so both sessions have
        // endpoint figures in it to judge.
        CHECK(wait_until(30, [&] {
            const auto r = http_get(live_port, "/api/v1/state");
            const auto j = nlohmann::json::parse(r.body, nullptr, false);
            if (r.status != 200 || j.is_discarded() || !j.contains("step")) return false;
            const auto& st = j["step"];
            return st.value("phase", "") == "measuring" && st["phase_left_s"].is_number() && st["phase_left_s"].get<double>() <= 17.0;
        }));
        proxy.cut();  // u2's RDP connection goes away; its session renders on
        // Once the run has recorded that logon's end, u1's session dies inside its desktop.
        CHECK(wait_until(20, [&] {
            return poll(db, "SELECT count(*) FROM events WHERE kind = 'logon-fault' AND detail LIKE '%via launcher lab-p%: cut:%'") == "1";
        }));
        signal_process(RdpHost::session_pid_of(u1.name), SIGKILL);

        const auto rr = run.wait(90);
        const auto ra = la.wait(40), rp = lp.wait(40), rb = lb.wait(40);
        INFO("run: " << rr.err << "\nlab-a: " << ra.err << "\nlab-p: " << rp.err << "\nlab-b: " << rb.err);
        REQUIRE(rr.exit_code != -1);
        CHECK(ra.exit_code == 0);  // each launcher left after the run's STOP
        CHECK(rp.exit_code == 0);
        CHECK(rb.exit_code == 0);

        // Every logon with its launcher, user and fault class.
        auto fault_of = [&](const std::string& launcher, const std::string& user) {
            return q(db, "SELECT fault FROM endpoint_logons WHERE launcher = '" + launcher + "' AND user = '" + user + "'");
        };
        CHECK(fault_of("lab-a", u3.name) == "logon");
        CHECK(fault_of("lab-b", u1.name) == "refused");
        CHECK(fault_of("lab-p", u2.name) == "cut");
        CHECK(fault_of("lab-a", u1.name) == "logged-off");
        CHECK(q(db, "SELECT fault_detail FROM endpoint_logons WHERE launcher = 'lab-b'").find("127.0.0.1:1") != std::string::npos);
        CHECK(q(db, "SELECT count(*) FROM events WHERE kind = 'logon-fault'") == "4");
        // The killed session is recorded as such and the run went on to judge its step.
        CHECK(q(db, "SELECT end_reason FROM sessions s JOIN endpoint_logons l ON l.session_id = s.id WHERE l.user = '" +
                        u1.name + "'") == "disconnected");
        CHECK(q(db, "SELECT count(*) FROM verdicts WHERE repeat = -1") == "1");
        // The SLA judged the endpoint figures of the launched sessions: the impossible bound fails the step.
        CHECK(q(db, "SELECT pass FROM verdicts WHERE repeat = -1") == "0");
        CHECK(q(db, "SELECT count(*) FROM verdict_reasons WHERE reason LIKE '%endpoint latency%'") != "0");

        // The two sessions that ran, end to end: matched, logon timed, watermarks decoded.
        for (const auto* u : {&u1, &u2}) {
            const std::string w = " FROM endpoint_logons WHERE user = '" + u->name + "' AND session_id IS NOT NULL";
            INFO(u->name);
            REQUIRE(q(db, "SELECT count(*)" + w) == "1");
            const std::string sid = q(db, "SELECT session_id" + w);
            CHECK(q(db, "SELECT host" + w) == hostname());
            CHECK(qd(db, "SELECT logon_ms" + w) > 0);
            CHECK(q(db, "SELECT codec" + w) == "remotefx");
            const double arrivals = qd(db, "SELECT count(*) FROM endpoint_arrivals WHERE session_id = " + sid);
            CHECK(arrivals >= 5);
            // Every arrival is a frame the session rendered. The killed session's last second of
            // frames never reached the run (frames go out once a second), so arrivals of frames
            // after its last stored one are expected there; none before it.
            INFO(all_rows(db, "SELECT kind || ': ' || detail FROM events WHERE kind IN ('launcher-joined', 'session-activated')"));
            INFO(all_rows(db, "SELECT metric || ' ' || value FROM samples WHERE source = 'clock' AND session_id = " + sid));
            CHECK(q(db, "SELECT count(*) FROM endpoint_arrivals a LEFT JOIN frames f ON f.session_id = a.session_id AND "
                        "f.seq = a.seq WHERE a.session_id = " + sid + " AND f.seq IS NULL AND a.seq <= (SELECT max(seq) FROM"
                        " frames WHERE session_id = " + sid + ")") == "0");
            if (u == &u2)
                CHECK(q(db, "SELECT count(*) FROM endpoint_arrivals a LEFT JOIN frames f ON f.session_id = a.session_id AND "
                            "f.seq = a.seq WHERE a.session_id = " + sid + " AND f.seq IS NULL") == "0");
            const double lat_min = qd(db, "SELECT min(a.arrival_ns - f.t_present_ns) / 1e6 FROM endpoint_arrivals a JOIN frames f"
                                          " ON f.session_id = a.session_id AND f.seq = a.seq WHERE a.session_id = " + sid);
            const double lat_max = qd(db, "SELECT max(a.arrival_ns - f.t_present_ns) / 1e6 FROM endpoint_arrivals a JOIN frames f"
                                          " ON f.session_id = a.session_id AND f.seq = a.seq WHERE a.session_id = " + sid);
            // Session and launcher stamps are converted by their connections' measured offsets
            // (the same clock here, but measured through a loaded machine): positive within the
            // recorded uncertainties (the session's worst, the launcher's at its join) and 2 ms for
            // the launcher's later re-syncs (not recorded) and the present stamp, which is taken
            // when vkQueuePresentKHR returns, after X11 has the frame (test_launch_rdp.cpp).
            const double u_sess = qd(db, "SELECT max(value) / 1e6 FROM samples WHERE source = 'clock' AND metric ="
                                         " 'clock_uncertainty_ns' AND session_id = " + sid);
            const std::string lj = q(db, "SELECT detail FROM events WHERE kind = 'launcher-joined' AND detail LIKE"
                                         " 'launcher ' || (SELECT launcher" + w + ") || ' %'");
            const auto pm = lj.find("+- ");
            REQUIRE(pm != std::string::npos);
            const double u_launch = std::stod(lj.substr(pm + 3)) / 1e3;
            const double slack = u_sess + u_launch + 2;
            INFO("latency min " << lat_min << " ms, p50 " << qd(db, "SELECT latency_p50_ms" + w) << " ms, clock slack " << slack << " ms");
            CHECK(lat_min > -slack);
            CHECK(qd(db, "SELECT latency_p50_ms" + w) > -slack);
            CHECK(qd(db, "SELECT latency_p95_ms" + w) > 0);
            CHECK(lat_max < 5000);
            // Whole-life figures: delivered ratio in (0, 1], endpoint FPS at most the rendered FPS.
            const double delivered = qd(db, "SELECT delivered_ratio" + w);
            CHECK(delivered > 0);
            CHECK(delivered <= 1);
            const double rendered_fps = qd(db, "SELECT (count(*) - 1) / ((max(t_present_ns) - min(t_present_ns)) / 1e9) FROM frames"
                                               " WHERE session_id = " + sid);
            CHECK(qd(db, "SELECT fps" + w) <= rendered_fps * 1.001);
            CHECK(qd(db, "SELECT ssim_samples" + w) >= 1);
            CHECK(qd(db, "SELECT ssim_mean" + w) > 0.5);
            CHECK(q(db, "SELECT count(*) FROM endpoint_ssim WHERE session_id = " + sid) != "0");
            MESSAGE(u->name << " via " << q(db, "SELECT launcher" + w) << ": logon " << qd(db, "SELECT logon_ms" + w)
                            << " ms, " << arrivals << " arrivals, endpoint " << qd(db, "SELECT fps" + w) << " FPS of "
                            << rendered_fps << " rendered, delivered " << delivered << ", latency p50 "
                            << qd(db, "SELECT latency_p50_ms" + w) << " ms p95 " << qd(db, "SELECT latency_p95_ms" + w)
                            << " ms (min " << lat_min << ", clock slack " << slack << "), SSIM "
                            << qd(db, "SELECT ssim_mean" + w) << " over " << qd(db, "SELECT ssim_samples" + w));
        }
        // The report shows them beside the host's figures.
        const auto rep = run_process(seatmark_argv({"report", db, "--out", dir.file("rep"), "-q"}), 120);
        INFO(rep.out << rep.err);
        CHECK(rep.exit_code == 0);
        const std::string html = read_if_there(dir.file("rep/index.html"));
        CHECK(html.find("What the remote user saw") != std::string::npos);
        CHECK(read_if_there(dir.file("rep/endpoint.csv")).find(u2.name) != std::string::npos);

        // Every desktop the run used has ended: no session, no Xorg left.
        CHECK(wait_until(20, [&] {
            for (const auto& u : users)
                for (int pid : RdpHost::processes_of(u.name)) {
                    const std::string comm = RdpHost::comm_of(pid);
                    if (comm.rfind("Xorg", 0) == 0 || comm.rfind("seatmark", 0) == 0) return false;
                }
            return true;
        }));
    }
    for (const auto& u : users) {
        CHECK(::getpwnam(u.name.c_str()) == nullptr);
        CHECK(RdpHost::processes_of(u.name).empty());
    }
}
