#pragma once
// XXH3-64 of a whole file, shared by `seatmark stage` (pre-check, post-verify) and `seatmark run`
// (a plan's assets are checked against the checksum the plan gives), and its 16-digit hex form,
// the form `seatmark stage --json` lists for every file and run.assets takes.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace seatmark {

// file_xxh3 gave up because `stop` said so (a session asked to stop while hashing a large model).
struct HashStopped : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Opens the file read-only (a regular file only: common/input_file.h); throws std::runtime_error
// naming the path and the reason. `stop`, when given, is asked between blocks (4 MiB), and a true
// answer throws HashStopped: hashing a model of many gigabytes takes long enough to be stopped.
uint64_t file_xxh3(const std::string& path, const std::function<bool()>& stop = {});

std::string xxh3_hex(uint64_t h);                              // "0123456789abcdef"
std::optional<uint64_t> parse_xxh3_hex(const std::string& s);  // 16 hex digits (either case), else nullopt

}  // namespace seatmark
