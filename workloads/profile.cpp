// Profile TOML schema (the built-in files in workloads/profiles/ show every key, with comments):
//
//   name = "designer-medium"       # required: letters, digits, '-', '_', '.'
//   description = "..."            # optional
//   duration = "30s"               # default session duration (> 0), default 30 s
//   [scene]   seed (>= 0, default 1), triangles (1000 .. 100000000, default 20000),
//             model (a .smpack, or a source model packed on first use; relative to the profile's
//             directory; replaces the procedural assembly)
//   [render]  width, height (16 .. 32768, default 640x480), msaa (1, 2, 4, 8, 16, 32, 64; default 4),
//             mode (starting display mode, default "shaded-edges"),
//             frame_cap_hz (0 = uncapped, or 1 .. 1000; default 0)
//   [script]  loop (default true), input_rate_hz (1 .. 1000, default 125)
//   [[script.segment]]  kind = orbit | pan | zoom | section-sweep | mode | select | think
//             active kinds: duration (> 0, required), rate (per kind, default below)
//             think: duration (> 0, required), jitter ([0, 1), default 0)
//             mode: to (a display mode, required); select: nothing else
//
// Every key is checked: unknown keys, wrong types and out-of-range values are
// InputErrors naming file:line:col and what was expected.
#include "workloads/profile.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "common/embedded.h"
#include "common/input_file.h"
#include "common/errors.h"
#include "common/toml_util.h"

