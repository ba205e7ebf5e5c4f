#include "orchestrator/pool_coordinator.h"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/clock.h"
#include "core/pool_rules.h"
#include "orchestrator/signal_latch.h"

namespace seatmark::orchestrator {

namespace {

constexpr size_t text_max = 240;

struct ArriveMsg {  // rank k -> 0
    int64_t seq = 0;
    int32_t point = 0, step = 0, repeat = 0, pad = 0;
    char decided[text_max] = {};
};

struct GoMsg {  // 0 -> rank k
    int64_t seq = 0;
    int64_t go_ns = 0;  // in the receiver's clock
    int32_t ok = 1, pad = 0;
    char detail[text_max] = {};
    char decided[text_max] = {};
};

void put(char (&dst)[text_max], const std::string& s) {
    std::memset(dst, 0, text_max);
    std::memcpy(dst, s.data(), std::min(s.size(), text_max - 1));
}

std::string get(const char (&src)[text_max]) { return std::string(src, strnlen(src, text_max)); }

// How far ahead of "now" rank 0 sets the go instant: room for the answers to arrive.
constexpr int64_t go_lead_ns = 100'000'000;

void sleep_until(int64_t t_ns) {
    timespec ts{static_cast<time_t>(t_ns / 1'000'000'000), static_cast<long>(t_ns % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != 0) {
    }
}

}  // namespace

bool PoolView::any_lost() const {
    return std::any_of(members.begin(), members.end(), [](const PoolMember& m) { return m.lost; });
}

MpiCoordinator::MpiCoordinator(PoolComm& comm, PoolView& view, std::function<double(SyncPoint)> deadline_s)
    : comm_(comm), view_(view), deadline_s_(std::move(deadline_s)) {}

void MpiCoordinator::mark_lost(int rank, const std::string& detail) {
    PoolMember& m = view_.members[static_cast<size_t>(rank)];
    if (m.lost) return;
    m.lost = true;
    m.lost_step = static_cast<int>(req_.step);
    m.lost_detail = detail;
}

void MpiCoordinator::arrive(const SyncRequest& r, std::function<void(const SyncResult&)> done) {
    ++seq_;
    req_ = r;
    done_ = std::move(done);
    go_at_ns_.reset();
    result_ = SyncResult{};
    result_.decided = r.decided;
    deadline_ns_ = now_ns() + static_cast<int64_t>(deadline_s_(r.point) * 1e9);
    const int n = comm_.size();
    if (comm_.rank() == 0) {
        arrivals_.clear();
        arrived_.assign(static_cast<size_t>(n), false);
        arrived_[0] = true;
        arrivals_.reserve(static_cast<size_t>(n));
        for (int k = 1; k < n; ++k) arrivals_.emplace_back(k, tag_arrive, sizeof(ArriveMsg));
    } else {
        ArriveMsg m;
        m.seq = seq_;
        m.point = static_cast<int32_t>(r.point);
        m.step = static_cast<int32_t>(r.step);
        m.repeat = static_cast<int32_t>(r.repeat);
        put(m.decided, r.decided);
        go_ = PoolComm::Pending(0, tag_go, sizeof(GoMsg));
        if (!comm_.send(0, tag_arrive, &m, sizeof m, deadline_ns_)) {
            mark_lost(0, "rank 0 (" + view_.members[0].host + ") took no message at " + to_string(r.point));
            result_.ok = false;
            result_.detail = "host " + view_.members[0].host + " (rank 0) lost at " + to_string(r.point) + " of step " +
                             std::to_string(r.step + 1);
            finish(result_);
        }
    }
    poll();
}

void MpiCoordinator::finish(const SyncResult& r) {
    if (!done_) return;
    auto done = std::move(done_);
    done_ = nullptr;
    if (r.ok) opened_.push_back({req_.step, req_.repeat, req_.point, now_ns()});
    done(r);
}

void MpiCoordinator::poll() {
    if (!done_) return;
    const int64_t now = now_ns();
    if (go_at_ns_) {
        // Close to the instant: sleep to it exactly rather than wait for the next 50 ms pass.
        if (*go_at_ns_ - now < 60'000'000) {
            sleep_until(*go_at_ns_);
            finish(result_);
        }
        return;
    }
    const int n = comm_.size();
    if (comm_.rank() == 0) {
        bool all = true;
        for (int k = 1; k < n; ++k) {
            if (arrived_[static_cast<size_t>(k)]) continue;
            auto& p = arrivals_[static_cast<size_t>(k - 1)];
            if (p.ready()) {
                ArriveMsg m;
                std::memcpy(&m, p.data(), sizeof m);
                arrived_[static_cast<size_t>(k)] = true;
                if (result_.decided.empty()) result_.decided = get(m.decided);
            } else {
                all = false;
            }
        }
        if (!all && now < deadline_ns_) return;
        GoMsg g;
        g.seq = seq_;
        std::string where = std::string(to_string(req_.point)) + " of step " + std::to_string(req_.step + 1);
        if (!all) {
            std::string names;
            for (int k = 1; k < n; ++k)
                if (!arrived_[static_cast<size_t>(k)]) {
                    mark_lost(k, "did not arrive within " + std::to_string(int(deadline_s_(req_.point))) + " s at " + where);
                    names += (names.empty() ? "" : ", ") + view_.members[static_cast<size_t>(k)].host;
                }
            result_.ok = false;
            result_.detail = "host(s) " + names + " lost at " + where;
            g.ok = 0;
            put(g.detail, result_.detail);
        }
        const int64_t go0 = now_ns() + go_lead_ns;
        put(g.decided, result_.decided);
        for (int k = 1; k < n; ++k) {
            if (view_.members[static_cast<size_t>(k)].lost) continue;
            g.go_ns = go0 - view_.members[static_cast<size_t>(k)].offset_ns;
            comm_.send(k, tag_go, &g, sizeof g, now_ns() + 1'000'000'000);
        }
        if (!result_.ok) {
            finish(result_);
            return;
        }
        go_at_ns_ = go0;
        poll();
        return;
    }
    if (go_.ready()) {
        GoMsg g;
        std::memcpy(&g, go_.data(), sizeof g);
        result_.decided = get(g.decided);
        if (!g.ok) {
            result_.ok = false;
            result_.detail = get(g.detail);
            // rank 0 names the lost hosts in the detail; this rank marks them from it.
            for (size_t k = 1; k < view_.members.size(); ++k)
                if (int(k) != comm_.rank() && result_.detail.find(view_.members[k].host) != std::string::npos)
                    mark_lost(static_cast<int>(k), result_.detail);
            finish(result_);
            return;
        }
        go_at_ns_ = g.go_ns;
        poll();
        return;
    }
    if (now >= deadline_ns_) {
        const std::string where = std::string(to_string(req_.point)) + " of step " + std::to_string(req_.step + 1);
        mark_lost(0, "no answer within " + std::to_string(int(deadline_s_(req_.point))) + " s at " + where);
        result_.ok = false;
        result_.detail = "host " + view_.members[0].host + " (rank 0) lost at " + where;
        finish(result_);
    }
}

// ---- the pool's ramp ------------------------------------------------------------------------

SharePlanner::SharePlanner(PoolComm& comm, PoolView& view, const core::Plan& plan)
    : comm_(comm), view_(view), plan_(plan),
      series_(plan.pool.series(static_cast<uint32_t>(view.members.size()))),
      inner_(plan.steps, plan.repeats, plan.stop == core::StopRule::first_failure),
      // A host judges its step once its sessions' telemetry is in (backstop: heartbeat timeout + 5 s).
      timeout_s_(plan.pool.sync_timeout_s + plan.heartbeat_timeout_s + 5) {}

uint32_t SharePlanner::share_of(uint32_t count) const {
    const uint32_t h = series_.at(series_at_);
    if (static_cast<uint32_t>(view_.self) >= h) return 0;  // idle while the series runs on fewer hosts
    auto shares = core::place_sessions(count, h, plan_.pool.placement, plan_.pool.max_sessions_per_host);
    return shares.at(static_cast<size_t>(view_.self));
}

std::optional<uint32_t> SharePlanner::step_hosts(size_t index) const {
    if (index >= hosts_.size()) return std::nullopt;
    return hosts_[index];
}

std::optional<uint32_t> SharePlanner::step_total(size_t index) const {
    if (index >= totals_.size()) return std::nullopt;
    return totals_[index];
}

std::optional<uint32_t> SharePlanner::take(std::optional<uint32_t> count) {
    if (!count) return std::nullopt;
    const uint32_t h = series_.at(series_at_);
    totals_.push_back(core::pool_total(*count, h, plan_.pool.placement));
    hosts_.push_back(h);
    return share_of(*count);
}

std::optional<uint32_t> SharePlanner::first() { return take(inner_.first()); }

bool SharePlanner::more_windows(uint32_t closed, std::span<const core::StepVerdict> judged) {
    return inner_.more_windows(closed, judged);  // the same on every host: the plan's repeats
}

namespace {

// A host's vote to rank 0: "1" pass, "0" fail or "-" idle, then its sessions, worst p95 and first
// reason, tab-separated (what the pool's verdict takes from it: core::pool_verdict).
std::string encode_vote(bool idle, uint32_t sessions, const core::StepVerdict* v) {
    char head[64];
    std::snprintf(head, sizeof head, "%c\t%u\t%.17g\t", idle ? '-' : (v && v->pass ? '1' : '0'), sessions,
                  v ? v->p95_worst_ms : NAN);
    return head + (v && !v->reasons.empty() ? v->reasons.front() : std::string());
}

// nullopt: idle (takes no part in the step's verdict).
std::optional<core::HostVerdict> decode_vote(const std::string& host, const std::string& m) {
    core::HostVerdict h;
    h.host = host;
    if (m.empty() || m[0] == '-') return std::nullopt;
    h.verdict.pass = m[0] == '1';
    const size_t t1 = m.find('\t'), t2 = m.find('\t', t1 + 1), t3 = m.find('\t', t2 + 1);
    if (t3 == std::string::npos) {
        h.verdict.pass = false;
        h.verdict.reasons.push_back("its vote did not read (" + std::to_string(m.size()) + " bytes)");
        return h;
    }
    h.sessions_judged = std::strtoul(m.c_str() + t1 + 1, nullptr, 10);
    h.verdict.target = static_cast<uint32_t>(h.sessions_judged);
    h.verdict.p95_worst_ms = std::strtod(m.c_str() + t2 + 1, nullptr);
    if (!h.verdict.pass && t3 + 1 < m.size()) h.verdict.reasons.push_back(m.substr(t3 + 1));
    return h;
}

core::HostVerdict own_vote(const std::string& host, uint32_t sessions, const core::StepVerdict& v) {
    core::HostVerdict h;
    h.host = host;
    h.verdict.pass = v.pass;
    h.verdict.target = sessions;
    h.verdict.p95_worst_ms = v.p95_worst_ms;
    if (!v.pass && !v.reasons.empty()) h.verdict.reasons.push_back(v.reasons.front());
    h.sessions_judged = sessions;  // its per-session figures stay here: the pool's medians are not known live
    return h;
}

}  // namespace

std::optional<PoolStepVerdict> SharePlanner::vote(const Vote& mine) {
    const int64_t deadline = now_ns() + static_cast<int64_t>(timeout_s_ * 1e9);
    // SIGINT / SIGTERM while waiting here: the wait ends at once, the controller then stops the
    // run as it does for a signal anywhere else.
    SignalLatch latch;
    const PoolComm::Stop stop = [&latch] { return latch.fired() != 0; };
    auto cut_short = [&]() -> std::optional<PoolStepVerdict> {
        interrupted_ = latch.fired();
        return std::nullopt;
    };
    PoolStepVerdict pooled;
    if (comm_.rank() == 0) {
        std::vector<core::HostVerdict> hosts;
        if (!mine.idle && mine.verdict) hosts.push_back(own_vote(view_.members[0].host, mine.sessions, *mine.verdict));
        for (int k = 1; k < comm_.size(); ++k) {
            PoolMember& pm = view_.members[static_cast<size_t>(k)];
            auto m = comm_.recv(k, tag_continue, deadline, stop);
            if (latch.fired()) return cut_short();
            if (!m || m->empty()) {
                if (!pm.lost) {
                    pm.lost = true;
                    pm.lost_step = static_cast<int>(totals_.size()) - 1;
                    pm.lost_detail = "no verdict within " + std::to_string(int(timeout_s_)) + " s after step " +
                                     std::to_string(totals_.size());
                }
                core::HostVerdict h;
                h.host = pm.host;
                h.verdict.reasons.push_back("lost (" + pm.lost_detail + ")");
                hosts.push_back(std::move(h));
                continue;
            }
            if (auto h = decode_vote(pm.host, *m)) hosts.push_back(std::move(*h));
        }
        const core::StepVerdict v = core::pool_verdict(hosts);
        pooled.pass = v.pass && !view_.any_lost();
        pooled.p95_worst_ms = hosts.empty() ? NAN : v.p95_worst_ms;
        if (!pooled.pass) pooled.reason = v.reasons.empty() ? "a host failed the step" : v.reasons.front();
        // 1 pass, 0 fail, 2 the pool lost hosts (their ranks follow): everyone stops.
        std::string verdict(1, view_.any_lost() ? 2 : (pooled.pass ? 1 : 0));
        for (size_t k = 0; k < view_.members.size(); ++k)
            if (view_.members[k].lost) verdict += std::to_string(k) + ",";
        for (int k = 1; k < comm_.size(); ++k)
            if (!view_.members[static_cast<size_t>(k)].lost)
                comm_.send(k, tag_continue, verdict, now_ns() + 1'000'000'000, stop);
        if (latch.fired()) return cut_short();
        return pooled;
    }
    const std::string me = encode_vote(mine.idle, mine.sessions, mine.verdict);
    const bool sent = comm_.send(0, tag_continue, me, deadline, stop);
    if (latch.fired()) return cut_short();
    auto v = sent ? comm_.recv(0, tag_continue, deadline, stop) : std::nullopt;
    if (latch.fired()) return cut_short();
    if (!v || v->empty()) {
        PoolMember& pm = view_.members[0];
        pm.lost = true;
        pm.lost_step = static_cast<int>(totals_.size()) - 1;
        pm.lost_detail = "no pool verdict within " + std::to_string(int(timeout_s_)) + " s after step " +
                         std::to_string(totals_.size());
        return pooled;  // a fail
    }
    if ((*v)[0] == 2) {
        const std::string lost = v->substr(1);
        for (size_t at = 0; at < lost.size();) {
            size_t comma = lost.find(',', at);
            const int k = std::stoi(lost.substr(at, comma - at));
            PoolMember& pm = view_.members[static_cast<size_t>(k)];
            if (!pm.lost) {
                pm.lost = true;
                pm.lost_step = static_cast<int>(totals_.size()) - 1;
                pm.lost_detail = "rank 0 found it lost after step " + std::to_string(totals_.size());
            }
            at = comma == std::string::npos ? lost.size() : comma + 1;
        }
    }
    pooled.pass = (*v)[0] == 1;
    return pooled;
}

std::optional<PoolStepVerdict> SharePlanner::step_pool_verdict(size_t index) const {
    return index < pooled_.size() ? pooled_[index] : std::nullopt;
}

std::optional<uint32_t> SharePlanner::next(std::span<const StepRecord> done) {
    // The pool's verdict of the step replaces this host's, so every host takes the same next step.
    // A host idle in the step (share 0) takes no part in its verdict.
    Vote mine;
    if (!done.empty()) {
        mine.idle = done.back().target == 0;
        mine.sessions = done.back().target;
        mine.verdict = &done.back().verdict;
    }
    const std::optional<PoolStepVerdict> voted = vote(mine);
    if (!voted) return std::nullopt;  // interrupted
    const bool pooled = voted->pass;
    if (!done.empty()) {
        if (pooled_.size() < done.size()) pooled_.resize(done.size());
        PoolStepVerdict& p = pooled_[done.size() - 1].emplace(*voted);
        p.pass = pooled && !view_.any_lost();
        if (done.size() - 1 < totals_.size()) p.sessions = totals_[done.size() - 1];
        if (on_voted_) on_voted_(done.size() - 1);
    }
    if (view_.any_lost()) return std::nullopt;
    // The current pool size's ramp sees only its own steps, with the pool's totals and verdict.
    std::vector<StepRecord> recs(done.begin() + static_cast<std::ptrdiff_t>(std::min(series_first_step_, done.size())),
                                 done.end());
    if (!recs.empty()) recs.back().verdict.pass = pooled;
    for (size_t i = 0; i < recs.size(); ++i)
        if (series_first_step_ + i < totals_.size()) recs[i].target = totals_[series_first_step_ + i];
    if (auto c = inner_.next(recs)) return take(c);
    if (series_at_ + 1 >= series_.size()) return std::nullopt;
    // The next pool size: the ramp again from its first step, on more hosts.
    ++series_at_;
    series_first_step_ = done.size();
    inner_ = LinearPlanner(plan_.steps, plan_.repeats, plan_.stop == core::StopRule::first_failure);
    return take(inner_.first());
}

}  // namespace seatmark::orchestrator
