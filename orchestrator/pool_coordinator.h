#pragma once
// The step coordinator of a pool run (orchestrator/step_seams.h): every host's step machine
// arrives at the same sync points (settle, window open, window close); rank 0 collects the
// arrivals and answers each rank with the instant to go on, in that rank's own clock (converted
// by the measured offset), so windows open and close at the same instant on every host within
// the offsets' uncertainty. Every wait has a deadline: a rank that does not arrive in time is
// lost (recorded with the step), the survivors are told, and the run ends 'degraded'; a rank
// that hears nothing from rank 0 in time records rank 0 as lost.
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/plan.h"
#include "orchestrator/pool_comm.h"
#include "orchestrator/step_seams.h"

namespace seatmark::orchestrator {

struct PoolMember {
    std::string host;            // the name it records
    int64_t offset_ns = 0;       // its monotonic clock + offset = rank 0's
    int64_t uncertainty_ns = 0;  // +- of that offset (0 for rank 0)
    bool lost = false;
    std::optional<int> lost_step;
    std::string lost_detail;
};

struct PoolView {  // what every rank knows about the pool once it started
    std::vector<PoolMember> members;  // by rank
    int self = 0;
    std::string pool_id;
    bool any_lost() const;
};

class MpiCoordinator final : public StepCoordinator {
public:
    // deadline_s(point): how long rank 0 waits for the others at that point, beyond which they are lost.
    MpiCoordinator(PoolComm& comm, PoolView& view, std::function<double(SyncPoint)> deadline_s);

    void arrive(const SyncRequest& r, std::function<void(const SyncResult&)> done) override;
    void poll() override;

    // Every window opening as this host went on: (step, repeat, this host's clock) for tests and
    // the skew the report states.
    struct Opened {
        size_t step;
        uint32_t repeat;
        SyncPoint point;
        int64_t at_ns;
    };
    const std::vector<Opened>& opened() const { return opened_; }

private:
    void finish(const SyncResult& r);
    void mark_lost(int rank, const std::string& detail);

    PoolComm& comm_;
    PoolView& view_;
    std::function<double(SyncPoint)> deadline_s_;
    int64_t seq_ = 0;
    SyncRequest req_;
    std::function<void(const SyncResult&)> done_;
    int64_t deadline_ns_ = 0;
    std::vector<PoolComm::Pending> arrivals_;  // rank 0: one per other rank
    std::vector<bool> arrived_;
    PoolComm::Pending go_;                     // other ranks: rank 0's answer
    std::optional<int64_t> go_at_ns_;          // this host's clock
    SyncResult result_;
    std::vector<Opened> opened_;
};

// The pool's verdict of one step once every host voted: the hosts' own verdicts pooled by
// core::pool_verdict (the rule `seatmark merge` stores the pool's rows by), so rank 0's live API
// serves the pool's finished steps and step-verdict events, not its own share. Rank 0 has it all;
// the other ranks only `pass`.
struct PoolStepVerdict {
    bool pass = false;          // every host that took part passed, none was lost
    uint32_t sessions = 0;      // the pool's total
    double p95_worst_ms = NAN;  // the worst over the hosts (NaN: not known)
    double fps_median = NAN;    // not known live: per-session figures stay on their host
    std::string reason;         // the first failing host's, "HOST: reason"; "" when it passed
};

// The pool's ramp for one host: the plan's counts are the pool's totals, placed on the hosts by
// the plan's [pool] placement; this host runs its share. Whether the ramp goes on is decided by
// the pool (a step passes when every host that took part passed it), so all hosts take the same
// steps. With a scaling series ([scaling] hosts = [1, 2, 4]) the ramp runs once per pool size on
// the first H ranks; the others take the same steps with a share of 0 (idle, still meeting the
// coordinator) and vote pass.
class SharePlanner final : public StepPlanner {
public:
    SharePlanner(PoolComm& comm, PoolView& view, const core::Plan& plan);
    std::optional<uint32_t> first() override;
    bool more_windows(uint32_t closed, std::span<const core::StepVerdict> judged) override;
    std::optional<uint32_t> next(std::span<const StepRecord> done) override;
    size_t planned_steps() const override { return plan_.steps.size() * series_.size(); }
    bool interrupted() const override { return interrupted_ != 0; }

    uint32_t share_of(uint32_t pool_total) const;  // this host's, on the current pool size
    // The pool size (hosts taking part) and the pool's total of step `index` (0-based, taken so far).
    std::optional<uint32_t> step_hosts(size_t index) const;
    std::optional<uint32_t> step_total(size_t index) const;
    // The pool's verdict of step `index` once every host voted; nullopt before the vote (or when
    // the run was stopped during it).
    std::optional<PoolStepVerdict> step_pool_verdict(size_t index) const;
    // Called on the run's event loop as soon as the pool's verdict of a step is in.
    void on_voted(std::function<void(size_t index)> f) { on_voted_ = std::move(f); }

private:
    // This host's vote: its own verdict of the step, or idle (no share in it).
    struct Vote {
        bool idle = false;
        uint32_t sessions = 0;
        const core::StepVerdict* verdict = nullptr;  // null when idle or before the first step
    };
    // The pool's verdict (every live host passed; fail on a lost host); nullopt when SIGINT or
    // SIGTERM came during the vote (the controller's own handling then ends the run).
    std::optional<PoolStepVerdict> vote(const Vote& mine);
    std::optional<uint32_t> take(std::optional<uint32_t> count);  // records the step, returns the share

    PoolComm& comm_;
    PoolView& view_;
    const core::Plan& plan_;
    std::vector<uint32_t> series_;  // the pool sizes, in order
    size_t series_at_ = 0;          // which one runs now
    size_t series_first_step_ = 0;  // the step index where it began
    LinearPlanner inner_;           // the ramp on the current pool size
    std::vector<uint32_t> totals_;  // the pool totals taken so far
    std::vector<uint32_t> hosts_;   // the pool size of each step taken so far
    std::vector<std::optional<PoolStepVerdict>> pooled_;  // the pool's verdict of each step taken so far
    std::function<void(size_t)> on_voted_;
    int interrupted_ = 0;           // the signal that cut a vote short
    double timeout_s_;
};

}  // namespace seatmark::orchestrator
