#include "monitor/db_source.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "core/stats.h"
#include "store/store_reader.h"
#include "core/plan.h"
#include "core/step_rules.h"

namespace seatmark::monitor {

namespace {

constexpr int64_t recent_span_ns = 3'000'000'000;  // as the orchestrator's live figures
constexpr double nan = NAN;

// The file may be damaged, so any two of its stamps can lie 2^64 ns apart: differences are taken
// in 128 bits, and a stamp computed from one is held within int64 (fuzz_store found the overflow).
__int128 ns_between(int64_t from, int64_t to) { return static_cast<__int128>(to) - from; }
double secs_between(int64_t from, int64_t to) { return double(ns_between(from, to)) * 1e-9; }
int64_t stamp_after(int64_t from, double s) {
    const double ns = std::clamp(s * 1e9, -9.2e18, 9.2e18);  // NaN is never passed: s is a time shown
    const __int128 t = static_cast<__int128>(from) + static_cast<__int128>(ns);
    return int64_t(std::clamp<__int128>(t, INT64_MIN, INT64_MAX));
}

bool bad_kind(const std::string& kind) {
    for (const char* w : {"crash", "hang", "lost", "fail", "error", "protocol", "rejected", "refused", "unavailable", "disconnected", "abort", "killed"})
        if (kind.find(w) != std::string::npos) return true;
    return false;
}

}  // namespace

DbSource::DbSource(const std::string& path) : path_(path) {
    store::StoreReader db(path);
    store::RunRow run = db.run();
    started_unix_ns_ = run.started_unix_ns;
    origin_ns_ = run.mono_origin_ns;
    host_ = run.host;
    status_end_ = std::string(store::to_string(db.effective_status()));
    std::map<std::string, Sla> sla_by_profile;
    Sla default_sla;
    try {
        core::Plan plan = core::parse_plan(run.plan_text, run.plan_path.empty() ? "stored plan" : run.plan_path);
        plan_name_ = plan.name;
        plan_steps_ = plan.steps.size();
        default_sla = plan.default_sla;
        sla_by_profile = plan.sla;
        sla_p95_ms_ = plan.default_sla.p95_interval_ms;
    } catch (const std::exception&) {
        plan_name_ = run.plan_path.empty() ? "(plan unreadable)" : run.plan_path;  // judged by the default SLA
    }
    for (const auto& h : db.hosts()) {
        if (h.mem_total_bytes > 0 && (h.hostname == host_ || std::isnan(host_mem_total_)))
            host_mem_total_ = double(h.mem_total_bytes);
        if (h.role != store::role_joined) hosts_.push_back(h);
    }
    if (hosts_.size() < 2) hosts_.clear();  // a single host lists none (as the live API)

    int64_t last_ns = origin_ns_;
    for (auto& row : db.sessions()) {
        Session s;
        s.row = row;
        auto it = sla_by_profile.find(row.profile);
        s.sla = it != sla_by_profile.end() ? it->second : default_sla;
        auto frames = db.frames(row.id);
        s.t_ns.reserve(frames.size());
        s.interval_ms.reserve(frames.size());
        for (const auto& f : frames) {
            s.t_ns.push_back(f.t_begin_ns);
            s.interval_ms.push_back(f.interval_ns >= 0 ? float(double(f.interval_ns) * 1e-6) : NAN);
        }
        if (!s.t_ns.empty()) {
            // Frames are stored by seq; their begin times ascend with it.
            if (!std::is_sorted(s.t_ns.begin(), s.t_ns.end())) {
                std::vector<size_t> order(s.t_ns.size());
                for (size_t i = 0; i < order.size(); ++i) order[i] = i;
                std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s.t_ns[a] < s.t_ns[b]; });
                std::vector<int64_t> t;
                std::vector<float> iv;
                for (size_t i : order) t.push_back(s.t_ns[i]), iv.push_back(s.interval_ms[i]);
                s.t_ns = std::move(t);
                s.interval_ms = std::move(iv);
            }
            last_ns = std::max(last_ns, s.t_ns.back());
        }
        if (row.ended_ns) last_ns = std::max(last_ns, *row.ended_ns);
        sessions_.push_back(std::move(s));
    }
    std::map<int, size_t> by_id;
    for (size_t i = 0; i < sessions_.size(); ++i) by_id[sessions_[i].row.id] = i;
    if (db.has_endpoint_tables()) {
        auto series = db.endpoint_series();
        for (auto& l : db.endpoint_logons()) {
            if (!l.session_id) continue;
            auto it = by_id.find(*l.session_id);
            if (it == by_id.end()) continue;
            Session& s = sessions_[it->second];
            s.logon = std::move(l);
            if (auto e = series.find(s.row.id); e != series.end()) s.endpoint = std::move(e->second);
            s.endpoint_frames = db.frames(s.row.id);
            std::stable_sort(s.endpoint_frames.begin(), s.endpoint_frames.end(),
                             [](const FrameRecord& a, const FrameRecord& b) { return a.t_begin_ns < b.t_begin_ns; });
        }
    }

    for (const auto& x : db.samples()) {
        last_ns = std::max(last_ns, x.t_ns);
        std::pair<int64_t, double> v{x.t_ns, x.value};
        if (x.session_id) {
            auto it = by_id.find(*x.session_id);
            if (it == by_id.end()) continue;
            Session& s = sessions_[it->second];
            if (x.metric == "cpu_pct") s.cpu.push_back(v);
            else if (x.metric == "rss_bytes") s.rss.push_back(v);
            else if (x.metric == "gpu_share_pct") {
                s.gpu_share.push_back(v);
                s.gpu_share_source = x.source;
            }
        } else if (!x.host.empty() && x.host != host_) {
            continue;  // a pool's other hosts: the header shows the run's own host (rank 0)
        } else if (x.metric == "host_cpu_pct") {
            host_cpu_.push_back(v);
        } else if (x.metric == "host_mem_used_bytes") {
            host_mem_.push_back(v);
        } else if (x.metric == "gpu_util_pct") {
            gpu_util_.push_back(v);
            gpu_backend_ = x.source;
        } else if (x.metric == "gpu_mem_used_bytes") {
            gpu_mem_.push_back(v);
        } else if (x.metric == "gpu_mem_total_bytes") {
            gpu_mem_total_.push_back(v);
        }
    }

    // Steps: repeats of one step pooled into one band.
    for (const auto& r : db.steps()) {
        if (steps_.empty() || steps_.back().idx != uint32_t(r.idx)) {
            Step st;
            st.idx = uint32_t(r.idx);
            st.sessions = uint32_t(r.target_sessions);
            st.started_ns = r.started_ns;
            steps_.push_back(st);
        }
        Step& st = steps_.back();
        if (r.window_start_ns)
            st.window_start_ns = st.window_start_ns ? std::min(*st.window_start_ns, *r.window_start_ns) : *r.window_start_ns;
        if (r.window_end_ns)
            st.window_end_ns = st.window_end_ns ? std::max(*st.window_end_ns, *r.window_end_ns) : *r.window_end_ns;
        if (r.ended_ns) st.ended_ns = st.ended_ns ? std::max(*st.ended_ns, *r.ended_ns) : *r.ended_ns;
        if (r.ended_ns) last_ns = std::max(last_ns, *r.ended_ns);
    }
    if (plan_steps_ == 0) plan_steps_ = steps_.size();
    // Each judged step's verdict and figures as the orchestrator stored them (the pooled row).
    for (const auto& v : db.verdicts()) {
        if (v.repeat != store::pooled_repeat) continue;
        for (auto& st : steps_)
            if (st.idx == uint32_t(v.step_idx)) {
                st.verdict = v.pass ? 1 : 0;
                st.detail = v.reasons.empty() ? "" : v.reasons.front();
                st.fps_median = v.fps_median;
                st.p95_worst_ms = v.p95_worst_ms;
                st.ended_ns = std::max(st.ended_ns.value_or(v.judged_ns), v.judged_ns);
                last_ns = std::max(last_ns, v.judged_ns);
            }
    }

    for (const auto& e : db.events()) {
        last_ns = std::max(last_ns, e.t_ns);
        EventLine l;
        l.id = events_.size() + 1;
        l.t_s = secs_between(origin_ns_, e.t_ns);
        l.kind = e.kind;
        // A pool's events name their host: the same session number or fault reads differently per host.
        l.text = (e.host.empty() ? std::string() : e.host + ": ") +
                 (e.session_id ? "session " + std::to_string(*e.session_id) + ": " : std::string()) + e.detail;
        l.bad = bad_kind(e.kind);
        if (l.bad) l.cls = e.session_id ? EventClass::session_failure : EventClass::fault;
        // A step's verdict as its event states it (store::step_verdict_detail, the writer's rule);
        // a pool's verdict events carry the pool's verdict, which no one host's row holds.
        if (e.kind == "step-verdict") {
            std::optional<bool> pass = store::step_verdict_passed(e.detail);
            if (!pass)  // an older file's wording: its stored verdict row at the same stamp
                for (const auto& st : steps_)
                    if (st.ended_ns && *st.ended_ns == e.t_ns && st.verdict >= 0) pass = st.verdict == 1;
            if (pass) {
                l.bad = !*pass;
                l.cls = *pass ? EventClass::step_pass : EventClass::step_fail;
            }
        }
        events_.push_back(std::move(l));
    }
    if (run.ended_unix_ns) last_ns = std::max(last_ns, stamp_after(origin_ns_, secs_between(run.started_unix_ns, *run.ended_unix_ns)));
    t_end_s_ = std::max(0.0, secs_between(origin_ns_, last_ns));

    // Run-wide history, as the live API keeps it: at most ~1500 points.
    double spacing = std::max(1.0, t_end_s_ / 1500);
    for (double t = 0; t <= t_end_s_ + 1e-9; t += spacing) history_.push_back(core::history_point(state_at(t)));
    if (history_.empty() || history_.back().t_s < t_end_s_) history_.push_back(core::history_point(state_at(t_end_s_)));
    // Open at the end of the last measured window: the busiest moment that was judged.
    t_now_s_ = t_end_s_;
    for (const auto& st : steps_)
        if (st.window_end_ns) t_now_s_ = std::min(t_end_s_, secs_between(origin_ns_, *st.window_end_ns) - 0.25);
    t_now_s_ = std::max(0.0, t_now_s_);
    rebuild();
}

