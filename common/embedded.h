#pragma once
// A text file compiled into the binary (see cmake/embed.cmake).
#include <string_view>
#include <vector>

namespace seatmark {

struct EmbeddedFile {
    std::string_view path;  // relative to the source root, e.g. "workloads/profiles/ci-tiny.toml"
    std::string_view text;
};

}  // namespace seatmark
