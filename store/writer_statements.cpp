#include "store/writer_statements.h"

#include <algorithm>
#include <span>

#include "store/frame_block.h"
#include "store/schema.h"

namespace seatmark::store {

namespace {

std::optional<int64_t> opt64(const std::optional<int>& v) {
    return v ? std::optional<int64_t>(*v) : std::nullopt;
}

}  // namespace

WriterStatements::WriterStatements(const Db& db)
    : db_(db),
      begin_(db, "BEGIN", "beginning a transaction"),
      commit_(db, "COMMIT", "committing"),
      rollback_(db, "ROLLBACK", "rolling back"),
      run_(db,
           "INSERT INTO runs(id, plan_text, plan_path, tool_version, host, started_unix_ns, mono_origin_ns, pool_id)"
           " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
           "storing the run"),
      end_run_(db, "UPDATE runs SET status = ?2, ended_unix_ns = ?3, max_density = ?4 WHERE id = ?1", "storing the run's end"),
      host_(db,
            "INSERT OR REPLACE INTO hosts(run_id, hostname, cpu_model, cpu_count, mem_total_bytes, os,"
            " kernel, gpu, driver, vulkan_device, rank, role, clock_offset_ns, clock_uncertainty_ns, status,"
            " lost_step, lost_detail, agent, cpu_capacity, cpu_capacity_note)"
            " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
            "storing a host"),
      step_(db,
            "INSERT OR REPLACE INTO steps(run_id, idx, repeat, target_sessions, started_ns, shortfall, pool_hosts)"
            " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            "storing a step"),
      end_step_(db,
                "UPDATE steps SET window_start_ns = ?4, window_end_ns = ?5, ended_ns = ?6, verdict = ?7,"
                " detail = ?8 WHERE run_id = ?1 AND idx = ?2 AND repeat = ?3",
                "storing a step's end"),
      session_(db,
               "INSERT OR REPLACE INTO sessions(run_id, id, profile, pid, device_name, device_type,"
               " driver_name, driver_info, software, started_ns, host)"
               " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
               "storing a session"),
      device_(db,
              "UPDATE sessions SET device_name = ?2, device_type = ?3, driver_name = ?4, driver_info = ?5,"
              " software = ?6 WHERE id = ?1",
              "storing a session's device"),
      end_session_(db,
                   "UPDATE sessions SET ended_ns = ?2, end_reason = ?3, exit_code = ?4, signal = ?5,"
                   " frames_sent = ?6, frames_received = ?7, frames_lost = ?8, detail = ?9, model_open_ms = ?10 WHERE id = ?1",
                   "storing a session's end"),
      sample_(db, "INSERT INTO samples(t_ns, session_id, source, metric, value, host) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
              "storing samples"),
      event_(db, "INSERT INTO events(t_ns, session_id, kind, detail, host) VALUES(?1, ?2, ?3, ?4, ?5)",
             "storing an event"),
      verdict_(db,
               "INSERT OR REPLACE INTO verdicts(run_id, step_idx, repeat, target_sessions, t0_ns, t1_ns, judged_ns,"
               " pass, sessions, failures, frames, dropped, fps_median, fps_min, fps_max, p95_median_ms,"
               " p95_worst_ms, low1_worst_fps, latency_p95_worst_ms, stutter_worst, fairness, gpu_mem_peak_pct, host)"
               " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20,"
               " ?21, ?22, ?23)",
               "storing a verdict"),
      reason_(db, "INSERT OR REPLACE INTO verdict_reasons(run_id, step_idx, repeat, ord, reason, host)"
                  " VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
              "storing a verdict's reasons"),
      block_(db,
             "INSERT INTO frame_blocks(session_id, first_seq, last_seq, frames, t_begin_min_ns, t_begin_max_ns, records)"
             " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
             "storing frames"),
      endpoint_(db) {}

void WriterStatements::rollback() noexcept {
    if (sqlite3_get_autocommit(db_.get())) return;  // no transaction open
    try {
        rollback_.run();
    } catch (const StoreError&) {
    }
}

void WriterStatements::apply(const cmd::Command& c) {
    std::visit([this](const auto& x) { (*this)(x); }, c);
}

void WriterStatements::operator()(const cmd::BeginRun& c) {
    const RunInfo& r = c.run;
    run_.bind_int(1, the_run_id).bind_text(2, r.plan_text).bind_text(3, r.plan_path);
    run_.bind_text(4, r.tool_version).bind_text(5, r.host).bind_int(6, r.started_unix_ns);
    run_.bind_int(7, r.mono_origin_ns).bind_text(8, r.pool_id).run();
    run_host_ = r.host;
}

void WriterStatements::operator()(const cmd::EndRun& c) {
    end_run_.bind_int(1, the_run_id).bind_text(2, to_string(c.status)).bind_int(3, c.ended_unix_ns);
    end_run_.bind_opt_int(4, c.max_density).run();
}

void WriterStatements::operator()(const cmd::AddHost& c) {
    const HostInfo& h = c.host;
    host_.bind_int(1, the_run_id).bind_text(2, h.hostname).bind_text(3, h.cpu_model);
    host_.bind_int(4, h.cpu_count).bind_int(5, h.mem_total_bytes).bind_text(6, h.os);
    host_.bind_text(7, h.kernel).bind_text(8, h.gpu).bind_text(9, h.driver);
    host_.bind_text(10, h.vulkan_device).bind_opt_int(11, opt64(h.rank)).bind_text(12, h.role);
    host_.bind_int(13, h.clock_offset_ns).bind_opt_int(14, h.clock_uncertainty_ns);
    host_.bind_text(15, h.lost ? "lost" : "ok").bind_opt_int(16, opt64(h.lost_step));
    host_.bind_opt_text(17, h.lost_detail).bind_text(18, h.agent);
    if (h.cpu_capacity) host_.bind_real(19, *h.cpu_capacity);
    else host_.bind_null(19);
    host_.bind_text(20, h.cpu_capacity_note).run();
}

void WriterStatements::operator()(const cmd::BeginStep& c) {
    const StepInfo& s = c.step;
    step_.bind_int(1, the_run_id).bind_int(2, s.idx).bind_int(3, s.repeat);
    step_.bind_int(4, s.target_sessions).bind_int(5, s.started_ns).bind_text(6, s.shortfall);
    step_.bind_opt_int(7, opt64(s.pool_hosts)).run();
}

void WriterStatements::operator()(const cmd::EndStep& c) {
    const StepEnd& s = c.result;
    end_step_.bind_int(1, the_run_id).bind_int(2, s.idx).bind_int(3, s.repeat);
    end_step_.bind_int(4, s.window_start_ns).bind_int(5, s.window_end_ns).bind_int(6, s.ended_ns);
    end_step_.bind_opt_text(7, s.verdict).bind_text(8, s.detail).run();
}

void WriterStatements::operator()(const cmd::AddSession& c) {
    const SessionInfo& s = c.session;
    session_.bind_int(1, the_run_id).bind_int(2, s.id).bind_text(3, s.profile).bind_int(4, s.pid);
    session_.bind_text(5, s.device.device_name).bind_text(6, s.device.device_type);
    session_.bind_text(7, s.device.driver_name).bind_text(8, s.device.driver_info);
    session_.bind_int(9, s.device.software ? 1 : 0).bind_int(10, s.started_ns);
    session_.bind_text(11, s.host.empty() ? run_host_ : s.host).run();
}

void WriterStatements::operator()(const cmd::SetDevice& c) {
    const SessionDevice& d = c.device;
    device_.bind_int(1, c.session_id).bind_text(2, d.device_name).bind_text(3, d.device_type);
    device_.bind_text(4, d.driver_name).bind_text(5, d.driver_info).bind_int(6, d.software ? 1 : 0).run();
}

void WriterStatements::operator()(const cmd::EndSession& c) {
    const SessionResult& s = c.result;
    end_session_.bind_int(1, s.id).bind_int(2, s.ended_ns).bind_text(3, to_string(s.reason));
    end_session_.bind_opt_int(4, s.exit_code).bind_opt_int(5, s.signal).bind_opt_int(6, s.frames_sent);
    end_session_.bind_int(7, s.frames_received).bind_int(8, s.frames_lost).bind_text(9, s.detail);
    if (s.model_open_ms)
        end_session_.bind_real(10, *s.model_open_ms);
    else
        end_session_.bind_null(10);
    end_session_.run();
}

void WriterStatements::operator()(const cmd::AddFrames& c) { add_frames({&c}); }

void WriterStatements::add_frames(const std::vector<const cmd::AddFrames*>& batch) {
    // One row per session message with its records packed (store/frame_block.h): a row per frame
    // was most of the orchestrator's writer CPU.
    for (const cmd::AddFrames* c : batch) {
        const std::span<const FrameRecord> all(c->frames);
        for (size_t from = 0; from < all.size(); from += frame_block_max_frames) {
            const auto part = all.subspan(from, std::min(frame_block_max_frames, all.size() - from));
            uint64_t seq_lo = part[0].seq, seq_hi = part[0].seq;
            int64_t t_lo = part[0].t_begin_ns, t_hi = part[0].t_begin_ns;
            for (const FrameRecord& f : part) {
                seq_lo = std::min(seq_lo, f.seq);
                seq_hi = std::max(seq_hi, f.seq);
                t_lo = std::min(t_lo, f.t_begin_ns);
                t_hi = std::max(t_hi, f.t_begin_ns);
            }
            encode_frame_block(part, packed_);
            block_.bind_int(1, c->session_id).bind_int(2, static_cast<int64_t>(seq_lo));
            block_.bind_int(3, static_cast<int64_t>(seq_hi)).bind_int(4, static_cast<int64_t>(part.size()));
            block_.bind_int(5, t_lo).bind_int(6, t_hi);
            block_.bind_blob(7, packed_.data(), packed_.size()).run();
        }
    }
}

void WriterStatements::operator()(const cmd::AddSamples& c) {
    for (const SampleRow& s : c.samples) {
        sample_.bind_int(1, s.t_ns).bind_opt_int(2, opt64(s.session_id)).bind_text(3, s.source);
        sample_.bind_text(4, s.metric).bind_real(5, s.value).bind_text(6, s.host).run();
    }
}

void WriterStatements::operator()(const cmd::AddEvent& c) {
    const EventRow& e = c.event;
    event_.bind_int(1, e.t_ns).bind_opt_int(2, opt64(e.session_id)).bind_text(3, e.kind);
    event_.bind_text(4, e.detail).bind_text(5, e.host).run();
}

void WriterStatements::operator()(const cmd::AddVerdict& c) {
    const VerdictRow& v = c.verdict;
    verdict_.bind_int(1, the_run_id).bind_int(2, v.step_idx).bind_int(3, v.repeat).bind_int(4, v.target_sessions);
    verdict_.bind_int(5, v.t0_ns).bind_int(6, v.t1_ns).bind_int(7, v.judged_ns).bind_int(8, v.pass ? 1 : 0);
    verdict_.bind_int(9, v.sessions).bind_int(10, v.failures).bind_int(11, v.frames).bind_int(12, v.dropped);
    // NaN binds as NULL (SQLite has no NaN); the reader reads NULL back as NaN.
    verdict_.bind_real(13, v.fps_median).bind_real(14, v.fps_min).bind_real(15, v.fps_max);
    verdict_.bind_real(16, v.p95_median_ms).bind_real(17, v.p95_worst_ms).bind_real(18, v.low1_worst_fps);
    verdict_.bind_real(19, v.latency_p95_worst_ms).bind_real(20, v.stutter_worst).bind_real(21, v.fairness);
    verdict_.bind_real(22, v.gpu_mem_peak_pct).bind_text(23, v.host).run();
    for (size_t k = 0; k < v.reasons.size(); ++k) {
        reason_.bind_int(1, the_run_id).bind_int(2, v.step_idx).bind_int(3, v.repeat);
        reason_.bind_int(4, static_cast<int64_t>(k)).bind_text(5, v.reasons[k]).bind_text(6, v.host).run();
    }
}

}  // namespace seatmark::store
