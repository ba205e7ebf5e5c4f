#include "core/live_json.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/stats.h"
#include "core/plan.h"

namespace seatmark::core {

using nlohmann::json;

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

double num(const json& j, const char* key, double fallback = 0) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return it == j.end() ? fallback : nan;
    return it->is_number() ? it->get<double>() : fallback;
}

// A whole number that fits T: a peer's 1e300 or -1 is an error, not a wrapped or undefined cast.
template <class T>
T whole(const json& v, const char* key) {
    constexpr auto lo = static_cast<long double>(std::numeric_limits<T>::min());
    constexpr auto hi = static_cast<long double>(std::numeric_limits<T>::max());
    long double x = v.is_number_unsigned() ? static_cast<long double>(v.get<uint64_t>())
                    : v.is_number_integer() ? static_cast<long double>(v.get<int64_t>())
                                            : static_cast<long double>(v.get<double>());
    if (!(x >= lo && x <= hi) || x != std::floor(x))
        throw std::out_of_range(std::string("key '") + key + "': " + v.dump() + " is not a whole number from " +
                                std::to_string(std::numeric_limits<T>::min()) + " to " +
                                std::to_string(std::numeric_limits<T>::max()));
    if (v.is_number_unsigned()) return static_cast<T>(v.get<uint64_t>());
    if (v.is_number_integer()) return static_cast<T>(v.get<int64_t>());
    return static_cast<T>(x);
}

template <class T>
T integer(const json& j, const char* key, T fallback = 0) {
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? whole<T>(*it, key) : fallback;
}

