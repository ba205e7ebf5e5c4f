#include "orchestrator/run_cli.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "common/exit_codes.h"
#include "orchestrator/live_api.h"
#include "orchestrator/pool_comm.h"
#include "orchestrator/pool_demo.h"
#include "orchestrator/pool_run.h"
#include "core/live_json.h"
#include "core/plan.h"
#include "orchestrator/join_source.h"
#include "common/join_auth.h"
#include "orchestrator/run_controller.h"
#include "orchestrator/run_output.h"
#include "orchestrator/run_push.h"
#include "store/writer_lock.h"

namespace seatmark::orchestrator {

namespace {

int finish(const RunOutcome& r, const core::Plan& plan, bool json) {
    if (json)
        std::printf("%s\n", run_json(r, plan).dump(2).c_str());
    else
        std::printf("\n%s", format_run_table(r, plan).c_str());
    if (!r.abort_cause.empty()) std::fprintf(stderr, "seatmark: run aborted: the database failed: %s\n", r.abort_cause.c_str());
    return r.status == "finished" ? exit_code::ok : exit_code::failure;
}

// --listen and --token for run and demo: the live API (docs/live-api.md), bound before the run starts.
void add_live_options(CLI::App* cmd, std::string& listen, std::string& token) {
    cmd->add_option("--listen", listen,
                    "Live API address HOST:PORT (a taken port falls back to a free one, printed; port 0: any; "
                    "'off': none). Non-loopback needs --token")
        ->capture_default_str();
    cmd->add_option("--token", token, "Require 'Authorization: Bearer TOKEN' on every live API request");
}

std::unique_ptr<LiveApi> start_live_api(const core::Plan& plan, const std::string& listen, const std::string& token) {
    if (listen == "off") return nullptr;
    LiveApiOptions lo;
    lo.listen = listen;
    lo.token = token;
    lo.plan_json = core::plan_json(plan).dump();
    auto api = std::make_unique<LiveApi>(lo);
    if (!api->note().empty()) std::fprintf(stderr, "seatmark: live API: %s\n", api->note().c_str());
    std::fprintf(stderr, "seatmark: live API on %s (watch it: seatmark monitor %s)\n", api->url().c_str(),
                 api->url().c_str());
    return api;
}

// Join mode (plan `[run] sessions = "join"`): sessions and agents connect to --accept with the
// run's token; the source is made once the controller exists.
void set_join_source(RunOptions& o, const core::Plan& plan, const std::string& accept, const std::string& token_file,
                     bool accept_given) {
    if (plan.sessions != core::SessionsMode::join) {
        if (accept_given || !token_file.empty())
            throw InputError("--accept and --token-file are for join mode: set [run] sessions = \"join\" in " + plan.source);
        return;
    }
    if (token_file.empty())
        throw InputError(plan.source + ": [run] sessions = \"join\" needs --token-file FILE: the run's secret, which every "
                         "joining session and agent proves it holds (create one: openssl rand -hex 32 > FILE)");
    JoinListener::Options lo;
    lo.address = parse_listen(accept, "--accept");
    lo.token = join::read_token_file(token_file);
    if (auto w = join::token_file_warning(token_file); !w.empty()) std::fprintf(stderr, "seatmark: warning: %s\n", w.c_str());
    lo.idle_timeout_s = std::max(10.0, plan.heartbeat_timeout_s);
    const bool quiet = o.quiet;
    o.session_source = [&plan, lo, quiet](SessionHost& host) -> std::unique_ptr<SessionSource> {
        return std::make_unique<JoinSessionSource>(host, plan, lo, quiet);
    };
}

std::vector<std::string> split_args(const std::string& s) {
    std::vector<std::string> out;
    for (size_t at = s.find_first_not_of(' '); at != std::string::npos; at = s.find_first_not_of(' ', at)) {
        const size_t end = s.find(' ', at);
        out.push_back(s.substr(at, end == std::string::npos ? std::string::npos : end - at));
        at = end;
    }
    return out;
}

}  // namespace

void add_run_commands(CLI::App& app, std::function<int()>& run, ReportWriter demo_report) {
    struct RunArgs {
        std::string plan, host_name, session_args;
        std::string accept = "127.0.0.1:7879", token_file;
        PoolCliArgs pool{.listen = default_listen};  // db, quiet, json, live API (a pool rank takes them as is)
        push::PushRequest push;                      // --push URL..., after the run
    };
    auto a = std::make_shared<RunArgs>();
    auto* cmd = app.add_subcommand("run", "Ramp synthetic CAD sessions step by step and record everything to SQLite");
    cmd->add_option("plan", a->plan, "Run plan (TOML); see workloads/plans/example.toml")->required();
    cmd->add_option("--db", a->pool.db, "Database to create (default: the plan's run.db); must not exist yet");
    cmd->add_flag("--quiet,-q", a->pool.quiet, "No live status line");
    cmd->add_flag("--json", a->pool.json, "Print the summary as JSON instead of a table");
    add_live_options(cmd, a->pool.listen, a->pool.token);
    cmd->add_option("--host-name", a->host_name,
                    "Under mpirun/srun: the name this rank records (default: the machine's host name; {rank} "
                    "expands to the MPI rank, for several ranks on one machine)");
    cmd->add_option("--accept", a->accept,
                    "Join mode ([run] sessions = \"join\"): where sessions and agents join, ADDR:PORT (an IP; "
                    "0.0.0.0 for every interface)")
        ->capture_default_str();
    cmd->add_option("--token-file", a->token_file, "Join mode: file holding the run's token (required; never sent)");
    cmd->add_option("--session-args", a->session_args,
                    "Extra arguments for every session this host starts, split at spaces (see seatmark session "
                    "--help), e.g. '--synthetic-fps 60' for sessions without Vulkan; under mpirun each rank may "
                    "have its own (mpirun -np 1 seatmark run ... : -np 1 seatmark run ... --session-args ...)");
    add_run_push_options(cmd, a->push);
    cmd->footer(
        "Example:\n"
        "  seatmark run workloads/plans/example.toml --db host42.db\n"
        "  seatmark run workloads/plans/example.toml --db synthetic.db --session-args '--synthetic-fps 60'   (no Vulkan)\n"
        "A pool of hosts, one rank per host (each writes DB-stem.HOST.db on its disk; rank 0 merges them into --db):\n"
        "  mpirun -np 4 --map-by ppr:1:node seatmark run pool.toml --db pool.db\n"
        "  srun -N 4 --ntasks-per-node=1 seatmark run pool.toml --db pool.db\n"
        "  ([pool] placement = breadth-first | depth-first (max_sessions_per_host) | per-host; sync_timeout)\n"
        "Join mode: sessions started elsewhere (each user's desktop) join the run:\n"
        "  seatmark run pool-of-desktops.toml --accept 0.0.0.0:7879 --token-file /etc/seatmark/token\n"
        "Results where operations teams look (verdicts, per-step figures, session summaries; never frames),\n"
        "sent after the run; a sink that is down changes no exit code, and `seatmark push DB` sends it later:\n"
        "  seatmark run plan.toml --db run.db --push influx://metrics:8086/seatmark \\\n"
        "      --push https://ingest.example/seatmark --push-header-file /etc/seatmark/push-headers\n"
        "Under mpirun rank 0 pushes the merged database.\n"
        "Ctrl-C stops the sessions, saves the database and marks the run aborted; a second Ctrl-C kills.\n"
        "While it runs, the live API serves http://127.0.0.1:7878 (see docs/live-api.md); watch it with\n"
        "  seatmark monitor\n"
        + exit_code::help_text());
    cmd->callback([&run, a, cmd] {
        run = [a, cmd]() -> int {
            // `--db ''` (an unset variable in a script) is a mistake, not "use the plan's".
            if (cmd->count("--db") && a->pool.db.empty())
                throw InputError("--db is empty; give a database file name, or leave --db out to use the plan's");
            core::Plan plan = core::load_plan(a->plan);
            if (auto why = srun_without_mpi(); !why.empty()) throw InputError(why);
            const bool push_timeout = cmd->count("--push-timeout") > 0;
            if (launched_by_mpi()) {
                if (plan.sessions == core::SessionsMode::join)
                    throw InputError(plan.source + ": [run] sessions = \"join\" is for one orchestrator; a pool run "
                                     "under mpirun spawns its sessions on every rank");
                PoolArgs pa{a->pool};
                pa.host_name = a->host_name;
                pa.extra_session_args = split_args(a->session_args);
                // Only rank 0 pushes, the merged database: checked there before the pool starts
                // (a header file may exist on rank 0's host only), sent after the merge.
                std::optional<push::PushSetup> push;
                pa.rank0_check = [&]() -> std::string {
                    try {
                        push = run_push_setup(a->push, push_timeout);
                    } catch (const InputError& e) {
                        return e.what();
                    }
                    return "";
                };
                pa.rank0_end = [&](const std::string& db, bool merged) {
                    if (!push) return;
                    if (merged) return push_after_run(*push, db);
                    std::fprintf(stderr, "seatmark: push: nothing sent: the pool run aborted before its merge; merge "
                                         "the hosts' files (seatmark merge) and send the result with `seatmark push "
                                         "MERGED.db URL...`\n");
                };
                return run_pool_rank(plan, pa);
            }
            if (!a->host_name.empty())
                throw InputError("--host-name names a rank of a pool run: start seatmark run under mpirun or srun");
            RunOptions o;
            o.db_path = a->pool.db;
            o.quiet = a->pool.quiet;
            o.extra_session_args = split_args(a->session_args);
            if (!o.extra_session_args.empty() && plan.sessions == core::SessionsMode::join)
                throw InputError("--session-args is for sessions this host starts; joined sessions take their own");
            set_join_source(o, plan, a->accept, a->token_file, cmd->count("--accept") > 0);
            const auto push = run_push_setup(a->push, push_timeout);  // a bad sink is refused before anything starts
            auto api = start_live_api(plan, a->pool.listen, a->pool.token);
            o.live = api.get();
            RunOutcome r = run_plan(plan, o);
            const int rc = finish(r, plan, a->pool.json);
            if (push) push_after_run(*push, r.db_path);  // the verdict's exit code stays whatever the sinks do
            return rc;
        };
    });

    struct DemoArgs {
        std::string out = "seatmark-demo";
        bool quick = false;
        unsigned hosts = 1;
        PoolCliArgs pool{.listen = default_listen};  // db, quiet, json, live API (as `run`'s)
    };
    auto d = std::make_shared<DemoArgs>();
    auto* demo = app.add_subcommand("demo", "Run the built-in density test on this machine (ci-tiny sessions, ~2 min)");
    demo->add_option("--out", d->out, "Folder for the database and session logs")->capture_default_str();
    demo->add_option("--db", d->pool.db,
                     "Database to create; must not exist yet, as with run --db (default: OUT/run.db, the demo's own, replaced)");
    demo->add_flag("--quiet,-q", d->pool.quiet, "No live status line");
    demo->add_flag("--json", d->pool.json, "Print the summary as JSON instead of a table");
    add_live_options(demo, d->pool.listen, d->pool.token);
    demo->add_option("--hosts", d->hosts,
                     "A pool of this many hosts on this machine: mpirun (on PATH) starts one rank per host, each "
                     "its own host by name; the ramp runs on 1 host, then on all, for the scaling efficiency")
        ->check(CLI::Range(1u, 16u));
    demo->add_flag("--quick", d->quick, "With --hosts: one short step per pool size (to see it work, not to measure)");
    demo->footer(
        "Example:\n"
        "  seatmark demo --out /tmp/demo\n"
        "Steps of 1, 2, 4, 6 and 8 ci-tiny sessions on whatever Vulkan device exists (lavapipe without a GPU),\n"
        "4 s settle and a 15 s window each; prints a per-step table and the max density, and writes the\n"
        "report (HTML, Markdown, CSV, JSON) to report/ beside the database (OUT/report/ by default).\n"
        "Watch it in another terminal: seatmark monitor (live API on 127.0.0.1:7878, docs/live-api.md).\n"
        "A two-host pool on this machine (Open MPI's mpirun on PATH; the report shows the pool section):\n"
        "  seatmark demo --hosts 2 --out /tmp/pool-demo\n" + exit_code::help_text());
    demo->callback([&run, d, demo, demo_report] {
        run = [d, demo, demo_report]() -> int {
            if (demo->count("--db") && d->pool.db.empty())
                throw InputError("--db is empty; give a database file name, or leave --db out for OUT/run.db");
            // A file the user names is never written over, as `run --db` refuses one: refused before
            // anything starts (the pool demo went on to start mpirun, and then reported the old file).
            if (!d->pool.db.empty()) store::refuse_existing_db(d->pool.db);
            if (d->hosts > 1) {
                PoolDemoArgs pa{d->pool};
                pa.hosts = d->hosts;
                pa.quick = d->quick;
                pa.out = d->out;
                std::string db;
                const int rc = run_pool_demo(pa, db);
                if (demo_report && std::filesystem::exists(db)) {
                    auto dir = (std::filesystem::path(db).parent_path() / "report").string();
                    std::string headline = demo_report(db, dir);
                    std::fprintf(d->pool.json ? stderr : stdout, "\nreport: %s/index.html\n%s\n", dir.c_str(), headline.c_str());
                }
                return rc;
            }
            if (d->quick) throw InputError("--quick shortens the pool demo: give it with --hosts 2 (or more)");
            core::Plan plan = core::parse_plan(core::demo_plan_text(), "built-in demo plan");
            auto api = start_live_api(plan, d->pool.listen, d->pool.token);
            std::filesystem::create_directories(d->out);
            RunOptions o;
            o.db_path = d->pool.db.empty() ? (std::filesystem::path(d->out) / "run.db").string() : d->pool.db;
            o.overwrite_db = d->pool.db.empty();  // the demo's own file in its own folder
            o.quiet = d->pool.quiet;
            o.live = api.get();
            RunOutcome r = run_plan(plan, o);
            int rc = finish(r, plan, d->pool.json);
            if (demo_report) {
                // Beside the database: with --db elsewhere the report goes there, not into OUT.
                auto dir = (std::filesystem::path(o.db_path).parent_path() / "report").string();
                std::string headline = demo_report(o.db_path, dir);
                std::fprintf(d->pool.json ? stderr : stdout, "\nreport: %s/index.html\n%s\n", dir.c_str(), headline.c_str());
            }
            return rc;
        };
    });
}

}  // namespace seatmark::orchestrator
