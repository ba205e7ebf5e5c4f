#include "store/records.h"

#include <array>
#include <string>
#include <stdexcept>
#include <utility>

namespace seatmark::store {

namespace {

constexpr std::array<std::pair<RunStatus, std::string_view>, 5> run_names{{
    {RunStatus::running, "running"},
    {RunStatus::finished, "finished"},
    {RunStatus::aborted, "aborted"},
    {RunStatus::crashed, "crashed"},
    {RunStatus::degraded, "degraded"},
}};

constexpr std::array<std::pair<SessionEnd, std::string_view>, 10> end_names{{
    {SessionEnd::running, "running"},
    {SessionEnd::ok, "ok"},
    {SessionEnd::crash, "crash"},
    {SessionEnd::hang, "hang"},
    {SessionEnd::device_lost, "device-lost"},
    {SessionEnd::software_fallback, "software-fallback"},
    {SessionEnd::killed, "killed"},
    {SessionEnd::error, "error"},
    {SessionEnd::protocol, "protocol"},
    {SessionEnd::disconnected, "disconnected"},
}};

template <class E, size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& names, E e) {
    for (auto& [v, n] : names)
        if (v == e) return n;
    return "?";
}

template <class E, size_t N>
E parse(const std::array<std::pair<E, std::string_view>, N>& names, std::string_view s, const char* kind) {
    for (auto& [v, n] : names)
        if (n == s) return v;
    throw std::invalid_argument("unknown " + std::string(kind) + " '" + std::string(s) + "'");
}

}  // namespace

std::string_view to_string(RunStatus s) { return name_of(run_names, s); }
std::string_view to_string(SessionEnd e) { return name_of(end_names, e); }
RunStatus parse_run_status(std::string_view s) { return parse(run_names, s, "run status"); }
SessionEnd parse_session_end(std::string_view s) { return parse(end_names, s, "session end reason"); }

std::string step_verdict_detail(uint32_t step_no, uint32_t sessions, bool pass, const std::string& reason) {
    return "step " + std::to_string(step_no) + " (" + std::to_string(sessions) + " sessions): " +
           (pass ? std::string("pass") : "fail: " + reason);
}

std::optional<bool> step_verdict_passed(std::string_view detail) {
    if (!detail.starts_with("step ")) return std::nullopt;
    const size_t at = detail.find(" sessions): ");
    if (at == std::string_view::npos) return std::nullopt;
    const std::string_view rest = detail.substr(at + 12);
    if (rest == "pass") return true;
    if (rest.starts_with("fail: ")) return false;
    return std::nullopt;
}

bool is_failure(SessionEnd e) { return e != SessionEnd::ok && e != SessionEnd::killed && e != SessionEnd::running; }

}  // namespace seatmark::store
