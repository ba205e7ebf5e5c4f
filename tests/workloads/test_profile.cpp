// Profiles: the built-in ones parse, and every kind of bad profile is an InputError
// naming the file, the line and what was expected.
#include <doctest/doctest.h>

#include "tests/support/input_error.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <unistd.h>

#include "common/errors.h"
#include "workloads/profile.h"
#include "workloads/script.h"

using namespace seatmark;
using namespace seatmark::workloads;

namespace {

using test::contains;
using test::error_of;

// A valid [script] to append after the lines a case is about (so their line numbers stay put).
const std::string valid_script = "[script]\n[[script.segment]]\nkind = \"orbit\"\nduration = \"1s\"\n";

}  // namespace

TEST_CASE("profile: every built-in profile parses and is named after its file") {
    std::vector<std::string> names = builtin_profile_names();
    for (const char* expected : {"ci-tiny", "designer-medium", "power-heavy", "viewer-light"})
        CHECK(std::find(names.begin(), names.end(), expected) != names.end());
    for (const std::string& name : names) {
        INFO("profile ", name);
        CHECK_FALSE(builtin_profile_text(name).empty());
        Profile p = load_profile(name);
        CHECK(p.name == name);
        CHECK(p.source == "built-in workloads/profiles/" + name + ".toml");
        CHECK_FALSE(p.description.empty());
        CHECK(p.default_duration_s > 0);
        CHECK(std::any_of(p.script.segments.begin(), p.script.segments.end(),
                          [](const Segment& s) { return is_active(s.kind); }));
        // Every built-in uses orbit, pan, zoom, a mode switch, select and think.
        std::set<SegmentKind> kinds;
        for (const Segment& s : p.script.segments) kinds.insert(s.kind);
        for (SegmentKind k : {SegmentKind::orbit, SegmentKind::pan, SegmentKind::zoom, SegmentKind::mode,
                              SegmentKind::select, SegmentKind::think})
            CHECK(kinds.count(k) == 1);
        // A default-length session lays out without surprises.
        Timeline tl(p.script, p.default_duration_s, p.scene.seed);
        CHECK(tl.active_s() > 0);
        CHECK(tl.end_s() == doctest::Approx(p.default_duration_s));
    }
    CHECK(builtin_profile_text("no-such-profile").empty());
}

TEST_CASE("profile: built-in classes keep their sizes") {
    Profile ci = load_profile("ci-tiny");
    CHECK(ci.default_duration_s == 5);
    CHECK(ci.render.width == 480);
    CHECK(ci.render.height == 360);
    CHECK(ci.render.msaa == 1);
    CHECK(ci.scene.triangles <= 20000);
    // ci-tiny exercises every segment kind and every display mode.
    std::set<SegmentKind> kinds;
    std::set<DisplayMode> modes = {ci.render.mode};
    for (const Segment& s : ci.script.segments) {
        kinds.insert(s.kind);
        if (s.kind == SegmentKind::mode) modes.insert(s.to);
    }
    CHECK(kinds.size() == 7);
    CHECK(modes.size() == static_cast<size_t>(display_mode_count));
    // It loops at least once within its default duration.
    Timeline tl(ci.script, ci.default_duration_s, ci.scene.seed);
    CHECK(tl.schedule().back().iteration >= 1);

    Profile heavy = load_profile("power-heavy");
    CHECK(heavy.render.msaa == 8);
    CHECK(heavy.render.frame_cap_hz == 0);
    CHECK(heavy.scene.triangles >= 1'000'000);
    Profile light = load_profile("viewer-light");
    CHECK(light.render.frame_cap_hz == 30);
    Profile medium = load_profile("designer-medium");
    CHECK(medium.scene.triangles > light.scene.triangles);
    CHECK(heavy.scene.triangles > medium.scene.triangles);
}

