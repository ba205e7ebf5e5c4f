#pragma once
// Where this program's executable lies, and the executables installed beside it
// (`seatmark` starts `seatmark-session` from its own folder, as built and as installed).
#include <string>

namespace seatmark {

std::string self_exe_path();                         // /proc/self/exe resolved; "seatmark" if unreadable
std::string sibling_exe(const std::string& name);    // the folder of self_exe_path() + "/" + name

}  // namespace seatmark
