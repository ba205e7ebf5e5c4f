#include "common/output_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/errors.h"
#include "common/exit_codes.h"
#include "common/input_file.h"

namespace seatmark {

// OutputFile's platform half and the folder check: common/output_file_posix.cpp,
// common/output_file_windows.cpp.

void check_output_target(const std::string& path, const std::string& what) {
    const std::string named = what.empty() ? path : what + " " + path;
    if (path.empty()) throw InputError((what.empty() ? std::string("an output path") : what) + " is empty; give a file name");
    std::string resolved;
    switch (output_detail::target_kind(path, resolved)) {
        case output_detail::TargetKind::absent:
        case output_detail::TargetKind::regular: break;
        case output_detail::TargetKind::directory:
            throw InputError(named + ": is a directory; give a file name");
        case output_detail::TargetKind::dangling_link:
            throw InputError(named + ": is a link to nothing; give a file name, or a link to a regular file");
        case output_detail::TargetKind::other:
            throw InputError(named + ": is not a regular file (a device, FIFO or socket), which an output would "
                             "replace or write into; give a file name");
    }
    if (auto id = file_id(path))
        if (auto input = input_named(*id))
            throw InputError(named + ": is " + (*input == path ? "one of this command's inputs" : *input + ", which this command reads") +
                             "; writing there would destroy it: give another file name");
}

void write_output_file(const std::string& path, std::string_view text, const std::string& what) {
    OutputFile f(path, what);
    f.write(text);
    f.commit();
}

void check_output_path(const std::string& path, const std::string& option, const std::vector<std::string>& inputs) {
    for (const auto& in : inputs) note_input(in);
    if (path.empty()) throw InputError(option + " is empty; give a file name");
    check_output_target(path, option);
    output_detail::check_folder_writable(path, option);
}

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
