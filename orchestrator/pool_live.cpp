#include "orchestrator/pool_live.h"

#include <utility>  // before Asio

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cmath>
#include <thread>

#include "common/clock.h"
#include "core/live_json.h"
#include "core/step_rules.h"

namespace seatmark::orchestrator {

namespace {

constexpr auto relay_period = std::chrono::seconds(1);
constexpr auto relay_progress = std::chrono::milliseconds(50);
constexpr auto hub_period = std::chrono::milliseconds(250);

uint32_t running(const core::LiveState& s) {
    uint32_t n = 0;
    for (const auto& x : s.sessions) n += x.state == "running";
    return n;
}

}  // namespace

// A periodic callback on the run's event loop.
struct PoolLiveHub::Timer {
    boost::asio::steady_timer t;
    explicit Timer(boost::asio::io_context& io) : t(io) {}
};
struct PoolLiveRelay::Timer {
    boost::asio::steady_timer t;
    explicit Timer(boost::asio::io_context& io) : t(io) {}
};

std::string live_summary(const core::LiveState& state) {
    core::LiveState s = state;
    size_t dropped = 0;
    if (s.sessions.size() > max_summary_sessions) {
        dropped = s.sessions.size() - max_summary_sessions;
        s.sessions.resize(max_summary_sessions);
    }
    for (;;) {
        nlohmann::json j = core::state_json(s, 0, {});
        j.erase("events");
        j.erase("plan");
        j["sessions_dropped"] = dropped;
        std::string text = core::json_text(j);
        if (text.size() <= max_summary_bytes || s.sessions.empty()) return text;
        const size_t cut = std::max<size_t>(1, s.sessions.size() / 4);
        s.sessions.resize(s.sessions.size() - cut);
        dropped += cut;
    }
}

// ---- rank 0 ----------------------------------------------------------------------------------

PoolLiveHub::PoolLiveHub(LiveObserver* api, PoolComm& comm, const PoolView& view,
                         std::function<std::optional<PoolStepVerdict>(size_t)> pool_verdict,
                         std::function<std::optional<uint32_t>(size_t)> pool_total)
    : api_(api), comm_(comm), view_(view), remote_(view.members.size()), pool_verdict_(std::move(pool_verdict)),
      pool_total_(std::move(pool_total)) {}

namespace {

// A finished step as the pool judged it, one rule for the state's finished steps and the
// step-verdict events (core::LiveStep and core::StepVerdictEvent name these alike).
template <class Step>
void take_pool(Step& st, const PoolStepVerdict& p) {
    st.sessions = p.sessions;
    st.pass = p.pass;
    st.fps_median = p.fps_median;
    st.p95_worst_ms = p.p95_worst_ms;
    st.reason = p.reason;
}

}  // namespace

// Finished steps as the pool judged them (SharePlanner's vote). Steps the pool has not voted on
// yet show rank 0's own verdict, with the pool's total, until it has.
void PoolLiveHub::pool_steps(core::LiveState& s) const {
    std::vector<core::StepPass> judged;
    for (core::LiveStep& st : s.finished_steps) {
        if (pool_total_)
            if (auto t = pool_total_(st.index)) st.sessions = *t;
        if (pool_verdict_)
            if (auto p = pool_verdict_(st.index)) take_pool(st, *p);
        judged.push_back({st.sessions, st.pass});
    }
    if (pool_verdict_) s.max_density_so_far = core::max_density(judged).sessions;
}

PoolLiveHub::~PoolLiveHub() = default;

void PoolLiveHub::started(boost::asio::io_context& io, LiveSource& source) {
    inner_ = &source;
    timer_ = std::make_unique<Timer>(io);
    if (api_) api_->started(io, *this);
    tick();
}

void PoolLiveHub::tick() {
    drain();
    if (!timer_) return;
    timer_->t.expires_after(hub_period);
    timer_->t.async_wait([this](boost::system::error_code ec) {
        if (!ec) tick();
    });
}

void PoolLiveHub::complete(size_t rank) {
    Remote& x = remote_[rank];
    if (x.req == MPI_REQUEST_NULL) return;
    int done = 0;
    MPI_Test(&x.req, &done, MPI_STATUS_IGNORE);
    if (!done) return;
    try {
        // A summary that does not parse is dropped: the view keeps the last good one.
        x.state = core::state_from_json(nlohmann::json::parse(x.inbuf));
        x.received_ns = now_ns();
    } catch (const std::exception&) {
    }
}

void PoolLiveHub::drain() {
    for (size_t r = 1; r < remote_.size(); ++r) complete(r);
    for (;;) {
        int flag = 0;
        MPI_Message msg;
        MPI_Status st;
        MPI_Improbe(MPI_ANY_SOURCE, tag_live, MPI_COMM_WORLD, &flag, &msg, &st);
        if (!flag) return;
        int count = 0;
        MPI_Get_count(&st, MPI_BYTE, &count);
        const int src = st.MPI_SOURCE;
        if (src <= 0 || static_cast<size_t>(src) >= remote_.size()) {
            std::string scratch(static_cast<size_t>(count), '\0');  // no such rank: taken and dropped
            MPI_Mrecv(scratch.data(), count, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
            continue;
        }
        Remote& x = remote_[static_cast<size_t>(src)];
        // A rank sends its next summary only once its last one was delivered, so a receive still
        // in flight from it has its data already: this wait returns at once.
        if (x.req != MPI_REQUEST_NULL) MPI_Wait(&x.req, MPI_STATUS_IGNORE);  // its older summary is dropped
        x.inbuf.assign(static_cast<size_t>(count), '\0');
        MPI_Imrecv(x.inbuf.data(), count, MPI_BYTE, &msg, &x.req);
        complete(static_cast<size_t>(src));
    }
}

void PoolLiveHub::drain_all(int64_t deadline_ns) {
    for (;;) {
        drain();
        bool pending = false;
        for (const Remote& x : remote_) pending = pending || x.req != MPI_REQUEST_NULL;
        if (!pending || now_ns() >= deadline_ns) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

void PoolLiveHub::event(const core::RunEvent& e) {
    if (pool_verdict_) {
        if (const auto* v = std::get_if<core::StepVerdictEvent>(&e)) {
            held_ = *v;
            return;
        }
        held_.reset();  // the run went on without a vote on it: stopped during the vote
    }
    if (api_) api_->event(e);
}

void PoolLiveHub::voted(size_t index) {
    if (!held_ || held_->step != index + 1) return;
    core::StepVerdictEvent v = *held_;
    held_.reset();
    if (auto p = pool_verdict_(index)) take_pool(v, *p);
    if (api_) api_->event(v);
}

void PoolLiveHub::finished() {
    if (timer_) timer_->t.cancel();
    timer_.reset();
    if (api_) api_->finished();
}

core::LiveState PoolLiveHub::live_state() {
    core::LiveState s = inner_->live_state();
    const int64_t now = now_ns();
    s.host = view_.members[0].host;
    for (auto& x : s.sessions) x.host = s.host;
    for (size_t k = 0; k < view_.members.size(); ++k) {
        const PoolMember& m = view_.members[k];
        core::LiveHost h;
        h.name = m.host;
        h.rank = static_cast<int>(k);
        h.status = m.lost ? "lost" : "ok";
        h.clock_offset_ns = m.offset_ns;
        h.clock_uncertainty_ns = m.uncertainty_ns;
        if (k == 0) {
            h.sessions_running = running(s);
        } else if (const auto& r = remote_[k].state) {
            h.sessions_running = running(*r);
            h.summary_age_s = double(now - remote_[k].received_ns) * 1e-9;
            // A host with no share of the current step of a scaling series waits.
            if (!m.lost && r->target == 0 && s.target > 0 && r->status == "running") h.status = "idle";
            for (core::LiveSession x : r->sessions) {
                x.host = m.host;
                s.sessions.push_back(std::move(x));
            }
        } else {
            h.summary_age_s = NAN;
        }
        s.hosts.push_back(std::move(h));
    }
    // The pool's figures: targets and counts add up over the hosts (each ran its share).
    uint32_t target = 0, alive = 0;
    uint64_t stored = 0, lost = 0;
    for (size_t k = 0; k < view_.members.size(); ++k) {
        const core::LiveState* r = k == 0 ? nullptr : (remote_[k].state ? &*remote_[k].state : nullptr);
        if (k == 0) {
            target += s.target;
            alive += s.alive;
            stored += s.frames_stored;
            lost += s.frames_lost;
        } else if (r) {
            target += r->target;
            alive += r->alive;
            stored += r->frames_stored;
            lost += r->frames_lost;
        }
    }
    s.target = target;
    s.alive = alive;
    s.frames_stored = stored;
    s.frames_lost = lost;
    pool_steps(s);
    return s;
}

std::vector<core::LiveFrame> PoolLiveHub::live_frames(uint32_t session, uint64_t since, size_t max) {
    return inner_->live_frames(session, since, max);  // rank 0's own sessions: frames stay on their host
}

// ---- other ranks -----------------------------------------------------------------------------

PoolLiveRelay::PoolLiveRelay(PoolComm& comm) : comm_(comm) {}

PoolLiveRelay::~PoolLiveRelay() {
    if (req_ != MPI_REQUEST_NULL) {
        MPI_Cancel(&req_);
        MPI_Request_free(&req_);
    }
}

void PoolLiveRelay::started(boost::asio::io_context& io, LiveSource& source) {
    source_ = &source;
    timer_ = std::make_unique<Timer>(io);
    tick();
}

// Ticks every relay_progress: a summary larger than Open MPI's eager limit moves only while its
// sender calls into MPI, so a send in flight is tested each tick, and a new one goes out once a
// relay_period.
void PoolLiveRelay::tick() {
    if (ticks_++ % static_cast<uint64_t>(relay_period / relay_progress) == 0) {
        send();
    } else if (req_ != MPI_REQUEST_NULL) {
        int done = 0;
        MPI_Test(&req_, &done, MPI_STATUS_IGNORE);
    }
    if (!timer_) return;
    timer_->t.expires_after(relay_progress);
    timer_->t.async_wait([this](boost::system::error_code ec) {
        if (!ec) tick();
    });
}

void PoolLiveRelay::send() {
    if (!source_) return;
    if (req_ != MPI_REQUEST_NULL) {
        int done = 0;
        MPI_Test(&req_, &done, MPI_STATUS_IGNORE);
        if (!done) return;  // rank 0 has not taken the last one: skip this second
    }
    buf_ = live_summary(source_->live_state());
    MPI_Isend(buf_.data(), static_cast<int>(buf_.size()), MPI_BYTE, 0, tag_live, MPI_COMM_WORLD, &req_);
}

void PoolLiveRelay::finished() {
    if (timer_) timer_->t.cancel();
    send();
    const int64_t deadline = now_ns() + 1'000'000'000;
    while (req_ != MPI_REQUEST_NULL && now_ns() < deadline) {
        int done = 0;
        MPI_Test(&req_, &done, MPI_STATUS_IGNORE);
        if (done) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    timer_.reset();
    source_ = nullptr;
}

}  // namespace seatmark::orchestrator
