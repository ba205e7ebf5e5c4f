#include "core/attribution.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace seatmark::core {

namespace {

std::string pct(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f %%", v);
    return b;
}

std::string ms(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f ms", v);
    return b;
}

double clamp_pct(double v) { return std::clamp(v, 0.0, 100.0); }

// The article a resource's name takes in a sentence ("the GPU 3D engine", "host CPU").
std::string with_article(const std::string& name) {
    return name.starts_with("host") || name.starts_with("CPU") ? name : "the " + name;
}

void frame_split(const StepResources& r, Attribution& a) {
    if (!r.cpu_ms || !r.interval_ms || *r.interval_ms <= 0) {
        a.frames_text = "frame-time split not judged: no frame intervals";
        return;
    }
    const double iv = *r.interval_ms, cpu = *r.cpu_ms;
    const std::string gpu_word = r.software_renderer ? "render time (CPU, software renderer)" : "GPU time";
    if (!r.gpu_ms) {
        a.frames_text = "frame-time split not judged: no GPU timestamps (CPU time " + ms(cpu) + " of a " + ms(iv) +
                        " interval)";
        return;
    }
    const double gpu = *r.gpu_ms;
    const double wait = std::max(0.0, iv - cpu - gpu);
    std::string figures = gpu_word + " " + ms(gpu) + ", CPU time " + ms(cpu) + ", waiting " + ms(wait) + " of a " +
                          ms(iv) + " interval";
    if (std::max(cpu, gpu) < frame_bound_share * iv) {
        a.frames = FrameBound::waiting;
        a.frames_text = std::string(r.software_renderer ? "frames mostly waited (frame cap, or a queue for a CPU): "
                                                        : "frames mostly waited (frame cap, or a queue for a shared device): ") +
                        figures;
    } else if (gpu >= cpu) {
        // On a software renderer "GPU time" is the CPU rasterising: the frames are CPU-bound either way.
        a.frames = r.software_renderer ? FrameBound::cpu : FrameBound::gpu;
        a.frames_text = std::string(r.software_renderer ? "CPU-bound (the CPU renders)" : "GPU-bound") + ": " + figures;
    } else {
        a.frames = FrameBound::cpu;
        a.frames_text = "CPU-bound: " + figures;
    }
}

}  // namespace

const char* to_string(FrameBound b) {
    switch (b) {
        case FrameBound::cpu: return "CPU-bound";
        case FrameBound::gpu: return "GPU-bound";
        case FrameBound::waiting: return "waiting";
        case FrameBound::unknown: break;
    }
    return "not judged";
}

