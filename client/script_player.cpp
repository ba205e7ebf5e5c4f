#include "client/script_player.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/clock.h"
#include "workloads/script.h"

namespace seatmark::client {

using workloads::SegmentKind;

namespace {

constexpr int64_t wait_step_ns = 20'000'000;  // how often waits poll the window, the stop flag and heartbeats
constexpr int64_t max_lag_periods = 4;        // how far behind its timetable a frame cap catches up

// Seconds from t0 on the steady clock, saturating (a duration of 2500000 h is 9e18 ns).
int64_t at(int64_t t0, double s) {
    const double ns = double(t0) + s * 1e9;
    constexpr double cap = double(std::numeric_limits<int64_t>::max() / 2);
    return ns >= cap ? int64_t(cap) : int64_t(ns);
}

class Player {
public:
    Player(const workloads::Profile& p, Interaction& ui, FrameSink& sink, FrameLog& log, const PlayOptions& o)
        : prof_(p), ui_(ui), sink_(sink), log_(log), o_(o) {
        // At most 1e18 ns (31 years): the profile and --synthetic-fps bound the cap (min_rate_hz);
        // this only keeps the arithmetic below from overflowing for any caller.
        period_ns_ = o.cap_hz > 0 ? int64_t(std::llround(std::min(1e9 / o.cap_hz, 1e18))) : 0;
        input_period_ns_ = p.script.input_rate_hz > 0 ? int64_t(1e9 / p.script.input_rate_hz) : 0;
    }

    PlayResult run() {
        t0_ = now_ns();
        end_ns_ = at(t0_, o_.duration_s);
        workloads::TimelineCursor cursor(prof_.script, o_.duration_s, prof_.scene.seed);
        for (workloads::ScheduledSegment s; !over_ && cursor.next(s);) play(s);
        end_stretch();
        res_.wall_s = double(now_ns() - t0_) * 1e-9;
        res_.active_s = double(active_ns_) * 1e-9;
        return res_;
    }

private:
    bool should_stop() {
        if (o_.stop && o_.stop()) res_.stopped = over_ = true;
        if (sink_.closed()) res_.closed = over_ = true;
        return over_;
    }
    void tick() {
        if (o_.tick) o_.tick();
    }
    // Waits until t in short steps; false when the session is to end instead.
    bool wait_until(int64_t t) {
        for (;;) {
            if (should_stop()) return false;
            int64_t now = now_ns();
            if (now >= t) return true;
            sleep_until_ns(std::min(t, now + wait_step_ns));
            sink_.poll();
            tick();
        }
    }
    // The active stretch ends (think pause or session end): its last frames finish
    // before its time is counted, so a slow frame's time is not left out of the FPS.
    void end_stretch() {
        if (stretch_start_ns_ < 0) return;
        sink_.drain();
        active_ns_ += now_ns() - stretch_start_ns_;
        stretch_start_ns_ = -1;
    }

    // Waits for the cap's deadline and a free target; false when no frame may begin:
    // a stop, or the session's end, which a frame must not begin so late that it
    // would finish more than one frame after (with depth() frames in flight, the one
    // begun now finishes about (depth - 1) frame times after the ones ahead of it).
    bool ready() {
        // Never past the session's end: a cap's next deadline may lie beyond it.
        if (period_ns_ > 0 && prev_begin_ >= 0 && !wait_until(std::min(deadline_, end_ns_))) return false;
        sink_.wait_ready();
        if (should_stop()) return false;
        const int64_t ahead = int64_t(sink_.depth() - 1) * last_frame_ns_;
        if (now_ns() + ahead >= end_ns_) {
            over_ = true;
            return false;
        }
        return true;
    }

