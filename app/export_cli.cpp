#include "app/export_cli.h"

#include <cinttypes>
#include <stdexcept>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "common/errors.h"
#include "common/exit_codes.h"
#include "store/store_reader.h"

namespace seatmark::app {

namespace {

struct ExportArgs {
    std::string db;
    std::optional<int> session;
    bool csv = false;
};

int export_frames(const ExportArgs& a) {
    store::StoreReader r(a.db);
    std::vector<int> ids;
    for (const store::SessionRow& s : r.sessions())
        if (!a.session || s.id == *a.session) ids.push_back(s.id);
    if (a.session && ids.empty())
        throw InputError(a.db + ": no session " + std::to_string(*a.session) +
                         " in this run (see: seatmark report " + a.db + ", or export without --session)");
    const char sep = a.csv ? ',' : '\t';
    std::printf("session_id%cseq%ct_begin_ns%ccpu_ns%cgpu_ns%cinterval_ns%clatency_ns%cstretch%cmode%cflags%c"
                "begin_interval_ns%ct_present_ns\n",
                sep, sep, sep, sep, sep, sep, sep, sep, sep, sep, sep);
    for (int id : ids) {
        for (const FrameRecord& f : r.frames(id))
            std::printf("%d%c%" PRIu64 "%c%" PRId64 "%c%" PRId64 "%c%" PRId64 "%c%" PRId64 "%c%" PRId64 "%c%" PRIu32
                        "%c%u%c%u%c%" PRId64 "%c%" PRId64 "\n",
                        id, sep, f.seq, sep, f.t_begin_ns, sep, f.cpu_ns, sep, f.gpu_ns, sep, f.interval_ns, sep,
                        f.latency_ns, sep, f.stretch, sep, unsigned(f.mode), sep, unsigned(f.flags), sep,
                        f.begin_interval_ns, sep, f.t_present_ns);
    }
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw std::runtime_error("writing the frames to stdout failed (a full disk or a closed pipe?)");
    return exit_code::ok;
}

}  // namespace

void add_export_command(CLI::App& app, std::function<int()>& run) {
    auto* cmd = app.add_subcommand("export", "Print rows of a run database as text (frames: decoded from their blocks)");
    cmd->require_subcommand(1);
    cmd->footer("Example:\n  seatmark export frames run.db --csv > frames.csv");
    auto a = std::make_shared<ExportArgs>();
    auto* frames = cmd->add_subcommand("frames", "Print every frame of a run database, one line each, by session and seq");
    frames->add_option("db", a->db, "Run database (any schema seatmark reads: 2 to 4)")->required();
    frames->add_option("--session", a->session, "Only this session (sessions.id)");
    frames->add_flag("--csv", a->csv, "Comma-separated (default: tab-separated); both with a header line");
    frames->footer(
        "Columns: session_id seq t_begin_ns cpu_ns gpu_ns interval_ns latency_ns stretch mode flags\n"
        "begin_interval_ns t_present_ns (docs/store.md defines each; times in the file's monotonic base).\n"
        "Plain SQL reads them too with the extension: sqlite3 run.db -cmd '.load libseatmark_sqlite' (docs/store.md).\n"
        "Example:\n"
        "  seatmark export frames run.db --session 3 --csv > s3.csv\n"
        "  seatmark export frames run.db | sqlite3 -cmd '.mode tabs' -cmd '.import /dev/stdin frames' x.db\n" +
        exit_code::help_text());
    frames->callback([&run, a] { run = [a] { return export_frames(*a); }; });
}

}  // namespace seatmark::app
