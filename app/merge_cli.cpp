#include "app/merge_cli.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/exit_codes.h"
#include "store/merge.h"
#include "store/pool_table.h"
#include "store/store_reader.h"

namespace seatmark::app {

namespace {

struct MergeArgs {
    std::string out;
    std::vector<std::string> inputs;
    bool force = false, quiet = false;
};

}  // namespace

void add_merge_command(CLI::App& app, std::function<int()>& run) {
    auto a = std::make_shared<MergeArgs>();
    auto* cmd = app.add_subcommand("merge", "Merge the host databases of one pool run into one run database");
    cmd->add_option("out", a->out, "Merged database to create (must not exist unless --force)")->required();
    cmd->add_option("inputs", a->inputs, "Host databases of one pool run (one per host)")->required();
    cmd->add_flag("--force", a->force, "Replace OUT if it exists");
    cmd->add_flag("--quiet,-q", a->quiet, "No progress lines");
    cmd->footer(
        "Example (after a pool run whose ranks wrote node1.db, node2.db, node3.db on their own disks):\n"
        "  seatmark merge pool.db node1.db node2.db node3.db && seatmark report pool.db\n"
        "`seatmark run` under mpirun merges at its end by itself; merge afterwards for a run that died\n"
        "(give the survivors' files) or files copied by hand. Time stamps are moved into rank 0's time\n"
        "base with the clock offsets the run measured; every row keeps its host.\n" + exit_code::help_text());
    cmd->callback([&run, a] {
        run = [a]() -> int {
            store::MergeOptions o;
            o.overwrite = a->force;
            if (!a->quiet) o.progress = [](const std::string& line) { std::fprintf(stderr, "seatmark merge: %s\n", line.c_str()); };
            store::MergeResult r = store::merge_databases(a->out, a->inputs, o);
            std::printf("merged %zu host(s) into %s (time base: %s); run %s", r.hosts.size(), a->out.c_str(),
                        r.reference.c_str(), store::describe(r.status).c_str());
            if (r.max_density) std::printf(", pool max density %lld sessions", static_cast<long long>(*r.max_density));
            std::printf("\n");
            for (const store::MergedHost& h : r.hosts) {
                std::printf("  %-20s %s", h.hostname.c_str(), h.lost ? "LOST " : "");
                if (h.file.empty()) {
                    std::printf("(no database given)\n");
                    continue;
                }
                std::printf("%lld sessions, %lld frames, %lld samples, %lld events; clock offset %s",
                            static_cast<long long>(h.sessions), static_cast<long long>(h.frames),
                            static_cast<long long>(h.samples), static_cast<long long>(h.events),
                            h.offset_known ? (std::to_string(h.clock_offset_ns) + " ns").c_str() : "not recorded (stamps kept)");
                if (h.session_id_shift) std::printf("; session numbers +%lld", static_cast<long long>(h.session_id_shift));
                std::printf("\n");
            }
            if (r.pool_verdicts_combined)
                std::printf("pool verdicts combined from the hosts' own (medians and fairness: see seatmark report)\n");
            std::printf("%s", store::pool_table(store::StoreReader(a->out)).c_str());
            return exit_code::ok;
        };
    });
}

}  // namespace seatmark::app
