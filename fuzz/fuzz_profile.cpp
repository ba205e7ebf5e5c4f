// Workload profile parsing on arbitrary text: an InputError naming the place, or a profile.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/errors.h"
#include "workloads/profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        (void)seatmark::workloads::parse_profile(text, "fuzz.toml");
    } catch (const seatmark::InputError&) {
    }
    return 0;
}