TEST_CASE("profile: a full profile fills every field") {
    const char* text = R"(name = "mine"
description = "test"
duration = "1m30s"
[scene]
seed = 9
triangles = 123456
[render]
width = 800
height = 600
msaa = 8
mode = "wireframe"
frame_cap_hz = 59.94
[script]
loop = false
input_rate_hz = 500
[[script.segment]]
kind = "orbit"
duration = "2s"
rate = -45
[[script.segment]]
kind = "mode"
to = "hidden-line"
[[script.segment]]
kind = "think"
duration = 1.5
jitter = 0.25
[[script.segment]]
kind = "select"
[[script.segment]]
kind = "zoom"
duration = "500ms"
[[script.segment]]
kind = "section-sweep"
duration = "1s"
rate = 0.5
[[script.segment]]
kind = "pan"
duration = "1s"
rate = -2
)";
    Profile p = parse_profile(text, "mine.toml");
    CHECK(p.name == "mine");
    CHECK(p.description == "test");
    CHECK(p.source == "mine.toml");
    CHECK(p.default_duration_s == 90);
    CHECK(p.scene.seed == 9);
    CHECK(p.scene.triangles == 123456);
    CHECK(p.render.width == 800);
    CHECK(p.render.height == 600);
    CHECK(p.render.msaa == 8);
    CHECK(p.render.mode == DisplayMode::wireframe);
    CHECK(p.render.frame_cap_hz == doctest::Approx(59.94));
    CHECK(p.script.loop == false);
    CHECK(p.script.input_rate_hz == 500);
    REQUIRE(p.script.segments.size() == 7);
    const auto& s = p.script.segments;
    CHECK(s[0].kind == SegmentKind::orbit);
    CHECK(s[0].duration_s == 2);
    CHECK(s[0].rate == -45);
    CHECK(s[0].line == 16);
    CHECK(s[1].kind == SegmentKind::mode);
    CHECK(s[1].to == DisplayMode::hidden_line);
    CHECK(s[1].duration_s == 0);
    CHECK(s[2].kind == SegmentKind::think);
    CHECK(s[2].duration_s == 1.5);
    CHECK(s[2].jitter == 0.25);
    CHECK(s[3].kind == SegmentKind::select);
    CHECK(s[4].kind == SegmentKind::zoom);
    CHECK(s[4].duration_s == 0.5);
    CHECK(s[4].rate == 1.25);  // the default zoom rate
    CHECK(s[5].kind == SegmentKind::section_sweep);
    CHECK(s[5].rate == 0.5);
    CHECK(s[6].kind == SegmentKind::pan);
    CHECK(s[6].line == 36);
}

TEST_CASE("profile: defaults for what a minimal profile leaves out") {
    Profile p = parse_profile("name = \"min\"\n" + valid_script, "min.toml");
    CHECK(p.default_duration_s == 30);
    CHECK(p.scene.seed == 1);
    CHECK(p.scene.triangles == 20000);
    CHECK(p.render.width == 640);
    CHECK(p.render.height == 480);
    CHECK(p.render.msaa == 4);
    CHECK(p.render.mode == DisplayMode::shaded_edges);
    CHECK(p.render.frame_cap_hz == 0);
    CHECK(p.script.loop);
    CHECK(p.script.input_rate_hz == 125);
    REQUIRE(p.script.segments.size() == 1);
    CHECK(p.script.segments[0].rate == 30);  // the default orbit rate
}

TEST_CASE("profile: names of modes and kinds round-trip") {
    for (int i = 0; i < display_mode_count; ++i) {
        auto m = static_cast<DisplayMode>(i);
        DisplayMode back = DisplayMode::shaded;
        CHECK(parse_display_mode(to_string(m), back));
        CHECK(back == m);
    }
    DisplayMode m;
    CHECK_FALSE(parse_display_mode("xray", m));
    for (auto k : {SegmentKind::orbit, SegmentKind::pan, SegmentKind::zoom, SegmentKind::section_sweep,
                   SegmentKind::mode, SegmentKind::select, SegmentKind::think}) {
        SegmentKind back = SegmentKind::think;
        CHECK(parse_segment_kind(to_string(k), back));
        CHECK(back == k);
        CHECK(is_active(k) + is_instant(k) + (k == SegmentKind::think) == 1);
    }
    CHECK(to_string(SegmentKind::section_sweep) == "section-sweep");
    CHECK(to_string(DisplayMode::shaded_edges) == "shaded-edges");
}

