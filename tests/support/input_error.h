#pragma once
// Helpers for tests of bad input: the message an InputError carried.
#include <string>

#include "common/errors.h"

namespace seatmark::test {

// The InputError message f throws, or "(no error)".
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace seatmark::test
