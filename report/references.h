#pragma once
// Reference values with tolerances, kept as ReFrame keeps them: per key (host label or "*",
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

struct ReferenceEntry {
    std::string host = "*";               // host label (the run's host) or "*"
    std::string profile = "*";            // workload profile or "*" (all sessions)
    std::optional<uint32_t> step;         // a step's session count; nullopt: "max" (the max-density step)
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
