#include "store/pool_table.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "core/pool_rules.h"
#include "core/pool_shares.h"

namespace seatmark::store {

namespace {

std::string pad(std::string s, size_t width) {
    if (s.size() < width) s.append(width - s.size(), ' ');
    return s;
}

// A host's cell in a step: its share and verdict, or why it has none.
// `share`: what the plan placed on it (core/pool_shares.h), when known; `has_data`: its own
// database was merged (a lost host's may not be).
std::string host_cell(const HostRow& h, const StepInfo& step, const std::map<int, const VerdictRow*>& own,
                      std::optional<uint32_t> share, bool has_data) {
    auto it = own.find(step.idx);
    if (!share && it != own.end()) share = static_cast<uint32_t>(std::max(0, it->second->target_sessions));
    if (core::sits_out(h.rank, step.pool_hosts, share)) return "idle";
    if (it != own.end()) {
        const VerdictRow& v = *it->second;
        std::string c = (v.pass ? "pass " : "FAIL ") + std::to_string(v.target_sessions);
        if (v.failures > 0) c += " (" + std::to_string(v.failures) + " failed)";
        return c;
    }
    if (h.lost && h.lost_step && *h.lost_step <= step.idx) return "lost";
    if (!has_data) return (share ? std::to_string(*share) + ", " : std::string()) + "no data (file not merged)";
    return "not judged";
}

std::string efficiency(const ScalingRow& s, const std::vector<ScalingRow>& rows) {
    const std::string e = "E(" + std::to_string(s.hosts) + ")";
    if (s.efficiency) {
        char b[32];
        std::snprintf(b, sizeof b, "%.3f", *s.efficiency);
        return e + " = " + b;
    }
    const auto one = std::find_if(rows.begin(), rows.end(), [](const ScalingRow& r) { return r.hosts == 1; });
    if (one == rows.end()) return e + " not known: the series has no 1-host ramp ([scaling] hosts = [1, ...])";
    return e + " not known: no step passed on 1 host";
}

}  // namespace

std::string scaling_lines(const std::vector<ScalingRow>& rows) {
    if (rows.size() < 2) return "";
    std::string out;
    for (const ScalingRow& s : rows)
        out += "  on " + std::to_string(s.hosts) + " host(s): max " + std::to_string(s.max_sessions) + " sessions, " +
               efficiency(s, rows) + (s.complete ? "" : " (a host was lost)") + "\n";
    return out;
}

std::string pool_table(const StoreReader& r) {
    const std::vector<HostRow> all = r.hosts();
    std::vector<HostRow> hosts;
    for (const HostRow& h : all)
        if (h.role != role_joined) hosts.push_back(h);
    if (hosts.size() < 2) return "";

    std::vector<StepInfo> steps;  // one per step (its first window's row)
    for (const StepRow& s : r.steps())
        if (steps.empty() || steps.back().idx != s.idx) steps.push_back(s);
    std::map<int, const VerdictRow*> pool;
    const std::vector<VerdictRow> pool_rows = r.verdicts();
    for (const VerdictRow& v : pool_rows)
        if (v.repeat == pooled_repeat) pool[v.step_idx] = &v;
    std::vector<std::vector<VerdictRow>> host_rows;
    std::vector<std::map<int, const VerdictRow*>> own(hosts.size());
    for (const HostRow& h : hosts) host_rows.push_back(r.host_verdicts(h.hostname));
    for (size_t k = 0; k < hosts.size(); ++k)
        for (const VerdictRow& v : host_rows[k])
            if (v.repeat == pooled_repeat) own[k][v.step_idx] = &v;

    // What the plan placed per step and rank, and which hosts' own files are here.
    std::vector<std::optional<int>> pool_hosts;
    for (const StepInfo& s : steps)
        if (s.idx >= 0 && s.idx < 100000) {
            pool_hosts.resize(std::max(pool_hosts.size(), size_t(s.idx) + 1));
            pool_hosts[size_t(s.idx)] = s.pool_hosts;
        }
    uint32_t ranks = 0;
    for (const HostRow& h : hosts) ranks += h.rank ? 1 : 0;
    const auto planned = core::planned_pool_steps(r.run().plan_text, "the stored plan", pool_hosts, ranks);
    std::set<std::string> with_data;
    for (const SessionRow& s : r.sessions()) with_data.insert(s.host);
    for (size_t k = 0; k < hosts.size(); ++k)
        if (!host_rows[k].empty()) with_data.insert(hosts[k].hostname);
    auto share_of = [&](const HostRow& h, int idx) -> std::optional<uint32_t> {
        if (!h.rank || idx < 0 || size_t(idx) >= planned.size() || !planned[size_t(idx)]) return std::nullopt;
        const auto& sh = planned[size_t(idx)]->shares;
        return size_t(*h.rank) < sh.size() ? std::optional<uint32_t>(sh[size_t(*h.rank)]) : std::nullopt;
    };

    std::vector<std::vector<std::string>> cells;
    cells.push_back({"step", "hosts", "sessions"});
    for (const HostRow& h : hosts) cells.back().push_back(h.hostname);
    cells.back().push_back("pool");
    for (const StepInfo& s : steps) {
        std::vector<std::string> row = {std::to_string(s.idx + 1), s.pool_hosts ? std::to_string(*s.pool_hosts) : "all",
                                        std::to_string(s.target_sessions)};
        for (size_t k = 0; k < hosts.size(); ++k)
            row.push_back(host_cell(hosts[k], s, own[k], share_of(hosts[k], s.idx), with_data.count(hosts[k].hostname) > 0));
        auto p = pool.find(s.idx);
        row.push_back(p == pool.end() ? "not judged" : p->second->pass ? "pass" : "FAIL");
        cells.push_back(std::move(row));
    }
    std::vector<size_t> width(cells.front().size(), 0);
    for (const auto& row : cells)
        for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());

    std::string out = "pool steps (each host: its sessions and verdict; idle: not in the step's pool; lost: from the "
                      "step it was lost in):\n";
    for (const auto& row : cells) {
        std::string line = " ";
        for (size_t c = 0; c < row.size(); ++c) line += " " + (c + 1 == row.size() ? row[c] : pad(row[c], width[c]));
        out += line + "\n";
    }

    // The devices each host's sessions said they rendered on.
    std::map<std::string, std::vector<std::pair<std::string, bool>>> devices;
    for (const SessionRow& s : r.sessions()) {
        auto& d = devices[s.host];
        const std::pair<std::string, bool> dev{s.device.device_name, s.device.software};
        if (!dev.first.empty() && std::find(d.begin(), d.end(), dev) == d.end()) d.push_back(dev);
    }
    out += "rendered on:";
    for (size_t k = 0; k < hosts.size(); ++k) {
        const auto& d = devices[hosts[k].hostname];
        std::string names;
        for (const auto& [name, software] : d)
            names += (names.empty() ? "" : ", ") + ("'" + name + "'") + (software ? " (software renderer)" : "");
        out += std::string(k ? ";" : "") + " " + hosts[k].hostname + " " + (names.empty() ? "no device reported" : names);
    }
    out += "\n";
    return out + scaling_lines(r.scaling());
}

}  // namespace seatmark::store
