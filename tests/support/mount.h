#pragma once
// A file system mounted for one test (tmpfs, a loop image, a read-only bind), unmounted by the
// destructor. `ok` is false with `why` when this machine does not allow it (not root, no loop
// devices): callers SEATMARK_SKIP then.
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace seatmark::test {

struct Mount {
    Mount(const std::vector<std::string>& mount_argv, std::string where) : dir(std::move(where)) {
        std::filesystem::create_directories(dir);
        auto m = run_process(mount_argv, 20);
        ok = m.exit_code == 0;
        why = m.err;
    }
    ~Mount() {
        if (ok) run_process({"/bin/umount", dir}, 20);
    }
    Mount(const Mount&) = delete;
    Mount& operator=(const Mount&) = delete;
    // Remounts read-only (or back); false when refused.
    bool remount(bool read_only) {
        return run_process({"/bin/mount", "-o", read_only ? "remount,ro" : "remount,rw", dir}, 20).exit_code == 0;
    }
    std::string dir, why;
    bool ok = false;
};

// A fresh ext2 image of `mib` MiB at `image`, loop-mounted at `where`.
inline Mount loop_ext2(const std::string& image, int mib, const std::string& where) {
    auto mk = run_process({"/bin/sh", "-c", "truncate -s " + std::to_string(mib) + "M '" + image +
                                                "' && /usr/sbin/mkfs.ext2 -q -F '" + image + "'"}, 30);
    if (mk.exit_code != 0)  // a Mount that failed, saying why
        return Mount({"/bin/sh", "-c", "echo \"$0\" >&2; exit 1", "mkfs.ext2 failed: " + mk.err}, where);
    return Mount({"/bin/mount", "-o", "loop", image, where}, where);
}

}  // namespace seatmark::test
