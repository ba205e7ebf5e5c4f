// The busy share between two CPU readings: the same arithmetic on Linux's /proc/stat jiffies
// (host_proc_posix.cpp) and Windows' per-processor times (host_proc_windows.cpp); and the one rule
// for the CPU capacity a run really has, from what each platform reads.
#include <algorithm>
#include <cstdio>

#include "orchestrator/host_proc.h"

namespace seatmark::orchestrator {

std::vector<double> cpu_percent(const CpuTimes& a, const CpuTimes& b) {
    std::vector<double> out;
    for (size_t i = 0; i < a.total.size() && i < b.total.size(); ++i) {
        double dt = double(b.total[i] - a.total[i]);
        out.push_back(dt > 0 ? 100.0 * double(b.busy[i] - a.busy[i]) / dt : 0.0);
    }
    return out;
}

double allowed_cpu_percent(const CpuTimes& a, const CpuTimes& b, const std::vector<int>& allowed) {
    if (allowed.empty()) {
        auto all = cpu_percent(a, b);
        return all.empty() ? 0.0 : all[0];
    }
    uint64_t busy = 0, total = 0;
    for (int c : allowed) {
        const size_t i = static_cast<size_t>(c) + 1;
        if (c < 0 || i >= a.total.size() || i >= b.total.size()) continue;
        busy += b.busy[i] - a.busy[i];
        total += b.total[i] - a.total[i];
    }
    return total > 0 ? 100.0 * double(busy) / double(total) : 0.0;
}

namespace {

// "0", "0-3", "0,2,5-7": the kernel's own list format (cpuset.cpus).
std::string cpu_list(const std::vector<int>& cpus) {
    std::string out;
    for (size_t i = 0; i < cpus.size();) {
        size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
        if (!out.empty()) out += ",";
        out += std::to_string(cpus[i]);
        if (j > i) out += "-" + std::to_string(cpus[j]);
        i = j + 1;
    }
    return out;
}

std::string cpus_text(double n) {
    char b[32];
    std::snprintf(b, sizeof b, n == double(int64_t(n)) ? "%.0f CPU%s" : "%.2f CPU%s", n, n == 1 ? "" : "s");
    return b;
}

}  // namespace

CpuCapacity cpu_capacity_from(uint32_t online, std::vector<int> allowed, double quota_cpus) {
    CpuCapacity c;
    c.online = online;
    std::sort(allowed.begin(), allowed.end());
    allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
    c.allowed = std::move(allowed);
    c.quota_cpus = quota_cpus > 0 ? quota_cpus : 0;
    c.cpus = online;
    if (!c.allowed.empty()) c.cpus = std::min(c.cpus, double(c.allowed.size()));
    if (c.quota_cpus > 0) c.cpus = std::min(c.cpus, c.quota_cpus);
    if (!c.limited()) return c;
    std::string why;
    if (!c.allowed.empty() && c.allowed.size() < online)
        why = "cpuset " + cpu_list(c.allowed) + " of " + std::to_string(online) + " online";
    if (c.quota_cpus > 0 && c.quota_cpus < double(online)) {
        char b[64];
        std::snprintf(b, sizeof b, "CFS quota %.2f CPUs", c.quota_cpus);
        why += (why.empty() ? "" : ", ") + std::string(b);
        if (c.allowed.empty() || c.allowed.size() >= online) why += " of " + std::to_string(online) + " online";
    }
    c.note = cpus_text(c.cpus) + ": " + why;
    return c;
}

}  // namespace seatmark::orchestrator
