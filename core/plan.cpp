#include "core/plan.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/input_file.h"
#include "common/errors.h"
#include "common/file_hash.h"
#include "common/toml_util.h"
#include "common/wire_protocol.h"
#include "workloads/profile.h"

namespace seatmark::core {

namespace {

using toml_util::IntRange;
using toml_util::Range;
using toml_util::TableReader;

Sla read_sla(TableReader& t, const Sla& base) {
    Sla s = base;
    s.p95_interval_ms = t.number("p95_interval_ms", Range::above(0)).value_or(s.p95_interval_ms);
    s.low1_fps = t.number("low1_fps", Range::at_least(0)).value_or(s.low1_fps);
    s.latency_p95_ms = t.number("latency_p95_ms", Range::above(0)).value_or(s.latency_p95_ms);
    s.stutter_pct = t.number("stutter_pct", Range::closed(0, 100)).value_or(s.stutter_pct);
    s.failures = static_cast<uint32_t>(t.integer("failures", IntRange{0, 100000}).value_or(s.failures));
    s.gpu_memory_pct = t.number("gpu_memory_pct", Range{0, 100, true, false}).value_or(s.gpu_memory_pct);
    s.model_open_ms = t.number("model_open_ms", Range::at_least(0)).value_or(s.model_open_ms);
    s.endpoint_fps = t.number("endpoint_fps", Range::at_least(0)).value_or(s.endpoint_fps);
    s.endpoint_latency_p95_ms = t.number("endpoint_latency_p95_ms", Range::at_least(0)).value_or(s.endpoint_latency_p95_ms);
    s.delivered_ratio = t.number("delivered_ratio", Range::closed(0, 1)).value_or(s.delivered_ratio);
    s.ssim = t.number("ssim", Range::closed(0, 1)).value_or(s.ssim);
    t.finish();
    return s;
}

std::vector<uint32_t> read_steps(TableReader& t) {
    std::vector<uint32_t> steps;
    if (const toml::node* list = t.node("list")) {
        const auto* arr = list->as_array();
        if (!arr || arr->empty()) t.fail("list", "a non-empty array of session counts such as [1, 2, 4, 8]");
        for (const auto& el : *arr) {
            // as_integer, not value<int64_t>: toml++ casts a float such as 4e111 to int64 unchecked (UB).
            const auto* iv = el.as_integer();
            const std::optional<int64_t> v = iv ? std::optional<int64_t>(iv->get()) : std::nullopt;
            if (!v || *v < 1 || *v > max_step_sessions)
                throw InputError(toml_util::where(t.source(), el.source()) +
                                 "key 'steps.list': expected session counts from 1 to " + std::to_string(max_step_sessions) + ", got " +
                                 toml_util::describe(el));
            if (!steps.empty() && static_cast<uint32_t>(*v) <= steps.back())
                throw InputError(toml_util::where(t.source(), el.source()) +
                                 "key 'steps.list': expected strictly increasing counts, got " +
                                 std::to_string(*v) + " after " + std::to_string(steps.back()));
            steps.push_back(static_cast<uint32_t>(*v));
        }
        if (t.has("start") || t.has("increment") || t.has("max"))
            t.fail_with("list", "give either list or start/increment/max, not both");
    } else {
        auto start = t.integer("start", IntRange{1, max_step_sessions});
        auto inc = t.integer("increment", IntRange{1, max_step_sessions});
        auto max = t.integer("max", IntRange{1, max_step_sessions});
        if (!start || !inc || !max)
            t.fail_table("expected either list = [1, 2, 4, ...] or all of start, increment and max");
        if (*max < *start) t.fail("max", ">= start (" + std::to_string(*start) + ")");
        for (int64_t n = *start; n <= *max; n += *inc) steps.push_back(static_cast<uint32_t>(n));
    }
    return steps;
}

// [steps] search = "adaptive": min, max, resolution (sessions); no list or start/increment.
SearchPlan read_search(TableReader& t) {
    SearchPlan s;
    s.adaptive = true;
    if (t.has("list") || t.has("start") || t.has("increment"))
        t.fail_with("search", "an adaptive search takes min, max and resolution, not list or start/increment");
    s.min = static_cast<uint32_t>(t.integer("min", IntRange{1, max_step_sessions}).value_or(1));
    auto max = t.integer("max", IntRange{1, max_step_sessions});
    if (!max) t.require("max", "the most sessions the search may probe, e.g. max = 64");
    if (*max < s.min) t.fail("max", ">= min (" + std::to_string(s.min) + ")");
    s.max = static_cast<uint32_t>(*max);
    s.resolution = static_cast<uint32_t>(t.integer("resolution", IntRange{1, max_step_sessions}).value_or(1));
    return s;
}

std::string read_text(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw InputError(path + ": is a folder; give the plan file, e.g. " + path + "/example.toml");
    return read_input_text(path, "plan", max_config_bytes);
}

AssetSpec read_asset(const toml::node& el, const std::string& source, size_t i) {
    AssetSpec a;
    a.where = toml_util::where(source, el.source());
    const std::string key = "run.assets[" + std::to_string(i) + "]";
    if (auto s = el.value<std::string>()) {
        a.path = *s;
    } else if (const auto* tbl = el.as_table()) {
        TableReader t(*tbl, source, key);
        a.path = t.required_string("path");
        if (auto size = t.integer("size", toml_util::IntRange{0, std::numeric_limits<int64_t>::max()}))
            a.size = static_cast<uint64_t>(*size);
        if (t.has("xxh3")) {
            auto hex = t.string("xxh3");
            a.xxh3 = hex ? parse_xxh3_hex(*hex) : std::nullopt;
            if (!a.xxh3) t.fail("xxh3", "16 hex digits (the XXH3-64 that `seatmark stage --json` lists)");
        }
        t.finish();
    } else {
        throw InputError(a.where + "key '" + key + "': expected a file path or a { path, size, xxh3 } table, got " +
                         toml_util::describe(el));
    }
    if (a.path.empty()) throw InputError(a.where + "key '" + key + "': expected a file path, got an empty string");
    return a;
}

std::vector<AssetSpec> stage_json_assets(const std::string& path, const std::string& dest, const std::string& where) {
    std::string text;
    try {
        text = read_input_text(path, "stage summary", max_list_bytes);
    } catch (const InputError& e) {
        throw InputError(where + "run.stage_json: " + e.what() + " (the file `seatmark stage --json` wrote)");
    }
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("files") || !j["files"].is_array())
        throw InputError(where + "run.stage_json: " + path + " is not `seatmark stage --json` output (no \"files\" list)");
    std::vector<AssetSpec> out;
    for (const auto& f : j["files"]) {
        if (!f.is_object() || !f.contains("path") || !f["path"].is_string())
            throw InputError(where + "run.stage_json: " + path + ": a file entry without a path");
        AssetSpec a;
        a.path = (std::filesystem::path(dest) / f["path"].get<std::string>()).lexically_normal().string();
        a.where = where + "run.stage_json " + path + ": ";
        if (f.contains("size") && f["size"].is_number_unsigned()) a.size = f["size"].get<uint64_t>();
        if (f.contains("xxh3") && f["xxh3"].is_string()) {
            a.xxh3 = parse_xxh3_hex(f["xxh3"].get<std::string>());
            if (!a.xxh3) throw InputError(a.where + a.path + ": xxh3 is not 16 hex digits");
        }
        out.push_back(std::move(a));
    }
    return out;
}

}  // namespace

