#include "common/toml_util.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/input_file.h"
#include "common/duration.h"
#include "common/errors.h"

namespace seatmark::toml_util {

namespace {

// Edit distance, for "did you mean" on unknown keys.
size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::string join(const std::vector<std::string>& items, std::string_view sep = ", ") {
    std::string out;
    for (const auto& s : items) {
        if (!out.empty()) out += sep;
        out += s;
    }
    return out;
}

std::string quoted(std::string_view s) {
    std::string out = "\"";
    out += s;
    out += '"';
    return out;
}

bool before(const toml::source_position& a, const toml::source_position& b) {
    return a.line != b.line ? a.line < b.line : a.column < b.column;
}

}  // namespace

toml::table parse(std::string_view text, const std::string& source) {
    check_nesting(text, source);
    try {
        return toml::parse(text, std::string_view(source));
    } catch (const toml::parse_error& e) {
        throw InputError(where(source, e.source()) + "TOML syntax error: " + std::string(e.description()));
    }
}

toml::table parse_file(const std::string& path) {
    return parse(read_input_text(path, "TOML file", max_config_bytes), path);
}

std::string where(const std::string& source, const toml::source_region& region) {
    return seatmark::where(source, static_cast<int>(region.begin.line), static_cast<int>(region.begin.column));
}

std::string describe(const toml::node& node) {
    switch (node.type()) {
        case toml::node_type::string: {
            std::string_view s = node.as_string()->get();
            if (s.size() > 60) return quoted(std::string(s.substr(0, 57)) + "...");
            return quoted(s);
        }
        case toml::node_type::integer: return std::to_string(node.as_integer()->get());
        case toml::node_type::floating_point: {
            std::ostringstream os;
            os << *node.as_floating_point();  // TOML spelling: 4.0, 2.5, nan, inf
            return os.str();
        }
        case toml::node_type::boolean: return node.as_boolean()->get() ? "true" : "false";
        case toml::node_type::table: return "a table";
        case toml::node_type::array: return "an array";
        case toml::node_type::date: return "a date";
        case toml::node_type::time: return "a time";
        case toml::node_type::date_time: return "a date-time";
        default: return "nothing";
    }
}

std::string format_number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    return buf;
}

std::string IntRange::describe() const {
    constexpr auto lo = std::numeric_limits<int64_t>::min();
    constexpr auto hi = std::numeric_limits<int64_t>::max();
    if (min != lo && max != hi) return "from " + std::to_string(min) + " to " + std::to_string(max);
    if (min != lo) return ">= " + std::to_string(min);
    if (max != hi) return "<= " + std::to_string(max);
    return "";
}

bool Range::contains(double v) const {
    if (std::isnan(v)) return false;
    if (min_open ? !(v > min) : !(v >= min)) return false;
    if (max_open ? !(v < max) : !(v <= max)) return false;
    return true;
}

std::string Range::describe() const {
    const bool has_min = std::isfinite(min), has_max = std::isfinite(max);
    if (has_min && has_max)
        return std::string("in ") + (min_open ? "(" : "[") + format_number(min) + ", " + format_number(max) +
               (max_open ? ")" : "]");
    if (has_min) return (min_open ? "> " : ">= ") + format_number(min);
    if (has_max) return (max_open ? "< " : "<= ") + format_number(max);
    return "";
}

TableReader::TableReader(const toml::table& table, std::string source, std::string path)
    : table_(&table), source_(std::move(source)), path_(std::move(path)) {
    display_ = path_.empty() ? "the top level" : "[" + path_ + "]";
}

int TableReader::line() const { return static_cast<int>(table_->source().begin.line); }

std::string TableReader::key_path(std::string_view key) const {
    if (path_.empty()) return std::string(key);
    return path_ + "." + std::string(key);
}

void TableReader::mark(std::string_view key) {
    if (std::find(accepted_.begin(), accepted_.end(), key) == accepted_.end()) accepted_.emplace_back(key);
}

TableReader& TableReader::accept(std::initializer_list<std::string_view> keys) {
    for (auto k : keys) mark(k);
    return *this;
}

bool TableReader::has(std::string_view key) const { return table_->get(key) != nullptr; }

const toml::node* TableReader::node(std::string_view key) {
    mark(key);
    return table_->get(key);
}

void TableReader::fail(std::string_view key, std::string_view expected) const {
    const toml::node* n = table_->get(key);
    std::string got = n ? ", got " + describe(*n) : ", but it is missing";
    fail_with(key, "expected " + std::string(expected) + got);
}

void TableReader::fail_with(std::string_view key, std::string_view message) const {
    const toml::node* n = table_->get(key);
    std::string at = n ? where(source_, n->source()) : seatmark::where(source_, line());
    throw InputError(at + "key '" + key_path(key) + "': " + std::string(message));
}

void TableReader::fail_table(std::string_view message) const {
    std::string prefix = path_.empty() ? "" : display_ + ": ";
    throw InputError(where(source_, table_->source()) + prefix + std::string(message));
}

void TableReader::require(std::string_view key, std::string_view expected) {
    mark(key);
    if (has(key)) return;
    std::string msg = "missing key '" + key_path(key) + "'";
    if (!expected.empty()) msg += " (expected " + std::string(expected) + ")";
    throw InputError(where(source_, table_->source()) + msg);
}

