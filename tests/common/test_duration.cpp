#include <doctest/doctest.h>

#include <string>

#include "common/duration.h"

using seatmark::format_duration;
using seatmark::parse_duration;

TEST_CASE("duration: accepted spellings") {
    struct Case {
        const char* text;
        double seconds;
    };
    const Case good[] = {
        {"30s", 30},     {"500ms", 0.5},   {"2m", 120},       {"1h", 3600},   {"1m30s", 90},
        {"2.5", 2.5},    {"0", 0},         {"0s", 0},         {"1h2m3s", 3723}, {"1.5m", 90},
        {"1s500ms", 1.5}, {"2h500ms", 7200.5}, {"0.25s", 0.25}, {"120", 120},
    };
    for (const Case& c : good) {
        INFO("text: \"", c.text, "\"");
        auto v = parse_duration(c.text);
        REQUIRE(v.has_value());
        CHECK(*v == doctest::Approx(c.seconds));
    }
}

TEST_CASE("duration: rejected spellings") {
    const std::string bad[] = {
        "",       "-1s",  "abc",   "5x",    "1e999", "1e3",  "s",    "ms",  "30s1m" /* out of order */,
        "1s1s" /* repeated */,   "1m30" /* bare number after a unit */,   " 30s",  "30s ", "30 s",
        "5.",     ".5",   "+5",    "1..5s", "nan",   "inf",  "1m-5s", "1,5s", "1d",
        std::string(400, '9') /* out of range */,
    };
    for (const std::string& text : bad) {
        INFO("text: \"", text, "\"");
        CHECK_FALSE(parse_duration(text).has_value());
    }
}

TEST_CASE("duration: format for messages") {
    CHECK(format_duration(1.5) == "1.5 s");
    CHECK(format_duration(30) == "30 s");
    CHECK(format_duration(0.25) == "250 ms");
    CHECK(format_duration(0.0125) == "12.5 ms");
    CHECK(format_duration(0) == "0 s");
    CHECK(format_duration(125) == "2 min 5 s");
    CHECK(format_duration(120) == "2 min");
    CHECK(format_duration(3600) == "1 h");
    CHECK(format_duration(5400) == "1 h 30 min");
    CHECK(format_duration(3723) == "1 h 2 min 3 s");
    CHECK(format_duration(-2) == "-2 s");
}