const Sla& Plan::sla_for(const std::string& profile) const {
    auto it = sla.find(profile);
    return it == sla.end() ? default_sla : it->second;
}

std::string Plan::profile_for(uint32_t n) const {
    // Smooth weighted round robin (as nginx balances upstreams): deterministic,
    // and every prefix of the sequence is as close to the weights as it can be.
    std::vector<double> current(mix.size(), 0);
    double total = 0;
    for (const auto& m : mix) total += m.weight;
    size_t pick = 0;
    for (uint32_t i = 0; i <= n; ++i) {
        for (size_t k = 0; k < mix.size(); ++k) current[k] += mix[k].weight;
        pick = 0;
        for (size_t k = 1; k < mix.size(); ++k)
            if (current[k] > current[pick]) pick = k;
        current[pick] -= total;
    }
    return mix.at(pick).profile;
}

double Plan::planned_seconds() const {
    if (search.adaptive) {
        // Worst case: doubling up to max, then bisecting down to the resolution, every probe at max_repeats.
        uint32_t probes = 1;
        for (uint64_t n = search.min; n < search.max; n *= 2) ++probes;
        for (uint32_t w = std::max(1u, search.max / 2); w > search.resolution; w /= 2) ++probes;
        return double(probes) * (settle_s + window_s * search.max_repeats);
    }
    return double(steps.size()) * (settle_s + window_s * repeats);
}

