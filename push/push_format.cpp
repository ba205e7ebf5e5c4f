#include "push/push_format.h"

#include <charconv>
#include <ctime>
#include <nlohmann/json.hpp>

namespace seatmark::push {

namespace {

// Line protocol's escapes: a backslash before each of `special` (and before a backslash in a
// quoted string); a newline cannot be written at all.
std::string escaped(const std::string& s, const char* special) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        if (c == '\n' || c == '\r') c = ' ';
        for (const char* p = special; *p; ++p)
            if (c == *p) {
                out += '\\';
                break;
            }
        out += c;
    }
    return out;
}

std::string number(double v) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, ec == std::errc() ? end : buf);
}

std::string influx_value(const FieldValue& v) {
    if (auto d = std::get_if<double>(&v)) return number(*d);
    if (auto i = std::get_if<int64_t>(&v)) return std::to_string(*i) + "i";
    if (auto b = std::get_if<bool>(&v)) return *b ? "true" : "false";
    return "\"" + escaped(std::get<std::string>(v), "\"\\") + "\"";
}

std::string iso_utc_ms(int64_t unix_ns) {
    const int64_t s = unix_ns >= 0 ? unix_ns / 1000000000 : (unix_ns - 999999999) / 1000000000;
    const int64_t ms = (unix_ns - s * 1000000000) / 1000000;
    const std::time_t t = static_cast<std::time_t>(s);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[48];
    const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    std::snprintf(buf + n, sizeof buf - n, ".%03dZ", int(ms));
    return buf;
}

}  // namespace

std::string influx_line(const PushRecord& r) {
    std::string line = escaped(r.measurement, ", ");
    for (const auto& [k, v] : r.tags)
        if (!v.empty()) line += "," + escaped(k, ",= ") + "=" + escaped(v, ",= ");
    char sep = ' ';
    for (const Field& f : r.fields) {
        line += sep + escaped(f.name, ",= ") + "=" + influx_value(f.value);
        sep = ',';
    }
    return line + " " + std::to_string(r.time_unix_ns);
}

std::string json_line(const PushRecord& r) {
    nlohmann::ordered_json j;
    j["facility"] = "seatmark";
    j["data-version"] = "1.0";
    j["seatmark_record"] = r.key;
    j["check_name"] = r.measurement;
    j["check_result"] = r.result;
    j["check_job_completion_time"] = iso_utc_ms(r.time_unix_ns);
    j["check_job_completion_time_unix"] = double(r.time_unix_ns) / 1e9;
    for (const auto& [k, v] : r.tags) {
        if (k == "host") j["hostname"] = v;
        j[k] = v;
    }
    for (const Field& f : r.fields) {
        const bool figure = std::holds_alternative<double>(f.value) || std::holds_alternative<int64_t>(f.value);
        if (!figure) {
            std::visit([&](const auto& x) { j[f.name] = x; }, f.value);
            continue;
        }
        const std::string p = "check_perf_" + f.name;
        std::visit([&](const auto& x) {
            if constexpr (!std::is_same_v<std::decay_t<decltype(x)>, std::string>) j[p + "_value"] = x;
        }, f.value);
        j[p + "_unit"] = f.unit;
        j[p + "_ref"] = nullptr;
        j[p + "_lower_thres"] = nullptr;
        j[p + "_upper_thres"] = nullptr;
    }
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace seatmark::push