std::string text(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool flag(const json& j, const char* key, bool fallback) {
    auto it = j.find(key);
    return it != j.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

const json& member(const json& j, const char* key) {
    static const json empty = json::object();
    auto it = j.find(key);
    return it != j.end() && it->is_object() ? *it : empty;
}

}  // namespace

std::string json_text(const json& j, int indent) { return j.dump(indent, ' ', false, json::error_handler_t::replace); }

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

LiveHistoryPoint history_point(const LiveState& s) {
    LiveHistoryPoint p;
    p.t_s = s.elapsed_s;
    p.step = static_cast<uint32_t>(s.step);
    p.target = s.target;
    p.alive = s.alive;
    std::vector<double> fps, p95;
    for (const auto& ss : s.sessions) {
        if (ss.state != "running") continue;
        if (std::isfinite(ss.fps)) fps.push_back(ss.fps);
        if (std::isfinite(ss.p95_ms)) p95.push_back(ss.p95_ms);
        if (!ss.sla_ok) ++p.sla_failing;
    }
    p.fps_median = fps.empty() ? nan : stats::median(fps);
    p.fps_min = fps.empty() ? nan : *std::min_element(fps.begin(), fps.end());
    p.p95_median_ms = p95.empty() ? nan : stats::median(p95);
    p.p95_worst_ms = p95.empty() ? nan : *std::max_element(p95.begin(), p95.end());
    p.host_cpu_pct = s.host_cpu_pct;
    p.host_mem_used_bytes = s.host_mem_used_bytes;
    p.host_mem_total_bytes = s.host_mem_total_bytes;
    p.gpu_util_pct = s.gpu_util_pct;
    p.gpu_mem_used_bytes = s.gpu_mem_used_bytes;
    return p;
}

void LiveHistory::add(const LiveHistoryPoint& p) {
    if (!points_.empty() && p.t_s < points_.back().t_s + spacing_s_ * 0.5) return;  // closer than the spacing
    points_.push_back(p);
    if (points_.size() <= capacity_) return;
    std::deque<LiveHistoryPoint> kept;
    for (size_t i = 0; i < points_.size(); i += 2) kept.push_back(points_[i]);
    points_ = std::move(kept);
    spacing_s_ *= 2;
}

const char* event_kind(const RunEvent& e) {
    struct Kind {
        const char* operator()(const StepBeginEvent&) const { return "step-begin"; }
        const char* operator()(const StepVerdictEvent&) const { return "step-verdict"; }
        const char* operator()(const SessionEndEvent&) const { return "session-end"; }
        const char* operator()(const RunEndEvent&) const { return "run-end"; }
    };
    return std::visit(Kind{}, e);
}

json event_data_json(const RunEvent& e) {
    struct Data {
        json operator()(const StepBeginEvent& x) const {
            return {{"step", x.step}, {"steps", x.steps}, {"sessions", x.sessions}};
        }
        json operator()(const StepVerdictEvent& x) const {
            return {{"step", x.step},
                    {"sessions", x.sessions},
                    {"pass", x.pass},
                    {"fps_median", number_or_null(x.fps_median)},
                    {"p95_worst_ms", number_or_null(x.p95_worst_ms)},
                    {"reason", x.reason}};
        }
        json operator()(const SessionEndEvent& x) const {
            return {{"session", x.session}, {"reason", x.reason}, {"failure", x.failure}, {"detail", x.detail}};
        }
        json operator()(const RunEndEvent& x) const { return {{"status", x.status}, {"db", x.db}}; }
    };
    return std::visit(Data{}, e);
}

json event_json(const LiveEvent& e) {
    return {{"id", e.id}, {"t_unix_ns", e.t_unix_ns}, {"kind", e.kind()}, {"data", event_data_json(e.data)}};
}

std::optional<LiveEvent> event_from_json(const json& j) {
    if (!j.is_object()) return std::nullopt;
    LiveEvent e;
    e.id = integer<uint64_t>(j, "id");
    e.t_unix_ns = integer<int64_t>(j, "t_unix_ns");
    std::string kind = text(j, "kind");
    const json& d = member(j, "data");
    auto u32 = [&](const char* k) { return integer<uint32_t>(d, k); };
    if (kind == "step-begin")
        e.data = StepBeginEvent{u32("step"), u32("steps"), u32("sessions")};
    else if (kind == "step-verdict")
        e.data = StepVerdictEvent{u32("step"),           u32("sessions"),          flag(d, "pass", false),
                                  num(d, "fps_median", nan), num(d, "p95_worst_ms", nan), text(d, "reason")};
    else if (kind == "session-end")
        e.data = SessionEndEvent{u32("session"), text(d, "reason"), flag(d, "failure", false), text(d, "detail")};
    else if (kind == "run-end")
        e.data = RunEndEvent{text(d, "status"), text(d, "db")};
    else
        return std::nullopt;
    return e;
}

json plan_json(const Plan& p) {
    const Sla& s = p.default_sla;
    return {{"name", p.name},
            {"steps", p.steps},
            {"settle_s", p.settle_s},
            {"window_s", p.window_s},
            {"repeats", p.repeats},
            {"sla",
             {{"p95_interval_ms", s.p95_interval_ms},
              {"low1_fps", s.low1_fps},
              {"latency_p95_ms", s.latency_p95_ms},
              {"stutter_pct", s.stutter_pct},
              {"failures", s.failures},
              {"gpu_memory_pct", s.gpu_memory_pct}}}};
}

json state_json(const LiveState& s, int64_t mono_start_ns, const std::deque<LiveEvent>& recent_events,
                const json& plan) {
    json j;
    j["schema"] = 1;
    j["plan"] = plan;
    j["run"] = {{"plan", s.plan},
                {"db", s.db_path},
                {"host", s.host},
                {"status", s.status},
                {"started_unix_ns", s.started_unix_ns},
                {"mono_start_ns", mono_start_ns},
                {"elapsed_s", s.elapsed_s}};
    j["step"] = {{"current", s.step},           {"count", s.steps},
                 {"target", s.target},          {"alive", s.alive},
                 {"phase", s.phase},            {"phase_left_s", number_or_null(s.phase_left_s)}};
    json steps = json::array();
    for (const auto& st : s.finished_steps)
        steps.push_back({{"step", st.index + 1},
                         {"sessions", st.sessions},
                         {"pass", st.pass},
                         {"fps_median", number_or_null(st.fps_median)},
                         {"p95_worst_ms", number_or_null(st.p95_worst_ms)},
                         {"reason", st.reason}});
    j["verdict"] = {{"max_density_so_far", s.max_density_so_far}, {"steps", steps}};
    j["host"] = {{"cpu_pct", number_or_null(s.host_cpu_pct)},
                 {"mem_used_bytes", number_or_null(s.host_mem_used_bytes)},
                 {"mem_total_bytes", number_or_null(s.host_mem_total_bytes)}};
    j["gpu"] = {{"backend", s.gpu_backend},
                {"util_pct", number_or_null(s.gpu_util_pct)},
                {"mem_used_bytes", number_or_null(s.gpu_mem_used_bytes)},
                {"mem_total_bytes", number_or_null(s.gpu_mem_total_bytes)}};
    j["frames"] = {{"stored", s.frames_stored}, {"lost", s.frames_lost}};
    json sessions = json::array();
    for (const auto& x : s.sessions) {
        sessions.push_back({{"id", x.id},
                            {"host", x.host.empty() ? s.host : x.host},
                            {"profile", x.profile},
                            {"pid", x.pid},
                            {"state", x.state},
                            {"device", x.device},
                            {"software", x.software},
                            {"frames", x.frames},
                            {"fps", number_or_null(x.fps)},
                            {"p95_ms", number_or_null(x.p95_ms)},
                            {"sla_ok", x.sla_ok},
                            {"cpu_pct", number_or_null(x.cpu_pct)},
                            {"rss_bytes", x.rss_bytes ? json(*x.rss_bytes) : json(nullptr)},
                            {"figures_unavailable", x.figures_unavailable},
                            {"gpu_share_pct", number_or_null(x.gpu_share_pct)},
                            {"gpu_share_source", x.gpu_share_source}});
        if (const auto& e = x.endpoint)
            sessions.back()["endpoint"] = {{"user", e->user},
                                           {"launcher", e->launcher},
                                           {"codec", e->codec},
                                           {"fault", e->fault},
                                           {"logon_ms", number_or_null(e->logon_ms)},
                                           {"fps", number_or_null(e->fps)},
                                           {"delivered_ratio", number_or_null(e->delivered_ratio)},
                                           {"latency_p95_ms", number_or_null(e->latency_p95_ms)},
                                           {"ssim_mean", number_or_null(e->ssim_mean)},
                                           {"bytes_per_s", number_or_null(e->bytes_per_s)},
                                           {"arrivals", e->arrivals}};
    }
    j["sessions"] = std::move(sessions);
    json hosts = json::array();
    for (const auto& h : s.hosts)
        hosts.push_back({{"name", h.name},
                         {"rank", h.rank},
                         {"status", h.status},
                         {"clock_offset_ns", h.clock_offset_ns},
                         {"clock_uncertainty_ns", h.clock_uncertainty_ns},
                         {"sessions_running", h.sessions_running},
                         {"summary_age_s", number_or_null(h.summary_age_s)}});
    j["hosts"] = std::move(hosts);
    json events = json::array();
    for (const auto& e : recent_events) events.push_back(event_json(e));
    j["events"] = std::move(events);
    return j;
}

LiveState state_from_json(const json& j) {
    LiveState s;
    const json& run = member(j, "run");
    s.plan = text(run, "plan");
    s.db_path = text(run, "db");
    s.host = text(run, "host");
    s.status = text(run, "status");
    s.started_unix_ns = integer<int64_t>(run, "started_unix_ns");
    s.elapsed_s = num(run, "elapsed_s");
    const json& step = member(j, "step");
    s.step = integer<size_t>(step, "current");
    s.steps = integer<size_t>(step, "count");
    s.target = integer<uint32_t>(step, "target");
    s.alive = integer<uint32_t>(step, "alive");
    s.phase = text(step, "phase");
    s.phase_left_s = num(step, "phase_left_s");
    const json& verdict = member(j, "verdict");
    s.max_density_so_far = integer<uint32_t>(verdict, "max_density_so_far");
    if (auto it = verdict.find("steps"); it != verdict.end() && it->is_array())
        for (const auto& x : *it) {
            LiveStep st;
            st.index = std::max<uint32_t>(1, integer<uint32_t>(x, "step")) - 1;
            st.sessions = integer<uint32_t>(x, "sessions");
            st.pass = flag(x, "pass", false);
            st.fps_median = num(x, "fps_median");
            st.p95_worst_ms = num(x, "p95_worst_ms");
            st.reason = text(x, "reason");
            s.finished_steps.push_back(std::move(st));
        }
    const json& host = member(j, "host");
    s.host_cpu_pct = num(host, "cpu_pct", nan);
    s.host_mem_used_bytes = num(host, "mem_used_bytes", nan);
    s.host_mem_total_bytes = num(host, "mem_total_bytes", nan);
    const json& gpu = member(j, "gpu");
    s.gpu_backend = text(gpu, "backend");
    s.gpu_util_pct = num(gpu, "util_pct", nan);
    s.gpu_mem_used_bytes = num(gpu, "mem_used_bytes", nan);
    s.gpu_mem_total_bytes = num(gpu, "mem_total_bytes", nan);
    const json& frames = member(j, "frames");
    s.frames_stored = integer<uint64_t>(frames, "stored");
    s.frames_lost = integer<uint64_t>(frames, "lost");
    if (auto it = j.find("sessions"); it != j.end() && it->is_array())
        for (const auto& x : *it) {
            LiveSession ss;
            ss.id = integer<uint32_t>(x, "id");
            ss.host = text(x, "host");
            ss.profile = text(x, "profile");
            ss.pid = integer<int64_t>(x, "pid");
            ss.state = text(x, "state");
            ss.device = text(x, "device");
            ss.software = flag(x, "software", false);
            ss.frames = integer<uint64_t>(x, "frames");
            ss.fps = num(x, "fps", nan);
            ss.p95_ms = num(x, "p95_ms", nan);
            ss.sla_ok = flag(x, "sla_ok", true);
            ss.cpu_pct = num(x, "cpu_pct", nan);
            if (auto r = x.find("rss_bytes"); r != x.end() && r->is_number()) ss.rss_bytes = whole<uint64_t>(*r, "rss_bytes");
            ss.figures_unavailable = text(x, "figures_unavailable");
            ss.gpu_share_pct = num(x, "gpu_share_pct", nan);
            ss.gpu_share_source = text(x, "gpu_share_source");
            if (auto e = x.find("endpoint"); e != x.end() && e->is_object()) {
                LiveEndpoint ep;
                ep.user = text(*e, "user");
                ep.launcher = text(*e, "launcher");
                ep.codec = text(*e, "codec");
                ep.fault = text(*e, "fault");
                ep.logon_ms = num(*e, "logon_ms", nan);
                ep.fps = num(*e, "fps", nan);
                ep.delivered_ratio = num(*e, "delivered_ratio", nan);
                ep.latency_p95_ms = num(*e, "latency_p95_ms", nan);
                ep.ssim_mean = num(*e, "ssim_mean", nan);
                ep.bytes_per_s = num(*e, "bytes_per_s", nan);
                ep.arrivals = integer<uint64_t>(*e, "arrivals");
                ss.endpoint = std::move(ep);
            }
            s.sessions.push_back(std::move(ss));
        }
    if (auto it = j.find("hosts"); it != j.end() && it->is_array())
        for (const auto& x : *it) {
            LiveHost h;
            h.name = text(x, "name");
            h.rank = integer<int>(x, "rank");
            h.status = text(x, "status");
            h.clock_offset_ns = integer<int64_t>(x, "clock_offset_ns");
            h.clock_uncertainty_ns = integer<int64_t>(x, "clock_uncertainty_ns");
            h.sessions_running = integer<uint32_t>(x, "sessions_running");
            h.summary_age_s = num(x, "summary_age_s", nan);
            s.hosts.push_back(std::move(h));
        }
    return s;
}

json frames_json(uint32_t session, uint64_t since, const std::vector<LiveFrame>& frames, size_t max) {
    json seq = json::array(), t = json::array(), iv = json::array();
    for (const auto& f : frames) {
        seq.push_back(f.seq);
        t.push_back(f.t_begin_ns);
        iv.push_back(number_or_null(f.interval_ms));
    }
    uint64_t next = frames.empty() ? since : frames.back().seq + 1;
    return {{"session", session},
            {"since", since},
            {"next", next},
            {"max", max},
            {"count", frames.size()},
            {"seq", std::move(seq)},
            {"t_begin_ns", std::move(t)},
            {"interval_ms", std::move(iv)}};
}

std::vector<LiveFrame> frames_from_json(const json& j) {
    std::vector<LiveFrame> out;
    auto seq = j.find("seq"), t = j.find("t_begin_ns"), iv = j.find("interval_ms");
    if (seq == j.end() || t == j.end() || iv == j.end() || !seq->is_array() || !t->is_array() || !iv->is_array())
        return out;
    size_t n = std::min({seq->size(), t->size(), iv->size()});
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        LiveFrame f;
        f.seq = (*seq)[i].is_number() ? whole<uint64_t>((*seq)[i], "seq") : 0;
        f.t_begin_ns = (*t)[i].is_number() ? whole<int64_t>((*t)[i], "t_begin_ns") : 0;
        f.interval_ms = (*iv)[i].is_number() ? (*iv)[i].get<double>() : nan;
        out.push_back(f);
    }
    return out;
}

