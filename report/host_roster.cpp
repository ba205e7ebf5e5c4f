// The hosts of a joined run and whose samples stand for each (report/host_roster.h).
#include "report/host_roster.h"

#include <algorithm>
#include <map>
#include <set>

#include "report/format.h"

namespace seatmark::report {

namespace {

// The name samples and sessions give a host: "" for the file writer's own (the controller).
std::string key_of(const store::HostRow& h) { return h.role == store::role_joined ? h.hostname : std::string(); }

// Why a joined host has no figures from some time on, with that time: "no agent on desk-b since
// 2.1 s into the run" (its first session's activation recorded that), and how the
// agent it had ended.
std::string no_agent(const RunAnalysis& a, const store::HostRow& h, const std::vector<store::EventRow>& events) {
    std::optional<int64_t> since;  // the first "unavailable" after its agent's last joining
    for (const auto& e : events) {
        if (e.host != h.hostname) continue;
        if (e.kind == "host-figures") since.reset();
        if (e.kind == "host-figures-unavailable" && !since) since = e.t_ns;
    }
    std::string t = "no agent on " + h.hostname + " since ";
    t += since ? num(std::max(0.0, a.seconds(*since)), 1) + " s into the run" : std::string("the run began");
    const std::string left = "none: agent disconnected";
    if (h.agent.rfind(left, 0) == 0) t += " (its agent disconnected" + h.agent.substr(left.size()) + ")";
    return t;
}

}  // namespace

bool joined_run(const std::vector<store::HostRow>& hosts) {
    return std::any_of(hosts.begin(), hosts.end(), [](const store::HostRow& h) { return h.role == store::role_joined; });
}

void keep_session_hosts_only(SampleSet& samples, const std::vector<store::SessionRow>& sessions) {
    std::set<std::string> ran;
    for (const auto& s : sessions) ran.insert(s.host);
    for (auto& [metric, hosts] : samples.by_host) {
        const MetricSeries* only = nullptr;
        size_t n = 0;
        for (const auto& [host, series] : hosts)
            if (!series.points.empty() && ran.count(host)) only = &series, ++n;
        // One host ran every session and sampled itself: its series is the run's. Otherwise none:
        // the controller (no sessions) or one joined host never stands for another.
        auto& by_session = samples.metrics[metric];
        if (n == 1 && ran.size() == 1) by_session[host_wide] = *only;
        else by_session.erase(host_wide);
    }
}

const store::HostRow* measured_host(const RunAnalysis& a) {
    if (a.hosts.empty()) return nullptr;
    if (!joined_run(a.hosts)) return &a.hosts.front();
    std::set<std::string> ran;
    for (const auto& s : a.sessions) ran.insert(s.host);
    if (ran.size() != 1) return nullptr;
    for (const auto& h : a.hosts)
        if (key_of(h) == *ran.begin()) return &h;
    return nullptr;
}

void build_host_roster(RunAnalysis& a, const SampleSet& samples, const std::vector<store::EventRow>& events) {
    if (!joined_run(a.hosts)) return;
    std::map<std::string, uint32_t> ran;
    std::map<int, std::string> host_of;
    for (const auto& s : a.sessions) ++ran[s.host], host_of[s.id] = s.host;
    const std::vector<std::string> sampled = samples.hosts();
    std::map<std::string, std::string> why_none;  // joined host -> "not judged: ..."
    for (const auto& h : a.hosts) {
        HostPart p;
        const std::string key = key_of(h);
        p.host = h.role == store::role_joined ? h.hostname : a.run.host;
        p.role = h.role;
        p.agent = h.agent;
        p.sessions = ran[key];
        p.sampled = std::find(sampled.begin(), sampled.end(), key) != sampled.end();
        if (h.role == store::role_rank) continue;  // a pool's rank: not a joined run's host
        if (h.role != store::role_joined) {
            p.figures = p.sessions ? "its own samples"
                                   : "the controller: ran no sessions; its own samples stand for no joined host";
        } else if (h.agent == "agent" && p.sampled) {
            p.figures = "its agent's samples";
        } else {
            why_none[key] = "not judged: " + no_agent(a, h, events);
            p.figures = (p.sampled ? "its agent's samples until it left; " : "") + why_none[key];
        }
        a.roster.push_back(std::move(p));
    }
    std::stable_partition(a.roster.begin(), a.roster.end(), [](const HostPart& p) { return p.role != store::role_joined; });

    // Its sessions' one host had no agent: attribution says so where it lacked that host's samples
    // (the controller's no longer stand in for them).
    const store::HostRow* measured = measured_host(a);
    if (measured && why_none.count(key_of(*measured)))
        for (auto& s : a.steps)
            for (auto& n : s.attribution.not_judged)
                if (n.why.starts_with("no ") && n.why.ends_with(" samples")) n.why = why_none[key_of(*measured)].substr(12);

    // Each step's table: the hosts its sessions ran on, each with its own figures or why none.
    for (auto& s : a.steps) {
        if (s.windows.empty()) continue;
        std::map<std::string, uint32_t> here;
        for (const auto& f : s.verdict.sessions)
            if (auto it = host_of.find(int(f.id)); it != host_of.end()) ++here[it->second];
        s.host_use.clear();
        for (const auto& [host, n] : here) {
            HostUse u;
            u.host = host;
            u.sessions = n;
            const WindowSum c = window_sum(samples.get_host("host_cpu_pct", host), s.measure_start_ns, s.measure_end_ns);
            if (c.n) u.cpu_mean_pct = c.sum / c.n, u.cpu_max_pct = c.max;
            const MetricSeries* g = samples.get_host("gpu_util_pct", host);
            if (const WindowSum w = window_sum(g, s.measure_start_ns, s.measure_end_ns); w.n)
                u.gpu_util_mean_pct = w.sum / w.n, u.gpu_source = g->source;
            u.mem_used_max_bytes = window_sum(samples.get_host("host_mem_used_bytes", host), s.measure_start_ns, s.measure_end_ns).max;
            if (!c.n && u.mem_used_max_bytes < 0)
                u.note = why_none.count(host) ? why_none[host] : "not judged: no samples of " + a.host_label(host) + " in the step's windows";
            s.host_use.push_back(std::move(u));
        }
    }
}

}  // namespace seatmark::report
