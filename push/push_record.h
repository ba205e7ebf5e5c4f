#pragma once
// What `seatmark run --push` and `seatmark push` send: one record per step verdict (the pooled
// step and each window), per ended session and for the ended run, never frames. Both paths build
// them with collect_records() from the run database, so they send the same records.
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace seatmark::store {
class StoreReader;
}

namespace seatmark::push {

// A field's value: a figure, a count, a yes/no or a word. A NaN figure (not measured) is left out
// of the record by collect_records(), never sent as 0.
using FieldValue = std::variant<double, int64_t, bool, std::string>;

struct Field {
    std::string name;   // e.g. "p95_worst_ms"
    FieldValue value;
    std::string unit;   // "ms", "fps", "frames", ... ("" for words and flags)
};

struct PushRecord {
    // Names the record within its run, stable across reads of the same file: a sink's ledger
    // (push/push_ledger.h) holds the keys it has taken, so each record is delivered once.
    std::string key;
    std::string measurement;  // seatmark_step, seatmark_window, seatmark_session, seatmark_run
    int64_t time_unix_ns = 0; // when it was decided (a verdict's window end, a session's end, the run's end)
    std::vector<std::pair<std::string, std::string>> tags;  // what it is about: run, host, step, ...
    std::vector<Field> fields;
    // The outcome in words ("pass" / "fail", a session's end reason, the run's status).
    std::string result;
};

// Every record the file holds now, in a fixed order (run, verdicts by host, step, repeat;
// sessions by id). A session still running and a run still being written give no record yet:
// a record, once given, never changes. Throws what StoreReader throws.
std::vector<PushRecord> collect_records(const store::StoreReader& reader);

}  // namespace seatmark::push
