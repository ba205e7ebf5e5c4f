#pragma once
// seatmark's version: project(VERSION) in CMakeLists.txt, the one place it is written.
// common/version.cpp.in is configured from it (so only this translation unit rebuilds).
namespace seatmark {

extern const char* const version;         // "0.1.0"
extern const char* const version_string;  // "seatmark 0.1.0" (--version, runs.tool_version)

}  // namespace seatmark
