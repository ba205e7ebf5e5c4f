#pragma once
// Exit codes of every seatmark subcommand, in one place, so scripts and the
// orchestrator can tell a bad input from a GPU fault without parsing text.
#include <string>

namespace seatmark::exit_code {

inline constexpr int ok = 0;
inline constexpr int failure = 1;           // the job ran and its answer is "no" (check failed, ...) or it failed while running
inline constexpr int bad_input = 2;         // bad flag, profile, plan or file; nothing was started
inline constexpr int vulkan_error = 3;      // a Vulkan call failed in a way not listed below
inline constexpr int device_lost = 4;       // VK_ERROR_DEVICE_LOST during the session
inline constexpr int out_of_memory = 5;     // VK_ERROR_OUT_OF_{HOST,DEVICE}_MEMORY
inline constexpr int software_fallback = 6; // landed on a CPU renderer while --no-software was given
inline constexpr int output_error = 7;      // an output (file, --json, --junit, stdout) could not be written

// The one list a user reads: every subcommand's --help prints it (help_text) and README's "Exit
// codes" section is this text (tests/integration/test_exit_codes.cpp holds them equal). Lists per
// subcommand drifted: README gave `run` 0/1/2 while its --help also had 7.
struct Meaning {
    int code;
    const char* text;
};
inline constexpr Meaning meanings[] = {
    {ok, "done: a run finished (whatever its verdict: gate on it with seatmark check), every check passed, a report, "
         "comparison, merge or pack written"},
    {failure, "the answer is no or the job failed while running: a check failed, a run aborted, validation messages "
              "(session --validate), an I/O error"},
    {bad_input, "bad input, nothing started: an option, plan, profile, references file or model; an unreadable or "
                "foreign database; an output that exists; no Vulkan device"},
    {vulkan_error, "a Vulkan call failed (session)"},
    {device_lost, "the GPU device was lost (session)"},
    {out_of_memory, "out of host or GPU memory (session)"},
    {software_fallback, "a software renderer was refused (session --no-software)"},
    {output_error, "an output (file, --json, --junit, stdout) could not be written"},
};

// "Exit codes (every subcommand):\n  0  done: ...\n  1  ...": for a --help footer.
inline std::string help_text() {
    std::string s = "Exit codes (every subcommand):";
    for (const auto& m : meanings) s += "\n  " + std::to_string(m.code) + "  " + m.text;
    return s;
}

}  // namespace seatmark::exit_code
