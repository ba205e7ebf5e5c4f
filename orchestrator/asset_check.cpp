#include "orchestrator/asset_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/errors.h"
#include "common/file_hash.h"
#include "pack/pack_reader.h"

namespace seatmark::orchestrator {

void verify_assets(const core::Plan& plan) {
    const std::string again = "; stage it again (seatmark stage --verify checksum --source ... --dest ...) or fix run.assets";
    for (const auto& a : plan.assets) {
        const std::string head = a.where + "asset " + a.path;
        struct stat st{};
        if (::stat(a.path.c_str(), &st) != 0) {
            if (errno == ENOENT || errno == ENOTDIR)
                throw InputError(head + " is missing on this host; stage it first (seatmark stage) or fix run.assets");
            throw InputError(head + " cannot be checked: " + std::strerror(errno));
        }
        if (!S_ISREG(st.st_mode)) throw InputError(head + " is not a regular file" + again);
        int fd = ::open(a.path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) throw InputError(head + " cannot be read: " + std::strerror(errno) + "; fix its permissions");
        ::close(fd);
        const auto size = static_cast<uint64_t>(st.st_size);
        if (a.size && *a.size != size)
            throw InputError(head + " is " + std::to_string(size) + " bytes, the plan says " + std::to_string(*a.size) +
                             " (a stale or partial copy)" + again);
        if (a.pack) {
            // A pack carries its own size and payload XXH3: a truncated or damaged copy is found on
            // every host even when the plan lists neither.
            if (size >= (64u << 20))
                std::fprintf(stderr, "seatmark: checking pack %s (%.0f MiB)\n", a.path.c_str(), static_cast<double>(size) / 1048576.0);
            try {
                pack::verify_pack_payload(a.path);
            } catch (const InputError& e) {
                throw InputError(a.where + "asset " + e.what() + again);
            }
        }
        if (a.xxh3) {
            if (size >= (64u << 20))
                std::fprintf(stderr, "seatmark: checking asset %s (%.0f MiB)\n", a.path.c_str(), static_cast<double>(size) / 1048576.0);
            uint64_t h = 0;
            try {
                h = file_xxh3(a.path);
            } catch (const std::exception& e) {
                throw InputError(head + ": " + e.what());
            }
            if (h != *a.xxh3)
                throw InputError(head + " has XXH3 " + xxh3_hex(h) + ", the plan says " + xxh3_hex(*a.xxh3) +
                                 " (its content differs from the source)" + again);
        }
    }
}

}  // namespace seatmark::orchestrator
