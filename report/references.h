#pragma once
// Reference values with tolerances, kept as ReFrame keeps them: per key (host name, "*" or "pool",
// profile or "*", step: a session count or "max"), per metric a reference value, lower and
// upper fractions (or unbounded) and a unit. The file format is documented by the commented
// example report/examples/references.toml; every key is checked (common/toml_util.h), and a
// bad value is an InputError with file:line:col.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace seatmark::report {

struct Bound {
    std::string metric;
    double value = 0;  // the reference
    double lower = 0;  // fraction of value, <= 0 (-inf: no lower bound)
    double upper = 0;  // fraction of value, >= 0 (+inf: no upper bound)
    std::string unit;  // the metric's unit (checked against it when given)
    int line = 0;
    double low() const { return value * (1 + lower); }   // -inf when unbounded
    double high() const { return value * (1 + upper); }  // +inf when unbounded
};

inline constexpr std::string_view pool_host = "pool";  // host = "pool": the pool as a whole

struct ReferenceEntry {
    // A host's name (its own figures; in a pool run its own steps, by its own session count),
    // "*" (every host of the run, each on its own; must all pass) or "pool" (the whole run: the
    // pool's steps, by the pool's session count, and the pool's own metrics).
    std::string host = "*";
    std::string profile = "*";            // workload profile or "*" (all sessions)
    std::optional<uint32_t> step;         // a step's session count; nullopt: "max" (the max-density step)
    std::optional<uint32_t> hosts;        // scaling_efficiency: the pool size H of E(H)
    std::vector<Bound> bounds;
    int line = 0;
    std::string step_text() const { return step ? std::to_string(*step) : "max"; }
};

struct References {
    std::string source;
    bool require_finished = true;  // a run that did not finish fails the check
    std::vector<ReferenceEntry> entries;
};

References parse_references(std::string_view text, const std::string& source);
References load_references(const std::string& path);

}  // namespace seatmark::report
