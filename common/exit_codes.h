#pragma once
// Exit codes of every seatmark subcommand, in one place, so scripts and the
// orchestrator can tell a bad input from a GPU fault without parsing text.
namespace seatmark::exit_code {

inline constexpr int ok = 0;
inline constexpr int failure = 1;           // the job ran and its answer is "no" (check failed, ...) or it failed while running
inline constexpr int bad_input = 2;         // bad flag, profile, plan or file; nothing was started
inline constexpr int vulkan_error = 3;      // a Vulkan call failed in a way not listed below
inline constexpr int device_lost = 4;       // VK_ERROR_DEVICE_LOST during the session
inline constexpr int out_of_memory = 5;     // VK_ERROR_OUT_OF_{HOST,DEVICE}_MEMORY
inline constexpr int software_fallback = 6; // landed on a CPU renderer while --no-software was given
inline constexpr int output_error = 7;      // an output (file, --json, --junit, stdout) could not be written

}  // namespace seatmark::exit_code
