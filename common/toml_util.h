#pragma once
// Strict reading of seatmark's TOML files (profiles, run plans). Every error is an
// InputError that names file:line:col, the key, what was expected and what was found:
//   "my.toml:12:8: key 'render.msaa': expected one of 1, 4, 8, got 3"
// and a key nobody reads is an error too, because a typo ("mssa = 8") that silently
// falls back to a default would measure the wrong thing.
//
// Usage:
//   toml::table doc = toml_util::parse(text, "my.toml");
//   toml_util::TableReader root(doc, "my.toml");
//   std::string name = root.required_string("name");
//   if (auto render = root.table("render")) {
//       width = render->integer("width", toml_util::IntRange{16, 8192}).value_or(640);
//       msaa = render->integer_one_of("msaa", {1, 4, 8}).value_or(4);
//       render->finish();               // unknown keys in [render] are errors
//   }
//   for (auto& seg : root.tables("segment")) { ...; seg.finish(); }
//   root.finish();
#include <toml++/toml.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace seatmark::toml_util {

// Parses TOML text; a syntax error becomes InputError "SOURCE:LINE:COL: TOML syntax error: ...".
// The one way seatmark parses TOML (files, built-ins, a database's stored plan): the nesting is
// bounded first (check_nesting).
toml::table parse(std::string_view text, const std::string& source);

// The most levels a TOML text may nest (table headers, dotted keys, arrays, inline tables
// together). seatmark's own files need four or five.
inline constexpr size_t max_nesting = 64;
// Throws InputError "SOURCE:LINE: TOML nested deeper than ..." at the first key or container
// beyond max_nesting (common/toml_nesting.cpp). toml++ recurses once per level.
void check_nesting(std::string_view text, const std::string& source);
// Reads and parses a file; an unreadable file is an InputError naming it.
toml::table parse_file(const std::string& path);

// "SOURCE:LINE:COL: " for a node (line/col left out when toml++ does not know them).
std::string where(const std::string& source, const toml::source_region& region);

// How a value reads in a message: 3, 2.5, "abc", true, a table, an array, a date.
std::string describe(const toml::node& node);

// Closed integer range [min, max].
struct IntRange {
    int64_t min = std::numeric_limits<int64_t>::min();
    int64_t max = std::numeric_limits<int64_t>::max();
    bool contains(int64_t v) const { return v >= min && v <= max; }
    std::string describe() const;  // "from 16 to 8192", ">= 0", "any integer"
};

// Range of reals with open or closed ends: Range::closed(0, 1), Range::half_open(0, 1) = [0, 1),
// Range::above(0) = (0, inf), Range::at_least(0) = [0, inf).
struct Range {
    double min = -std::numeric_limits<double>::infinity();
    double max = std::numeric_limits<double>::infinity();
    bool min_open = false, max_open = false;

    static Range any() { return {}; }
    static Range closed(double lo, double hi) { return {lo, hi, false, false}; }
    static Range half_open(double lo, double hi) { return {lo, hi, false, true}; }
    static Range above(double lo) { return {lo, std::numeric_limits<double>::infinity(), true, false}; }
    static Range at_least(double lo) { return {lo, std::numeric_limits<double>::infinity(), false, false}; }
    bool contains(double v) const;
    std::string describe() const;  // "in [0, 1)", "> 0", ">= 0", "" for any()
};

// Formats a number for messages without trailing noise: 3, 2.5, 0.1.
std::string format_number(double v);

// Reads one TOML table. Every getter marks its key as accepted (present or not);
// finish() then reports the first key present in the table that no getter asked
// about, with the accepted keys and a suggestion for near misses.
// Getters return nullopt when the key is absent; required_* throw instead.
// Keeps a pointer to the table: the toml::table must outlive the reader.
class TableReader {
public:
    // `path` is the dotted name of this table ("render", "script.segment[2]"), "" for the root.
    TableReader(const toml::table& table, std::string source, std::string path = {});

    const std::string& source() const { return source_; }
    const std::string& path() const { return path_; }
    const toml::table& table() const { return *table_; }
    int line() const;                                  // where the table starts, 0 if unknown
    std::string key_path(std::string_view key) const;  // "render.msaa"