Plan parse_plan(std::string_view text, const std::string& source, const std::string& base_dir) {
    toml::table doc = toml_util::parse(text, source);
    TableReader root(doc, source);
    Plan p;
    p.source = source;
    p.text = std::string(text);
    p.name = root.required_string("name");
    if (auto run = root.table("run")) {
        // Relative to the plan's folder, as its profiles are (not to wherever seatmark is started).
        if (auto db = run->string("db")) {
            if (db->empty()) run->fail("db", "a database file name such as \"run.db\"");
            p.db_path = std::filesystem::path(*db).is_relative()
                            ? (std::filesystem::path(base_dir) / *db).lexically_normal().string()
                            : *db;
        }
        p.device = run->string("device").value_or("");
        if (auto sw = run->boolean("allow_software")) {
            p.allow_software = *sw;
            p.allow_software_given = true;
        }
        // Sessions send a heartbeat every wire::heartbeat_interval_ms: a timeout of fewer than three
        // of them would declare a busy but healthy session hung.
        constexpr double min_timeout_s = 3 * wire::heartbeat_interval_ms / 1000.0;
        p.heartbeat_timeout_s =
            run->duration("heartbeat_timeout", Range::closed(min_timeout_s, 3600)).value_or(p.heartbeat_timeout_s);
        if (auto stop = run->enumeration<StopRule>("stop", {{"first-failure", StopRule::first_failure},
                                                              {"max", StopRule::max}}))
            p.stop = *stop;
        if (auto mode = run->enumeration<SessionsMode>("sessions", {{"spawn", SessionsMode::spawn},
                                                                     {"join", SessionsMode::join}}))
            p.sessions = *mode;
        p.join_timeout_s = run->duration("join_timeout", Range::closed(1, 86400)).value_or(p.join_timeout_s);
        p.knee_margin_pct = run->number("knee_margin_pct", Range::above(0)).value_or(p.knee_margin_pct);
        if (const toml::node* assets = run->node("assets")) {
            const auto* arr = assets->as_array();
            if (!arr) run->fail("assets", "an array of file paths or { path, size, xxh3 } tables");
            for (size_t i = 0; i < arr->size(); ++i) p.assets.push_back(read_asset((*arr)[i], source, i));
        }
        // `seatmark stage --json` output: its files (size, XXH3) under the directory they were staged to.
        if (auto sj = run->string("stage_json")) {
            const toml::node* n = run->node("stage_json");
            const std::string where = n ? toml_util::where(source, n->source()) : seatmark::where(source);
            const std::string dest = run->string("stage_dest").value_or("");
            if (dest.empty()) run->fail("stage_dest", "the --dest directory the stage_json files were staged to");
            for (auto a : stage_json_assets((std::filesystem::path(base_dir) / *sj).lexically_normal().string(), dest, where))
                p.assets.push_back(std::move(a));
        }
        run->finish();
    }
    auto steps = root.table("steps");
    if (!steps) root.require("steps", "a [steps] table with list = [1, 2, 4, ...] and settle/window durations");
    const bool adaptive = steps->enumeration<bool>("search", {{"linear", false}, {"adaptive", true}}).value_or(false);
    if (adaptive) p.search = read_search(*steps);
    else p.steps = read_steps(*steps);
    if (adaptive) p.steps = p.search.min == p.search.max ? std::vector<uint32_t>{p.search.min}
                                                         : std::vector<uint32_t>{p.search.min, p.search.max};
    p.settle_s = steps->duration("settle", Range::closed(0, 86400)).value_or(p.settle_s);
    p.window_s = steps->duration("window", Range{0, 86400, true, false}).value_or(p.window_s);
    p.repeats = static_cast<uint32_t>(steps->integer("repeats", IntRange{1, 100}).value_or(adaptive ? 2 : 1));
    if (adaptive) {
        p.search.max_repeats = static_cast<uint32_t>(steps->integer("max_repeats", IntRange{1, 100}).value_or(
            std::max<int64_t>(p.search.max_repeats, p.repeats)));
        if (p.search.max_repeats < p.repeats)
            steps->fail("max_repeats", ">= repeats (" + std::to_string(p.repeats) + "), the windows every probe measures");
    }
    steps->finish();
    if (auto cost = root.table("cost")) {
        p.cost.host_per_hour = cost->number("host_per_hour", Range::at_least(0));
        p.cost.currency = cost->string("currency").value_or("");
        if (!p.cost.host_per_hour) cost->require("host_per_hour", "what one host costs per hour, e.g. host_per_hour = 3.20");
        cost->finish();
    }

    p.pool.where = seatmark::where(source);
    if (auto pool = root.table("pool")) {
        p.pool.where = seatmark::where(source, pool->line());
        if (auto pl = pool->enumeration<Placement>("placement", {{"breadth-first", Placement::breadth_first},
                                                                  {"depth-first", Placement::depth_first},
                                                                  {"per-host", Placement::per_host}}))
            p.pool.placement = *pl;
        p.pool.max_sessions_per_host =
            static_cast<uint32_t>(pool->integer("max_sessions_per_host", IntRange{1, max_step_sessions}).value_or(0));
        if (p.pool.placement == Placement::depth_first && p.pool.max_sessions_per_host == 0)
            pool->require("max_sessions_per_host", "the most sessions one host takes before the next is filled (depth-first)");
        p.pool.sync_timeout_s = pool->duration("sync_timeout", Range::closed(0.1, 3600)).value_or(p.pool.sync_timeout_s);
        pool->finish();
    }
    if (auto scaling = root.table("scaling")) {
        const toml::node* n = scaling->node("hosts");
        if (!n) scaling->require("hosts", "the pool sizes to ramp on, in order, e.g. hosts = [1, 2, 4]");
        p.pool.scaling_where = toml_util::where(source, n->source());
        const auto* arr = n->as_array();
        if (!arr || arr->empty()) scaling->fail("hosts", "a non-empty array of host counts such as [1, 2, 4]");
        for (const auto& el : *arr) {
            const auto* iv = el.as_integer();
            const std::optional<int64_t> v = iv ? std::optional<int64_t>(iv->get()) : std::nullopt;
            if (!v || *v < 1 || *v > 65536)
                throw InputError(toml_util::where(source, el.source()) +
                                 "key 'scaling.hosts': expected host counts from 1 to 65536, got " + toml_util::describe(el));
            if (!p.pool.scaling_hosts.empty() && static_cast<uint32_t>(*v) <= p.pool.scaling_hosts.back())
                throw InputError(toml_util::where(source, el.source()) +
                                 "key 'scaling.hosts': expected strictly increasing counts, got " + std::to_string(*v) +
                                 " after " + std::to_string(p.pool.scaling_hosts.back()));
            p.pool.scaling_hosts.push_back(static_cast<uint32_t>(*v));
        }
        if (adaptive) scaling->fail("hosts", "a linear [steps] list: a scaling series repeats the ramp on each pool size");
        scaling->finish();
    }

    auto mix = root.tables("mix");
    if (mix.empty()) root.require("mix", "at least one [[mix]] table with profile = \"NAME\"");
    for (auto& m : mix) {
        MixEntry e;
        e.line = m.line();
        e.profile = m.required_string("profile");
        e.weight = m.number("weight", Range::above(0)).value_or(1);
        bool is_file = e.profile.find('/') != std::string::npos || e.profile.ends_with(".toml");
        if (is_file && std::filesystem::path(e.profile).is_relative())
            e.profile = (std::filesystem::path(base_dir) / e.profile).lexically_normal().string();
        try {
            workloads::load_profile(e.profile);  // a bad profile stops the plan before anything starts
        } catch (const InputError& err) {
            m.fail_with("profile", std::string("cannot use this profile: ") + err.what());
        }
        m.finish();
        // A profile's model is an asset of the run: it need not be listed twice.
        const std::string model = workloads::load_profile(e.profile).scene.model;
        bool listed = model.empty();
        for (const auto& a : p.assets) listed = listed || a.path == model;
        if (!listed) {
            AssetSpec a;
            a.path = model;
            a.where = seatmark::where(source, e.line) + "profile " + e.profile + " [scene] model: ";
            p.assets.push_back(std::move(a));
        }
        p.mix.push_back(std::move(e));
    }
    for (auto& a : p.assets) a.pack = a.path.ends_with(".smpack");

    if (auto sla = root.table("sla")) {
        // [sla] holds the default bounds; [sla.PROFILE] tables override them per profile.
        std::vector<std::pair<std::string, TableReader>> per_profile;
        for (const auto& [k, v] : sla->table()) {
            if (v.is_table()) {
                sla->accept({k.str()});
                per_profile.emplace_back(std::string(k.str()), *sla->table(k.str()));
            }
        }
        p.default_sla = read_sla(*sla, p.default_sla);
        for (auto& [name, t] : per_profile) {
            bool known = false;
            for (const auto& m : p.mix) {
                std::string mname = m.profile;
                if (mname == name || workloads::load_profile(m.profile).name == name) known = true;
            }
            if (!known) t.fail_table("no [[mix]] entry uses profile '" + name + "'");
            p.sla[name] = read_sla(t, p.default_sla);
        }
    }
    root.finish();
    return p;
}

