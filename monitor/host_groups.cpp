#include "monitor/host_groups.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "monitor/monitor_data.h"

namespace seatmark::monitor {

namespace {

std::string us(int64_t ns) {
    char b[32];
    if (std::llabs(ns) < 1'000'000) std::snprintf(b, sizeof b, "%.0f us", double(ns) / 1e3);
    else std::snprintf(b, sizeof b, "%.1f ms", double(ns) / 1e6);
    return b;
}

}  // namespace

std::string HostGroup::label() const {
    std::string t = name.empty() ? std::string("this host") : name;
    if (rank >= 0) t += "  \u00b7  rank " + std::to_string(rank);
    if (status != "ok") t += "  \u00b7  " + std::string(status == "lost" ? "LOST" : status);
    t += "  \u00b7  " + std::to_string(running) + " running";
    if (failed) t += ", " + std::to_string(failed) + " failed";
    if (rank > 0 || clock_uncertainty_ns > 0)
        t += "  \u00b7  clock " + std::string(clock_offset_ns >= 0 ? "+" : "") + us(clock_offset_ns) + " \u00b1 " + us(clock_uncertainty_ns);
    return t;
}

std::vector<HostGroup> group_by_host(const core::LiveState& s) {
    std::vector<HostGroup> out;
    for (const auto& h : s.hosts) {
        HostGroup g;
        g.name = h.name;
        g.status = h.status;
        g.rank = h.rank;
        g.clock_offset_ns = h.clock_offset_ns;
        g.clock_uncertainty_ns = h.clock_uncertainty_ns;
        out.push_back(std::move(g));
    }
    for (size_t i = 0; i < s.sessions.size(); ++i) {
        const core::LiveSession& x = s.sessions[i];
        const std::string& host = x.host.empty() ? s.host : x.host;
        HostGroup* g = nullptr;
        for (auto& c : out)
            if (c.name == host) g = &c;
        if (!g) {  // a host the list does not name (or no list: a single host)
            out.push_back({});
            g = &out.back();
            g->name = host;
        }
        g->sessions.push_back(i);
        g->running += x.state == "running" || x.state == "starting";
        g->failed += is_failure_state(x.state);
    }
    if (out.empty()) out.push_back({s.host});
    return out;
}

}  // namespace seatmark::monitor