TEST_CASE("profile: bad profiles are InputErrors with file, line and expectation") {
    struct Case {
        const char* what;
        std::string text;
        int line;
        const char* expect;
    };
    const std::string seg = "[script]\n[[script.segment]]\n";  // lines 2 and 3 after a name line
    const Case cases[] = {
        {"malformed TOML", "name = \"x\"\n[render\nwidth = 320\n", 2, "TOML syntax error"},
        {"unknown key at the top", "name = \"x\"\ndurration = \"5s\"\n" + valid_script, 2,
         "unknown key 'durration' (did you mean 'duration'?)"},
        {"unknown key in a section", "name = \"x\"\n[render]\nwidth = 320\nmssa = 4\n" + valid_script, 4,
         "unknown key 'render.mssa' (did you mean 'msaa'?); [render] accepts: width, height, msaa, mode, frame_cap_hz"},
        {"unknown key in a segment",
         "name = \"x\"\n" + seg + "kind = \"orbit\"\nduration = \"1s\"\nspeed = 3\n", 6,
         "unknown key 'script.segment[0].speed'; script.segment[0] accepts: kind, duration, rate, jitter, to"},
        {"unknown section", "name = \"x\"\n[scenery]\nseed = 1\n" + valid_script, 2, "unknown key 'scenery'"},
        {"msaa 3", "name = \"x\"\n[render]\nmsaa = 3\n" + valid_script, 3,
         "key 'render.msaa': expected one of 1, 2, 4, 8, 16, 32, 64, got 3"},
        {"msaa as a string", "name = \"x\"\n[render]\nmsaa = \"4\"\n" + valid_script, 3, "got \"4\""},
        {"width 0", "name = \"x\"\n[render]\nwidth = 0\n" + valid_script, 3,
         "key 'render.width': expected an integer from 16 to 32768, got 0"},
        {"height too large", "name = \"x\"\n[render]\nheight = 40000\n" + valid_script, 3, "from 16 to 32768"},
        {"frame cap too high", "name = \"x\"\n[render]\nframe_cap_hz = 2000\n" + valid_script, 3,
         "expected a number in [0, 1000], got 2000"},
        {"unknown display mode", "name = \"x\"\n[render]\nmode = \"xray\"\n" + valid_script, 3,
         "expected one of \"shaded\", \"shaded-edges\", \"wireframe\", \"hidden-line\", \"section\", \"selection\", got \"xray\""},
        {"too few triangles", "name = \"x\"\n[scene]\ntriangles = 500\n" + valid_script, 3,
         "expected an integer from 1000 to 100000000, got 500"},
        {"negative top-level duration", "name = \"x\"\nduration = -5\n" + valid_script, 2,
         "key 'duration': expected a duration > 0"},
        {"zero top-level duration", "name = \"x\"\nduration = \"0s\"\n" + valid_script, 2, "expected a duration > 0"},
        {"negative segment duration", "name = \"x\"\n" + seg + "kind = \"orbit\"\nduration = \"-1s\"\n", 5,
         "key 'script.segment[0].duration': expected a duration > 0"},
        {"active segment without duration", "name = \"x\"\n" + seg + "kind = \"pan\"\nrate = 1\n", 3,
         "missing key 'script.segment[0].duration' (expected a duration > 0"},
        {"think without duration", "name = \"x\"\n" + valid_script + "[[script.segment]]\nkind = \"think\"\n", 6,
         "missing key 'script.segment[1].duration'"},
        {"mode segment with a duration", "name = \"x\"\n" + valid_script + "[[script.segment]]\nkind = \"mode\"\n"
         "to = \"wireframe\"\nduration = \"1s\"\n", 9, "a 'mode' segment is instant and takes no duration"},
        {"select segment with a duration", "name = \"x\"\n" + valid_script + "[[script.segment]]\nkind = \"select\"\n"
         "duration = 2\n", 8, "a 'select' segment is instant and takes no duration"},
        {"mode segment without to", "name = \"x\"\n" + valid_script + "[[script.segment]]\nkind = \"mode\"\n", 6,
         "missing key 'script.segment[1].to' (expected one of \"shaded\""},
        {"to on an orbit", "name = \"x\"\n" + seg + "kind = \"orbit\"\nduration = 1\nto = \"shaded\"\n", 6,
         "only mode segments take 'to'"},
        {"unknown segment kind", "name = \"x\"\n" + seg + "kind = \"spin\"\nduration = 1\n", 4,
         "key 'script.segment[0].kind': expected one of \"orbit\", \"pan\", \"zoom\", \"section-sweep\", \"mode\", "
         "\"select\", \"think\", got \"spin\""},
        {"segment without kind", "name = \"x\"\n" + seg + "duration = 1\n", 3, "missing key 'script.segment[0].kind'"},
        {"unknown mode in a mode segment", "name = \"x\"\n" + valid_script + "[[script.segment]]\nkind = \"mode\"\n"
         "to = \"xray\"\n", 8, "expected one of \"shaded\", \"shaded-edges\""},
        {"jitter 1", "name = \"x\"\n" + valid_script + "[[script.segment]]\nkind = \"think\"\nduration = 1\n"
         "jitter = 1.0\n", 9, "key 'script.segment[1].jitter': expected a number in [0, 1), got 1.0"},
        {"jitter on an orbit", "name = \"x\"\n" + seg + "kind = \"orbit\"\nduration = 1\njitter = 0.1\n", 6,
         "only think segments take a jitter"},
        {"rate on a think", "name = \"x\"\n" + valid_script + "[[script.segment]]\nkind = \"think\"\nduration = 1\n"
         "rate = 2\n", 9, "only orbit, pan, zoom and section-sweep segments take a rate"},
        {"orbit rate 0", "name = \"x\"\n" + seg + "kind = \"orbit\"\nduration = 1\nrate = 0\n", 6,
         "expected an orbit rate in deg/s, non-zero and within [-720, 720], got 0"},
        {"orbit rate too fast", "name = \"x\"\n" + seg + "kind = \"orbit\"\nduration = 1\nrate = -800\n", 6,
         "got -800"},
        {"zoom rate 1", "name = \"x\"\n" + seg + "kind = \"zoom\"\nduration = 1\nrate = 1\n", 6,
         "expected a zoom factor per second in [0.1, 10] other than 1"},
        {"zoom rate 0", "name = \"x\"\n" + seg + "kind = \"zoom\"\nduration = 1\nrate = 0\n", 6, "got 0"},
        {"section sweep rate 0", "name = \"x\"\n" + seg + "kind = \"section-sweep\"\nduration = 1\nrate = 0\n", 6,
         "expected a section sweep rate in sweeps per second, in (0, 10], got 0"},
        {"pan rate too fast", "name = \"x\"\n" + seg + "kind = \"pan\"\nduration = 1\nrate = 11\n", 6,
         "expected a pan rate in view heights per second within [-10, 10], got 11"},
        {"no active segment", "name = \"x\"\n[script]\nloop = true\n[[script.segment]]\nkind = \"think\"\n"
         "duration = 1\n[[script.segment]]\nkind = \"select\"\n", 2,
         "[script]: needs at least one active segment"},
        {"no segments", "name = \"x\"\n[script]\nloop = true\n", 2, "needs at least one active segment"},
        {"no script", "name = \"x\"\n[render]\nwidth = 320\n", 1, "missing key 'script'"},
        {"segments as a plain table", "name = \"x\"\n[script.segment]\nkind = \"orbit\"\n", 2,
         "expected an array of tables ([[script.segment]])"},
        {"unknown key in [script]", "name = \"x\"\n[script]\nlop = false\n[[script.segment]]\nkind = \"orbit\"\n"
         "duration = 1\n", 3, "unknown key 'script.lop' (did you mean 'loop'?)"},
        {"input rate 0", "name = \"x\"\n[script]\ninput_rate_hz = 0\n[[script.segment]]\nkind = \"orbit\"\n"
         "duration = 1\n", 3, "expected a number in [1, 1000], got 0"},
        // Issue 35: a cap or input rate below 1 Hz waited past the session's end (0.01 Hz: 100 s a frame).
        {"frame cap below 1 Hz", "name = \"x\"\n[render]\nframe_cap_hz = 0.01\n" + valid_script, 3,
         "key 'render.frame_cap_hz': expected 0 (uncapped) or a number from 1 to 1000, got 0.01"},
        {"input rate below 1 Hz", "name = \"x\"\n[script]\ninput_rate_hz = 0.5\n[[script.segment]]\nkind = \"orbit\"\n"
         "duration = 1\n", 3, "expected a number in [1, 1000], got 0.5"},
        {"no name", "description = \"x\"\n" + valid_script, 1, "missing key 'name' (expected a string)"},
        {"bad name", "name = \"my profile\"\n" + valid_script, 1,
         "expected a name of 1 to 64 letters, digits, '-', '_' or '.', got \"my profile\""},
        {"loop as a string", "name = \"x\"\n[script]\nloop = \"yes\"\n[[script.segment]]\nkind = \"orbit\"\n"
         "duration = 1\n", 3, "expected true or false, got \"yes\""},
    };
    for (const Case& c : cases) {
        INFO("case: ", c.what);
        std::string e = error_of([&] { parse_profile(c.text, "bad.toml"); });
        INFO("message: ", e);
        CHECK(contains(e, "bad.toml:" + std::to_string(c.line) + ":"));
        CHECK(contains(e, c.expect));
    }
}

