// What the agent sends and when: join the run, keep the orchestrator's WATCH list, send one
// SAMPLES message per interval, join again after a dropped connection. How it samples is
// agent_sampler.h.
#include "agent/agent.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <mutex>

#include "common/clock.h"
#include "common/duration.h"
#include "common/errors.h"
#include "common/exit_codes.h"
#include "common/join_auth.h"
#include "common/join_peer.h"
#include "common/stop_signals.h"
#include "agent/agent_sampler.h"
#include "orchestrator/host_proc.h"

namespace seatmark::agent {

namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop = true; }

struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<join::WatchEntry> watch;
    bool stop = false, lost = false;
    std::string why;
};

}  // namespace

int run_agent(const AgentOptions& o) {
    for (int sig : stop_signals()) std::signal(sig, on_stop_signal);
    const std::string token = join::read_token_file(o.token_file);
    if (auto w = join::token_file_warning(o.token_file); !w.empty()) std::fprintf(stderr, "seatmark: warning: %s\n", w.c_str());
    join::JoinPeer::Options po;
    po.address = join::parse_host_port(o.address, "--join");
    po.token = token;
    po.role = join::Role::agent;
    po.retry_s = o.retry_s;
    const join::PeerIdentity me = join::local_identity(o.host_name);
    AgentSampler sampler(open_agent_gpu());
    if (!o.quiet) std::fprintf(stderr, "seatmark agent: %s\n", sampler.describe().c_str());
    while (!g_stop) {
        join::JoinPeer peer(po);
        peer.join(me);
        auto sh = std::make_shared<Shared>();
        peer.run(
            [sh](const join::JoinMessage& m) {
                std::lock_guard<std::mutex> l(sh->mu);
                if (auto* w = std::get_if<join::Watch>(&m)) sh->watch = w->sessions;
                if (std::holds_alternative<join::Stop>(m)) sh->stop = true;
                sh->cv.notify_all();
            },
            [sh](const std::string& why) {
                std::lock_guard<std::mutex> l(sh->mu);
                sh->lost = true;
                sh->why = why;
                sh->cv.notify_all();
            });
        if (!o.quiet) std::fprintf(stderr, "seatmark agent: joined the run at %s for host %s\n", peer.where().c_str(), me.host.c_str());
        {
            // Once per connection: the host's hosts row is otherwise only its name.
            const orchestrator::HostIdentity id = orchestrator::read_host_identity();
            std::vector<uint8_t> out;
            join::encode(out, join::JoinMessage{join::HostInfo{id.cpu_model, id.cpu_count, id.mem_total_bytes, id.os, id.kernel}});
            std::string err;
            if (!peer.send(std::move(out), err) && !o.quiet) std::fprintf(stderr, "seatmark agent: sending the host's identity: %s\n", err.c_str());
        }
        int64_t next = now_ns();
        std::vector<join::WatchEntry> watch;
        for (;;) {
            {
                std::unique_lock<std::mutex> l(sh->mu);
                // Every 100 ms at most to notice a signal; the sample itself keeps its schedule.
                while (!sh->stop && !sh->lost && !g_stop && now_ns() < next)
                    sh->cv.wait_for(l, std::chrono::milliseconds(std::clamp<int64_t>((next - now_ns()) / 1'000'000, 1, 100)));
                if (sh->stop || g_stop) {
                    if (!o.quiet) std::fprintf(stderr, "seatmark agent: the run ended; exiting\n");
                    return exit_code::ok;
                }
                if (sh->lost) break;
                watch = sh->watch;
            }
            const int64_t t = now_ns();
            join::Samples s;
            s.t_ns = t;
            auto sample = sampler.sample(t, watch);
            s.rows = std::move(sample.rows);
            for (const auto& e : sample.errors) s.rows.push_back({-1, "agent", "sampler_error: " + e, 1});
            std::vector<uint8_t> out;
            join::encode(out, join::JoinMessage{s});
            std::string err;
            if (!peer.send(std::move(out), err)) break;
            next += int64_t(o.interval_s * 1e9);
            if (next < now_ns()) next = now_ns() + int64_t(o.interval_s * 1e9);  // fell behind: no burst
        }
        std::fprintf(stderr, "seatmark agent: connection to %s lost (%s); joining again for up to %.0f s\n",
                     peer.where().c_str(), peer.lost() ? peer.lost_reason().c_str() : "send failed", o.retry_s);
    }
    return exit_code::ok;
}

void add_agent_command(CLI::App& app, std::function<int()>& run, const std::string& example) {
    auto o = std::make_shared<AgentOptions>();
    auto retry = std::make_shared<std::string>("60s");
    auto interval = std::make_shared<std::string>("1s");
    auto* cmd = app.add_subcommand("agent", "Stream this host's CPU, memory, GPU and session figures to a join-mode run");
    cmd->add_option("--join", o->address, "The run's --accept address, HOST:PORT")->required();
    cmd->add_option("--token-file", o->token_file, "File holding the run's token (never sent)")->required();
    cmd->add_option("--host-name", o->host_name, "The host name to report (default: this machine's; sessions on this host must report the same)");
    cmd->add_option("--interval", *interval, "Time between samples")->capture_default_str();
    cmd->add_option("--retry-for", *retry, "Keep trying to reach the orchestrator this long")->capture_default_str();
    cmd->add_flag("--quiet,-q", o->quiet, "Print nothing but errors");
    cmd->footer(
        "Example (one per host, e.g. a systemd unit or a scheduled task at boot):\n  " + example + "\n"
        "Sessions on this host (`seatmark session --join`) are matched by pid; a host without an agent has its\n"
        "host figures recorded as unavailable. The agent exits when the run ends.\n" + exit_code::help_text());
    cmd->callback([&run, o, retry, interval] {
        run = [o, retry, interval]() -> int {
            auto r = parse_duration(*retry);
            if (!r || *r < 0) throw InputError("--retry-for " + *retry + ": expected a duration such as 60s");
            o->retry_s = *r;
            auto i = parse_duration(*interval);
            if (!i || *i < 0.05 || *i > 3600) throw InputError("--interval " + *interval + ": expected 50ms .. 1h");
            o->interval_s = *i;
            return run_agent(*o);
        };
    });
}

}  // namespace seatmark::agent
