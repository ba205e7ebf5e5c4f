#include "report/references.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "common/input_file.h"
#include "common/errors.h"
#include "common/toml_util.h"
#include "report/metrics.h"

namespace seatmark::report {

namespace {

using toml_util::TableReader;
constexpr double inf = std::numeric_limits<double>::infinity();

std::string lower_case(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string metric_names() {
    std::string s;
    for (const auto& m : metric_catalog()) s += (s.empty() ? "" : ", ") + std::string(m.name);
    return s;
}

// A tolerance: a fraction, or unbounded as "inf"/"-inf" (strings) or TOML's inf/-inf.
// Returns nullopt when the node is not acceptable.
std::optional<double> fraction(const toml::node& n, bool is_lower) {
    double v;
    if (auto s = n.value<std::string>()) {
        std::string t = lower_case(*s);
        if (is_lower && t == "-inf") return -inf;
        if (!is_lower && (t == "inf" || t == "+inf")) return inf;
        return std::nullopt;
    } else if (n.is_integer()) {
        v = double(*n.value<int64_t>());
    } else if (n.is_floating_point()) {
        v = *n.value<double>();
    } else {
        return std::nullopt;
    }
    if (std::isnan(v)) return std::nullopt;
    if (is_lower) return (v == -inf || (v >= -1 && v <= 0)) ? std::optional(v) : std::nullopt;
    if (v == inf) return v;
    return (std::isfinite(v) && v >= 0) ? std::optional(v) : std::nullopt;
}

constexpr const char* lower_expect = "a fraction from -1 to 0 (e.g. -0.1: at most 10 % below), or \"-inf\" for no lower bound";
constexpr const char* upper_expect = "a fraction >= 0 (e.g. 0.1: at most 10 % above), or \"inf\" for no upper bound";

void check_unit(const std::string& unit, const MetricInfo& m, const std::string& at, const std::string& key) {
    if (!unit.empty() && lower_case(unit) != lower_case(m.unit))
        throw InputError(at + "key '" + key + "': unit '" + unit + "' does not match " + std::string(m.name) +
                         ", which is in " + std::string(m.unit));
}

Bound read_bound(TableReader& entry, const MetricInfo& m) {
    const toml::node* n = entry.node(m.name);
    Bound b;
    b.metric = std::string(m.name);
    b.line = static_cast<int>(n->source().begin.line);
    const std::string key = entry.key_path(m.name);
    if (const toml::table* t = n->as_table()) {
        TableReader r(*t, entry.source(), key);
        b.value = r.required_number("value", toml_util::Range::at_least(0));
        r.require("lower", lower_expect);
        r.require("upper", upper_expect);
        auto lo = fraction(*r.node("lower"), true);
        if (!lo) r.fail("lower", lower_expect);
        auto hi = fraction(*r.node("upper"), false);
        if (!hi) r.fail("upper", upper_expect);
        b.lower = *lo;
        b.upper = *hi;
        b.unit = r.string("unit").value_or("");
        if (!b.unit.empty()) check_unit(b.unit, m, toml_util::where(entry.source(), r.table().get("unit")->source()), key + ".unit");
        r.finish();
    } else if (const toml::array* arr = n->as_array()) {
        // ReFrame's tuple: [value, lower, upper] or [value, lower, upper, unit].
        const std::string form = "[value, lower, upper, \"unit\"] as in ReFrame";
        if (arr->size() < 3 || arr->size() > 4) entry.fail(m.name, form);
        auto at = [&](size_t i) { return toml_util::where(entry.source(), arr->get(i)->source()); };
        auto v = arr->get(0)->value<double>();
        if (!v || !std::isfinite(*v) || *v < 0)
            throw InputError(at(0) + "key '" + key + "[0]': expected the reference value, a number >= 0, got " +
                             toml_util::describe(*arr->get(0)));
        auto lo = fraction(*arr->get(1), true);
        if (!lo)
            throw InputError(at(1) + "key '" + key + "[1]': expected " + lower_expect + ", got " +
                             toml_util::describe(*arr->get(1)));
        auto hi = fraction(*arr->get(2), false);
        if (!hi)
            throw InputError(at(2) + "key '" + key + "[2]': expected " + upper_expect + ", got " +
                             toml_util::describe(*arr->get(2)));
        b.value = *v;
        b.lower = *lo;
        b.upper = *hi;
        if (arr->size() == 4) {
            auto u = arr->get(3)->value<std::string>();
            if (!u)
                throw InputError(at(3) + "key '" + key + "[3]': expected the unit as a string, got " +
                                 toml_util::describe(*arr->get(3)));
            b.unit = *u;
            check_unit(b.unit, m, at(3), key + "[3]");
        }
    } else {
        entry.fail(m.name, "{ value = ..., lower = ..., upper = ..., unit = \"...\" } or [value, lower, upper, \"unit\"]");
    }
    return b;
}

}  // namespace

References parse_references(std::string_view text, const std::string& source) {
    toml::table doc = toml_util::parse(text, source);
    TableReader root(doc, source);
    References refs;
    refs.source = source;
    refs.require_finished = root.boolean("require_finished").value_or(true);
    auto entries = root.tables("reference");
    if (entries.empty()) {
        root.finish();  // a misspelt key is the likelier mistake: name it first
        root.require("reference", "at least one [[reference]] table");
    }
    for (auto& e : entries) {
        ReferenceEntry r;
        r.line = e.line();
        r.host = e.string("host").value_or("*");
        const bool bad_name = r.host.empty() || std::any_of(r.host.begin(), r.host.end(), [](unsigned char c) {
                                  return std::isspace(c) || std::iscntrl(c) || c == '/';
                              });
        if (bad_name)
            e.fail("host", "a host's name (as the run recorded it, e.g. --host-name), \"*\" (every host must pass) or "
                           "\"pool\" (the pool as a whole)");
        const bool pool = r.host == pool_host;
        if (const toml::node* hn = e.node("hosts")) {
            const auto* n = hn->as_integer();
            if (!n || n->get() < 1 || n->get() > 4096) e.fail("hosts", "the pool size H of scaling_efficiency E(H), an integer from 1");
            if (!pool) e.fail_with("hosts", "hosts (the H of E(H)) belongs in an entry with host = \"pool\"");
            r.hosts = static_cast<uint32_t>(n->get());
        }
        r.profile = e.string("profile").value_or("*");
        if (r.profile.empty()) e.fail("profile", "a profile name or \"*\"");
        if (const toml::node* st = e.node("step")) {
            if (auto s = st->value<std::string>(); s && st->is_string()) {
                if (*s != "max") e.fail("step", "a session count (an integer >= 1) or \"max\" (the max-density step)");
            } else if (const auto* n = st->as_integer(); n && n->get() >= 1 && n->get() <= 100000) {
                // as_integer, not value<int64_t>: toml++ casts a float such as 4e111 to int64 unchecked (UB).
                r.step = static_cast<uint32_t>(n->get());
            } else {
                e.fail("step", "a session count (an integer >= 1) or \"max\" (the max-density step)");
            }
        }
        e.accept({"hosts"});
        for (const auto& m : metric_catalog()) {
            if (!e.has(m.name)) {
                e.accept({m.name});
                continue;
            }
            Bound b = read_bound(e, m);
            const std::string what = std::string(m.name) + (m.pool_only ? " is a property of the pool" : " is a property of the whole run");
            if (m.pool_only && !pool) e.fail_with(m.name, what + ": give it in an entry with host = \"pool\"");
            if (m.per_run && r.step) e.fail_with(m.name, what + ": give it in an entry with step = \"max\" (or no step)");
            if (m.per_run && r.profile != "*") e.fail_with(m.name, what + ": give it in an entry with profile = \"*\"");
            if (m.name == "scaling_efficiency" && !r.hosts)
                e.fail_with(m.name, "scaling_efficiency is E(H) of one pool size: give hosts = H in the same entry");
            r.bounds.push_back(std::move(b));
        }
        e.finish();
        if (r.bounds.empty()) e.fail_table("no metric given; expected at least one of " + metric_names());
        refs.entries.push_back(std::move(r));
    }
    root.finish();
    return refs;
}

References load_references(const std::string& path) {
    return parse_references(read_input_text(path, "references file", max_config_bytes), path);
}

}  // namespace seatmark::report