namespace seatmark::workloads {

// Generated from workloads/profiles/*.toml by cmake/embed.cmake (build/workloads/embedded_profiles.cpp).
const std::vector<seatmark::EmbeddedFile>& embedded_profiles();

namespace {

using toml_util::IntRange;
using toml_util::Range;
using toml_util::TableReader;

constexpr std::string_view builtin_dir = "workloads/profiles/";

constexpr DisplayMode all_modes[] = {DisplayMode::shaded,      DisplayMode::shaded_edges, DisplayMode::wireframe,
                                     DisplayMode::hidden_line, DisplayMode::section,      DisplayMode::selection};
constexpr SegmentKind all_kinds[] = {SegmentKind::orbit, SegmentKind::pan,    SegmentKind::zoom,
                                     SegmentKind::section_sweep, SegmentKind::mode, SegmentKind::select,
                                     SegmentKind::think};

const std::vector<std::pair<std::string_view, DisplayMode>>& mode_choices() {
    static const auto v = [] {
        std::vector<std::pair<std::string_view, DisplayMode>> out;
        for (auto m : all_modes) out.emplace_back(to_string(m), m);
        return out;
    }();
    return v;
}

const std::vector<std::pair<std::string_view, SegmentKind>>& kind_choices() {
    static const auto v = [] {
        std::vector<std::pair<std::string_view, SegmentKind>> out;
        for (auto k : all_kinds) out.emplace_back(to_string(k), k);
        return out;
    }();
    return v;
}

// Rate when a segment leaves it out: a calm, typical CAD user.
double default_rate(SegmentKind k) {
    switch (k) {
        case SegmentKind::orbit: return 30;            // deg/s
        case SegmentKind::pan: return 0.25;            // view heights/s
        case SegmentKind::zoom: return 1.25;           // distance factor/s (zooms in)
        case SegmentKind::section_sweep: return 0.25;  // sweeps/s
        default: return 0;
    }
}

void read_rate(TableReader& t, Segment& s) {
    std::optional<double> rate;
    switch (s.kind) {
        case SegmentKind::orbit:
            rate = t.number_if("rate", "an orbit rate in deg/s, non-zero and within [-720, 720]",
                               [](double r) { return r != 0 && std::fabs(r) <= 720; });
            break;
        case SegmentKind::pan:
            rate = t.number_if("rate", "a pan rate in view heights per second within [-10, 10]",
                               [](double r) { return std::fabs(r) <= 10; });
            break;
        case SegmentKind::zoom:
            rate = t.number_if("rate",
                               "a zoom factor per second in [0.1, 10] other than 1 (> 1 zooms in, < 1 zooms out)",
                               [](double r) { return r >= 0.1 && r <= 10 && r != 1; });
            break;
        case SegmentKind::section_sweep:
            rate = t.number_if("rate", "a section sweep rate in sweeps per second, in (0, 10]",
                               [](double r) { return r > 0 && r <= 10; });
            break;
        default: break;
    }
    s.rate = rate.value_or(default_rate(s.kind));
}

Segment read_segment(TableReader& t) {
    t.accept({"kind", "duration", "rate", "jitter", "to"});
    Segment s;
    s.line = t.line();
    s.kind = t.required_enumeration("kind", kind_choices());
    const std::string kind(to_string(s.kind));

    if (is_active(s.kind) || s.kind == SegmentKind::think) {
        s.duration_s = t.required_duration("duration", Range::above(0));
    } else if (t.has("duration")) {
        t.fail_with("duration", "a '" + kind + "' segment is instant and takes no duration");
    }

    if (is_active(s.kind)) {
        read_rate(t, s);
    } else if (t.has("rate")) {
        t.fail_with("rate", "only orbit, pan, zoom and section-sweep segments take a rate, not '" + kind + "'");
    }

    if (s.kind == SegmentKind::think) {
        s.jitter = t.number("jitter", Range::half_open(0, 1)).value_or(0);
    } else if (t.has("jitter")) {
        t.fail_with("jitter", "only think segments take a jitter, not '" + kind + "'");
    }

    if (s.kind == SegmentKind::mode) {
        s.to = t.required_enumeration("to", mode_choices());
    } else if (t.has("to")) {
        t.fail_with("to", "only mode segments take 'to', not '" + kind + "'");
    }
    t.finish();
    return s;
}

bool valid_name(std::string_view n) {
    if (n.empty() || n.size() > 64) return false;
    return std::all_of(n.begin(), n.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
               c == '_' || c == '.';
    });
}

std::string join_names(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

}  // namespace

std::string_view to_string(DisplayMode m) {
    switch (m) {
        case DisplayMode::shaded: return "shaded";
        case DisplayMode::shaded_edges: return "shaded-edges";
        case DisplayMode::wireframe: return "wireframe";
        case DisplayMode::hidden_line: return "hidden-line";
        case DisplayMode::section: return "section";
        case DisplayMode::selection: return "selection";
    }
    return "unknown";
}

bool parse_display_mode(std::string_view s, DisplayMode& out) {
    for (auto m : all_modes) {
        if (to_string(m) == s) {
            out = m;
            return true;
        }
    }
    return false;
}

std::string_view to_string(SegmentKind k) {
    switch (k) {
        case SegmentKind::orbit: return "orbit";
        case SegmentKind::pan: return "pan";
        case SegmentKind::zoom: return "zoom";
        case SegmentKind::section_sweep: return "section-sweep";
        case SegmentKind::mode: return "mode";
        case SegmentKind::select: return "select";
        case SegmentKind::think: return "think";
    }
    return "unknown";
}

bool parse_segment_kind(std::string_view s, SegmentKind& out) {
    for (auto k : all_kinds) {
        if (to_string(k) == s) {
            out = k;
            return true;
        }
    }
    return false;
}

bool is_active(SegmentKind k) {
    return k == SegmentKind::orbit || k == SegmentKind::pan || k == SegmentKind::zoom ||
           k == SegmentKind::section_sweep;
}

bool is_instant(SegmentKind k) { return k == SegmentKind::mode || k == SegmentKind::select; }

Profile parse_profile(std::string_view text, const std::string& source) {
    toml::table doc = toml_util::parse(text, source);
    TableReader root(doc, source);
    Profile p;
    p.source = source;

    p.name = root.required_string("name");
    if (!valid_name(p.name))
        root.fail("name", "a name of 1 to 64 letters, digits, '-', '_' or '.'");
    p.description = root.string("description").value_or("");
    p.default_duration_s = root.duration("duration", Range::above(0)).value_or(p.default_duration_s);

    if (auto scene = root.table("scene")) {
        p.scene.seed = static_cast<uint64_t>(
            scene->integer("seed", IntRange{0, std::numeric_limits<int64_t>::max()}).value_or(1));
        p.scene.triangles = static_cast<uint64_t>(
            scene->integer("triangles", IntRange{1000, 100'000'000}).value_or(static_cast<int64_t>(p.scene.triangles)));
        p.scene.model = scene->string("model").value_or("");
        scene->finish();
    }

    if (auto render = root.table("render")) {
        p.render.width = static_cast<uint32_t>(render->integer("width", IntRange{min_render_side, max_render_side}).value_or(p.render.width));
        p.render.height = static_cast<uint32_t>(render->integer("height", IntRange{min_render_side, max_render_side}).value_or(p.render.height));
        p.render.msaa = static_cast<uint32_t>(render->integer_one_of("msaa", {1, 2, 4, 8, 16, 32, 64}).value_or(p.render.msaa));
        p.render.mode = render->enumeration("mode", mode_choices()).value_or(p.render.mode);
        p.render.frame_cap_hz = render->number("frame_cap_hz", Range::closed(0, 1000)).value_or(0);
        if (p.render.frame_cap_hz > 0 && p.render.frame_cap_hz < min_rate_hz)
            render->fail("frame_cap_hz", "0 (uncapped) or a number from 1 to 1000");
        render->finish();
    }

    root.require("script", "a [script] table with [[script.segment]] entries");
    auto script = root.table("script");
    p.script.loop = script->boolean("loop").value_or(p.script.loop);
    p.script.input_rate_hz = script->number("input_rate_hz", Range::closed(min_rate_hz, 1000)).value_or(p.script.input_rate_hz);
    for (TableReader& seg : script->tables("segment")) p.script.segments.push_back(read_segment(seg));
    script->finish();
    if (std::none_of(p.script.segments.begin(), p.script.segments.end(),
                     [](const Segment& s) { return is_active(s.kind); }))
        script->fail_table("needs at least one active segment ([[script.segment]] with kind orbit, pan, zoom or "
                           "section-sweep)");

    root.finish();
    return p;
}

std::vector<std::string> builtin_profile_names() {
    std::vector<std::string> names;
    for (const EmbeddedFile& f : embedded_profiles()) {
        std::string_view path = f.path;
        path = path.substr(path.rfind('/') + 1);  // npos + 1 == 0: the whole path
        if (path.ends_with(".toml")) path.remove_suffix(5);
        names.emplace_back(path);
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::string_view builtin_profile_text(std::string_view name) {
    for (const EmbeddedFile& f : embedded_profiles()) {
        std::string_view path = f.path;
        path = path.substr(path.rfind('/') + 1);
        if (path.ends_with(".toml") && path.substr(0, path.size() - 5) == name) return f.text;
    }
    return {};
}

Profile load_profile(const std::string& name_or_path) {
    // A name with a slash or .toml is a file; so is any other name that is no built-in profile
    // but names something here (a folder given by mistake is then named as one).
    std::error_code ec;
    const bool is_file = name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".toml") ||
                         (builtin_profile_text(name_or_path).empty() && std::filesystem::exists(name_or_path, ec));
    if (is_file) {
        Profile p = parse_profile(read_input_text(name_or_path, "profile", max_config_bytes), name_or_path);
        const auto slash = name_or_path.find_last_of('/');
        if (!p.scene.model.empty() && p.scene.model[0] != '/' && slash != std::string::npos)
            p.scene.model = name_or_path.substr(0, slash + 1) + p.scene.model;
        return p;
    }
    std::string_view text = builtin_profile_text(name_or_path);
    if (text.empty())
        throw InputError("unknown profile '" + name_or_path + "'; built-in profiles: " +
                         join_names(builtin_profile_names()) + " (or give the path of a .toml file)");
    // Messages name the file in the source tree, which is what a user would copy and edit.
    std::string file = std::string(builtin_dir) + name_or_path + ".toml";
    Profile p = parse_profile(text, file);
    p.source = "built-in " + file;
    return p;
}

}  // namespace seatmark::workloads
