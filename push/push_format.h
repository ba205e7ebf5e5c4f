#pragma once
// How a record travels to each kind of sink: one InfluxDB 1.x line-protocol line, or one JSON
// object shaped like ReFrame's httpjson perflog record (one per line).
#include <string>

#include "push/push_record.h"

namespace seatmark::push {

// `measurement,tag=v,... field=v,... time_ns` (nanosecond precision). Tags with an empty value
// are left out (line protocol has no empty tag); newlines in words become spaces.
std::string influx_line(const PushRecord& r);

// A flat object as ReFrame's httpjson handler sends (facility, data-version, check_name,
// check_result, check_job_completion_time, hostname, check_perf_<var>_value/_unit/_ref/
// _lower_thres/_upper_thres per figure), plus the tags by name, the words and flags by name and
// `seatmark_record` (the record's key, for an ingest that wants to drop a repeat). No newline.
std::string json_line(const PushRecord& r);

}  // namespace seatmark::push
