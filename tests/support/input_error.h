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

// How many times `part` occurs in `s` (overlaps counted).
inline size_t occurrences(const std::string& s, const std::string& part) {
    size_t n = 0;
    for (size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
    return n;
}

// "NAME:LINE" where LINE is the 1-based line of `text` holding `part` (0 if none): tests expect
// the line an error names from the text they wrote, so a line added to a plan helper moves both.
inline std::string file_line(const std::string& name, const std::string& text, const std::string& part) {
    const size_t at = text.find(part);
    if (at == std::string::npos) return name + ":0";
    size_t line = 1;
    for (size_t i = 0; i < at; ++i) line += text[i] == '\n';
    return name + ":" + std::to_string(line);
}

}  // namespace seatmark::test
