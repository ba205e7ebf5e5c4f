#include "orchestrator/pool_run.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "common/clock.h"
#include "common/errors.h"
#include "common/self_exe.h"
#include "common/exit_codes.h"
#include "common/shell_word.h"
#include "core/clock_offset.h"
#include "orchestrator/asset_check.h"
#include "core/live_json.h"
#include "orchestrator/live_api.h"
#include "orchestrator/pool_coordinator.h"
#include "orchestrator/pool_live.h"
#include "orchestrator/pool_startup.h"
#include "orchestrator/pool_transfer.h"
#include "store/merge.h"
#include "store/pool_table.h"
#include "store/store_reader.h"

namespace seatmark::orchestrator {

namespace fs = std::filesystem;

std::string pool_host_name(const std::string& pattern, int rank) {
    std::string p = pattern;
    if (p.empty()) {
        char h[256] = {};
        ::gethostname(h, sizeof h - 1);
        p = h;
    }
    for (size_t at; (at = p.find("{rank}")) != std::string::npos;) p.replace(at, 6, std::to_string(rank));
    return p;
}

namespace {

// Each host's own database: DB-stem.HOST.db beside the merged one (on that host's disk).
std::string host_db_path(const std::string& merged, const std::string& host) {
    fs::path p(merged);
    return (p.parent_path() / (p.stem().string() + "." + host + p.extension().string())).string();
}

void say(const PoolArgs& a, int rank, const std::string& line) {
    if (!a.quiet || rank == 0) std::fprintf(stderr, "seatmark pool [rank %d]: %s\n", rank, line.c_str());
}

// The `seatmark merge` that makes the pool's database by hand, ready to paste: every host's own
// file (`files`, absolute: each at the path the run gave it on its host's disk) into `out`.
std::string merge_command(const std::string& out, const std::vector<std::string>& files) {
    std::error_code ec;
    auto abs = [&ec](const std::string& p) { return fs::absolute(p, ec).lexically_normal().string(); };
    std::string c = shell_word(self_exe_path()) + " merge" + (fs::exists(out, ec) ? " --force" : "") + " " + shell_word(abs(out));
    for (const std::string& f : files) c += " " + shell_word(abs(f));
    return c;
}

// Said by every rank that outlives a lost one, whatever --quiet says: without it the hosts'
// files are left in pieces. `others_elsewhere`: the files of other hosts lie on their disks.
void say_merge(int rank, const std::string& out, const std::vector<std::string>& files, bool others_elsewhere) {
    std::fprintf(stderr, "seatmark pool [rank %d]: to make the pool's database from every host's file%s, run:\n  %s\n",
                 rank, others_elsewhere ? " (copy the other hosts' files to this machine first, to the same paths)" : "",
                 merge_command(out, files).c_str());
}

// Every host's own file, at the path each rank gives it (host_db_path), in rank order.
std::vector<std::string> every_host_file(const std::string& merged, const PoolView& view) {
    std::vector<std::string> f;
    for (const PoolMember& m : view.members) f.push_back(host_db_path(merged, m.host));
    return f;
}

}  // namespace

int run_pool_rank(const core::Plan& plan, const PoolArgs& args) {
    PoolComm comm(nullptr, nullptr);
    const int rank = comm.rank(), size = comm.size();
    const std::string host = pool_host_name(args.host_name, rank);
    const std::string merged = args.db.empty() ? plan.db_path : args.db;

    // Rank 0 serves the live API for the whole pool; the others send it their summaries.
    std::unique_ptr<LiveApi> api;
    std::string api_problem;
    if (rank == 0 && args.listen != "off") {
        LiveApiOptions lo;
        lo.listen = args.listen;
        lo.token = args.token;
        lo.plan_json = core::json_text(core::plan_json(plan));
        try {
            api = std::make_unique<LiveApi>(lo);  // bound before anything starts, as a single host's
        } catch (const InputError& e) {
            api_problem = std::string("pool: rank 0's live API: ") + e.what();
        }
    }
    if (rank == 0 && api_problem.empty() && args.rank0_check) api_problem = args.rank0_check();
    PoolView view = pool_startup(comm, plan, host, merged, api_problem);  // throws InputError alike on every rank
    if (api) {
        if (!api->note().empty()) say(args, rank, "live API: " + api->note());
        say(args, rank, "live API for the whole pool on " + api->url() + " (watch it: seatmark monitor " + api->url() + ")");
    }
    if (rank == 0)
        for (size_t k = 0; k < view.members.size(); ++k)
            say(args, rank, "host " + view.members[k].host + " (rank " + std::to_string(k) + "): clock offset " +
                                std::to_string(view.members[k].offset_ns) + " ns +- " +
                                std::to_string(view.members[k].uncertainty_ns) + " ns");

    const double sync = plan.pool.sync_timeout_s;
    MpiCoordinator coordinator(comm, view, [&plan, sync](SyncPoint p) {
        switch (p) {
            case SyncPoint::settle: return sync + 2 * plan.heartbeat_timeout_s + 10;  // others still starting sessions
            case SyncPoint::window_open: return sync + plan.settle_s;
            case SyncPoint::window_close: return sync + plan.window_s;  // a host that decided early waits out the window
        }
        return sync;
    });
    SharePlanner planner(comm, view, plan);
    PoolRunInfo info;
    info.host_name = host;
    info.rank = rank;
    info.pool_id = view.pool_id;
    info.other_hosts = [&view, rank] { return other_host_rows(view, rank); };
    info.host_lost = [&view] { return view.any_lost(); };
    info.step_hosts = [&planner](size_t index) { return planner.step_hosts(index); };

    PoolLiveHub hub(api.get(), comm, view, [&planner](size_t i) { return planner.step_pool_verdict(i); },
                    [&planner](size_t i) { return planner.step_total(i); });
    if (rank == 0) planner.on_voted([&hub](size_t i) { hub.voted(i); });
    PoolLiveRelay relay(comm);

    RunOptions o;
    o.live = rank == 0 ? static_cast<LiveObserver*>(&hub) : &relay;
    o.db_path = host_db_path(merged, host);
    o.quiet = args.quiet || rank != 0;
    o.coordinator = &coordinator;
    o.planner = &planner;
    o.pool = &info;
    o.extra_session_args = args.extra_session_args;
    o.session_exe = args.session_exe;
    RunOutcome r = run_plan(plan, o);
    if (args.outcome) *args.outcome = r;
    say(args, rank, "run " + r.status + "; database " + r.db_path);

    // The databases travel to rank 0 and are merged there; a lost host's is left on its disk.
    // The hosts end their runs (stop sessions, wait for their last telemetry) each at its own
    // pace, so the first exchange waits as long as the vote does for a host still judging.
    const double end_skew = sync + plan.heartbeat_timeout_s + 5;
    int rc = r.status == "finished" ? exit_code::ok : exit_code::failure;
    if (r.status == "aborted") {
        // Stopped by a signal (the launcher ending the job) or a failed database: no transfer,
        // the other ranks may be gone already. The file is complete up to the stop.
        say(args, rank, "this host's database stays at " + r.db_path +
                            "; merge the hosts' files with `seatmark merge` (a host whose file is not given is reported "
                            "lost; a killed host's own file is read as lost where it ends)");
        say_merge(rank, merged, every_host_file(merged, view), size > 1);
        if (rank == 0 && args.rank0_end) args.rank0_end(r.db_path, false);
        std::fflush(nullptr);
        comm.abandon();
        ::_exit(rc);
    }
    if (view.members[0].lost) {
        say(args, rank, "rank 0 was lost: this host's database stays at " + r.db_path +
                            "; merge the hosts' files with `seatmark merge`");
        say_merge(rank, merged, every_host_file(merged, view), true);
    } else if (rank != 0) {
        const std::string problem = send_database(comm, r.db_path, end_skew, sync);
        if (!problem.empty())
            say(args, rank, "this host's database did not reach rank 0: " + problem + "; it stays at " + r.db_path +
                                "; merge it with `seatmark merge`");
        wait_bye(comm, sync + 60);
        if (!problem.empty()) {
            // A send left unfinished would hold MPI_Finalize: the file is saved, end here.
            std::fflush(nullptr);
            comm.abandon();
            ::_exit(exit_code::failure);
        }
    } else {
        std::vector<std::string> files = {r.db_path};
        const std::string parts = merged + ".hosts";
        fs::create_directories(parts);
        std::vector<IncomingDatabase> in;
        for (int k = 1; k < size; ++k)
            if (!view.members[static_cast<size_t>(k)].lost)
                in.push_back({k, fs::path(parts) / (view.members[static_cast<size_t>(k)].host + ".db"), ""});
        receive_databases(comm, in, end_skew, sync);
        store::MergeOptions mo;
        for (const auto& d : in) {
            const std::string& h = view.members[static_cast<size_t>(d.from)].host;
            if (d.problem.empty()) {
                files.push_back(d.path);
                continue;
            }
            mo.missing_detail[h] = "its database did not reach rank 0 (" + d.problem + "); " + h + " keeps it at " +
                                   host_db_path(merged, h) + " for a later `seatmark merge`";
            say(args, rank, h + "'s database did not arrive: " + d.problem + "; the merge goes on without it (" + h +
                                " keeps its file, " + host_db_path(merged, h) + " on that host: `seatmark merge` it later)");
        }
        hub.drain_all(now_ns() + 2'000'000'000);  // the ranks' last summaries: none is left unreceived at MPI_Finalize
        mo.overwrite = true;
        if (!args.quiet) mo.progress = [&](const std::string& line) { say(args, rank, line); };
        store::MergeResult m = store::merge_databases(merged, files, mo);
        say(args, rank, "merged " + std::to_string(m.hosts.size()) + " host(s) into " + merged + ": run " +
                            store::describe(m.status));
        for (int k = 1; k < size; ++k)
            if (!view.members[static_cast<size_t>(k)].lost) {
                const char b = 1;
                comm.send(k, tag_bye, &b, 1, now_ns() + 5'000'000'000);
            }
        const auto scaling = store::StoreReader(merged).scaling();
        auto efficiency = [](const store::ScalingRow& s) {
            char b[32];
            if (s.efficiency) std::snprintf(b, sizeof b, "%.3f", *s.efficiency);
            else std::snprintf(b, sizeof b, "null");
            return std::string(b);
        };
        if (args.json) {
            std::string rows;
            for (const auto& s : scaling)
                rows += std::string(rows.empty() ? "" : ", ") + "{\"hosts\": " + std::to_string(s.hosts) +
                        ", \"max_sessions\": " + std::to_string(s.max_sessions) + ", \"efficiency\": " + efficiency(s) + "}";
            std::printf("{\"db\": \"%s\", \"status\": \"%s\", \"hosts\": %zu, \"scaling\": [%s]}\n", merged.c_str(),
                        std::string(store::to_string(m.status)).c_str(), m.hosts.size(), rows.c_str());
        } else {
            std::printf("pool run %s on %zu host(s); max density %lld sessions; database %s\n",
                        std::string(store::to_string(m.status)).c_str(), m.hosts.size(),
                        static_cast<long long>(m.max_density.value_or(0)), merged.c_str());
            std::printf("%s", store::pool_table(store::StoreReader(merged)).c_str());
        }
        if (m.status != store::RunStatus::finished) rc = exit_code::failure;
        // A lost host's own file, or one that did not arrive, stays on its host: merging it
        // too judges the steps it ran (and dates its loss by where its file ends).
        std::vector<std::string> again = files;
        for (const store::MergedHost& h : m.hosts)
            if (h.file.empty()) again.push_back(host_db_path(merged, h.hostname));
        if (again.size() > files.size()) say_merge(rank, merged, again, true);
        if (args.rank0_end) args.rank0_end(merged, true);  // after the merge: the pool's records, every host's
    }
    if (view.any_lost()) {
        // MPI_Finalize would wait for the lost rank forever: the work is saved, end here.
        std::fflush(nullptr);
        comm.abandon();
        ::_exit(rc);
    }
    return rc;
}

}  // namespace seatmark::orchestrator