json history_json(const std::deque<LiveHistoryPoint>& points, double since_s, double spacing_s) {
    json cols = {{"t_s", json::array()},          {"step", json::array()},
                 {"target", json::array()},       {"alive", json::array()},
                 {"fps_median", json::array()},   {"fps_min", json::array()},
                 {"p95_median_ms", json::array()}, {"p95_worst_ms", json::array()},
                 {"sla_failing", json::array()},  {"host_cpu_pct", json::array()},
                 {"host_mem_used_bytes", json::array()}, {"host_mem_total_bytes", json::array()},
                 {"gpu_util_pct", json::array()}, {"gpu_mem_used_bytes", json::array()}};
    size_t n = 0;
    for (const auto& p : points) {
        if (p.t_s <= since_s) continue;
        ++n;
        cols["t_s"].push_back(p.t_s);
        cols["step"].push_back(p.step);
        cols["target"].push_back(p.target);
        cols["alive"].push_back(p.alive);
        cols["fps_median"].push_back(number_or_null(p.fps_median));
        cols["fps_min"].push_back(number_or_null(p.fps_min));
        cols["p95_median_ms"].push_back(number_or_null(p.p95_median_ms));
        cols["p95_worst_ms"].push_back(number_or_null(p.p95_worst_ms));
        cols["sla_failing"].push_back(p.sla_failing);
        cols["host_cpu_pct"].push_back(number_or_null(p.host_cpu_pct));
        cols["host_mem_used_bytes"].push_back(number_or_null(p.host_mem_used_bytes));
        cols["host_mem_total_bytes"].push_back(number_or_null(p.host_mem_total_bytes));
        cols["gpu_util_pct"].push_back(number_or_null(p.gpu_util_pct));
        cols["gpu_mem_used_bytes"].push_back(number_or_null(p.gpu_mem_used_bytes));
    }
    return {{"since_s", since_s}, {"spacing_s", spacing_s}, {"count", n}, {"points", std::move(cols)}};
}

