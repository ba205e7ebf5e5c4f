#pragma once
// XXH3-64 of a whole file, shared by `seatmark stage` (pre-check, post-verify) and `seatmark run`
// (a plan's assets are checked against the checksum the plan gives), and its 16-digit hex form,
// the form `seatmark stage --json` lists for every file and run.assets takes.
#include <cstdint>
#include <optional>
#include <string>

namespace seatmark {

// Opens the file read-only; throws std::runtime_error naming the path and the reason.
uint64_t file_xxh3(const std::string& path);

std::string xxh3_hex(uint64_t h);                              // "0123456789abcdef"
std::optional<uint64_t> parse_xxh3_hex(const std::string& s);  // 16 hex digits (either case), else nullopt

}  // namespace seatmark
