#pragma once
// The live API of a pool run, served by rank 0 for the whole pool (docs/live-api.md): every
// other rank sends rank 0 a small summary of its live state once a second (its step, phase and
// per-session figures: no frames; at most `max_summary_sessions` sessions and
// `max_summary_bytes` bytes), and rank 0's state document lists every host (`hosts`) and every
// host's sessions (each with its `host`). Frames never cross hosts: /api/v1/frames serves rank
// 0's own sessions only.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/live_observer.h"
#include "orchestrator/pool_comm.h"
#include "orchestrator/pool_coordinator.h"

namespace seatmark::orchestrator {

inline constexpr size_t max_summary_sessions = 512;
inline constexpr size_t max_summary_bytes = 256u << 10;

// The summary a rank sends: its state as the live API's JSON, without events or the plan,
// bounded (sessions beyond the bounds are dropped and counted in "sessions_dropped").
std::string live_summary(const core::LiveState& s);

// Rank 0: wraps the live API (null: none is served, the summaries are still read). Its source is this host's controller; what it serves adds the
// other hosts' latest summaries, read from MPI on the run's event loop (MPI_THREAD_FUNNELED).
class PoolLiveHub final : public LiveObserver, public LiveSource {
public:
    // `pool_verdict`, `pool_total`: the pool's verdict and total of a step (SharePlanner), so the
    // finished steps served and the step-verdict events sent are the pool's, not rank 0's own.
    PoolLiveHub(LiveObserver* api, PoolComm& comm, const PoolView& view,
                std::function<std::optional<PoolStepVerdict>(size_t)> pool_verdict = {},
                std::function<std::optional<uint32_t>(size_t)> pool_total = {});
    ~PoolLiveHub() override;

    void started(boost::asio::io_context& io, LiveSource& source) override;
    // A step-verdict event is held until the pool voted on its step (voted()), then sent as the
    // pool's; one the pool never voted on (the run stopped during the vote) is not sent.
    void event(const core::RunEvent& e) override;
    void finished() override;
    void voted(size_t index);  // SharePlanner::on_voted

    core::LiveState live_state() override;
    std::vector<core::LiveFrame> live_frames(uint32_t session, uint64_t since, size_t max) override;

    // Takes in the summaries that have arrived, never waiting: a summary larger than Open MPI's
    // eager limit completes only when its sender's MPI progresses, and a blocking receive spun a
    // core at 100 % meanwhile (bench_pool: rank 0 at 37 % of a core on an idle machine).
    void drain();
    // After the run: drains until no summary is in flight or the deadline, so none is left
    // unreceived at MPI_Finalize.
    void drain_all(int64_t deadline_ns);

private:
    struct Remote {
        std::optional<core::LiveState> state;
        int64_t received_ns = 0;
        std::string inbuf;                  // what the receive in flight fills
        MPI_Request req = MPI_REQUEST_NULL;
    };
    void complete(size_t rank);
    void pool_steps(core::LiveState& s) const;
    std::function<std::optional<PoolStepVerdict>(size_t)> pool_verdict_;
    std::function<std::optional<uint32_t>(size_t)> pool_total_;
    std::optional<core::StepVerdictEvent> held_;  // rank 0's own, until the pool's is in
    void tick();

    LiveObserver* api_;
    PoolComm& comm_;
    const PoolView& view_;
    LiveSource* inner_ = nullptr;
    std::vector<Remote> remote_;  // by rank
    struct Timer;
    std::unique_ptr<Timer> timer_;
};

// Any other rank: sends its summary to rank 0 once a second while its run goes on.
class PoolLiveRelay final : public LiveObserver {
public:
    explicit PoolLiveRelay(PoolComm& comm);
    ~PoolLiveRelay() override;

    void started(boost::asio::io_context& io, LiveSource& source) override;
    void event(const core::RunEvent&) override {}
    void finished() override;  // one last summary, waited for (1 s at most)

private:
    void tick();
    void send();

    PoolComm& comm_;
    LiveSource* source_ = nullptr;
    std::string buf_;  // what the pending send reads
    MPI_Request req_ = MPI_REQUEST_NULL;
    uint64_t ticks_ = 0;
    struct Timer;
    std::unique_ptr<Timer> timer_;
};

}  // namespace seatmark::orchestrator
