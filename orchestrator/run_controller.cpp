#include "orchestrator/run_controller.h"

#include <utility>  // before Asio

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
#include "store/store_writer.h"
#include "orchestrator/asset_check.h"
#include "orchestrator/disk_watch.h"
#include "orchestrator/gpu_telemetry.h"
#include "orchestrator/linux_proc.h"
#include "orchestrator/run_dir.h"
#include "orchestrator/run_output.h"
#include "orchestrator/session_process.h"
#include "orchestrator/telemetry_server.h"
#include "workloads/profile.h"

namespace seatmark::orchestrator {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using store::SessionEnd;

namespace {

constexpr double startup_timeout_s = 120;  // first message from a session (scene generation, device setup)
constexpr double stop_grace_s = 15;         // SIGTERM -> SIGKILL at the end of a run
constexpr double exit_drain_s = 2;          // after a session exited, wait this long for its socket to drain


struct Session {
    uint32_t id = 0;
    std::string profile;       // as the plan names it (built-in name or file)
    std::string profile_name;  // the profile's own name (SLA key)
    const Sla* sla = nullptr;
    std::unique_ptr<SessionProcess> proc;
    pid_t pid = 0;
    int64_t started_ns = 0, last_seen_ns = 0;
    bool hello = false, connected = false, connection_closed = false, saw_bye = false;
    bool stop_requested = false, exited = false, finalized = false;
    int64_t exited_ns = 0;
    // When it stopped running (declared failed, or exited; 0: running): stored as
    // sessions.ended_ns, and what window membership reads (core/step_rules.h).
    int64_t ended_ns = 0;
    int64_t last_frame_begin_ns = INT64_MIN;  // newest frame received
    int64_t last_heartbeat_ns = INT64_MIN;    // the newest HEARTBEAT's own stamp
    ExitStatus exit;
    SessionEnd reason = SessionEnd::running;  // set by the orchestrator (hang, protocol, ...) or at exit
    std::string detail;
    uint64_t received = 0, gaps = 0, next_seq = 0, heartbeat_frames = 0;
    int64_t frames_sent = -1;
    std::vector<FrameRecord> step_frames;  // since the current step started
    uint64_t recent_frames = 0;            // since the last status tick
    double last_cpu_s = -1;
    double last_cpu_pct = NAN;
    int64_t last_cpu_t = 0;
    uint64_t rss_bytes = 0;
    std::string device;
    bool software = false;
    bool alive() const { return !finalized && !exited && reason == SessionEnd::running; }
};

class Controller : public LiveSource {
public:
    Controller(const core::Plan& plan, const RunOptions& opts)
        : plan_(plan),
          opts_(opts),
          db_path_(opts.db_path.empty() ? plan.db_path : opts.db_path),
          exe_(opts.session_exe.empty() ? sibling_exe("seatmark-session") : opts.session_exe),
          signals_(io_, SIGINT, SIGTERM),
          tick_(io_),
          step_timer_(io_),
          out_(opts.quiet) {}

    RunOutcome run();

    core::LiveState live_state() override;
    std::vector<core::LiveFrame> live_frames(uint32_t session, uint64_t since, size_t max) override;

private:
    void live_event(const core::RunEvent& e) {
        if (opts_.live) opts_.live->event(e);
    }
    // ---- setup and teardown
    void open_store();
    void start_server();
    void begin_step(size_t k);
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
    void check_open_file_limit();

    // ---- step machine
    void after_start_wait();
    void measure_window(uint32_t repeat);
    void judge_window(uint32_t repeat, int64_t ws, int64_t we, bool last);
    void end_step();

    void fail_session(Session& s, SessionEnd reason, const std::string& detail, int sig);
    void finalize(Session& s);
    void sample();
    void open_gpu();
    // A closed window waits until every running session's telemetry has passed its end.
    struct PendingJudge {
        uint32_t repeat = 0;
        int64_t ws = 0, we = 0;
        bool last = false;
    };
    bool telemetry_past(int64_t we) const;
    void judge_ready();
    std::vector<core::SessionSpan> spans() const;
    core::StepVerdict judge(int64_t t0, int64_t t1, core::GpuMemoryCheck* gpu_check = nullptr) const;
    void store_verdict(int repeat, int64_t t0, int64_t t1, const core::StepVerdict& v, int64_t judged_ns);
    core::MaxDensity density() const;
    uint32_t alive_count() const;
    const char* phase_name() const {
        switch (phase_) {
            case Phase::starting: return "starting";
            case Phase::settling: return "settling";
            case Phase::measuring: return "measuring";
            case Phase::stopping: return "stopping";
            case Phase::done: return "done";
        }
        return "?";
    }

    const core::Plan& plan_;
    RunOptions opts_;
    std::string db_path_, exe_, log_dir_, sock_dir_;
    asio::io_context io_;
    asio::signal_set signals_;
    asio::steady_timer tick_, step_timer_;
    std::unique_ptr<store::StoreWriter> store_;
    store::HostInfo host_;  // this host's row; completed by the first HELLO
    std::unique_ptr<TelemetryServer> server_;
    std::map<uint32_t, Session> sessions_;
    // sessions_ by id for the per-message path: a map walk there was a third of on_message's time
    // (cache misses with hundreds of sessions).
    std::vector<Session*> by_id_;
    RunOutput out_;

