// `seatmark run`: set-up, the event loop, stopping (the parts: run_controller_impl.h).
#include "orchestrator/run_controller_impl.h"

#include "core/preflight.h"
#include "orchestrator/adaptive_planner.h"
#include "orchestrator/device_probe.h"
#include "common/stop_signals.h"

namespace seatmark::orchestrator::run_detail {

namespace asio = boost::asio;
using namespace std::chrono_literals;

StepTimes step_times(const core::Plan& plan) {
    StepTimes t;
    t.settle_ns = int64_t(plan.settle_s * 1e9);
    t.window_ns = int64_t(plan.window_s * 1e9);
    t.startup_ns = int64_t(startup_timeout_s * 1e9);
    t.judge_backstop_ns = int64_t((plan.heartbeat_timeout_s + 5) * 1e9);
    t.failures_allowed = plan.default_sla.failures;
    return t;
}

Controller::Controller(const core::Plan& plan, const RunOptions& opts)
    : plan_(plan),
      opts_(opts),
      db_path_(opts.db_path.empty() ? plan.db_path : opts.db_path),
      exe_(opts.session_exe.empty() ? sibling_exe("seatmark-session") : opts.session_exe),
      signals_(io_),
      tick_(io_),
      step_timer_(io_),
      spawned_(*this),
      brought_(opts.session_source ? opts.session_source(*this) : nullptr),
      source_(brought_ ? *brought_ : static_cast<SessionSource&>(spawned_)),
      own_planner_(opts.planner ? nullptr : make_planner(plan)),
      planner_(opts.planner ? *opts.planner : *own_planner_),
      machine_(clock_, step_timer_, source_, opts.coordinator ? *opts.coordinator : local_coordinator_, planner_, *this,
               step_times(plan)),
      out_(opts.quiet) {
    for (int sig : stop_signals()) signals_.add(sig);  // SIGINT, SIGTERM, SIGHUP (a closed terminal)
}

void Controller::preflight() {
    core::PreflightFacts f;
    if (plan_.sessions == core::SessionsMode::join) {
        f.renders = false;  // sessions render on the joining hosts, which say so when they join
    } else {
        std::vector<std::string> args;
        if (!plan_.device.empty()) args = {"--device", plan_.device};
        args.insert(args.end(), opts_.extra_session_args.begin(), opts_.extra_session_args.end());
        f = probe_devices(exe_, args, preflight_timeout_s);
        for (const auto& m : plan_.mix) {
            const auto p = workloads::load_profile(m.profile);
            f.profiles.push_back({p.name, p.render.width, p.render.height, p.render.msaa});
        }
    }
    f.open_file_limit = raise_open_file_limit();
    const core::PreflightResult r = core::preflight(plan_, f);
    for (const auto& n : r.notes) std::fprintf(stderr, "seatmark: note: %s\n", n.c_str());
    if (r.ok()) return;
    std::string all = r.problems.front();
    for (size_t i = 1; i < r.problems.size(); ++i) all += "\n" + r.problems[i];
    throw InputError(all + "\nNothing was started.");
}

RunOutcome Controller::run() {
    verify_assets(plan_);
    preflight();
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
    open_sampler();
    run_start_ns_ = now_ns();
    const double cpu0 = process_cpu_seconds();
    signals_.async_wait([this](boost::system::error_code ec, int sig) {
        if (!ec) on_signal(sig);
    });
    out_.start(plan_, db_path_);
    if (opts_.live) opts_.live->started(io_, *this);
    machine_.start();
    tick_.expires_after(250ms);
    tick_.async_wait([this](boost::system::error_code ec) {
        if (!ec) on_tick();
    });
    // One pass every 50 ms handles every socket that has data, instead of waking
    // the process for each of hundreds of sessions' messages: bench_orchestrator
    // measured a third of the orchestrator's CPU in context switches otherwise; with
    // 256 sessions 10 ms cost 3.3 % of a core, 25 ms 2.7 %, 50 ms 2.5 % (before
    // other savings). Nothing here needs finer timing: sessions time their own
    // frames and send them once a second (wire::heartbeat_interval_ms), timeouts are seconds, the live API answers
    // within 50 ms.
    // While a joined peer's clock is being measured, handlers run as data comes (a PONG is
    // stamped when it arrives): a burst is 8 round trips at a join and 4 every 10 s.
    int64_t longest_pass_ns = 0, longest_pass_at = 0, longest_running_ns = 0;
    auto pass_took = [&](int64_t pass0) {
        const int64_t took = now_ns() - pass0;
        if (took > longest_pass_ns) longest_pass_ns = took, longest_pass_at = pass0;
        if (phase_ == Phase::running) longest_running_ns = std::max(longest_running_ns, took);
    };
    while (!io_.stopped()) {
        const int64_t pass0 = now_ns();
        if (source_.prompt_io()) {
            io_.run_for(5ms);
            pass_took(pass0);
            continue;
        }
        io_.poll();
        pass_took(pass0);
        if (io_.stopped()) break;
        std::this_thread::sleep_for(50ms);
    }

    RunOutcome r;
    r.db_path = kept_at_.empty() ? db_path_ : kept_at_;  // where the run's data is now
    r.status = std::string(store::to_string(final_status_));
    r.abort_cause = store_failure_;
    r.steps = outcomes_;
    r.max_density = density().sessions;
    r.frames_stored = store_->frames_stored();
    r.frames_lost = table_.lost_total();
    r.wall_s = double(now_ns() - run_start_ns_) * 1e-9;
    r.orchestrator_cpu_s = process_cpu_seconds() - cpu0;
    r.measured_cpu_s = measured_cpu_s_;
    r.measured_wall_s = measured_wall_s_;
    r.longest_loop_pass_s = double(longest_pass_ns) * 1e-9;
    r.longest_loop_pass_at_s = double(longest_pass_at - run_start_ns_) * 1e-9;
    r.longest_running_pass_s = double(longest_running_ns) * 1e-9;
    r.longest_judge_s = double(longest_judge_ns_) * 1e-9;
    return r;
}

void Controller::open_store() {
    store::StoreOptions so;
    so.overwrite = opts_.overwrite_db;
    store_ = std::make_unique<store::StoreWriter>(store::StoreWriter::open(db_path_, so));
    // The judge's read-back connection, opened once for the whole run (its descriptors are there
    // from the start, not added at the first judgement).
    frame_reader_ = opts_.span_frames ? opts_.span_frames(db_path_) : open_span_frames(db_path_);
    judge_worker_ = std::make_unique<JudgeWorker>([w = store_.get()] { w->flush(); }, *frame_reader_);
    store::RunInfo ri;
    ri.plan_text = plan_.text;
    ri.plan_path = plan_.source;
    ri.tool_version = version_string;
    auto host = read_host_identity();
    ri.host = opts_.pool ? opts_.pool->host_name : host.hostname;
    if (opts_.pool) ri.pool_id = opts_.pool->pool_id;
    ri.started_unix_ns = unix_now_ns();
    ri.mono_origin_ns = now_ns();
    store_->begin_run(ri);
    store::HostInfo& hi = host_;
    hi.hostname = ri.host;
    if (opts_.pool) {
        hi.rank = opts_.pool->rank;
        hi.role = std::string(opts_.pool->rank == 0 ? store::role_orchestrator : store::role_rank);
        for (const store::HostInfo& o : opts_.pool->other_hosts()) store_->add_host(o);
    }
    hi.cpu_model = host.cpu_model;
    hi.cpu_count = host.cpu_count;
    // A cpuset or CFS quota smaller than the machine: what attribution and "room for" judge against.
    if (host.capacity.limited()) {
        hi.cpu_capacity = host.capacity.cpus;
        hi.cpu_capacity_note = host.capacity.note;
    }
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

Session& Controller::new_session(uint32_t id) {
    Session& s = table_.add(id);
    s.profile = plan_.profile_for(id);
    s.profile_name = workloads::load_profile(s.profile).name;
    s.sla = &plan_.sla_for(s.profile_name);
    s.started_ns = now_ns();
    s.last_seen_ns = s.started_ns;
    return s;
}

void Controller::spawn(uint32_t id) {
    Session& s = new_session(id);
    // Sessions run until the orchestrator stops them; the duration is only a backstop.
    double duration = plan_.planned_seconds() * 2 + 600;
    std::vector<std::string> args = {"--workload",   s.profile, "--duration",
                                     std::to_string(int64_t(duration)) + "s", "--connect", server_->path(),
                                     "--session-id", std::to_string(id), "--quiet"};
    if (!plan_.device.empty()) args.insert(args.end(), {"--device", plan_.device});
    if (!plan_.allow_software) args.push_back("--no-software");
    args.insert(args.end(), opts_.extra_session_args.begin(), opts_.extra_session_args.end());
    std::string log = log_dir_ + "/session-" + std::to_string(id) + ".log";
    store::SessionInfo si;
    si.id = static_cast<int>(id);
    si.profile = s.profile_name;
    si.started_ns = s.started_ns;
    try {
        s.proc = std::make_unique<SessionProcess>(io_, exe_, args, log);
    } catch (const std::exception& e) {
        // Never ran: ended as it started, an error the step counts.
        s.reason = SessionEnd::error;
        s.detail = e.what();
        s.state = SessionState::exited;
        s.ended_ns = s.started_ns;
        store_->add_session(si);
        finalize(s);
        return;
    }
    s.pid = s.proc->pid();
    si.pid = s.pid;
    store_->add_session(si);
    store_->add_event({s.started_ns, static_cast<int>(id), "session-start",
                       "pid " + std::to_string(s.pid) + ", profile " + s.profile_name});
    if (const std::string& why = s.proc->log_problem(); !why.empty()) {
        // Recorded as what it is: the session runs, unlogged; its step is judged on its frames.
        store_->add_event({s.started_ns, static_cast<int>(id), "session-log-missing", why + "; the session runs without a log"});
        if (!log_missing_noted_) out_.note("warning: " + why + "; sessions run without logs");
        log_missing_noted_ = true;
    }
    s.proc->on_exit([this, id](ExitStatus st) { on_exit(id, st); });
}


void Controller::stop_everything(store::RunStatus status) {
    if (phase_ != Phase::running) return;
    final_status_ = status;
    phase_ = Phase::stopping;
    stop_started_ns_ = now_ns();
    machine_.halt();
    if (judging_) judge_worker_->cancel();  // judged() goes on with the stop when it returns
    source_.stop_all();
    maybe_done();
}

void Controller::maybe_done() {
    if (phase_ != Phase::stopping) return;
    if (judging_) return;  // the judge's thread uses the store: judged() comes back here
    for (const Session* s : table_.all())
        if (s->state != SessionState::ended) return;
    phase_ = Phase::done;
    if (opts_.pool && opts_.pool->host_lost() && final_status_ != store::RunStatus::aborted) {
        // The survivors' data is complete: the run is degraded, and says which host went when.
        final_status_ = store::RunStatus::degraded;
        for (const store::HostInfo& o : opts_.pool->other_hosts()) {
            store_->add_host(o);
            if (o.lost)
                store_->add_event({now_ns(), std::nullopt, "host-lost",
                                   o.hostname + " in step " + std::to_string(o.lost_step.value_or(0) + 1) + ": " +
                                       o.lost_detail.value_or(""), o.hostname});
        }
    }
    // Checked once more before the end is written: a path lost in the run's last moments.
    if (!path_lost_)
        if (auto loss = store_->path_lost()) database_lost(*loss);
    // A run stopped by a signal has no max density to stand by.
    store_->end_run(final_status_, 0,
                    final_status_ == store::RunStatus::finished || final_status_ == store::RunStatus::degraded
                        ? std::optional<int64_t>(density().sessions)
                        : std::nullopt);
    try {
        store_->finish();
    } catch (const store::StoreError& e) {
        // The writer failed after the last check (or while finishing): record what can be.
        if (store_failure_.empty()) store_failure_ = e.what();
        final_status_ = store::RunStatus::aborted;
        disk_->release();  // room for the last words, if the disk is what filled
        if (path_lost_) {
            // The path may name another file now: nothing is written through it.
            out_.note(std::string("the run's data could not be kept: ") + e.what());
        } else {
            std::string why = store::mark_aborted(db_path_, "database failed: " + store_failure_, now_ns(), 0);
            out_.note(why.empty() ? "the database says the run was aborted and why; what was committed before is kept"
                                  : "could not record the abort either (" + why + "); the file reads as a run that did not finish");
        }
    }
    if (path_lost_) {
        if (const std::string kept = store_->kept_at(); !kept.empty()) {
            kept_at_ = kept;
            out_.note("everything the run stored is kept in " + kept + " (" + db_path_ + " is gone)");
        }
    }
    judge_worker_.reset();
    frame_reader_.reset();  // after the writer closed (see its declaration)
    live_event(core::RunEndEvent{std::string(store::to_string(final_status_)), kept_at_.empty() ? db_path_ : kept_at_});
    if (opts_.live) opts_.live->finished();
    server_->close();
    tick_.cancel();
    signals_.cancel();
    io_.stop();
}

void Controller::on_signal(int sig) {
    ++signals_seen_;
    if (signals_seen_ == 1 && opts_.pool) {
        // mpirun/srun end every rank this way when one rank dies (Open MPI 4.1 has no fault
        // tolerance) or the job is stopped, and SIGKILL follows within about a second: the
        // sessions are killed at once so the database's end is recorded in time.
        const std::string why = std::string(strsignal(sig)) +
                                " from the launcher: a pool run's launcher ends every rank when one rank dies or the "
                                "job is stopped; this host's data up to now is kept";
        out_.note("received " + why);
        store_->add_event({now_ns(), std::nullopt, "run-abort", why});
        // The end is committed first (the orderly end below writes it again): SIGKILL may come
        // before the sessions' ends and the indexes are in, and the file then still says why.
        store_->end_run(store::RunStatus::aborted);
        try {
            store_->flush();
        } catch (const store::StoreError&) {
            // check_store reports the writer's failure on the next tick
        }
        stop_everything(store::RunStatus::aborted);
        source_.kill_all();
    } else if (signals_seen_ == 1) {
        out_.note(std::string("received ") + strsignal(sig) + ": stopping sessions, saving the database (again to kill)");
        store_->add_event({now_ns(), std::nullopt, "run-abort", strsignal(sig)});
        stop_everything(store::RunStatus::aborted);
    } else {
        out_.note("killing every session now");
        source_.kill_all();
    }
    signals_.async_wait([this](boost::system::error_code ec, int s) {
        if (!ec) on_signal(s);
    });
}


void Controller::open_sampler() {
    auto gpu = std::make_unique<GpuTelemetry>(open_gpu_backends());
    int64_t t = now_ns();
    store_->add_event({t, std::nullopt, "gpu-backend", gpu->describe()});
    for (const auto& why : gpu->unavailable()) store_->add_event({t, std::nullopt, "gpu-unavailable", why});
    sampler_ = std::make_unique<HostSampler>(std::move(gpu));
}

// The database's path no longer reaches the file being written (its folder removed, say): said
// at once, the run stops as for any store failure, and the writer keeps everything in a new file
// as it finishes (StoreWriter::path_lost), which the run's outcome then names.
void Controller::database_lost(const store::StoreWriter::PathLoss& l) {
    path_lost_ = true;
    const std::string why =
        l.what + "; " +
        (l.keep.empty() ? "no place could be made to keep a copy (" + l.tried + "): what the run stored will be lost"
                        : "everything the run stored will be kept in " + l.keep);
    if (store_failure_.empty()) store_failure_ = why;
    store_->add_event({now_ns(), std::nullopt, "database-lost", why});
    if (phase_ == Phase::running) {
        out_.note("the run database is lost: " + why + ". Stopping every session now; the run is aborted");
        stop_everything(store::RunStatus::aborted);
    } else {
        out_.note("the run database is lost: " + why + "; the run is aborted");
    }
    final_status_ = store::RunStatus::aborted;
}

void Controller::check_store(int64_t t) {
    if (phase_ == Phase::done) return;
    if (!path_lost_) {
        if (auto loss = store_->path_lost()) {
            database_lost(*loss);
            return;
        }
    }
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


}  // namespace seatmark::orchestrator::run_detail

namespace seatmark::orchestrator {

RunOutcome run_plan(const core::Plan& plan, const RunOptions& opts) {
    run_detail::Controller c(plan, opts);
    return c.run();
}

}  // namespace seatmark::orchestrator
