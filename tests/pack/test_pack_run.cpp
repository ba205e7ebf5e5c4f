// A pack in a density run: the profile's model becomes an asset checked before any session,
// each session's model open time is stored, and a plan's SLA can bound it.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "model_checks.h"
#include "store/store_reader.h"
#include "tests/support/run_db.h"

using namespace seatmark;
using namespace seatmark::test;
using seatmark::test::q;

namespace {

std::string all_output(const ProcessResult& r) { return "stdout:\n" + r.out + "\nstderr:\n" + r.err; }

// A profile drawing model.smpack (relative to the profile) and a two-step plan using it.
void write_run(const TempDir& dir, const std::string& sla, const std::string& run_extra = "") {
    write_file(dir.file("own.toml"), "name = \"own-model\"\nduration = \"30s\"\n[scene]\nmodel = \"model.smpack\"\n"
                                     "[render]\nwidth = 160\nheight = 120\n"
                                     "[[script.segment]]\nkind = \"orbit\"\nduration = \"1s\"\n"
                                     "[[script.segment]]\nkind = \"mode\"\nto = \"hidden-line\"\n"
                                     "[[script.segment]]\nkind = \"section-sweep\"\nduration = \"1s\"\n"
                                     "[[script.segment]]\nkind = \"select\"\n");
    write_file(dir.file("plan.toml"), "name = \"own\"\n[run]\nallow_software = true\nstop = \"max\"\n" + run_extra +
                                          "\n[steps]\nlist = [1, 2]\nsettle = \"1s\"\nwindow = \"2s\"\n"
                                          "[[mix]]\nprofile = \"own.toml\"\n[sla]\np95_interval_ms = 100000\nlow1_fps = 0\n"
                                          "latency_p95_ms = 100000\nstutter_pct = 100\n" + sla);
}

}  // namespace

TEST_CASE("sessions of a run open the profile's pack, store their model open time, and the SLA can bound it") {
    TempDir dir;
    REQUIRE(pack_json({models + "STL/Spider_binary.stl", "--out", dir.file("model.smpack")}).is_object());
    write_run(dir, "model_open_ms = 600000\n");
    auto r = run_process(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("a.db")}), 240);
    INFO(all_output(r));
    REQUIRE(r.exit_code == 0);
    {
        store::StoreReader db(dir.file("a.db"));
        auto sessions = db.sessions();
        REQUIRE(sessions.size() == 2);
        for (const auto& s : sessions) {
            REQUIRE(s.model_open_ms.has_value());
            CHECK(*s.model_open_ms > 0);
            CHECK(*s.model_open_ms < 60000);
        }
        for (const auto& s : db.steps()) CHECK(s.verdict == "pass");
        // The model-open event, as the monitor and the live API show it, says its unit: the
        // session's figure to 0.1 ms, then what it measures (it was the bare "346.710").
        for (const auto& s : sessions) {
            const std::string detail =
                q(dir.file("a.db"), "SELECT detail FROM events WHERE kind = 'session-model-open' AND session_id = " + std::to_string(s.id));
            INFO(detail);
            const auto unit = detail.find(" ms from session start to the first frame showing its scene");
            REQUIRE(unit != std::string::npos);
            CHECK(unit + std::strlen(" ms from session start to the first frame showing its scene") == detail.size());
            CHECK(std::abs(std::stod(detail.substr(0, unit)) - *s.model_open_ms) < 0.06);
        }
    }
    // A bound no session can meet fails the first step, naming the figure.
    write_run(dir, "model_open_ms = 0.001\n");
    r = run_process(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("b.db")}), 240);
    INFO(all_output(r));
    store::StoreReader db(dir.file("b.db"));
    auto steps = db.steps();
    REQUIRE(!steps.empty());
    CHECK(steps[0].verdict == "fail");
    CHECK((steps[0].detail + r.out).find("model open") != std::string::npos);
}

TEST_CASE("a damaged pack named by a profile stops the run before any session starts") {
    TempDir dir;
    REQUIRE(pack_json({models + "STL/Spider_binary.stl", "--out", dir.file("model.smpack")}).is_object());
    auto b = read_file(dir.file("model.smpack"));
    b[b.size() - 3] ^= 4;
    write_file(dir.file("model.smpack"), b);
    write_run(dir, "");
    auto r = run_process(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("a.db")}), 120);
    INFO(all_output(r));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("own.toml [scene] model") != std::string::npos);
    CHECK(r.err.find("payload checksum mismatch") != std::string::npos);
}

TEST_CASE("seatmark stage --json output fed to the plan checks the staged copies") {
    TempDir dir;
    REQUIRE(pack_json({models + "STL/Spider_binary.stl", "--out", dir.file("model.smpack")}).is_object());
    const std::string size = std::to_string(read_file(dir.file("model.smpack")).size());
    write_file(dir.file("stage.json"), "{\"ok\": true, \"files\": [{\"path\": \"model.smpack\", \"size\": " + size + "}]}");
    write_run(dir, "", "stage_json = \"stage.json\"\nstage_dest = \"" + dir.path + "\"\n");
    auto r = run_process(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("a.db")}), 240);
    INFO(all_output(r));
    CHECK(r.exit_code == 0);
    write_file(dir.file("stage.json"), "{\"ok\": true, \"files\": [{\"path\": \"model.smpack\", \"size\": 12}]}");
    r = run_process(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("b.db")}), 120);
    INFO(all_output(r));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("stage.json") != std::string::npos);
    CHECK(r.err.find("the plan says 12") != std::string::npos);
}
