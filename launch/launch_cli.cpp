#include "launch/launch_cli.h"

#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdio>
#include <memory>
#include <vector>

#include "common/clock.h"
#include "common/duration.h"
#include "common/errors.h"
#include "common/exit_codes.h"
#include "common/output_file.h"
#include "common/stop_signals.h"
#include "launch/join_launcher.h"
#include "launch/launched_session.h"
#include "launch/users_file.h"

namespace seatmark::launch {

namespace {

struct Options {
    std::string rdp, users_file, json_out, arrivals_out, references, size = "1024x768", codec = "remotefx", duration = "30s",
                                                logon_timeout = "30s";
    size_t sessions = 0;  // 0: one per user
    uint32_t reference_every = 30;
    bool ignore_certificate = false;
    std::string join, token_file, host_name, session_host, retry_for = "30s";
};

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

void parse_host_port(const std::string& text, RdpTarget& t) {
    const auto colon = text.rfind(':');
    t.host = colon == std::string::npos ? text : text.substr(0, colon);
    if (t.host.empty()) throw InputError("--rdp " + text + ": expected HOST[:PORT], the host is empty");
    if (colon != std::string::npos) {
        const std::string p = text.substr(colon + 1);
        char* end = nullptr;
        const long v = std::strtol(p.c_str(), &end, 10);
        if (p.empty() || *end || v < 1 || v > 65535)
            throw InputError("--rdp " + text + ": expected HOST[:PORT] with PORT in 1..65535, got '" + p + "'");
        t.port = static_cast<uint16_t>(v);
    }
}

nlohmann::json to_json(const SessionOutcome& o) {
    const auto& e = o.endpoint;
    return {{"user", o.user},
            {"fault", o.fault},
            {"detail", o.detail},
            {"connect_ms", o.connect_ms},
            {"first_paint_ms", o.first_paint_ms},
            {"ending", o.ending},
            {"logoff_ms", o.logoff_ms},
            {"logon_ms", o.first_frame_ms},
            {"codec", o.codec},
            {"payload_bytes", o.payload_bytes},
            {"payload_bytes_per_s", o.payload_bytes_per_s},
            {"arrivals", e.arrivals},
            {"paints", e.paints},
            {"unreadable_paints", e.unreadable},
            {"first_seq", e.first_seq},
            {"last_seq", e.last_seq},
            {"arrivals_per_s", e.arrivals_per_s},
            {"delivered_ratio", e.delivered_ratio},
            {"interval_p50_ms", e.interval_p50_ms},
            {"interval_p95_ms", e.interval_p95_ms},
            {"interval_p99_ms", e.interval_p99_ms},
            {"ssim_samples", o.ssim.samples},
            {"ssim_missing", o.ssim.missing},
            {"ssim_mean", o.ssim.mean},
            {"ssim_min", o.ssim.min},
            {"launcher_cpu_s", o.cpu_s},
            {"launcher_cpu_ms_per_arrival", e.arrivals ? 1000.0 * o.cpu_s / static_cast<double>(e.arrivals) : -1.0}};
}

int run_launch(const Options& o) {
    RdpTarget base;
    parse_host_port(o.rdp, base);
    if (o.codec == "bitmap") base.remotefx = false;
    else if (o.codec != "remotefx") throw InputError("--codec " + o.codec + ": expected remotefx or bitmap");
    int w = 0, h = 0;
    char x = 0, extra = 0;
    if (std::sscanf(o.size.c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || x != 'x' || w < 200 || h < 200 || w > 8192 ||
        h > 8192)
        throw InputError("--size " + o.size + ": expected WIDTHxHEIGHT, each 200..8192 (e.g. 1024x768)");
    base.width = w;
    base.height = h;
    base.ignore_certificate = o.ignore_certificate;
    const auto duration = parse_duration(o.duration);
    if (!duration || *duration <= 0) throw InputError("--duration " + o.duration + ": expected a duration such as 30s");
    const auto logon_timeout = parse_duration(o.logon_timeout);
    if (!logon_timeout || *logon_timeout <= 0)
        throw InputError("--logon-timeout " + o.logon_timeout + ": expected a duration such as 30s");
    const auto users = read_users_file(o.users_file);
    if (!o.join.empty()) {
        if (o.token_file.empty()) throw InputError("--join needs --token-file FILE (the run's token, as given to seatmark run --accept)");
        if (o.sessions || !o.json_out.empty() || !o.arrivals_out.empty())
            throw InputError("--join: the run decides how many logons to open and stores their figures; "
                             "leave out --sessions, --json and --arrivals");
        const auto retry = parse_duration(o.retry_for);
        if (!retry || *retry < 0) throw InputError("--retry-for " + o.retry_for + ": expected a duration such as 30s");
        JoinLauncherOptions jo;
        jo.address = o.join;
        jo.token_file = o.token_file;
        jo.host_name = o.host_name;
        jo.session_host = o.session_host;
        jo.references = o.references;
        jo.reference_every = o.reference_every;
        jo.logon_timeout_s = *logon_timeout;
        jo.retry_s = *retry;
        return run_join_launcher(base, users, jo);
    }
    const size_t n = o.sessions ? o.sessions : users.size();
    if (n > users.size())
        throw InputError(where(o.users_file) + std::to_string(n) + " sessions asked for but only " +
                         std::to_string(users.size()) + " users listed (one desktop per user)");
    if (!o.json_out.empty()) check_output_path(o.json_out, "--json", {o.users_file});
    if (!o.arrivals_out.empty()) check_output_path(o.arrivals_out, "--arrivals", {o.users_file});

    for (int sig : stop_signals()) std::signal(sig, on_signal);
    std::vector<std::unique_ptr<LaunchedSession>> sessions;
    for (size_t i = 0; i < n; ++i) {
        RdpTarget t = base;
        t.user = users[i].user;
        t.password = users[i].password;
        t.domain = users[i].domain;
        std::string refs = o.references;
        for (auto at = refs.find("%u"); at != std::string::npos; at = refs.find("%u", at + t.user.size()))
            refs.replace(at, 2, t.user);
        sessions.push_back(std::make_unique<LaunchedSession>(t, *logon_timeout, refs, o.reference_every));
        sessions.back()->start();
    }
    std::fprintf(stderr, "seatmark launch: %zu RDP session(s) to %s:%u for %s\n", n, base.host.c_str(), base.port,
                 format_duration(*duration).c_str());
    const int64_t end = now_ns() + static_cast<int64_t>(*duration * 1e9);
    while (!g_stop && now_ns() < end) {
        bool all_done = true;
        for (auto& s : sessions) all_done = all_done && s->done();
        if (all_done) break;
        sleep_until_ns(now_ns() + 100'000'000);
    }
    for (auto& s : sessions) s->stop();
    nlohmann::json out = nlohmann::json::array();
    int failed = 0;
    std::string arrivals_csv = "user,seq,arrival_ns\n";
    // One row per session under named columns (issue 32: the rows had no header). logon: connect to
    // the first frame; frames/s, delivered and p95 are what reached this endpoint.
    if (!sessions.empty())
        std::printf("%-20s %-8s %9s %9s %11s %8s %-9s %9s\n", "user", "fault", "logon ms", "frames/s", "delivered %",
                    "p95 ms", "codec", "KB/s");
    for (auto& s : sessions) {
        s->join();
        const auto r = s->outcome();
        if (r.fault != "none") ++failed;
        out.push_back(to_json(r));
        for (const auto& a : r.arrivals)
            arrivals_csv += r.user + "," + std::to_string(a.seq) + "," + std::to_string(a.arrival_ns) + "\n";
        std::printf("%-20s %-8s %9.0f %9.1f %11.1f %8.1f %-9s %9.0f%s%s\n",
                    r.user.c_str(), r.fault.c_str(), r.first_frame_ms, r.endpoint.arrivals_per_s,
                    100.0 * r.endpoint.delivered_ratio, r.endpoint.interval_p95_ms, r.codec.c_str(),
                    r.payload_bytes_per_s / 1024.0, r.detail.empty() ? "" : "\n    ", r.detail.c_str());
        if (r.ssim.samples) std::printf("    SSIM mean %.3f, min %.3f over %llu sampled frames\n", r.ssim.mean, r.ssim.min, static_cast<unsigned long long>(r.ssim.samples));
        std::printf("    ended: %s\n", r.ending.c_str());
    }
    if (!o.json_out.empty()) write_output_file(o.json_out, out.dump(2) + "\n", "--json");
    if (!o.arrivals_out.empty()) write_output_file(o.arrivals_out, arrivals_csv, "--arrivals");
    return failed ? exit_code::failure : exit_code::ok;
}

}  // namespace

void configure_launch_command(CLI::App& app, std::function<int()>& run) {
    auto o = std::make_shared<Options>();
    auto* cmd = &app;
    cmd->add_option("--rdp", o->rdp, "RDP host to log on to, HOST[:PORT] (port 3389 by default)")->required();
    cmd->add_option("--users", o->users_file, "Test users, one USER:PASSWORD per line (DOMAIN\\USER:PASSWORD)")->required();
    cmd->add_option("--sessions", o->sessions, "How many sessions to open (default: one per user)");
    cmd->add_option("--duration", o->duration, "How long to hold the sessions (default 30s)");
    cmd->add_option("--logon-timeout", o->logon_timeout,
                    "Connect to first watermarked frame allowed before a logon counts as failed (default 30s)");
    cmd->add_option("--size", o->size, "Desktop size WIDTHxHEIGHT (default 1024x768)");
    cmd->add_option("--codec", o->codec, "remotefx (LAN settings, the default) or bitmap");
    cmd->add_flag("--ignore-certificate", o->ignore_certificate,
                  "Accept the server's certificate without checking it (test hosts with their own)");
    cmd->add_option("--json", o->json_out, "Write per-session figures as JSON to this file");
    cmd->add_option("--references", o->references,
                    "Folder of each session's --reference-dir as this machine reaches it, %u = the user "
                    "(e.g. /home/%u/refs): SSIM of sampled frames against the session's own rendering");
    cmd->add_option("--reference-every", o->reference_every,
                    "The sessions' --reference-every (default 30)")->check(CLI::Range(1u, 100000u));
    cmd->add_option("--join", o->join,
                    "Join a run as its launcher (seatmark run --accept ADDR:PORT): the run says how many logons to "
                    "open and stores every figure; HOST:PORT");
    cmd->add_option("--token-file", o->token_file, "With --join: file holding the run's token");
    cmd->add_option("--host-name", o->host_name, "With --join: this launcher's name in the run (default: this machine's)");
    cmd->add_option("--session-host", o->session_host,
                    "With --join: the host name the logons' sessions join under (their --host-name; default: the "
                    "--rdp host as given)");
    cmd->add_option("--retry-for", o->retry_for, "With --join: keep trying to reach the run this long (default 30s)");
    cmd->add_option("--arrivals", o->arrivals_out,
                    "Write every frame seen as CSV: user, frame sequence number, arrival (CLOCK_MONOTONIC ns)");
    cmd->footer(
        "Each test user's logon must start the synthetic user inside the desktop with the watermark on,\n"
        "e.g. ~/.xsession on an xrdp host (the full path: a logon's PATH is not your shell's):\n"
        "  exec /usr/bin/seatmark session --window --watermark --duration 60s\n"
        "Example:\n"
        "  seatmark launch --rdp vdi-host-01:3389 --users users.txt --sessions 10 --duration 2m --json out.json\n"
        "In a run (the run opens logons step by step; each logon's session joins it too):\n"
        "  seatmark run plan.toml --accept 0.0.0.0:7300 --token-file run.token &\n"
        "  seatmark launch --rdp vdi-host-01 --users users.txt --join controller:7300 --token-file run.token\n"
        "    --session-host vdi-host-01   # with ~/.xsession: exec /usr/bin/seatmark session --join controller:7300\n"
        "                                 #   --token-file run.token --window --watermark\n"
        "  (each test user needs its own copy of run.token, owned by it, mode 600)\n"
        "Per session: logon time (connect -> first watermarked frame), frames arriving per second, the\n"
        "arrival-interval distribution, delivered / rendered frames, the codec and its bytes per second.\n" +
        exit_code::help_text());
    cmd->callback([o, &run] { run = [o] { return run_launch(*o); }; });
}

}  // namespace seatmark::launch
