#include "core/preflight.h"

#include <algorithm>

namespace seatmark::core {

namespace {

std::string device_hint(const PreflightFacts& f) {
    if (f.hardware.empty()) return "`seatmark probe` lists this host's Vulkan devices";
    std::string names;
    for (const auto& n : f.hardware) names += (names.empty() ? "" : ", ") + ("'" + n + "'");
    return "hardware devices here: " + names;
}

}  // namespace

uint64_t open_files_needed(const Plan& plan) {
    // Per session: its telemetry socket, its process handle (pidfd), its /proc/PID/stat kept open
    // by the CPU sampler, and one to spare for a GPU sampler's per-process files (DRM fdinfo, or
    // the software sampler when not handed the CPU time); plus the database, the live API's
    // clients and logs.
    return 4ull * plan.max_sessions() + 128;
}

PreflightResult preflight(const Plan& plan, const PreflightFacts& f) {
    PreflightResult r;
    const std::string& src = plan.source;
    if (f.open_file_limit && open_files_needed(plan) > *f.open_file_limit)
        r.problems.push_back(src + ": a step of " + std::to_string(plan.max_sessions()) + " sessions needs about " +
                             std::to_string(open_files_needed(plan)) + " open files, and this process may open " +
                             std::to_string(*f.open_file_limit) +
                             "; raise the limit (ulimit -Hn, or LimitNOFILE= in a systemd unit) or lower [steps]");
    if (!f.renders) return r;
    if (!f.probe_note.empty()) r.notes.push_back("devices not checked before starting: " + f.probe_note);
    const std::string dev_key = plan.device.empty() ? "" : " (run.device = \"" + plan.device + "\")";
    if (!f.device) {
        if (!f.device_error.empty())
            r.problems.push_back(src + (plan.device.empty() ? ": no session could render here: "
                                                            : ": run.device = \"" + plan.device + "\": ") +
                                 f.device_error);
        return r;
    }
    const PreflightDevice& d = *f.device;
    const std::string named = "'" + d.name + "'" + (d.driver.empty() ? "" : " (" + d.driver + ")");
    if (d.software && !plan.allow_software)
        r.problems.push_back(
            src + (plan.allow_software_given ? ": run.allow_software = false"
                                             : ": [run] does not set allow_software (false unless set)") +
            ", and sessions would render on " + named + dev_key +
            ", a software renderer (frames drawn by the CPU; " + device_hint(f) +
            "). Every session would fail as a software fallback. To measure this host's CPU, set "
            "allow_software = true in [run]; to measure a GPU, name it in [run] as device = \"INDEX or part of its name\"");
    for (const auto& p : f.profiles) {
        const uint32_t side = std::max(p.width, p.height);
        if (d.max_image_dimension_2d && side > d.max_image_dimension_2d)
            r.problems.push_back(src + ": profile '" + p.name + "' renders " + std::to_string(p.width) + "x" +
                                 std::to_string(p.height) + ", and " + named + " renders images of at most " +
                                 std::to_string(d.max_image_dimension_2d) + " pixels a side (maxImageDimension2D); " +
                                 "lower [render] width/height in the profile, or run on another device");
        if (p.msaa > d.max_msaa)
            r.problems.push_back(src + ": profile '" + p.name + "' asks " + std::to_string(p.msaa) + "x MSAA, and " +
                                 named + " renders at most " + std::to_string(d.max_msaa) +
                                 "x (framebuffer colour and depth sample counts); set [render] msaa = " +
                                 std::to_string(d.max_msaa) + " in the profile (a copy of a built-in one), or run "
                                 "on another device");
    }
    return r;
}

}  // namespace seatmark::core
