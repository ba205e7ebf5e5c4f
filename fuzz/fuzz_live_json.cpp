// What the monitor does with a live API answer, on arbitrary bytes: parse, read the state,
// history, frames and events, bound them (monitor/live_bounds.h), then build what the views
// draw from. Anything on the monitor's ports can send these; an answer is accepted within
// the bounds or refused with an exception, never a crash, undefined cast or huge allocation.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "monitor/live_bounds.h"
#include "monitor/monitor_data.h"
#include "core/live_json.h"

using namespace seatmark;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto j = nlohmann::json::parse(data, data + size, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return 0;
    try {
        auto state = core::state_from_json(j);
        monitor::check_live_state(state);
        (void)monitor::progress(state);
        auto hist = core::history_from_json(j);
        monitor::check_live_history(hist);
        auto bands = monitor::bands_from_history(hist, state.finished_steps, state.elapsed_s);
        if (bands.size() > hist.size()) __builtin_trap();
        auto frames = core::frames_from_json(j);
        monitor::check_live_frames(frames, 10000, 0);
        if (auto it = j.find("events"); it != j.end() && it->is_array())
            for (const auto& ej : *it) {
                if (auto e = core::event_from_json(ej)) (void)monitor::describe_event(*e, state.started_unix_ns);
            }
    } catch (const std::exception&) {
        // refused: the monitor shows the message and polls again
    }
    return 0;
}