TEST_CASE("profile: load_profile finds built-ins by name and files by path") {
    std::string e = error_of([] { load_profile("designer-meduim"); });
    INFO(e);
    CHECK(contains(e, "unknown profile 'designer-meduim'"));
    CHECK(contains(e, "ci-tiny, designer-medium, power-heavy, viewer-light"));

    e = error_of([] { load_profile("/nonexistent/dir/x.toml"); });
    CHECK(contains(e, "/nonexistent/dir/x.toml: cannot read the profile"));
    e = error_of([] { load_profile("missing-here.toml"); });  // ends in .toml: a file, not a name
    CHECK(contains(e, "missing-here.toml: cannot read the profile"));

    // A user's copy: errors name the user's file.
    auto dir = std::filesystem::temp_directory_path() / ("seatmark-test-profile-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    auto good = (dir / "mine.toml").string();
    auto bad = (dir / "broken.toml").string();
    {
        std::ofstream(good) << builtin_profile_text("ci-tiny");
        std::ofstream(bad) << "name = \"b\"\n[render]\nmsaa = 3\n" << valid_script;
    }
    Profile p = load_profile(good);
    CHECK(p.name == "ci-tiny");
    CHECK(p.source == good);
    e = error_of([&] { load_profile(bad); });
    CHECK(contains(e, bad + ":3:8: key 'render.msaa': expected one of 1, 2, 4, 8, 16, 32, 64, got 3"));

    // Errors in a built-in name the file in the source tree.
    e = error_of([] { parse_profile("name = 1\n", "workloads/profiles/x.toml"); });
    CHECK(contains(e, "workloads/profiles/x.toml:1:8:"));
    std::filesystem::remove_all(dir);
}
