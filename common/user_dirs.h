#pragma once
// Per-user folders (common/user_dirs_posix.cpp: XDG; common/user_dirs_windows.cpp: the
// Known Folders). The pack cache lives under user_cache_dir()/seatmark/packs unless
// SEATMARK_PACK_CACHE names another folder.
#include <string>

namespace seatmark {

std::string user_cache_dir();  // $XDG_CACHE_HOME, ~/.cache, or /tmp; %LOCALAPPDATA% or %TEMP% on Windows
std::string user_name();       // the logged-on user; "" when the system does not say

}  // namespace seatmark
