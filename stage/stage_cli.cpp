#include "stage/stage_cli.h"

#include <memory>

#include "stage/stage_run.h"
#include "common/exit_codes.h"

namespace seatmark::stage {

void add_stage_command(CLI::App& app, std::function<int()>& run) {
    auto opt = std::make_shared<StageOptions>();
    auto* cmd = app.add_subcommand("stage", "copy workload assets to every host's local disk over MPI (one reader, one writer per host)");
    cmd->add_option("--source", opt->sources, "file or directory tree to stage (repeatable)");
    cmd->add_option("--manifest", opt->manifests, "file listing one source path a line (repeatable)");
    cmd->add_option("--dest", opt->dest, "destination directory; {host} and {rank} are expanded ({rank}: every rank writes its own copy)")->required();
    cmd->add_option("--verify", opt->verify, "pre-check deciding whether a host already holds a file")->check(CLI::IsMember({"size", "checksum"}))->capture_default_str();
    cmd->add_flag("--post-verify", opt->post_verify, "re-read each copy and compare its XXH3 with the source before renaming it into place");
    cmd->add_flag("--buffered", opt->buffered, "write through the page cache instead of O_DIRECT (file systems that refuse O_DIRECT get this anyway)");
    cmd->add_option("--chunk", opt->chunk, "broadcast chunk size, a multiple of 4K (K, M, G suffixes)")->capture_default_str();
    cmd->add_option("--buffers", opt->buffers, "chunks in flight (2: double, 3: triple buffering)")->check(CLI::Range(2, 16))->capture_default_str();
    cmd->add_option("--json", opt->json_path, "write the summary (timings, bytes, copies written, failures, each file's XXH3 for run.assets) as JSON");
    cmd->add_flag("--quiet", opt->quiet, "no progress lines");
    cmd->footer("Example: mpirun -np 4 --map-by ppr:1:node seatmark stage --source assets/ --dest /scratch/seatmark --verify checksum --post-verify\n"
                "Without mpirun it stages locally as one process.\n" + exit_code::help_text());
    cmd->callback([&run, opt] { run = [opt] { return run_stage(*opt); }; });
}

}  // namespace seatmark::stage