std::vector<LiveHistoryPoint> history_from_json(const json& j) {
    std::vector<LiveHistoryPoint> out;
    const json& c = member(j, "points");
    auto col = [&](const char* k) -> const json* {
        auto it = c.find(k);
        return it != c.end() && it->is_array() ? &*it : nullptr;
    };
    const json* t = col("t_s");
    if (!t) return out;
    auto at = [&](const char* k, size_t i) {
        const json* a = col(k);
        return a && i < a->size() && (*a)[i].is_number() ? (*a)[i].get<double>() : nan;
    };
    // Counts out of uint32_t's range (or NaN) read as 0 rather than an undefined cast.
    auto count = [&](const char* k, size_t i) -> uint32_t {
        double v = at(k, i);
        return v >= 0 && v <= double(std::numeric_limits<uint32_t>::max()) ? static_cast<uint32_t>(v) : 0;
    };
    for (size_t i = 0; i < t->size(); ++i) {
        LiveHistoryPoint p;
        p.t_s = at("t_s", i);
        p.step = count("step", i);
        p.target = count("target", i);
        p.alive = count("alive", i);
        p.fps_median = at("fps_median", i);
        p.fps_min = at("fps_min", i);
        p.p95_median_ms = at("p95_median_ms", i);
        p.p95_worst_ms = at("p95_worst_ms", i);
        p.sla_failing = count("sla_failing", i);
        p.host_cpu_pct = at("host_cpu_pct", i);
        p.host_mem_used_bytes = at("host_mem_used_bytes", i);
        p.host_mem_total_bytes = at("host_mem_total_bytes", i);
        p.gpu_util_pct = at("gpu_util_pct", i);
        p.gpu_mem_used_bytes = at("gpu_mem_used_bytes", i);
        if (std::isfinite(p.t_s)) out.push_back(p);
    }
    return out;
}

}  // namespace seatmark::core
