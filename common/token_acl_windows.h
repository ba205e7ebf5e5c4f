#pragma once
// The access-list walk behind join::token_file_warning on Windows (common/token_file_windows.cpp),
// apart from the file so it is tested on access lists built in memory
// (tests/windows/test_token_file_windows.cpp). Windows-only: included by *_windows.cpp files
// and the Windows unit tests.
#include <windows.h>

#include <string>

namespace seatmark::join {

// The first of Everyone, Users, Authenticated Users that this DACL lets read the file (ACEs
// in order, a deny before an allow keeping that group out, inherit-only ACEs skipped), "" for
// none; a null DACL lets everyone in.
std::string broad_reader(const ACL* dacl);

}  // namespace seatmark::join
