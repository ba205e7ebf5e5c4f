#pragma once
// Text at the Windows API edge (used by *_windows.cpp files only): seatmark keeps UTF-8
// everywhere; Win32's W functions take and give UTF-16. Also the text of a Win32 error code.
#include <cstdint>
#include <string>

namespace seatmark {

std::string utf8(const std::wstring& w);
std::wstring wide(const std::string& s);
std::string win_error_text(uint32_t code);  // FormatMessage's text, or "error N"

}  // namespace seatmark
