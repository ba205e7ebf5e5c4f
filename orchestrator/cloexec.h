#pragma once
// Close-on-exec for descriptors a library opens without it. Asio opens and accepts
// sockets with plain socket()/accept(), so a session started while one is open would
// inherit it (session_process.cpp also marks everything in the child, as a backstop).
#include <fcntl.h>

namespace seatmark::orchestrator {

inline void mark_cloexec(int fd) {
    int flags = ::fcntl(fd, F_GETFD);
    if (flags >= 0 && !(flags & FD_CLOEXEC)) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

}  // namespace seatmark::orchestrator
