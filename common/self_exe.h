#pragma once
// This program's own identity: where its executable lies (`seatmark` starts `seatmark-session`
// from its own folder, as built and as installed), its process id and the host's name.
// common/self_exe_posix.cpp and common/self_exe_windows.cpp.
#include <cstdint>
#include <string>

namespace seatmark {

std::string self_exe_path();                         // the running executable's path; "seatmark" if unreadable
std::string sibling_exe(const std::string& name);    // the folder of self_exe_path() + "/" + name
uint32_t current_pid();
std::string host_name();                             // "" when the system does not say

}  // namespace seatmark
