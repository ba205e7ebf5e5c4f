#pragma once
// A word as a POSIX shell reads it back: messages that hand the user a command to paste (a merge,
// a later push) quote paths with this one rule.
#include <string>

namespace seatmark {

// `w` itself when it holds only characters no shell treats specially, else single-quoted with
// every ' written as '\''.
std::string shell_word(const std::string& w);

}  // namespace seatmark
