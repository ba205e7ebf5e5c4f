#pragma once
// The run controller: a thin class wiring the step machine (step_machine.h) and its seams, the
// session table (session_table.h), the host sampler (host_sampler.h), the store, the telemetry
// server and the live projection (live_projection.h). Its translation units (internal to the
// orchestrator): run_controller.cpp (set-up, the event loop, stopping), run_steps.cpp (the spawn
// source and the step machine's hooks: judging and storing verdicts), run_sessions.cpp (session
// events and ends), run_live.cpp (the tick: hangs, sampling, the status line, the live view).
#include "orchestrator/run_controller.h"

#include <utility>  // before Asio
#include <optional>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>
#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/cpu_time.h"
#include "common/version.h"
#include "common/errors.h"
#include "common/exit_codes.h"
#include "common/self_exe.h"
#include "store/abort_marker.h"
#include "store/store_reader.h"
#include "store/store_writer.h"
#include "orchestrator/asio_timing.h"
#include "orchestrator/asset_check.h"
#include "orchestrator/disk_watch.h"
#include "orchestrator/gpu_telemetry.h"
#include "orchestrator/host_sampler.h"
#include "orchestrator/host_proc.h"
#include "orchestrator/judge_worker.h"
#include "orchestrator/live_projection.h"
#include "orchestrator/run_dir.h"
#include "orchestrator/run_output.h"
#include "orchestrator/session_host.h"
#include "orchestrator/session_process.h"
#include "orchestrator/session_table.h"
#include "orchestrator/step_machine.h"
#include "orchestrator/telemetry_server.h"
#include "workloads/profile.h"

namespace seatmark::orchestrator::run_detail {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using store::SessionEnd;


// `seatmark-session --preflight` opens a Vulkan instance and lists devices: well under a second on
// lavapipe; the bound is for a loader or driver that hangs.
inline constexpr double preflight_timeout_s = 20;
inline constexpr double startup_timeout_s = 120;  // first message from a session (scene generation, device setup)
inline constexpr double stop_grace_s = 15;         // SIGTERM -> SIGKILL at the end of a run
inline constexpr double exit_drain_s = 2;          // after a session exited, wait this long for its socket to drain


class Controller;

// Seam "session source", spawn mode: one seatmark-session process per session on this host.
class SpawnSource final : public SessionSource {
public:
    explicit SpawnSource(Controller& c) : c_(c) {}
    void start_up_to(uint32_t n) override;
    void stop_newest(uint32_t count) override;
    uint32_t active() const override;
    bool ready() const override;
    void stop_all() override;
    void kill_all() override;

private:
    Controller& c_;
};

class Controller : public LiveSource, private StepHooks, private SessionHost {
public:
    Controller(const core::Plan& plan, const RunOptions& opts);

    RunOutcome run();

    core::LiveState live_state() override;
    std::vector<core::LiveFrame> live_frames(uint32_t session, uint64_t since, size_t max) override;

private:
    friend class SpawnSource;
    // ---- SessionHost: sessions a source brings in itself (run_sessions.cpp)
    asio::io_context& io() override { return io_; }
    const SessionTable& sessions() const override { return table_; }
    Session& add_session(pid_t pid, const std::string& host = "") override;
    bool hello(const wire::Hello& h) override;
    void message(uint32_t id, wire::Message&& m) override { on_message(id, std::move(m)); }
    void link_closed(uint32_t id, const ConnectionEnd& end) override { on_closed(int64_t(id), end); }
    void ended(uint32_t id, store::SessionEnd reason, const std::string& detail) override;
    void request_stop(uint32_t id) override {
        if (Session* s = table_.find(id); s && s->active()) table_.request_stop(*s);
    }
    void record(const store::EventRow& e) override { store_->add_event(e); }
    void add_samples(std::vector<store::SampleRow> rows) override;
    void figures_unavailable(const std::string& host, const std::string& why) override;
    void add_host(const store::HostInfo& h) override { store_->add_host(h); }
    void add_endpoint_logon(const store::EndpointLogonRow& r) override { store_->add_endpoint_logon(r); }
    void add_endpoint_batch(store::EndpointBatch b) override { store_->add_endpoint_batch(std::move(b)); }
    Session& new_session(uint32_t id);  // the record and its store row, for spawned and brought-in sessions
    void accept_hello(Session& s, const wire::Hello& h);
    void live_event(const core::RunEvent& e) {
        if (opts_.live) opts_.live->event(e);
    }
    // ---- setup and teardown
    void open_store();
    void start_server();
    void spawn(uint32_t id);
    void stop_everything(store::RunStatus status);
    void maybe_done();

    // ---- events
    bool on_hello(const wire::Hello& h, pid_t peer);
    void on_message(uint32_t id, wire::Message&& m);
    void on_closed(int64_t id, const ConnectionEnd& end);
    void on_exit(uint32_t id, ExitStatus st);
    void on_signal(int sig);
    void on_tick();
    // Everything knowable before the first session starts (core/preflight.h); throws InputError.
    void preflight();