std::string pool_plan_problem(const Plan& plan, uint32_t hosts) {
    if (!plan.pool.scaling_hosts.empty() && plan.pool.scaling_hosts.back() > hosts)
        return plan.pool.scaling_where + "[scaling] hosts wants a pool of " +
               std::to_string(plan.pool.scaling_hosts.back()) + " hosts, but this run has " + std::to_string(hosts) +
               " rank(s): start as many ranks (mpirun -np " + std::to_string(plan.pool.scaling_hosts.back()) +
               ") or drop the larger sizes from the series";
    if (plan.pool.placement != Placement::depth_first) return "";
    for (uint32_t h : plan.pool.series(hosts)) {
        const uint64_t room = uint64_t(plan.pool.max_sessions_per_host) * h;
        for (size_t i = 0; i < plan.steps.size(); ++i)
            if (plan.steps[i] > room)
                return plan.pool.where + "[pool] max_sessions_per_host = " + std::to_string(plan.pool.max_sessions_per_host) +
                       " on " + std::to_string(h) + " host(s) holds " + std::to_string(room) + " sessions, but step " +
                       std::to_string(i + 1) + " wants " + std::to_string(plan.steps[i]) +
                       ": raise max_sessions_per_host, add hosts, or use placement = \"breadth-first\"";
    }
    return "";
}

