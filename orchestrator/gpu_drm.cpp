#include "orchestrator/gpu_drm.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace seatmark::orchestrator {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> slurp(const std::string& path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::optional<double> read_number(const std::string& path) {
    auto s = slurp(path);
    if (!s) return std::nullopt;
    try {
        size_t used = 0;
        double v = std::stod(*s, &used);
        return used ? std::optional<double>(v) : std::nullopt;
    } catch (...) {
        return std::nullopt;
    }
}

class DrmSampler final : public GpuSampler {
public:
    DrmSampler(std::string proc_root, std::string sys_root, std::vector<std::pair<std::string, std::string>> devices)
        : proc_root_(std::move(proc_root)), sys_root_(std::move(sys_root)), devices_(std::move(devices)) {}

    std::string_view source() const override { return "drm"; }

    GpuSnapshot sample(int64_t t_ns, const std::vector<GpuClient>& clients) override {
        GpuSnapshot snap;
        snap.t_ns = t_ns;
        snap.source = "drm";
        std::vector<DrmReading> readings;
        for (const auto& c : clients) readings.push_back(read_drm_fds(c.pid, proc_root_));
        auto usage = tracker_.update(readings, t_ns);
        for (const auto& c : clients) {
            auto u = usage.find(c.pid);
            if (u == usage.end() || u->second.clients == 0) continue;  // no DRM client: not on a DRM GPU
            GpuProcessSample p;
            p.session_id = c.session_id;
            p.pid = c.pid;
            p.source = "drm";
            p.share_pct = u->second.busy_pct;
            p.mem_bytes = double(u->second.memory_bytes);
            snap.processes.push_back(p);
        }
        uint32_t index = 0;
        for (const auto& [pdev, driver] : devices_) {
            GpuDeviceSample d;
            d.index = index++;
            d.name = driver + " " + pdev;
            if (driver == "amdgpu" && !pdev.empty()) {
                std::string dir = sys_root_ + "/bus/pci/devices/" + pdev + "/";
                if (auto v = read_number(dir + "gpu_busy_percent"); v && *v >= 0 && *v <= 100) d.util_pct = v;
                auto used = read_number(dir + "mem_info_vram_used"), total = read_number(dir + "mem_info_vram_total");
                if (used && total && *total > 0) d.mem_used_bytes = used, d.mem_total_bytes = total;
            }
            if (d.util_pct || d.mem_total_bytes) snap.devices.push_back(d);
        }
        return snap;
    }

private:
    std::string proc_root_, sys_root_;
    std::vector<std::pair<std::string, std::string>> devices_;  // (pdev, driver)
    DrmUsageTracker tracker_;
};

}  // namespace

DrmReading read_drm_fds(pid_t pid, const std::string& proc_root) {
    DrmReading r;
    r.pid = pid;
    const std::string base = proc_root + "/" + std::to_string(pid);
    std::error_code ec;
    for (fs::directory_iterator it(base + "/fdinfo", ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        int fd = 0;
        try {
            fd = std::stoi(name);
        } catch (...) {
            continue;
        }
        std::error_code lec;
        auto target = fs::read_symlink(base + "/fd/" + name, lec);
        if (lec || target.string().rfind("/dev/dri/", 0) != 0) continue;  // not a DRM device
        auto text = slurp(it->path().string());
        if (!text) continue;  // closed meanwhile
        if (auto info = parse_drm_fdinfo(*text)) r.fds.push_back({fd, std::move(*info)});
    }
    std::sort(r.fds.begin(), r.fds.end(), [](const DrmFd& a, const DrmFd& b) { return a.fd < b.fd; });
    return r;
}

std::unique_ptr<GpuSampler> make_drm_sampler(const std::string& proc_root, const std::string& sys_root,
                                             std::vector<std::pair<std::string, std::string>> pdev_driver) {
    return std::make_unique<DrmSampler>(proc_root, sys_root, std::move(pdev_driver));
}

DrmOpen open_drm(const GpuOptions& opts) {
    DrmOpen out;
    out.status.name = "drm";
    std::error_code ec;
    if (!fs::is_directory(opts.dev_dri, ec)) {
        out.status.detail = "no DRM devices: " + opts.dev_dri + " does not exist";
        return out;
    }
    std::vector<std::string> render, card;
    for (fs::directory_iterator it(opts.dev_dri, ec), end; !ec && it != end; it.increment(ec)) {
        std::string n = it->path().filename().string();
        if (n.rfind("renderD", 0) == 0) render.push_back(it->path().string());
        if (n.rfind("card", 0) == 0) card.push_back(it->path().string());
    }
    auto& nodes = render.empty() ? card : render;
    std::sort(nodes.begin(), nodes.end());
    if (nodes.empty()) {
        out.status.detail = "no DRM devices: no render or card node in " + opts.dev_dri;
        return out;
    }
    std::vector<std::pair<std::string, std::string>> devices;  // (pdev, driver)
    std::vector<std::string> denied, silent;
    for (const auto& node : nodes) {
        // Open the node once, read what the driver prints for this very fd, close it.
        int fd = open(node.c_str(), O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            denied.push_back(node + ": " + std::strerror(errno));
            continue;
        }
        auto text = slurp("/proc/self/fdinfo/" + std::to_string(fd));
        close(fd);
        auto info = text ? parse_drm_fdinfo(*text) : std::nullopt;
        if (!info) {
            silent.push_back(fs::path(node).filename().string());
            continue;
        }
        if (std::find(devices.begin(), devices.end(), std::make_pair(info->pdev, info->driver)) != devices.end())
            continue;
        devices.emplace_back(info->pdev, info->driver);
        out.status.devices.push_back(info->driver + (info->pdev.empty() ? "" : " " + info->pdev) + " (" +
                                     fs::path(node).filename().string() + ")" +
                                     (info->client_id ? "" : ", no drm-client-id"));
    }
    if (!devices.empty()) {
        out.status.available = true;
        out.status.detail = "DRM fdinfo usage stats from " + std::to_string(devices.size()) +
                            " device(s); per-session share = busiest engine's busy time";
        out.sampler = make_drm_sampler(opts.proc_root, opts.sys_root, std::move(devices));
        return out;
    }
    auto join = [](const std::vector<std::string>& v) {
        std::string s;
        for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
        return s;
    };
    if (silent.empty())
        out.status.detail = "no permission: cannot open " + join(denied);
    else
        out.status.detail = "no fdinfo keys found for any DRM client: " + join(silent) +
                            " print no drm-* keys (driver without usage stats, or a kernel before 5.19)" +
                            (denied.empty() ? "" : "; cannot open " + join(denied));
    return out;
}

}  // namespace seatmark::orchestrator