    // ---- the step machine's hooks (run_steps.cpp)
    void step_begun(const StepContext& s, size_t planned_steps) override;
    void window_opened(const StepContext& s, uint32_t repeat, int64_t ws) override;
    void window_closed(const StepContext& s, uint32_t repeat, int64_t ws, int64_t we) override;
    bool telemetry_past(int64_t t) const override;
    uint32_t step_failures() const override;
    void judge_window(const StepContext& s, uint32_t repeat, int64_t ws, int64_t we, VerdictDone done) override;
    void judge_step(const StepContext& s, int64_t t0, int64_t t1, std::span<const core::StepVerdict> windows,
                    VerdictDone done) override;
    void step_decided(const StepContext& s, const std::string& why) override;
    void step_judged(const StepRecord& r, size_t planned_steps) override;
    void run_over(bool ok, const std::string& detail) override;

    void fail_session(Session& s, SessionEnd reason, const std::string& detail, int sig);
    void record_failure(Session& s, SessionEnd reason, const std::string& detail);
    void finalize(Session& s);
    void sample();
    void open_sampler();
    struct Judged {
        int64_t step_started_ns = 0, t0 = 0, t1 = 0;
        core::StepVerdict verdict;
        core::GpuMemoryCheck gpu;
    };
    // Judges [t0, t1) on the judge's thread; `then` runs on this loop with the verdict, unless
    // the run stops first or the frames could not be read (the run then stops).
    void judge(const StepContext& s, int64_t t0, int64_t t1, std::function<void(const Judged&)> then);
    void judged(JudgeResult r);  // the judge's thread is done (posted to the loop)
    void store_verdict(const StepContext& s, int repeat, int64_t t0, int64_t t1, const core::StepVerdict& v,
                       int64_t judged_ns);
    core::MaxDensity density() const;
    bool stopping() const { return phase_ != Phase::running; }
    std::string phase_name() const {
        switch (phase_) {
            case Phase::running: return machine_.phase_name();
            case Phase::stopping: return "stopping";
            case Phase::done: return "done";
        }
        return "?";
    }
    uint32_t current_target() const { return machine_.has_step() ? machine_.step().target : 0; }

    const core::Plan& plan_;
    RunOptions opts_;
    std::string db_path_, exe_, log_dir_, sock_dir_;
    asio::io_context io_;
    asio::signal_set signals_;
    asio::steady_timer tick_;
    // The step machine and its seams (orchestrator/step_seams.h).
    MonotonicClock clock_;
    AsioTimer step_timer_;
    SpawnSource spawned_;
    std::unique_ptr<SessionSource> brought_;  // RunOptions::session_source's, when given
    SessionSource& source_;                   // the one the machine asks: brought_ or spawned_
    LocalCoordinator local_coordinator_;
    std::unique_ptr<StepPlanner> own_planner_;  // the plan's (orchestrator/adaptive_planner.h) unless opts.planner
    StepPlanner& planner_;
    StepMachine machine_;
    // The judge reads a span's frames back from the run's database (Controller::judge). Declared
    // before store_ so it closes after the writer: closing a descriptor of the file drops the fcntl
    // locks SQLite holds on it in this process (store/writer_lock.h).
    std::unique_ptr<SpanFrames> frame_reader_;
    std::optional<Judged> last_judged_;  // a one-window step's pooled span is that window: judged once
    std::unique_ptr<store::StoreWriter> store_;
    // The judge's thread: declared after the store and the reader it uses, so it is joined first.
    std::unique_ptr<JudgeWorker> judge_worker_;
    struct Judging {
        int64_t step_started_ns = 0, t0 = 0, t1 = 0;
        std::function<void(const Judged&)> then;
    };
    std::optional<Judging> judging_;  // the span on the judge's thread now
    store::HostInfo host_;  // this host's row; completed by the first HELLO
    std::unique_ptr<TelemetryServer> server_;
    SessionTable table_;
    RunOutput out_;

    // The run as a whole; within `running`, the step machine has its own phases.
    enum class Phase { running, stopping, done } phase_ = Phase::running;
    int64_t run_start_ns_ = 0;
    std::vector<StepOutcome> outcomes_;
    std::map<uint32_t, std::string> step_failures_;  // session -> reason, failed in the current step (live events)
    store::RunStatus final_status_ = store::RunStatus::finished;
    int signals_seen_ = 0;
    bool log_missing_noted_ = false;  // the terminal is told once; each session's event says it
    int64_t stop_started_ns_ = 0;
    std::vector<double> recent_intervals_;
    int64_t last_sample = 0, last_status = 0;
    double window_cpu0_ = 0, measured_cpu_s_ = 0, measured_wall_s_ = 0;
    int64_t window_open_ns_ = 0;
    int64_t longest_judge_ns_ = 0;
    int64_t pooled_judged_ns_ = 0;  // when the open window really opened (a decided one spans from its step's start)
    std::unique_ptr<HostSampler> sampler_;  // host, sessions' processes, GPU sharing; opened in run()
    // The store's health: a writer failure stops the run at once (check_store); the free space
    // is watched so a disk getting full is said before that.
    void check_store(int64_t t);
    void database_lost(const store::StoreWriter::PathLoss& l);
    bool path_lost_ = false;  // the database's path no longer names the run's file
    std::string kept_at_;     // where the writer kept a copy of it then
    std::unique_ptr<DiskWatch> disk_;
    std::string store_failure_;
    int64_t last_disk_check_ = 0;
};


}  // namespace seatmark::orchestrator::run_detail
