#pragma once
// The monitor's .db source: a finished (or still written) run database read once
// through StoreReader, shown at any moment of the run with a time slider. The state
// at a moment is rebuilt the way the orchestrator computes it live: per-session FPS
// and p95 over the 3 s before it, the SLA from the stored plan.
#include <map>

#include "core/sla.h"
#include "store/endpoint_rows.h"
#include "store/records.h"
#include "monitor/data_source.h"

namespace seatmark::monitor {

class DbSource : public DataSource {
public:
    explicit DbSource(const std::string& path);  // throws InputError naming the file
    std::shared_ptr<const MonitorData> snapshot() override { return snap_; }
    void select_session(std::optional<uint32_t> id) override;
    bool has_time_slider() const override { return true; }
    void set_time(double t_s) override;

    double run_seconds() const { return t_end_s_; }
    core::LiveState state_at(double t_s) const;

private:
    struct Session {
        store::SessionRow row;
        std::vector<int64_t> t_ns;       // frame begin, ascending
        std::vector<float> interval_ms;  // NaN: a stretch's first frame
        std::vector<std::pair<int64_t, double>> cpu, rss, gpu_share;
        std::string gpu_share_source;
        Sla sla;
        // A session an RDP launcher carried: its logon, what reached the client, and its frames'
        // numbers and present times by begin (what core::endpoint_figures matches arrivals with).
        std::optional<store::EndpointLogonRow> logon;
        core::EndpointSeries endpoint;
        std::vector<FrameRecord> endpoint_frames;
    };
    struct Step {
        uint32_t idx = 0, sessions = 0;
        int64_t started_ns = 0;
        std::optional<int64_t> window_start_ns, window_end_ns, ended_ns;
        int verdict = -1;  // -1 not judged, 0 fail, 1 pass
        std::string detail;
        double fps_median = NAN, p95_worst_ms = NAN;
    };
    void rebuild();
    double at_or_before(const std::vector<std::pair<int64_t, double>>& v, int64_t t, int64_t max_age_ns) const;
    core::LiveEndpoint endpoint_at(const Session& s, int64_t t, bool ended) const;

    std::string path_, plan_name_, host_, status_end_;
    int64_t started_unix_ns_ = 0, origin_ns_ = 0;
    double t_end_s_ = 0, t_now_s_ = 0;
    size_t plan_steps_ = 0;
    double sla_p95_ms_ = NAN;
    std::vector<Session> sessions_;
    std::vector<Step> steps_;
    std::vector<EventLine> events_;
    std::vector<std::pair<int64_t, double>> host_cpu_, host_mem_, gpu_util_, gpu_mem_, gpu_mem_total_;
    std::string gpu_backend_ = "none";
    double host_mem_total_ = NAN;
    std::vector<store::HostRow> hosts_;  // a pool's (role rank/orchestrator); empty for one host
    std::vector<core::LiveHistoryPoint> history_;
    std::optional<uint32_t> selected_;
    std::map<uint32_t, std::shared_ptr<const FrameSeries>> series_;
    std::shared_ptr<const MonitorData> snap_;
    uint64_t version_ = 0;
};

}  // namespace seatmark::monitor
