// Plan parsing on arbitrary text: a clear InputError or a plan, nothing else. Profile paths in the
// plan resolve against an empty folder, so only built-in profiles and absolute paths load.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/errors.h"
#include "core/plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        auto p = seatmark::core::parse_plan(text, "fuzz.toml", "/nonexistent-fuzz-dir");
        // What a parsed plan promises: steps strictly increasing within the limit, a mix.
        uint32_t last = 0;
        for (uint32_t s : p.steps) {
            if (s <= last || s > seatmark::core::max_step_sessions) __builtin_trap();
            last = s;
        }
        if (p.mix.empty()) __builtin_trap();
        for (uint32_t n = 0; n < 16; ++n) (void)p.profile_for(n);
        (void)p.planned_seconds();
    } catch (const seatmark::InputError&) {
    }
    return 0;
}
