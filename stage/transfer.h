#pragma once
// One file from the reading rank to every writer that needs it: chunked MPI_Ibcast over a ring of
// buffers, with a helper thread reading (root) or writing (receivers) so disk and network overlap.
// The copy is written to a temporary name in the destination directory, fsync'ed, given the
// source's mode and mtime, optionally re-read and checked against the source's XXH3, and only
// then renamed into place. On any failure the temporary file is removed; nothing appears under
// the final name.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "stage/source_list.h"

namespace seatmark::stage {

struct TransferOptions {
    size_t chunk = 16u << 20;
    int buffers = 3;
    bool post_verify = false;
    bool direct = true;  // O_DIRECT writes where the file system takes them
};

struct TransferResult {
    bool ok = true;           // this rank's copy (if it writes one) is in place
    std::string error;        // why not
    double fsync_s = 0, verify_s = 0;
    std::optional<uint64_t> source_xxh3;  // of the bytes broadcast, when the source was read whole
};

// Collective over comm; its rank 0 reads the source. dest is empty on ranks that only relay.
// progress(bytes) is called on the root as chunks go out.
TransferResult transfer_file(MPI_Comm comm, const SourceFile& f, const std::string& dest, const TransferOptions& opt,
                             const std::function<void(uint64_t)>& progress = {});

}  // namespace seatmark::stage