Attribution attribute(const StepResources& r) {
    Attribution a;
    a.sessions = r.sessions;
    auto add = [&](const char* name, const std::optional<double>& v, const std::string& figure, const std::string& source,
                   const std::string& why_missing) {
        if (v && std::isfinite(*v)) a.resources.push_back({name, clamp_pct(*v), figure, source});
        else a.not_judged.push_back({name, why_missing});
    };

    // GPU: not judged on a software renderer, where the CPU draws the frames.
    const char* gpu_names[] = {"GPU 3D engine", "GPU memory", "GPU memory bandwidth", "video encoder", "video decoder"};
    const std::optional<double>* gpu_values[] = {&r.gpu_engine_pct, &r.gpu_mem_pct, &r.gpu_mem_bw_pct, &r.enc_pct, &r.dec_pct};
    const char* gpu_what[] = {"busy", "in use", "busy", "busy", "busy"};
    for (size_t i = 0; i < 5; ++i) {
        if (r.software_renderer) {
            a.not_judged.push_back({gpu_names[i], "software renderer: there is no GPU; the CPU draws the frames"});
            continue;
        }
        const auto& v = *gpu_values[i];
        std::string why = r.gpu_source.empty() ? "no GPU telemetry on this host (no NVML or DRM sampler)"
                                               : "the " + r.gpu_source + " sampler gave no such figure";
        add(gpu_names[i], v, v ? pct(*v) + " " + gpu_what[i] : "", r.gpu_source, why);
    }

    // Under a cpuset or quota the figures say which capacity they are a share of ("1 CPU (cpuset 0
    // of 2 online)"), so a reader never takes them for the whole machine's.
    const double cpus = usable_cpus(r);
    const bool capped = cpus > 0 && cpus < double(r.cpu_count) && !r.cpu_capacity_note.empty();
    std::string of;
    if (capped) {
        const size_t colon = r.cpu_capacity_note.find(": ");
        of = colon == std::string::npos ? r.cpu_capacity_note
                                         : r.cpu_capacity_note.substr(0, colon) + " (" + r.cpu_capacity_note.substr(colon + 2) + ")";
    }
    add("host CPU", r.host_cpu_pct, r.host_cpu_pct ? pct(*r.host_cpu_pct) + " busy" + (capped ? " of " + of : "") : "", "proc",
        "no host CPU samples");
    if (r.run_queue && cpus > 0) {
        char b[96];
        std::snprintf(b, sizeof b, "%.1f runnable on %g CPU%s", *r.run_queue, cpus, cpus == 1 ? "" : "s");
        add("CPU run queue", 100.0 * *r.run_queue / cpus, b, "proc", "");
    } else {
        a.not_judged.push_back({"CPU run queue", r.run_queue ? "the host's CPU count is unknown" : "no run-queue samples"});
    }
    add("host memory", r.host_mem_pct, r.host_mem_pct ? pct(*r.host_mem_pct) + " in use" : "", "proc",
        "no host memory samples");

    std::stable_sort(a.resources.begin(), a.resources.end(),
                     [](const ResourceUse& x, const ResourceUse& y) { return x.busy_pct > y.busy_pct; });
    if (!a.resources.empty()) {
        a.binding = 0;
        if (r.software_renderer) {
            // The CPU draws the frames: it binds, by rule, as the busier of its two figures.
            for (size_t i = 0; i < a.resources.size(); ++i)
                if (a.resources[i].name == "host CPU" || a.resources[i].name == "CPU run queue") {
                    a.binding = i;
                    break;
                }
            if (a.resources[*a.binding].name != "host CPU" && a.resources[*a.binding].name != "CPU run queue")
                a.binding.reset();  // no CPU figure at all
        }
    }

    if (r.busiest_core_pct) {
        char b[128];
        std::snprintf(b, sizeof b, "busiest core %d: %.0f %% busy", r.busiest_core, *r.busiest_core_pct);
        a.context.push_back(b);
    }
    if (r.session_cpu_mean_pct) {
        char b[192];
        std::snprintf(b, sizeof b, "per-session CPU %.0f %% of one core (busiest session %.0f %%)", *r.session_cpu_mean_pct,
                      r.session_cpu_max_pct.value_or(*r.session_cpu_mean_pct));
        std::string t = b;
        if (cpus > 0 && *r.session_cpu_mean_pct > 0) {
            const double room = cpus * 100.0 / *r.session_cpu_mean_pct;
            std::snprintf(b, sizeof b, ": the CPU has room for about %.0f such sessions", room);
            t += b;
            if (capped) t += " on its " + of;
            // The estimate beside a step that failed with fewer sessions must say what it implies
            // (issue 29: "room for about 5" next to a measured max density of 0).
            if (std::floor(room) > double(r.sessions)) {
                std::snprintf(b, sizeof b,
                              ", more than the %u that ran in this step: the sessions' own CPU time was not "
                              "the limit here",
                              r.sessions);
                t += b;
            }
        }
        a.context.push_back(t);
    } else {
        a.context.push_back("per-session CPU not judged: no process samples");
    }
    frame_split(r, a);

    // Headline: the binding resource, then the next two figures for scale.
    std::string h = "at " + std::to_string(r.sessions) + (r.sessions == 1 ? " session " : " sessions ");
    if (!a.binding) {
        h += "the binding resource could not be judged";
        if (r.software_renderer) h += " (software renderer, but no host CPU samples)";
    } else {
        const ResourceUse& b = a.resources[*a.binding];
        h += "the binding resource was " + with_article(b.name) + " (" + b.figure + ")";
        if (r.software_renderer) h += ", since the software renderer draws the frames on the CPU";
        int shown = 0;
        std::string rest;
        for (size_t i = 0; i < a.resources.size() && shown < 2; ++i) {
            if (i == *a.binding) continue;
            rest += (shown ? ", " : "") + a.resources[i].name + " " + pct(a.resources[i].busy_pct);
            ++shown;
        }
        if (!rest.empty()) h += "; " + rest;
    }
    bool gpu_missing = !r.software_renderer && !r.gpu_engine_pct;
    if (gpu_missing) h += "; GPU engine not judged (" + (r.gpu_source.empty() ? std::string("no GPU telemetry") : r.gpu_source + " gave no utilisation") + ")";
    a.headline = h;
    return a;
}

double usable_cpus(const StepResources& r) {
    if (r.cpu_capacity > 0 && (r.cpu_count == 0 || r.cpu_capacity < double(r.cpu_count))) return r.cpu_capacity;
    return r.cpu_count;
}

}  // namespace seatmark::core
