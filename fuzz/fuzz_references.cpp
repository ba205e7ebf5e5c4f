// `seatmark check` references on arbitrary text: an InputError with file:line:col, or references.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/errors.h"
#include "report/references.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        (void)seatmark::report::parse_references(text, "refs.toml");
    } catch (const seatmark::InputError&) {
    }
    return 0;
}