double DbSource::at_or_before(const std::vector<std::pair<int64_t, double>>& v, int64_t t, int64_t max_age_ns) const {
    auto it = std::upper_bound(v.begin(), v.end(), std::pair<int64_t, double>(t, INFINITY));
    if (it == v.begin()) return nan;
    --it;
    return ns_between(it->first, t) <= max_age_ns ? it->second : nan;
}

core::LiveState DbSource::state_at(double t_s) const {
    core::LiveState st;
    const int64_t t = stamp_after(origin_ns_, t_s);
    const bool at_end = t_s >= t_end_s_ - 1e-6;
    st.plan = plan_name_;
    st.db_path = path_;
    st.host = host_;
    st.status = at_end ? status_end_ : "running";
    st.started_unix_ns = started_unix_ns_;
    st.elapsed_s = t_s;
    st.steps = plan_steps_;
    const Step* cur = nullptr;
    for (const auto& s : steps_)
        if (s.started_ns <= t) cur = &s;
    if (cur) {
        st.step = cur->idx + 1;
        st.target = cur->sessions;
        if (at_end)
            st.phase = "done";
        else if (cur->ended_ns && t >= *cur->ended_ns)
            st.phase = "stopping";
        else if (cur->window_start_ns && t >= *cur->window_start_ns)
            st.phase = "measuring";
        else
            st.phase = "settling";
        if (st.phase == "measuring" && cur->window_end_ns) st.phase_left_s = secs_between(t, *cur->window_end_ns);
        else if (st.phase == "settling" && cur->window_start_ns) st.phase_left_s = secs_between(t, *cur->window_start_ns);
    } else {
        st.phase = "starting";
    }
    std::vector<core::StepPass> judged;
    for (const auto& s : steps_) {
        if (!s.ended_ns || *s.ended_ns > t || s.verdict < 0) continue;
        core::LiveStep ls;
        ls.index = s.idx;
        ls.sessions = s.sessions;
        ls.pass = s.verdict == 1;
        ls.fps_median = s.fps_median;
        ls.p95_worst_ms = s.p95_worst_ms;
        ls.reason = s.detail;
        st.finished_steps.push_back(ls);
        judged.push_back({s.sessions, ls.pass});
    }
    st.max_density_so_far = core::max_density(judged).sessions;
    st.host_cpu_pct = at_or_before(host_cpu_, t, 5'000'000'000);
    st.host_mem_used_bytes = at_or_before(host_mem_, t, 5'000'000'000);
    st.host_mem_total_bytes = host_mem_total_;
    st.gpu_backend = gpu_backend_;
    st.gpu_util_pct = at_or_before(gpu_util_, t, 5'000'000'000);
    st.gpu_mem_used_bytes = at_or_before(gpu_mem_, t, 5'000'000'000);
    st.gpu_mem_total_bytes = at_or_before(gpu_mem_total_, t, INT64_MAX);
    for (const auto& s : sessions_) {
        if (s.row.started_ns > t) continue;
        core::LiveSession ls;
        ls.id = uint32_t(s.row.id);
        ls.host = s.row.host;
        ls.profile = s.row.profile;
        ls.pid = s.row.pid;
        ls.device = s.row.device.device_name;
        ls.software = s.row.device.software;
        size_t upto = size_t(std::upper_bound(s.t_ns.begin(), s.t_ns.end(), t) - s.t_ns.begin());
        ls.frames = upto;
        st.frames_stored += upto;
        bool ended = s.row.ended_ns && *s.row.ended_ns <= t;
        if (ended) {
            ls.state = std::string(store::to_string(s.row.end_reason == store::SessionEnd::running ? store::SessionEnd::ok
                                                                                                  : s.row.end_reason));
            st.frames_lost += uint64_t(s.row.frames_lost);
        } else {
            ls.state = upto > 0 ? "running" : "starting";
            ++st.alive;
        }
        size_t from = size_t(std::lower_bound(s.t_ns.begin(), s.t_ns.end(), stamp_after(t, -double(recent_span_ns) * 1e-9)) - s.t_ns.begin());
        std::vector<FrameRecord> recent;
        int64_t active_ns = 0;
        for (size_t i = from; i < upto; ++i) {
            FrameRecord f;
            f.seq = i;
            f.t_begin_ns = s.t_ns[i];
            f.interval_ns = std::isnan(s.interval_ms[i]) ? -1 : int64_t(std::min(double(s.interval_ms[i]) * 1e6, 9.2e18));
            // Saturating: a damaged file's intervals must not overflow the sum.
            if (f.interval_ns > 0) active_ns = f.interval_ns > INT64_MAX - active_ns ? INT64_MAX : active_ns + f.interval_ns;
            recent.push_back(f);
        }
        if (recent.empty() || ended) {
            ls.fps = ls.p95_ms = nan;
            ls.sla_ok = true;
        } else {
            auto sum = stats::summarize(recent, double(active_ns) * 1e-9);
            ls.fps = sum.fps;
            ls.p95_ms = sum.p95_ms;
            ls.sla_ok = sla_violations(sum, s.sla).empty();
        }
        ls.cpu_pct = ended ? nan : at_or_before(s.cpu, t, 3'000'000'000);
        double rss = at_or_before(s.rss, t, 3'000'000'000);
        // A file's values are not trusted: a negative or huge figure must not become an undefined conversion.
        if (!(std::isnan(rss) || ended || rss < 0)) ls.rss_bytes = uint64_t(std::min(rss, 1.8e19));
        else if (!ended) ls.figures_unavailable = "no sample of its process in the last 3 s of the run's file";
        ls.gpu_share_pct = ended ? nan : at_or_before(s.gpu_share, t, 3'000'000'000);
        ls.gpu_share_source = s.gpu_share_source;
        if (s.logon) ls.endpoint = endpoint_at(s, t, ended);
        st.sessions.push_back(std::move(ls));
    }
    // A pool's hosts as rank 0's live API lists them; lost from the step it was lost in on.
    for (const auto& h : hosts_) {
        core::LiveHost lh;
        lh.name = h.hostname;
        lh.rank = h.rank.value_or(0);
        lh.clock_offset_ns = h.clock_offset_ns;
        lh.clock_uncertainty_ns = h.clock_uncertainty_ns.value_or(0);
        lh.summary_age_s = nan;
        if (h.lost && h.lost_step && st.step > 0 && int(st.step) - 1 >= *h.lost_step) lh.status = "lost";
        for (const auto& x : st.sessions)
            if (x.host == h.hostname && (x.state == "running" || x.state == "starting")) ++lh.sessions_running;
        st.hosts.push_back(std::move(lh));
    }
    return st;
}

// What the live API's endpoint object said at t (orchestrator/live_projection.cpp): the logon,
// and the endpoint figures over the same recent span as the session's own FPS.
core::LiveEndpoint DbSource::endpoint_at(const Session& s, int64_t t, bool ended) const {
    const store::EndpointLogonRow& l = *s.logon;
    core::LiveEndpoint e;
    e.user = l.user;
    e.launcher = l.launcher;
    e.codec = l.codec;
    e.bytes_per_s = l.bytes_per_s;
    if (l.ended_ns && *l.ended_ns <= t) e.fault = l.fault;
    if (l.logon_ms && double(l.connect_ns) + *l.logon_ms * 1e6 <= double(t)) e.logon_ms = *l.logon_ms;  // in double: a file's values may be anything
    for (const auto& a : s.endpoint.arrivals) e.arrivals += a.arrival_ns <= t;
    if (ended) return e;
    auto by_begin = [](const FrameRecord& f, int64_t v) { return f.t_begin_ns < v; };
    const auto& f = s.endpoint_frames;
    auto from = std::lower_bound(f.begin(), f.end(), stamp_after(t, -double(recent_span_ns) * 1e-9), by_begin);
    const int64_t after_t = t == INT64_MAX ? t : t + 1;
    auto upto = std::lower_bound(from, f.end(), after_t, by_begin);
    if (from == upto) return e;
    const auto fig = core::endpoint_figures(std::span<const FrameRecord>(&*from, size_t(upto - from)), s.endpoint.arrivals,
                                            s.endpoint.ssim, double(recent_span_ns) * 1e-9, after_t);
    e.fps = fig.fps;
    e.delivered_ratio = fig.delivered_ratio;
    e.latency_p95_ms = fig.latency_p95_ms;
    e.ssim_mean = fig.ssim_mean;
    return e;
}

void DbSource::select_session(std::optional<uint32_t> id) {
    if (id == selected_) return;
    selected_ = id;
    rebuild();
}

void DbSource::set_time(double t_s) {
    t_s = std::clamp(t_s, 0.0, t_end_s_);
    if (t_s == t_now_s_) return;
    t_now_s_ = t_s;
    rebuild();
}

void DbSource::rebuild() {
    auto d = std::make_shared<MonitorData>();
    d->state = state_at(t_now_s_);
    d->history = history_;
    for (const auto& s : steps_) {
        StepBand b;
        b.step = s.idx + 1;
        b.sessions = s.sessions;
        b.t0_s = secs_between(origin_ns_, s.started_ns);
        b.t1_s = s.ended_ns ? secs_between(origin_ns_, *s.ended_ns) : t_end_s_;
        if (s.window_start_ns) b.window_t0_s = secs_between(origin_ns_, *s.window_start_ns);
        if (s.window_end_ns) b.window_t1_s = secs_between(origin_ns_, *s.window_end_ns);
        b.verdict = s.verdict;
        d->bands.push_back(b);
    }
    for (const auto& e : events_)
        if (e.t_s <= t_now_s_ + 1e-9) d->events.push_back(e);
    if (selected_) {
        auto it = series_.find(*selected_);
        if (it == series_.end())
            for (const auto& s : sessions_)
                if (uint32_t(s.row.id) == *selected_) {
                    auto fs = std::make_shared<FrameSeries>();
                    fs->session = *selected_;
                    fs->t_s.reserve(s.t_ns.size());
                    for (int64_t x : s.t_ns) fs->t_s.push_back(secs_between(origin_ns_, x));
                    fs->interval_ms = s.interval_ms;
                    it = series_.emplace(*selected_, std::move(fs)).first;
                }
        if (it != series_.end()) d->frames = it->second;
    }
    d->link = Link::file;
    d->source = path_;
    d->link_note = "run " + status_end_;
    d->t_now_s = t_now_s_;
    d->t_end_s = t_end_s_;
    d->sla_p95_ms = sla_p95_ms_;
    d->version = ++version_;
    snap_ = std::move(d);
}

}  // namespace seatmark::monitor