    enum class Phase { starting, settling, measuring, stopping, done } phase_ = Phase::starting;
    size_t step_ = 0;
    uint32_t next_id_ = 0;
    int64_t step_start_ns_ = 0, phase_end_ns_ = 0, run_start_ns_ = 0;
    int64_t measure_start_ns_ = 0, measure_end_ns_ = 0;
    std::vector<PendingJudge> pending_;
    std::vector<StepOutcome> outcomes_;
    std::vector<core::StepVerdict> window_verdicts_;
    std::map<uint32_t, std::string> step_failures_;  // session -> reason, for the current step
    store::RunStatus final_status_ = store::RunStatus::finished;
    int signals_seen_ = 0;
    int64_t stop_started_ns_ = 0;
    CpuTimes cpu_prev_;
    ProcessUsageReader proc_usage_;  // sessions' /proc/PID/stat, kept open between samples
    uint64_t lost_total_ = 0;
    std::vector<double> recent_intervals_;
    int64_t last_sample = 0, last_status = 0;
    double last_host_cpu_pct = NAN;
    double window_cpu0_ = 0, measured_cpu_s_ = 0, measured_wall_s_ = 0;
    std::unique_ptr<GpuTelemetry> gpu_;  // GPU sharing samplers (gpu_telemetry.h), opened in run()
    // The store's health: a writer failure stops the run at once (check_store); the free space
    // is watched so a disk getting full is said before that.
    void check_store(int64_t t);
    std::unique_ptr<DiskWatch> disk_;
    std::string store_failure_;
    int64_t last_disk_check_ = 0;
    GpuSnapshot last_gpu_;               // the latest GPU sample: device figures, per-session shares
};

void Controller::check_open_file_limit() {
    // Per session: its telemetry socket, its process handle (pidfd), its /proc/PID/stat kept open
    // by the CPU sampler, and one to spare for a GPU sampler's per-process files (DRM fdinfo, or
    // the software sampler when not handed the CPU time); plus the database, the live API's
    // clients and logs.
    const uint64_t needed = 4ull * plan_.max_sessions() + 128;
    const uint64_t limit = raise_open_file_limit();
    if (needed > limit)
        throw InputError(plan_.source + ": a step of " + std::to_string(plan_.max_sessions()) + " sessions needs about " +
                         std::to_string(needed) + " open files, and this process may open " + std::to_string(limit) +
                         "; raise the limit (ulimit -Hn, or LimitNOFILE= in a systemd unit) or lower [steps]");
}

RunOutcome Controller::run() {
    verify_assets(plan_);
    check_open_file_limit();
    open_store();
    disk_ = std::make_unique<DiskWatch>(db_path_, plan_.planned_seconds());
    disk_->reserve();
    start_server();
    // The socket folder goes however run() ends (an exception included).
    struct DirCleanup {
        const std::string& dir;
        ~DirCleanup() {
            std::error_code ec;
            if (!dir.empty()) std::filesystem::remove_all(dir, ec);
        }
    } dir_cleanup{sock_dir_};
    open_gpu();
    run_start_ns_ = now_ns();
    const double cpu0 = process_cpu_seconds();
    cpu_prev_ = read_cpu_times();
    signals_.async_wait([this](boost::system::error_code ec, int sig) {
        if (!ec) on_signal(sig);
    });
    out_.start(plan_, db_path_);
    if (opts_.live) opts_.live->started(io_, *this);
    begin_step(0);
    tick_.expires_after(250ms);
    tick_.async_wait([this](boost::system::error_code ec) {
        if (!ec) on_tick();
    });
    // One pass every 50 ms handles every socket that has data, instead of waking
    // the process for each of hundreds of sessions' messages: bench_orchestrator
    // measured a third of the orchestrator's CPU in context switches otherwise; with
    // 256 sessions 10 ms cost 3.3 % of a core, 25 ms 2.7 %, 50 ms 2.5 % (before
    // other savings). Nothing here needs finer timing: sessions time their own
    // frames and send them every 500 ms, timeouts are seconds, the live API answers
    // within 50 ms.
    while (!io_.stopped()) {
        io_.poll();
        if (io_.stopped()) break;
        std::this_thread::sleep_for(50ms);
    }

    RunOutcome r;
    r.db_path = db_path_;
    r.status = final_status_ == store::RunStatus::finished ? "finished" : "aborted";
    r.abort_cause = store_failure_;
    r.steps = outcomes_;
    r.max_density = density().sessions;
    r.frames_stored = store_->frames_stored();
    r.frames_lost = lost_total_;
    r.wall_s = double(now_ns() - run_start_ns_) * 1e-9;
    r.orchestrator_cpu_s = process_cpu_seconds() - cpu0;
    r.measured_cpu_s = measured_cpu_s_;
    r.measured_wall_s = measured_wall_s_;
    return r;
}

void Controller::open_store() {
    store::StoreOptions so;
    so.overwrite = opts_.overwrite_db;
    store_ = std::make_unique<store::StoreWriter>(store::StoreWriter::open(db_path_, so));
    store::RunInfo ri;
    ri.plan_text = plan_.text;
    ri.plan_path = plan_.source;
    ri.tool_version = version_string;
    auto host = read_host_identity();
    ri.host = host.hostname;
    ri.started_unix_ns = unix_now_ns();
    ri.mono_origin_ns = now_ns();
    store_->begin_run(ri);
    store::HostInfo& hi = host_;
    hi.hostname = host.hostname;
    hi.cpu_model = host.cpu_model;
    hi.cpu_count = host.cpu_count;
    hi.mem_total_bytes = static_cast<int64_t>(host.mem_total_bytes);
    hi.os = host.os;
    hi.kernel = host.kernel;
    // gpu and driver: what the first session's HELLO says it got (on_hello).
    hi.vulkan_device = plan_.device.empty() ? "auto" : plan_.device;
    store_->add_host(hi);
    // Session logs live beside the database so a failed session's stderr can be read later.
    log_dir_ = db_path_ + ".logs";
    std::filesystem::create_directories(log_dir_);
}

void Controller::start_server() {
    sock_dir_ = make_private_run_dir();  // 0700: only this user can connect; removes killed runs' folders
    TelemetryServer::Callbacks cb;
    cb.hello = [this](const wire::Hello& h, pid_t peer) { return on_hello(h, peer); };
    cb.message = [this](uint32_t id, wire::Message&& m) { on_message(id, std::move(m)); };
    cb.closed = [this](int64_t id, const ConnectionEnd& e) { on_closed(id, e); };
    server_ = std::make_unique<TelemetryServer>(io_, sock_dir_ + "/telemetry.sock", std::move(cb));
}

void Controller::spawn(uint32_t id) {
    Session& s = sessions_[id];
    if (by_id_.size() <= id) by_id_.resize(id + 1, nullptr);
    by_id_[id] = &s;  // map nodes never move, and sessions are never erased
    s.id = id;
    s.profile = plan_.profile_for(id);
    s.profile_name = workloads::load_profile(s.profile).name;
    s.sla = &plan_.sla_for(s.profile_name);
    // Sessions run until the orchestrator stops them; the duration is only a backstop.
    double duration = plan_.planned_seconds() * 2 + 600;
    std::vector<std::string> args = {"--workload",   s.profile, "--duration",
                                     std::to_string(int64_t(duration)) + "s", "--connect", server_->path(),
                                     "--session-id", std::to_string(id), "--quiet"};
    if (!plan_.device.empty()) args.insert(args.end(), {"--device", plan_.device});
    if (!plan_.allow_software) args.push_back("--no-software");
    args.insert(args.end(), opts_.extra_session_args.begin(), opts_.extra_session_args.end());
    s.started_ns = now_ns();
    s.last_seen_ns = s.started_ns;
    std::string log = log_dir_ + "/session-" + std::to_string(id) + ".log";
    try {
        s.proc = std::make_unique<SessionProcess>(io_, exe_, args, log);
    } catch (const std::exception& e) {
        s.reason = SessionEnd::error;
        s.detail = e.what();
        s.exited = true;
        s.ended_ns = s.started_ns;
        store::SessionInfo si;
        si.id = static_cast<int>(id);
        si.profile = s.profile_name;
        si.started_ns = s.started_ns;
        store_->add_session(si);
        finalize(s);
        return;
    }
    s.pid = s.proc->pid();
    store::SessionInfo si;
    si.id = static_cast<int>(id);
    si.profile = s.profile_name;
    si.pid = s.pid;
    si.started_ns = s.started_ns;
    store_->add_session(si);
    store_->add_event({s.started_ns, static_cast<int>(id), "session-start",
                       "pid " + std::to_string(s.pid) + ", profile " + s.profile_name});
    s.proc->on_exit([this, id](ExitStatus st) { on_exit(id, st); });
}

void Controller::begin_step(size_t k) {
    step_ = k;
    uint32_t target = plan_.steps[k];
    step_start_ns_ = now_ns();
    step_failures_.clear();
    window_verdicts_.clear();
    pending_.clear();
    for (auto& [id, s] : sessions_) s.step_frames.clear();
    // Failed sessions are replaced, so every step runs its full target of live sessions.
    for (uint32_t alive = alive_count(); alive < target; ++alive) spawn(next_id_++);
    store_->add_event({step_start_ns_, std::nullopt, "step-begin",
                       "step " + std::to_string(k + 1) + " of " + std::to_string(plan_.steps.size()) + ": " +
                           std::to_string(target) + " sessions"});
    phase_ = Phase::starting;
    phase_end_ns_ = step_start_ns_ + int64_t(startup_timeout_s * 1e9);
    live_event(core::StepBeginEvent{uint32_t(k + 1), uint32_t(plan_.steps.size()), target});
}

uint32_t Controller::alive_count() const {
    uint32_t n = 0;
    for (const auto& [id, s] : sessions_) n += s.alive();
    return n;
}

void Controller::after_start_wait() {
    phase_ = Phase::settling;
    phase_end_ns_ = now_ns() + int64_t(plan_.settle_s * 1e9);
    step_timer_.expires_after(std::chrono::nanoseconds(int64_t(plan_.settle_s * 1e9)));
    step_timer_.async_wait([this](boost::system::error_code ec) {
        if (!ec && phase_ == Phase::settling) measure_window(0);
    });
}

void Controller::measure_window(uint32_t repeat) {
    phase_ = Phase::measuring;
    int64_t ws = now_ns();
    if (repeat == 0) measure_start_ns_ = ws;
    window_cpu0_ = process_cpu_seconds();
    phase_end_ns_ = ws + int64_t(plan_.window_s * 1e9);
    store::StepInfo si;
    si.idx = static_cast<int>(step_);
    si.repeat = static_cast<int>(repeat);
    si.target_sessions = static_cast<int>(plan_.steps[step_]);
    si.started_ns = step_start_ns_;
    store_->begin_step(si);
    step_timer_.expires_after(std::chrono::nanoseconds(int64_t(plan_.window_s * 1e9)));
    step_timer_.async_wait([this, repeat, ws](boost::system::error_code ec) {
        if (ec || phase_ != Phase::measuring) return;
        int64_t we = now_ns();
        measured_cpu_s_ += process_cpu_seconds() - window_cpu0_;
        measured_wall_s_ += double(we - ws) * 1e-9;
        bool last = repeat + 1 >= plan_.repeats;
        if (last) measure_end_ns_ = we;
        // Frames arrive a little after they begin (fence, batching): judge once they are in
        // (judge_ready, on each tick).
        pending_.push_back({repeat, ws, we, last});
        if (!last) measure_window(repeat + 1);
    });
}

std::vector<core::SessionSpan> Controller::spans() const {
    std::vector<core::SessionSpan> out;
    out.reserve(sessions_.size());
    for (const auto& [id, s] : sessions_) {
        core::SessionSpan sp{id, s.profile_name, s.started_ns, std::nullopt, ""};
        if (s.ended_ns) {
            sp.ended_ns = s.ended_ns;
            if (store::is_failure(s.reason)) sp.failure = std::string(store::to_string(s.reason));
        }
        out.push_back(std::move(sp));
    }
    return out;
}

core::StepVerdict Controller::judge(int64_t t0, int64_t t1, core::GpuMemoryCheck* gpu_check) const {
    core::StepJudge j;
    j.target = plan_.steps[step_];
    j.step_start_ns = step_start_ns_;
    j.default_sla = plan_.default_sla;
    j.sla_for = [this](const std::string& profile) -> const Sla& { return plan_.sla_for(profile); };
    j.frames = [this](uint32_t id, int64_t a, int64_t b) -> std::span<const FrameRecord> {
        const auto& f = by_id_[id]->step_frames;  // by begin time (frames arrive in seq order)
        auto lo = std::lower_bound(f.begin(), f.end(), a, [](const FrameRecord& r, int64_t t) { return r.t_begin_ns < t; });
        auto hi = std::lower_bound(lo, f.end(), b, [](const FrameRecord& r, int64_t t) { return r.t_begin_ns < t; });
        return {f.data() + (lo - f.begin()), static_cast<size_t>(hi - lo)};
    };
    if (gpu_)
        j.gpu_memory = [this](int64_t a, int64_t b, double limit) { return gpu_->check_memory(a, b, limit); };
    const auto sp = spans();
    return core::judge_span(j, sp, t0, t1, gpu_check);
}

void Controller::store_verdict(int repeat, int64_t t0, int64_t t1, const core::StepVerdict& v, int64_t judged_ns) {
    store::VerdictRow r;
    r.step_idx = static_cast<int>(step_);
    r.repeat = repeat;
    r.target_sessions = static_cast<int>(v.target);
    r.t0_ns = t0;
    r.t1_ns = t1;
    r.judged_ns = judged_ns;
    r.pass = v.pass;
    r.sessions = static_cast<int64_t>(v.sessions.size());
    r.failures = v.failures;
    r.frames = static_cast<int64_t>(v.frames);
    r.dropped = static_cast<int64_t>(v.dropped);
    r.fps_median = v.fps_median;
    r.fps_min = v.fps_min;
    r.fps_max = v.fps_max;
    r.p95_median_ms = v.p95_median_ms;
    r.p95_worst_ms = v.p95_worst_ms;
    r.low1_worst_fps = v.low1_worst_fps;
    r.latency_p95_worst_ms = v.latency_p95_worst_ms;
    r.stutter_worst = v.stutter_worst;
    r.fairness = v.fairness;
    r.gpu_mem_peak_pct = v.gpu_mem_peak_pct;
    r.reasons = v.reasons;
    store_->add_verdict(std::move(r));
}

core::MaxDensity Controller::density() const {
    std::vector<core::StepPass> pass;
    for (const auto& o : outcomes_) pass.push_back({o.verdict.target, o.judged && o.verdict.pass});
    return core::max_density(pass);
}

// Every running session that began before `we` has sent a frame that began at or after it, or
// (in a think pause) a HEARTBEAT stamped a second past it with every frame it counts received:
// then no frame that began inside the window is still on its way, and the live verdict sees
// the frames the report will read back.
bool Controller::telemetry_past(int64_t we) const {
    for (const auto& [id, s] : sessions_) {
        if (!s.alive() || s.started_ns >= we) continue;
        if (s.last_frame_begin_ns >= we) continue;
        if (s.last_heartbeat_ns >= we + 1'000'000'000 && s.next_seq >= s.heartbeat_frames) continue;
        return false;
    }
    return true;
}

void Controller::judge_ready() {
    // Windows close in order; judge them in order. A session that keeps silent past the
    // heartbeat timeout is declared hung first, so this cannot wait forever; the cap is a backstop.
    while (!pending_.empty() && phase_ == Phase::measuring) {
        const PendingJudge p = pending_.front();
        const bool overdue = double(now_ns() - p.we) * 1e-9 > plan_.heartbeat_timeout_s + 5;
        if (!telemetry_past(p.we) && !overdue) return;
        pending_.erase(pending_.begin());
        judge_window(p.repeat, p.ws, p.we, p.last);
    }
}

void Controller::judge_window(uint32_t repeat, int64_t ws, int64_t we, bool last) {
    core::StepVerdict v = judge(ws, we);
    store::StepEnd sr;
    sr.idx = static_cast<int>(step_);
    sr.repeat = static_cast<int>(repeat);
    sr.window_start_ns = ws;
    sr.window_end_ns = we;
    sr.ended_ns = now_ns();
    sr.verdict = v.pass ? "pass" : "fail";
    sr.detail = v.reasons.empty() ? "" : v.reasons.front();
    store_->end_step(sr);
    store_verdict(static_cast<int>(repeat), ws, we, v, sr.ended_ns);
    window_verdicts_.push_back(std::move(v));
    if (last) end_step();
}

void Controller::end_step() {
    uint32_t target = plan_.steps[step_];
    // The step's verdict pools every window: all frames from the first window's start.
    StepOutcome o;
    o.index = static_cast<uint32_t>(step_);
    core::GpuMemoryCheck gpu;
    o.verdict = judge(measure_start_ns_, measure_end_ns_, &gpu);
    if (gpu_ && !gpu.checked)
        store_->add_event({now_ns(), std::nullopt, "sla-unchecked", "step " + std::to_string(step_ + 1) + ": " + gpu.detail});
    core::fold_windows(o.verdict, window_verdicts_);
    o.judged = true;
    const int64_t judged = now_ns();  // the verdict row and its event share the time (the monitor pairs them)
    store_verdict(store::pooled_repeat, measure_start_ns_, measure_end_ns_, o.verdict, judged);
    outcomes_.push_back(o);
    store_->add_event({judged, std::nullopt, "step-verdict",
                       "step " + std::to_string(step_ + 1) + " (" + std::to_string(target) + " sessions): " +
                           (o.verdict.pass ? "pass" : "fail: " + o.verdict.reasons.front())});
    out_.step_done(o, plan_.steps.size());
    live_event(core::StepVerdictEvent{uint32_t(step_ + 1), target, o.verdict.pass, o.verdict.fps_median,
                                o.verdict.p95_worst_ms, o.verdict.reasons.empty() ? "" : o.verdict.reasons.front()});
    bool stop = (!o.verdict.pass && plan_.stop == core::StopRule::first_failure) || step_ + 1 >= plan_.steps.size();
    if (stop)
        stop_everything(store::RunStatus::finished);
    else
        begin_step(step_ + 1);
}

bool Controller::on_hello(const wire::Hello& h, pid_t peer) {
    auto it = sessions_.find(h.session_id);
    // Only the process this run started for that id may speak for it.
    if (it == sessions_.end() || it->second.pid != peer || it->second.connected || !it->second.alive()) return false;
    Session& s = it->second;
    s.hello = s.connected = true;
    s.last_seen_ns = now_ns();
    store::SessionDevice d;
    d.device_name = h.device_name;
    d.device_type = h.device_type;
    d.driver_name = h.driver_name;
    d.driver_info = h.driver_info;
    d.software = h.software;
    store_->set_session_device(static_cast<int>(s.id), d);
    s.device = h.device_name;
    s.software = h.software;
    if (host_.gpu.empty() && !h.device_name.empty()) {
        host_.gpu = h.device_name;
        host_.driver = h.driver_name + (h.driver_info.empty() ? "" : " " + h.driver_info);
        store_->add_host(host_);  // replaces the row
    }
    if (h.software && !plan_.allow_software)
        fail_session(s, SessionEnd::software_fallback, "landed on software renderer " + h.device_name, SIGKILL);
    return true;
}

void Controller::on_message(uint32_t id, wire::Message&& m) {
    Session* sp = id < by_id_.size() ? by_id_[id] : nullptr;
    if (!sp) return;
    Session& s = *sp;
    s.last_seen_ns = now_ns();
    if (auto* f = std::get_if<wire::Frames>(&m)) {
        for (const auto& r : f->frames) {
            if (r.seq > s.next_seq) s.gaps += r.seq - s.next_seq;
            s.next_seq = std::max<uint64_t>(s.next_seq, r.seq + 1);
            if (r.interval_ns >= 0) recent_intervals_.push_back(double(r.interval_ns) * 1e-6);
            s.last_frame_begin_ns = std::max(s.last_frame_begin_ns, r.t_begin_ns);
        }
        s.received += f->frames.size();
        s.recent_frames += f->frames.size();
        s.step_frames.insert(s.step_frames.end(), f->frames.begin(), f->frames.end());
        store_->add_frames(static_cast<int>(id), std::move(f->frames));
    } else if (auto* hb = std::get_if<wire::Heartbeat>(&m)) {
        s.heartbeat_frames = hb->frames_emitted;
        s.last_heartbeat_ns = hb->t_ns;
    } else if (auto* e = std::get_if<wire::Event>(&m)) {
        std::string kind = "session-" + std::string(wire::to_string(e->kind));
        std::replace(kind.begin(), kind.end(), '_', '-');
        store_->add_event({e->t_ns, static_cast<int>(id), kind, e->text});
        if (e->kind == wire::EventKind::device_lost && s.reason == SessionEnd::running) {
            s.reason = SessionEnd::device_lost;
            s.detail = e->text;
            s.ended_ns = s.last_seen_ns;
            if (phase_ != Phase::stopping && phase_ != Phase::done) step_failures_[s.id] = "device-lost";
        }
    } else if (auto* b = std::get_if<wire::Bye>(&m)) {
        s.saw_bye = true;
        s.frames_sent = static_cast<int64_t>(b->frames_sent);
        if (!b->message.empty() && s.detail.empty()) s.detail = b->message;
    }
}

void Controller::on_closed(int64_t id, const ConnectionEnd& end) {
    const std::string& error = end.detail;
    if (id < 0) {
        // A connection that never became a session: garbage, a stranger, a bad HELLO.
        store_->add_event({now_ns(), std::nullopt, "connection-rejected", error.empty() ? "closed before HELLO" : error});
        return;
    }
    auto it = sessions_.find(static_cast<uint32_t>(id));
    if (it == sessions_.end()) return;
    Session& s = it->second;
    s.connection_closed = true;
    s.saw_bye = s.saw_bye || end.saw_bye;
    if (!error.empty()) {
        store_->add_event({now_ns(), static_cast<int>(id), "telemetry-closed", error});
        if (end.reason == CloseReason::protocol && s.alive()) fail_session(s, SessionEnd::protocol, error, SIGKILL);
    }
    if (s.exited) finalize(s);
}

void Controller::fail_session(Session& s, SessionEnd reason, const std::string& detail, int sig) {
    if (s.reason == SessionEnd::running) {
        s.reason = reason;
        s.detail = detail;
        if (!s.ended_ns) s.ended_ns = now_ns();
    }
    if (phase_ != Phase::stopping && phase_ != Phase::done) step_failures_[s.id] = std::string(store::to_string(s.reason));
    store_->add_event({now_ns(), static_cast<int>(s.id), "session-" + std::string(store::to_string(reason)), detail});
    if (s.proc && s.proc->running() && sig) s.proc->signal_group(sig);
}

void Controller::on_exit(uint32_t id, ExitStatus st) {
    Session& s = sessions_.at(id);
    s.exited = true;
    s.exit = st;
    s.exited_ns = now_ns();
    if (!s.ended_ns) s.ended_ns = s.exited_ns;
    if (s.reason == SessionEnd::running) {
        if (s.stop_requested) {
            s.reason = st.signal == SIGKILL ? SessionEnd::killed : SessionEnd::ok;
        } else {
            SessionEnd r = SessionEnd::crash;
            if (st.exited()) {
                switch (st.exit_code) {
                    case exit_code::ok: r = SessionEnd::ok; break;
                    case exit_code::device_lost: r = SessionEnd::device_lost; break;
                    case exit_code::software_fallback: r = SessionEnd::software_fallback; break;
                    default: r = SessionEnd::error; break;
                }
            }
            if (r != SessionEnd::ok)
                fail_session(s, r, describe(st) + "; see " + log_dir_ + "/session-" + std::to_string(id) + ".log", 0);
            else
                s.reason = r;
        }
    }
    if (s.connection_closed || !s.connected) finalize(s);
    maybe_done();
}

void Controller::finalize(Session& s) {
    if (s.finalized) return;
    s.finalized = true;
    store::SessionResult r;
    r.id = static_cast<int>(s.id);
    if (!s.ended_ns) s.ended_ns = now_ns();
    r.ended_ns = s.ended_ns;
    r.reason = s.reason == SessionEnd::running ? SessionEnd::ok : s.reason;
    if (s.exit.exited()) r.exit_code = s.exit.exit_code;
    if (s.exit.signal) r.signal = s.exit.signal;
    if (s.frames_sent >= 0) r.frames_sent = s.frames_sent;
    r.frames_received = static_cast<int64_t>(s.received);
    // Lost frames: sequence gaps, plus frames the session counted (BYE, or its last
    // heartbeat when it died without one) that never arrived.
    uint64_t known = s.frames_sent >= 0 ? uint64_t(s.frames_sent) : s.heartbeat_frames;
    uint64_t missing = known > s.received + s.gaps ? known - s.received - s.gaps : 0;
    r.frames_lost = static_cast<int64_t>(s.gaps + missing);
    r.detail = s.detail;
    if (r.frames_lost > 0)
        r.detail += std::string(r.detail.empty() ? "" : "; ") + std::to_string(r.frames_lost) + " frames lost (" +
                    (s.frames_sent >= 0 ? "counted by BYE" : "no BYE; counted by the last heartbeat") + ")";
    lost_total_ += static_cast<uint64_t>(r.frames_lost);
    store_->update_session_end(r);
    store_->add_event({r.ended_ns, r.id, "session-end",
                       std::string(store::to_string(r.reason)) + (s.exited ? ", " + describe(s.exit) : "")});
    out_.session_ended(s.id, std::string(store::to_string(r.reason)), r.detail);
    live_event(core::SessionEndEvent{s.id, std::string(store::to_string(r.reason)), step_failures_.count(s.id) > 0, r.detail});
    maybe_done();
}

void Controller::stop_everything(store::RunStatus status) {
    if (phase_ == Phase::stopping || phase_ == Phase::done) return;
    final_status_ = status;
    phase_ = Phase::stopping;
    stop_started_ns_ = now_ns();
    step_timer_.cancel();
    for (auto& [id, s] : sessions_) {
        if (s.proc && s.proc->running()) {
            s.stop_requested = true;
            s.proc->signal_group(SIGTERM);
        }
    }
    maybe_done();
}

void Controller::maybe_done() {
    if (phase_ != Phase::stopping) return;
    for (auto& [id, s] : sessions_)
        if (!s.finalized) return;
    phase_ = Phase::done;
    // A run stopped by a signal has no max density to stand by.
    store_->end_run(final_status_, 0,
                    final_status_ == store::RunStatus::finished ? std::optional<int64_t>(density().sessions) : std::nullopt);
    try {
        store_->finish();
    } catch (const store::StoreError& e) {
        // The writer failed after the last check (or while finishing): record what can be.
        if (store_failure_.empty()) store_failure_ = e.what();
        final_status_ = store::RunStatus::aborted;
        disk_->release();  // room for the last words, if the disk is what filled
        std::string why = store::mark_aborted(db_path_, "database failed: " + store_failure_, now_ns(), 0);
        out_.note(why.empty() ? "the database says the run was aborted and why; what was committed before is kept"
                              : "could not record the abort either (" + why + "); the file reads as a run that did not finish");
    }
    live_event(core::RunEndEvent{std::string(store::to_string(final_status_)), db_path_});
    if (opts_.live) opts_.live->finished();
    server_->close();
    tick_.cancel();
    signals_.cancel();
    io_.stop();
}

void Controller::on_signal(int sig) {
    ++signals_seen_;
    if (signals_seen_ == 1) {
        out_.note(std::string("received ") + strsignal(sig) + ": stopping sessions, saving the database (again to kill)");
        store_->add_event({now_ns(), std::nullopt, "run-abort", strsignal(sig)});
        stop_everything(store::RunStatus::aborted);
    } else {
        out_.note("killing every session now");
        for (auto& [id, s] : sessions_)
            if (s.proc && s.proc->running()) s.proc->signal_group(SIGKILL);
    }
    signals_.async_wait([this](boost::system::error_code ec, int s) {
        if (!ec) on_signal(s);
    });
}

void Controller::sample() {
    int64_t t = now_ns();
    std::vector<store::SampleRow> rows;
    CpuTimes now = read_cpu_times();
    auto pct = cpu_percent(cpu_prev_, now);
    cpu_prev_ = now;
    if (!pct.empty()) {
        rows.push_back({t, std::nullopt, "proc", "host_cpu_pct", pct[0]});
        last_host_cpu_pct = pct[0];
        for (size_t i = 1; i < pct.size(); ++i)
            rows.push_back({t, std::nullopt, "proc", "core" + std::to_string(i - 1) + "_cpu_pct", pct[i]});
    }
    MemInfo mem = read_meminfo();
    rows.push_back({t, std::nullopt, "proc", "host_mem_used_bytes", double(mem.total_bytes - mem.available_bytes)});
    rows.push_back({t, std::nullopt, "proc", "host_load1", read_loadavg1()});
    for (auto& [id, s] : sessions_) {
        if (!s.alive() || !s.pid) continue;
        auto u = proc_usage_.read(s.pid);
        if (!u) continue;
        if (s.last_cpu_s >= 0 && t > s.last_cpu_t) {
            s.last_cpu_pct = 100.0 * (u->cpu_seconds - s.last_cpu_s) / (double(t - s.last_cpu_t) * 1e-9);
            rows.push_back({t, static_cast<int>(id), "proc", "cpu_pct", s.last_cpu_pct});
        }
        s.last_cpu_s = u->cpu_seconds;
        s.last_cpu_t = t;
        s.rss_bytes = u->rss_bytes;
        rows.push_back({t, static_cast<int>(id), "proc", "rss_bytes", double(u->rss_bytes)});
    }
    proc_usage_.sweep();
    if (gpu_) {
        std::vector<GpuClient> clients;
        for (const auto& [id, s] : sessions_)
            if (s.alive() && s.pid)
                clients.push_back({static_cast<int>(id), s.pid,
                                   !s.hello ? Renderer::unknown : s.software ? Renderer::software : Renderer::gpu,
                                   s.last_cpu_t == t ? std::optional<double>(s.last_cpu_s) : std::nullopt});
        last_gpu_ = gpu_->sample(t, clients);
        for (const auto& e : last_gpu_.errors) store_->add_event({t, std::nullopt, "sampler-error", "gpu: " + e});
        auto g = gpu_sample_rows(last_gpu_);
        rows.insert(rows.end(), g.begin(), g.end());
    }
    store_->add_samples(std::move(rows));
}

void Controller::open_gpu() {
    gpu_ = std::make_unique<GpuTelemetry>(open_gpu_backends());
    int64_t t = now_ns();
    store_->add_event({t, std::nullopt, "gpu-backend", gpu_->describe()});
    for (const auto& why : gpu_->unavailable()) store_->add_event({t, std::nullopt, "gpu-unavailable", why});
}

void Controller::check_store(int64_t t) {
    if (phase_ == Phase::done) return;
    if (store_failure_.empty()) {
        if (auto err = store_->error()) {
            store_failure_ = *err;
            out_.note("the database failed (" + *err + "): stopping every session now; the run is aborted");
            stop_everything(store::RunStatus::aborted);
            return;
        }
    }
    if (t - last_disk_check_ >= 2'000'000'000 && store_failure_.empty()) {
        last_disk_check_ = t;
        if (auto warning = disk_->check(double(t - run_start_ns_) * 1e-9)) {
            out_.note("warning: " + *warning);
            store_->add_event({t, std::nullopt, "disk-space-low", *warning});
        }
    }
}

void Controller::on_tick() {
    int64_t t = now_ns();
    // Hangs: no message within the heartbeat timeout (the startup timeout before the first one).
    if (phase_ != Phase::done) {
        for (auto& [id, s] : sessions_) {
            if (!s.alive()) continue;
            double limit = s.hello ? plan_.heartbeat_timeout_s : std::max(startup_timeout_s, plan_.heartbeat_timeout_s);
            if (double(t - s.last_seen_ns) * 1e-9 > limit)
                fail_session(s, SessionEnd::hang,
                             "no heartbeat for " + std::to_string(int(limit)) + " s; killed", SIGKILL);
        }
        // A session that exited but whose socket never closed: stop waiting for it.
        for (auto& [id, s] : sessions_)
            if (s.exited && !s.finalized && double(t - s.exited_ns) * 1e-9 > exit_drain_s) finalize(s);
    }
    judge_ready();
    if (phase_ == Phase::starting) {
        bool all_in = true;
        for (auto& [id, s] : sessions_)
            if (s.alive() && !s.hello) all_in = false;
        if (all_in) after_start_wait();
    }
    if (phase_ == Phase::stopping && double(t - stop_started_ns_) * 1e-9 > stop_grace_s) {
        for (auto& [id, s] : sessions_)
            if (s.proc && s.proc->running()) s.proc->signal_group(SIGKILL);
    }
    check_store(t);
    // Samples at 1 Hz (DESIGN: 1-4 Hz): with hundreds of sessions, reading /proc is the sampler's cost.
    if (t - last_sample >= 1'000'000'000) {
        last_sample = t;
        sample();
    }
    if (t - last_status >= 1'000'000'000 && phase_ != Phase::done) {
        double dt = last_status ? double(t - last_status) * 1e-9 : 1.0;
        last_status = t;
        StatusSnapshot st;
        st.step = step_ + 1;
        st.steps = plan_.steps.size();
        st.target = plan_.steps[step_];
        st.alive = alive_count();
        st.phase = phase_name();
        st.phase_left_s = std::max(0.0, double(phase_end_ns_ - t) * 1e-9);
        std::vector<double> fps;
        for (auto& [id, s] : sessions_)
            if (s.alive()) {
                fps.push_back(double(s.recent_frames) / dt);
                s.recent_frames = 0;
            }
        st.fps_median = fps.empty() ? 0 : stats::median(fps);
        st.p95_ms = recent_intervals_.empty() ? NAN : stats::percentile_nearest_rank(recent_intervals_, 95);
        recent_intervals_.clear();
        st.passed = density().sessions;
        st.failed_steps = 0;
        for (const auto& o : outcomes_) st.failed_steps += !o.verdict.pass;
        st.elapsed_s = double(t - run_start_ns_) * 1e-9;
        out_.status(st);
    }
    if (phase_ == Phase::done) return;
    tick_.expires_after(250ms);
    tick_.async_wait([this](boost::system::error_code ec) {
        if (!ec) on_tick();
    });
}


core::LiveState Controller::live_state() {
    core::LiveState st;
    int64_t t = now_ns();
    st.plan = plan_.name;
    st.db_path = db_path_;
    st.host = read_host_identity().hostname;
    st.status = phase_ == Phase::done       ? std::string(store::to_string(final_status_))
                : phase_ == Phase::stopping ? "stopping"
                                            : "running";
    st.elapsed_s = double(t - run_start_ns_) * 1e-9;
    st.started_unix_ns = unix_now_ns() - (t - run_start_ns_);
    st.step = step_ + 1;
    st.steps = plan_.steps.size();
    st.target = plan_.steps[step_];
    st.alive = alive_count();
    st.phase = phase_name();
    st.phase_left_s = std::max(0.0, double(phase_end_ns_ - t) * 1e-9);
    st.max_density_so_far = density().sessions;
    st.host_cpu_pct = last_host_cpu_pct;
    MemInfo mem = read_meminfo();
    st.host_mem_total_bytes = double(mem.total_bytes);
    st.host_mem_used_bytes = double(mem.total_bytes - mem.available_bytes);
    st.gpu_util_pct = st.gpu_mem_used_bytes = st.gpu_mem_total_bytes = NAN;
    st.gpu_backend = gpu_ ? std::string(gpu_->backend()) : "none";
    if (!last_gpu_.devices.empty()) {
        // Host totals over every GPU (utilization averaged), as the samples' unprefixed rows are.
        double util = 0, used = 0, total = 0;
        int n_util = 0;
        for (const auto& d : last_gpu_.devices) {
            if (d.util_pct) util += *d.util_pct, ++n_util;
            used += d.mem_used_bytes.value_or(0);
            total += d.mem_total_bytes.value_or(0);
        }
        if (n_util) st.gpu_util_pct = util / n_util;
        if (total > 0) st.gpu_mem_used_bytes = used, st.gpu_mem_total_bytes = total;
    }
    // Per-session figures over the last few seconds of frames.
    const int64_t span_ns = 3'000'000'000;
    for (const auto& [id, s] : sessions_) {
        core::LiveSession ls;
        ls.id = id;
        ls.profile = s.profile_name;
        ls.pid = s.pid;
        ls.state = s.finalized || s.exited || s.reason != SessionEnd::running
                       ? std::string(store::to_string(s.reason == SessionEnd::running ? SessionEnd::ok : s.reason))
                   : s.stop_requested ? "stopping"
                   : s.hello          ? "running"
                                      : "starting";
        ls.device = s.device;
        ls.software = s.software;
        ls.frames = s.received;
        std::vector<FrameRecord> recent;
        for (auto it = s.step_frames.rbegin(); it != s.step_frames.rend() && it->t_begin_ns >= t - span_ns; ++it)
            recent.push_back(*it);
        auto sum = stats::summarize(recent, core::active_seconds(recent));
        ls.fps = recent.empty() ? NAN : sum.fps;
        ls.p95_ms = recent.empty() ? NAN : sum.p95_ms;
        ls.sla_ok = recent.empty() || (s.sla && sla_violations(sum, *s.sla).empty());
        ls.cpu_pct = s.last_cpu_pct;
        ls.rss_bytes = s.rss_bytes;
        ls.gpu_share_pct = NAN;
        if (const auto* g = last_gpu_.session(static_cast<int>(id)); g && g->share_pct) {
            ls.gpu_share_pct = *g->share_pct;
            ls.gpu_share_source = g->source;
        }
        st.sessions.push_back(std::move(ls));
    }
    for (const auto& o : outcomes_) {
        core::LiveStep ls;
        ls.index = o.index;
        ls.sessions = o.verdict.target;
        ls.pass = o.verdict.pass;
        ls.fps_median = o.verdict.fps_median;
        ls.p95_worst_ms = o.verdict.p95_worst_ms;
        ls.reason = o.verdict.reasons.empty() ? "" : o.verdict.reasons.front();
        st.finished_steps.push_back(ls);
    }
    st.frames_stored = store_ ? store_->frames_stored() : 0;
    st.frames_lost = lost_total_;
    return st;
}

std::vector<core::LiveFrame> Controller::live_frames(uint32_t session, uint64_t since, size_t max) {
    std::vector<core::LiveFrame> out;
    auto it = sessions_.find(session);
    if (it == sessions_.end()) return out;
    const auto& f = it->second.step_frames;
    // The newest `max` frames at or after `since`, oldest first.
    size_t first = f.size();
    while (first > 0 && f.size() - first < max && f[first - 1].seq >= since) --first;
    for (size_t i = first; i < f.size(); ++i)
        out.push_back({f[i].seq, f[i].t_begin_ns, f[i].interval_ns >= 0 ? double(f[i].interval_ns) * 1e-6 : NAN});
    return out;
}

}  // namespace

RunOutcome run_plan(const core::Plan& plan, const RunOptions& opts) {
    Controller c(plan, opts);
    return c.run();
}

}  // namespace seatmark::orchestrator