Plan load_plan(const std::string& path) {
    auto base = std::filesystem::path(path).parent_path().string();
    return parse_plan(read_text(path), path, base.empty() ? "." : base);
}

std::string_view demo_plan_text() {
    return R"(# The plan `seatmark demo` runs: ci-tiny sessions on whatever Vulkan device
# this machine has, steps 1, 2, 4, 6, 8, short windows (about two minutes).
name = "demo"

[run]
stop = "max"                # measure every step, even after one fails
heartbeat_timeout = "10s"
allow_software = true       # the demo measures whatever renders here, lavapipe included

[steps]
list = [1, 2, 4, 6, 8]
settle = "4s"
window = "15s"

[[mix]]
profile = "ci-tiny"

[sla]
p95_interval_ms = 33.3
low1_fps = 20
latency_p95_ms = 100
stutter_pct = 5
failures = 0
)";
}

std::string demo_pool_plan_text(uint32_t hosts, bool quick) {
    // per-host placement: each step's count is per host, so the pool's steps are H times the one
    // host's and E(H) can reach 1 (one shared list of pool totals caps E(H) at max/(H x max)).
    const std::string h = std::to_string(hosts);
    return "# The plan `seatmark demo --hosts " + h + "` runs: ci-tiny sessions, the ramp on 1 host and then on " + h +
           ",\n# so the report shows the scaling efficiency E(" + h + "). The step counts are per host.\n"
           "name = \"demo-pool\"\n\n[run]\nstop = \"max\"\nheartbeat_timeout = \"10s\"\n"
           "allow_software = true  # the demo measures whatever renders here, lavapipe included\n\n[steps]\n" +
           (quick ? std::string("list = [1, 2]\nsettle = \"1s\"\nwindow = \"2s\"\n")
                  : std::string("list = [1, 2, 3]\nsettle = \"4s\"\nwindow = \"10s\"\n")) +
           "\n[[mix]]\nprofile = \"ci-tiny\"\n\n[sla]\np95_interval_ms = 33.3\nlow1_fps = 20\nlatency_p95_ms = 100\n"
           "stutter_pct = 5\nfailures = 0\n\n[pool]\nplacement = \"per-host\"\nsync_timeout = \"10s\"\n\n"
           "[scaling]\nhosts = [1, " + h + "]\n";
}

}  // namespace seatmark::core
