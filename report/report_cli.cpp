#include "report/report_cli.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "common/errors.h"
#include "common/exit_codes.h"
#include "common/output_file.h"
#include "report/analysis.h"
#include "report/check.h"
#include "report/compare.h"
#include "report/references.h"
#include "report/write_report.h"
#include "report/words.h"

namespace seatmark::report {

namespace {

// Progress on stderr while frames are read: a rewritten line on a terminal, a line per
// quarter otherwise, nothing for small files or with --quiet.
AnalyzeOptions progress_options(bool quiet, const std::string& label) {
    AnalyzeOptions o;
    if (quiet) return o;
    const bool tty = isatty(STDERR_FILENO);
    auto last = std::make_shared<int>(-1);
    o.progress = [tty, last, label](uint64_t done, uint64_t total) {
        if (total < 500000) return;
        int pct = total ? int(100.0 * double(done) / double(total)) : 100;
        if (tty) {
            std::fprintf(stderr, "\r%s: reading frames %3d %% (%.1fM of %.1fM)%s", label.c_str(), pct, double(done) / 1e6,
                         double(total) / 1e6, done >= total ? "\n" : "");
        } else if (pct / 25 != *last / 25 || (done >= total && *last != 100)) {
            std::fprintf(stderr, "%s: reading frames %d %% (%.1fM of %.1fM)\n", label.c_str(), pct, double(done) / 1e6,
                         double(total) / 1e6);
        }
        *last = pct;
    };
    return o;
}

}  // namespace

void add_report_commands(CLI::App& app, std::function<int()>& run) {
    // ---- report
    struct ReportArgs {
        std::string db, out;
        bool quiet = false;
    };
    auto r = std::make_shared<ReportArgs>();
    auto* rep = app.add_subcommand("report", "Density report of a run: HTML with charts, Markdown, CSV and JSON");
    rep->add_option("db", r->db, "Run database (written by seatmark run or demo)")->required();
    rep->add_option("--out,-o", r->out, "Folder for the report (default: the database's name without .db + -report)");
    rep->add_flag("--quiet,-q", r->quiet, "Print only the output paths");
    rep->footer(
        "Example:\n"
        "  seatmark report host42.db            # writes host42-report/index.html, summary.md, steps.csv,\n"
        "                                       #   sessions.csv, report.json\n"
        "The HTML is one self-contained file (inline SVG and CSS, no script, no network): open it from disk.\n"
        "Verdicts are recomputed from the frames with the orchestrator's own judge.\n" + exit_code::help_text());
    rep->callback([&run, r] {
        run = [r]() -> int {
            auto t0 = std::chrono::steady_clock::now();
            RunAnalysis a = analyze(r->db, progress_options(r->quiet, "seatmark report"));
            std::string dir = r->out.empty() ? default_report_dir(r->db) : r->out;
            auto paths = write_report(a, dir);
            double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (!r->quiet) {
                Headline h = headline(a);
                std::printf("max density: %s (SLA: %s)\n", h.density.c_str(), h.sla.c_str());
                std::printf("knee: %s\n", h.knee.c_str());
                std::printf("run: %s; %s\n", h.status.c_str(), h.measured.c_str());
                for (const auto& w : h.warnings) std::printf("warning: %s\n", w.c_str());
                std::printf("report written in %.2f s:\n", s);
            }
            for (const auto& p : paths) std::printf("  %s\n", p.c_str());
            return exit_code::ok;
        };
    });

    // ---- check
    struct CheckArgs {
        std::string db, refs, junit;
        bool quiet = false;
    };
    auto c = std::make_shared<CheckArgs>();
    auto* chk = app.add_subcommand("check", "Check a run against reference values with tolerances (exit 1 when any fails)");
    chk->add_option("db", c->db, "Run database")->required();
    chk->add_option("--references,-r", c->refs, "References (TOML); see report/examples/references.toml")->required();
    chk->add_option("--junit", c->junit, "Also write the results as JUnit XML to this file");
    chk->add_flag("--quiet,-q", c->quiet, "No progress while reading frames");
    chk->footer(
        "Example:\n"
        "  seatmark check host42.db --references refs/rtx-pro-6000.toml --junit check.xml\n"
        "A reference is a value with lower and upper fractions, as ReFrame keeps them:\n"
        "  [[reference]]\n"
        "  host = \"*\"          # every host must pass; or a host's name; or \"pool\" (the pool as a whole)\n"
        "  profile = \"*\"       # or a workload profile\n"
        "  step = \"max\"        # or a session count, e.g. 8\n"
        "  max_density = { value = 6, lower = 0, upper = \"inf\", unit = \"sessions\" }\n"
        "  p95_ms = [18.0, \"-inf\", 0.10, \"ms\"]   # at most 10 % above 18 ms\n"
        "A pool run (seatmark merge) gates the pool, e.g. E(4) >= 0.9 (report/examples/pool-references.toml):\n"
        "  [[reference]]\n"
        "  host = \"pool\"\n"
        "  hosts = 4\n"
        "  scaling_efficiency = [0.9, 0, \"inf\", \"ratio\"]\n"
        + exit_code::help_text());
    chk->callback([&run, c] {
        run = [c]() -> int {
            References refs = load_references(c->refs);  // bad references: exit 2 before any reading
            if (!c->junit.empty()) check_output_path(c->junit, "--junit", {c->db, c->refs});
            RunAnalysis a = analyze(c->db, progress_options(c->quiet, "seatmark check"));
            CheckReport rep = run_check(a, refs);
            std::printf("%s", check_table(rep).c_str());
            if (!c->junit.empty()) {
                write_output_file(c->junit, junit_xml(rep), "--junit");
                std::printf("JUnit XML: %s\n", c->junit.c_str());
            }
            return rep.passed() ? exit_code::ok : exit_code::failure;
        };
    });

    // ---- compare
    struct CompareArgs {
        std::string a, b;
        bool json = false, quiet = false;
    };
    auto m = std::make_shared<CompareArgs>();
    auto* cmp = app.add_subcommand("compare", "Two runs side by side, per step, with differences");
    cmp->add_option("a", m->a, "First run database (A)")->required();
    cmp->add_option("b", m->b, "Second run database (B)")->required();
    cmp->add_flag("--json", m->json, "Print JSON instead of a table");
    cmp->add_flag("--quiet,-q", m->quiet, "No progress while reading frames");
    cmp->footer(
        "Example:\n"
        "  seatmark compare old-image.db new-image.db\n"
        "Steps are matched by session count; differences are B - A, absolute and in % of A.\n"
        "Pool runs: the pool's steps, then each host's own steps (hosts paired in rank order).\n" + exit_code::help_text());
    cmp->callback([&run, m] {
        run = [m]() -> int {
            RunAnalysis a = analyze(m->a, progress_options(m->quiet, "seatmark compare (A)"));
            RunAnalysis b = analyze(m->b, progress_options(m->quiet, "seatmark compare (B)"));
            if (m->json) std::printf("%s\n", compare_json(a, b).dump(2).c_str());
            else std::printf("%s", compare_text(a, b).c_str());
            return exit_code::ok;
        };
    });
}

}  // namespace seatmark::report
