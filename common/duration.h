#pragma once
// Durations as people write them in flags and TOML: "30s", "500ms", "2m", "1h",
// "1m30s", or a bare number of seconds ("2.5").
#include <optional>
#include <string>
#include <string_view>

namespace seatmark {

// Seconds, or nullopt when the text is not a duration (negative values are not durations).
std::optional<double> parse_duration(std::string_view text);

// "1.5 s", "250 ms", "2 min 5 s": for messages and summaries.
std::string format_duration(double seconds);

}  // namespace seatmark
