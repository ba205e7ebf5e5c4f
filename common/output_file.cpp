#include "common/output_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/errors.h"
#include "common/exit_codes.h"

namespace seatmark {

// write_output_file and check_output_path: common/output_file_posix.cpp, common/output_file_windows.cpp.

void check_stdout() {
    errno = 0;
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        int err = errno ? errno : EIO;
        std::clearerr(stdout);
        throw ExitError(exit_code::output_error,
                        std::string("standard output: cannot write: ") + std::strerror(err) +
                            "; the output was lost (a full disk, or a closed pipe?)");
    }
}

}  // namespace seatmark
