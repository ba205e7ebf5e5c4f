#include <pwd.h>
#include <unistd.h>

#include <cstdlib>

#include "common/user_dirs.h"

namespace seatmark {

std::string user_cache_dir() {
    if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return d;
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache";
    return "/tmp";
}

std::string user_name() {
    if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_name) return pw->pw_name;
    if (const char* u = std::getenv("USER"); u && *u) return u;
    return "";
}

}  // namespace seatmark
