#include "orchestrator/gpu_drm_fdinfo.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace seatmark::orchestrator {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::optional<uint64_t> parse_uint(std::string_view s) {
    uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end == s.data()) return std::nullopt;
    return v;
}

// "<uint>" or "<uint> ns" (the engine time unit)
std::optional<uint64_t> parse_ns(std::string_view s) {
    size_t sp = s.find_first_of(" \t");
    if (sp != std::string_view::npos && trim(s.substr(sp)) != "ns") return std::nullopt;
    return parse_uint(trim(s.substr(0, sp)));
}

}  // namespace

std::optional<uint64_t> parse_drm_size(std::string_view value) {
    value = trim(value);
    size_t sp = value.find_first_of(" \t");
    auto n = parse_uint(value.substr(0, sp));
    if (!n) return std::nullopt;
    std::string_view unit = sp == std::string_view::npos ? std::string_view() : trim(value.substr(sp));
    if (unit.empty() || unit == "B") return *n;
    if (unit == "KiB") return *n << 10;
    if (unit == "MiB") return *n << 20;
    if (unit == "GiB") return *n << 30;
    return std::nullopt;
}

uint64_t DrmFdinfo::memory_bytes() const {
    uint64_t sum = 0;
    for (const auto& [region, bytes] : resident_bytes)
        if (region != "cpu") sum += bytes;
    return sum;
}

std::optional<DrmFdinfo> parse_drm_fdinfo(std::string_view text) {
    DrmFdinfo d;
    bool driver = false;
    std::map<std::string, uint64_t> legacy_memory;  // drm-memory-*: used when no drm-resident-* is printed
    while (!text.empty()) {
        size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        std::string_view key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
        if (!starts_with(key, "drm-")) continue;
        key.remove_prefix(4);
        if (key == "driver") {
            d.driver = std::string(value);
            driver = !value.empty();
        } else if (key == "pdev") {
            d.pdev = std::string(value);
        } else if (key == "client-id") {
            d.client_id = parse_uint(value);
        } else if (starts_with(key, "engine-capacity-")) {
            if (auto n = parse_uint(value); n && *n > 0)
                d.engines[std::string(key.substr(16))].capacity = static_cast<uint32_t>(*n);
        } else if (starts_with(key, "engine-")) {
            if (auto ns = parse_ns(value)) d.engines[std::string(key.substr(7))].busy = *ns;
        } else if (starts_with(key, "total-cycles-")) {
            if (auto n = parse_uint(value)) {
                auto& e = d.engines[std::string(key.substr(13))];
                e.total_cycles = *n;
                e.cycles = true;
            }
        } else if (starts_with(key, "cycles-")) {
            if (auto n = parse_uint(value)) {
                auto& e = d.engines[std::string(key.substr(7))];
                e.busy = *n;
                e.cycles = true;
            }
        } else if (starts_with(key, "resident-")) {
            if (auto b = parse_drm_size(value)) d.resident_bytes[std::string(key.substr(9))] = *b;
        } else if (starts_with(key, "memory-")) {
            if (auto b = parse_drm_size(value)) legacy_memory[std::string(key.substr(7))] = *b;
        } else if (starts_with(key, "total-")) {
            if (auto b = parse_drm_size(value)) d.total_bytes[std::string(key.substr(6))] = *b;
        }
    }
    if (!driver) return std::nullopt;
    if (d.resident_bytes.empty()) d.resident_bytes = std::move(legacy_memory);
    return d;
}

std::map<pid_t, DrmProcessUsage> DrmUsageTracker::update(const std::vector<DrmReading>& readings, int64_t t_ns) {
    std::map<pid_t, DrmProcessUsage> out;
    std::map<std::string, Prev> next;
    for (const auto& r : readings) {
        DrmProcessUsage& u = out[r.pid];
        // Per engine: the sum over this process's clients of busy fractions (0..capacity).
        std::map<std::string, std::pair<double, uint32_t>> busy;  // engine -> (fraction sum, capacity)
        bool any_delta = false;
        for (const auto& fd : r.fds) {
            const DrmFdinfo& c = fd.info;
            std::string key = c.client_id ? c.pdev + "#" + std::to_string(*c.client_id)
                                          : "pid" + std::to_string(r.pid) + "/fd" + std::to_string(fd.fd);
            if (next.count(key)) continue;  // the same client through another fd or process
            if (u.driver.empty()) u.driver = c.driver, u.pdev = c.pdev;
            ++u.clients;
            u.memory_bytes += c.memory_bytes();
            Prev cur;
            cur.t_ns = t_ns;
            cur.engines = c.engines;
            auto p = prev_.find(key);
            for (auto& [name, e] : cur.engines) {
                auto& slot = busy[name];
                slot.second = std::max(slot.second, e.capacity);
                if (p == prev_.end()) continue;
                auto pe = p->second.engines.find(name);
                // An engine first printed now (amdgpu prints only engines a client used) was at 0 ns
                // before; a cycle counter has no baseline to compare with.
                if (pe == p->second.engines.end() && e.cycles) continue;
                DrmEngineCounter before = pe == p->second.engines.end() ? DrmEngineCounter{} : pe->second;
                // A counter that went backwards stays at the larger value until it catches up.
                if (e.busy < before.busy) e.busy = before.busy;
                if (e.total_cycles < before.total_cycles) e.total_cycles = before.total_cycles;
                double frac = 0;
                if (e.cycles) {
                    uint64_t dt = e.total_cycles - before.total_cycles;
                    if (dt == 0) continue;
                    frac = double(e.busy - before.busy) / double(dt);
                } else {
                    int64_t dt = t_ns - p->second.t_ns;
                    if (dt <= 0) continue;
                    frac = double(e.busy - before.busy) / double(dt);
                }
                slot.first += frac;
                any_delta = true;
            }
            // An engine the driver stopped printing (amdgpu prints only used ones) keeps its count.
            if (p != prev_.end())
                for (const auto& [name, e] : p->second.engines) cur.engines.try_emplace(name, e);
            next[key] = std::move(cur);
        }
        if (!any_delta) continue;
        double best = 0;
        for (const auto& [name, b] : busy) {
            double pct = std::clamp(100.0 * b.first / double(std::max<uint32_t>(b.second, 1)), 0.0, 100.0);
            u.engine_busy_pct[name] = pct;
            best = std::max(best, pct);
        }
        u.busy_pct = best;
    }
    prev_ = std::move(next);
    return out;
}

}  // namespace seatmark::orchestrator