    void begin_frame(InputClock& input, uint16_t extra_flags) {
        FrameRecord r;
        r.t_begin_ns = now_ns();
        const int64_t input_ns = input.take(r.t_begin_ns);
        r.flags = extra_flags;
        if (input_ns >= 0) r.flags |= frame_flag_input;
        if (prev_begin_ >= 0) {
            r.begin_interval_ns = r.t_begin_ns - prev_begin_;
            last_frame_ns_ = r.begin_interval_ns;
        } else {
            r.flags |= frame_flag_stretch_start;
        }
        r.stretch = stretch_;
        r.mode = static_cast<uint16_t>(ui_.mode());
        if (period_ns_ > 0) {
            // The cap's timetable: one deadline every period from the stretch's first frame, so
            // sleep overshoot never accumulates. A frame up to max_lag_periods late is caught up
            // (a scheduling hiccup does not cost frames); a longer stall restarts the timetable
            // rather than bursting to make up for it.
            deadline_ = prev_begin_ >= 0 ? deadline_ + period_ns_ : r.t_begin_ns + period_ns_;
            if (deadline_ + max_lag_periods * period_ns_ <= r.t_begin_ns) deadline_ = r.t_begin_ns + period_ns_;
        }
        const uint64_t seq = log_.begin(r, input_ns);
        const Submitted s = sink_.submit(ui_.params(o_.aspect), seq);
        log_.set_cpu(seq, s.submitted_ns - r.t_begin_ns);  // begin -> submit returned, with or without a window
        if (sink_.presents()) log_.set_present(seq, s.presented_ns >= 0 ? s.presented_ns : s.submitted_ns);
        prev_begin_ = r.t_begin_ns;
        tick();
    }

    void play(const workloads::ScheduledSegment& sched) {
        const auto& seg = prof_.script.segments[sched.segment];
        const int64_t start = at(t0_, sched.start_s), end = at(t0_, sched.end_s);
        if (seg.kind == SegmentKind::think) {
            // Render on demand: nothing is drawn while the user thinks, and the next
            // frame starts a new stretch (no interval spans the pause).
            end_stretch();
            if (!wait_until(end)) return;
            ++stretch_;
            prev_begin_ = -1;
            return;
        }
        if (!wait_until(start)) return;
        if (stretch_start_ns_ < 0) stretch_start_ns_ = now_ns();
        const bool instant = workloads::is_instant(seg.kind);
        InputClock input{start, instant ? start + 1 : end, 0, start};
        if (instant) {
            const bool switched = ui_.apply_instant(seg);
            if (ready()) begin_frame(input, switched ? frame_flag_mode_switch : 0);
            return;
        }
        input.period_ns = input_period_ns_;
        ui_.begin_segment(seg, sched.iteration);
        for (bool first = true; ready(); first = false) {
            const int64_t now = now_ns();
            if (now >= end) break;
            ui_.at(double(now - start) * 1e-9);
            begin_frame(input, first && seg.kind == SegmentKind::section_sweep ? frame_flag_mode_switch : 0);
            sink_.poll();
        }
        ui_.end_segment(sched.end_s - sched.start_s);
    }

    const workloads::Profile& prof_;
    Interaction& ui_;
    FrameSink& sink_;
    FrameLog& log_;
    const PlayOptions& o_;
    PlayResult res_;
    int64_t period_ns_ = 0, input_period_ns_ = 0;
    int64_t t0_ = 0, end_ns_ = 0;
    int64_t prev_begin_ = -1;       // previous frame's begin in this stretch
    int64_t deadline_ = 0;          // the cap's next begin
    int64_t last_frame_ns_ = 0;     // the latest begin-to-begin interval: what one frame takes now
    int64_t stretch_start_ns_ = -1; // when the current active stretch's first segment began
    int64_t active_ns_ = 0;
    uint32_t stretch_ = 0;
    bool over_ = false;
};

}  // namespace

PlayResult play_script(const workloads::Profile& profile, Interaction& ui, FrameSink& sink, FrameLog& log,
                       const PlayOptions& opts) {
    sink.on_done([&log](const FrameDone& d) { log.complete(d); });
    PlayResult r = Player(profile, ui, sink, log, opts).run();
    sink.on_done({});
    return r;
}

}  // namespace seatmark::client