std::optional<std::string> TableReader::string(std::string_view key) {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (!n->is_string()) fail(key, "a string");
    return std::string(n->as_string()->get());
}

std::string TableReader::required_string(std::string_view key) {
    require(key, "a string");
    return *string(key);
}

std::optional<bool> TableReader::boolean(std::string_view key) {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (!n->is_boolean()) fail(key, "true or false");
    return n->as_boolean()->get();
}

std::optional<int64_t> TableReader::integer(std::string_view key, IntRange range) {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (!n->is_integer() || !range.contains(n->as_integer()->get())) {
        std::string r = range.describe();
        fail(key, r.empty() ? "an integer" : "an integer " + r);
    }
    return n->as_integer()->get();
}

int64_t TableReader::required_integer(std::string_view key, IntRange range) {
    std::string r = range.describe();
    require(key, r.empty() ? "an integer" : "an integer " + r);
    return *integer(key, range);
}

std::optional<int64_t> TableReader::integer_one_of(std::string_view key, std::initializer_list<int64_t> allowed) {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (!n->is_integer() || std::find(allowed.begin(), allowed.end(), n->as_integer()->get()) == allowed.end()) {
        std::vector<std::string> names;
        for (int64_t a : allowed) names.push_back(std::to_string(a));
        fail(key, "one of " + join(names));
    }
    return n->as_integer()->get();
}

std::optional<double> TableReader::as_finite_number(const toml::node& n) {
    if (n.is_integer()) return static_cast<double>(n.as_integer()->get());
    if (n.is_floating_point() && std::isfinite(n.as_floating_point()->get())) return n.as_floating_point()->get();
    return std::nullopt;
}

std::optional<double> TableReader::number(std::string_view key, Range range) {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    std::optional<double> v = as_finite_number(*n);
    if (!v || !range.contains(*v)) {
        std::string r = range.describe();
        fail(key, r.empty() ? "a number" : "a number " + r);
    }
    return v;
}

double TableReader::required_number(std::string_view key, Range range) {
    std::string r = range.describe();
    require(key, r.empty() ? "a number" : "a number " + r);
    return *number(key, range);
}

namespace {
std::string duration_expectation(const Range& range) {
    std::string r = range.describe();
    return std::string("a duration") + (r.empty() ? "" : " " + r) +
           " (such as \"30s\", \"1m30s\", \"500ms\", or a number of seconds)";
}
}  // namespace

std::optional<double> TableReader::duration(std::string_view key, Range range) {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    std::optional<double> v = n->is_string() ? parse_duration(n->as_string()->get()) : as_finite_number(*n);
    if (!v || *v < 0 || !range.contains(*v)) fail(key, duration_expectation(range));
    return v;
}

double TableReader::required_duration(std::string_view key, Range range) {
    require(key, duration_expectation(range));
    return *duration(key, range);
}

std::optional<size_t> TableReader::choice(std::string_view key, const std::vector<std::string_view>& names) {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (n->is_string()) {
        std::string_view s = n->as_string()->get();
        for (size_t i = 0; i < names.size(); ++i)
            if (names[i] == s) return i;
    }
    fail(key, choice_expectation(names));
}

std::string TableReader::choice_expectation(const std::vector<std::string_view>& names) {
    std::vector<std::string> q;
    for (auto name : names) q.push_back(quoted(name));
    return "one of " + join(q);
}

std::optional<TableReader> TableReader::table(std::string_view key) {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (!n->is_table()) fail(key, "a table ([" + key_path(key) + "])");
    return TableReader(*n->as_table(), source_, key_path(key));
}

std::vector<TableReader> TableReader::tables(std::string_view key) {
    const toml::node* n = node(key);
    std::vector<TableReader> out;
    if (!n) return out;
    const toml::array* arr = n->as_array();
    if (!arr || !arr->is_array_of_tables()) fail(key, "an array of tables ([[" + key_path(key) + "]])");
    for (size_t i = 0; i < arr->size(); ++i) {
        TableReader r(*arr->get(i)->as_table(), source_, key_path(key) + "[" + std::to_string(i) + "]");
        r.display_ = r.path_;
        out.push_back(std::move(r));
    }
    return out;
}

void TableReader::finish() const {
    const toml::key* first = nullptr;
    for (auto&& [k, v] : *table_) {
        (void)v;
        if (std::find(accepted_.begin(), accepted_.end(), k.str()) != accepted_.end()) continue;
        if (!first || before(k.source().begin, first->source().begin)) first = &k;
    }
    if (!first) return;
    std::string msg = "unknown key '" + key_path(first->str()) + "'";
    // A near miss is most likely a typo: name the key that was meant.
    std::string best;
    size_t best_d = 3;
    for (const auto& a : accepted_) {
        size_t d = edit_distance(first->str(), a);
        if (d < best_d && d <= std::max<size_t>(1, a.size() / 3)) {
            best_d = d;
            best = a;
        }
    }
    if (!best.empty()) msg += " (did you mean '" + best + "'?)";
    msg += "; " + display_ + (accepted_.empty() ? " accepts no keys" : " accepts: " + join(accepted_));
    throw InputError(where(source_, first->source()) + msg);
}

}  // namespace seatmark::toml_util