    // Declares keys as accepted without reading them (keys read later, or only sometimes).
    TableReader& accept(std::initializer_list<std::string_view> keys);
    // Whether the key is present. Does not mark it accepted.
    bool has(std::string_view key) const;
    // Marks the key accepted and returns its node, nullptr when absent.
    const toml::node* node(std::string_view key);

    std::optional<std::string> string(std::string_view key);
    std::string required_string(std::string_view key);
    std::optional<bool> boolean(std::string_view key);
    // Integers only: 4.0 is rejected where an integer is expected.
    std::optional<int64_t> integer(std::string_view key, IntRange range = {});
    int64_t required_integer(std::string_view key, IntRange range = {});
    std::optional<int64_t> integer_one_of(std::string_view key, std::initializer_list<int64_t> allowed);
    // Integers or floats, finite, within range.
    std::optional<double> number(std::string_view key, Range range = {});
    double required_number(std::string_view key, Range range = {});
    // A finite number for which ok(value) holds; otherwise "expected EXPECTED, got VALUE".
    // For rules a Range cannot say ("non-zero, within [-720, 720]").
    template <class Pred>
    std::optional<double> number_if(std::string_view key, std::string_view expected, Pred ok) {
        const toml::node* n = node(key);
        if (!n) return std::nullopt;
        std::optional<double> v = as_finite_number(*n);
        if (!v || !ok(*v)) fail(key, expected);
        return v;
    }
    // Seconds: a duration string ("30s", "1m30s", "500ms", see common/duration.h) or a number of seconds.
    std::optional<double> duration(std::string_view key, Range range = Range::at_least(0));
    double required_duration(std::string_view key, Range range = Range::at_least(0));
    // One of `names` (a string); returns its index.
    std::optional<size_t> choice(std::string_view key, const std::vector<std::string_view>& names);
    static std::string choice_expectation(const std::vector<std::string_view>& names);  // one of "a", "b"

    // An enum spelled by name: choices are {name, value} pairs.
    template <class E>
    std::optional<E> enumeration(std::string_view key,
                                 const std::vector<std::pair<std::string_view, E>>& choices) {
        std::vector<std::string_view> names;
        names.reserve(choices.size());
        for (const auto& c : choices) names.push_back(c.first);
        if (auto i = choice(key, names)) return choices[*i].second;
        return std::nullopt;
    }
    template <class E>
    E required_enumeration(std::string_view key, const std::vector<std::pair<std::string_view, E>>& choices) {
        std::vector<std::string_view> names;
        for (const auto& c : choices) names.push_back(c.first);
        require(key, choice_expectation(names));
        return *enumeration(key, choices);
    }

    // A sub-table ([render], or an inline table); nullopt when absent.
    std::optional<TableReader> table(std::string_view key);
    // An array of tables ([[script.segment]]); empty when absent.
    std::vector<TableReader> tables(std::string_view key);

    // Throws InputError at the key's value: "key 'PATH': expected EXPECTED, got VALUE".
    [[noreturn]] void fail(std::string_view key, std::string_view expected) const;
    // Throws InputError at the key's value with a message of the caller's own:
    // "key 'PATH': MESSAGE".
    [[noreturn]] void fail_with(std::string_view key, std::string_view message) const;
    // Throws InputError at the table's start: "[PATH]: MESSAGE" ("top level: ..." for the root).
    [[noreturn]] void fail_table(std::string_view message) const;
    // Marks the key accepted; throws InputError at the table when it is absent:
    // "missing key 'PATH' (expected EXPECTED)".
    void require(std::string_view key, std::string_view expected = {});

    // Reports the first unread key (in file order) as an InputError:
    //   "FILE:LINE:COL: unknown key 'render.mssa' (did you mean 'msaa'?); [render] accepts: width, height, msaa"
    void finish() const;

    // How messages name this table: "[render]", "script.segment[2]" (an element of an
    // array of tables, counted from 0), "the top level".
    const std::string& display_name() const { return display_; }

private:
    void mark(std::string_view key);
    static std::optional<double> as_finite_number(const toml::node& n);  // integer or finite float

    const toml::table* table_;
    std::string source_;
    std::string path_;
    std::string display_;                // "[render]", "script.segment[2]", "the top level"
    std::vector<std::string> accepted_;  // in the order asked, for messages
};

}  // namespace seatmark::toml_util
