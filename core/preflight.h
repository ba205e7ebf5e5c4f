#pragma once
// What a run can know is wrong before its first session starts, decided in one place: the plan's
// device rule against the device sessions would render on (allow_software = false on a CPU
// renderer), every mix profile's resolution and MSAA against that device's limits, and the
// open-file limit against the largest step. Sessions would otherwise each start, fail the same
// way and spend the step's settle and windows on a question already answered.
// The facts are gathered elsewhere: the device by the session executable in a child process
// (`seatmark-session --preflight`, orchestrator/device_probe.h), the limit by the orchestrator.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/plan.h"

namespace seatmark::core {

struct PreflightDevice {
    std::string name, driver;
    bool software = false;
    uint32_t max_image_dimension_2d = 0;  // 0: unknown (not checked)
    uint32_t max_msaa = 1;
};

struct PreflightProfile {
    std::string name;
    uint32_t width = 0, height = 0, msaa = 1;
};

struct PreflightFacts {
    bool renders = true;                    // false: synthetic sessions, no device opened
    std::optional<PreflightDevice> device;  // the device sessions would render on
    std::string device_error;               // why no device would be chosen ("" when one was)
    std::vector<std::string> hardware;      // names of the hardware (non-software) devices here
    std::string probe_note;                 // the probe itself could not run: said, not decided
    std::vector<PreflightProfile> profiles; // every mix profile's render settings
    std::optional<uint64_t> open_file_limit;  // this process's limit (after raising it to the hard one)
};

struct PreflightResult {
    std::vector<std::string> problems;  // each refuses the run, with what to do; empty: go
    std::vector<std::string> notes;     // worth saying, not worth refusing for
    bool ok() const { return problems.empty(); }
};

// Open files a run needs for its largest step (its sessions' sockets, pidfds, /proc files, GPU
// samplers' files, plus the database, the live API's clients and logs).
uint64_t open_files_needed(const Plan& plan);

PreflightResult preflight(const Plan& plan, const PreflightFacts& facts);

}  // namespace seatmark::core
