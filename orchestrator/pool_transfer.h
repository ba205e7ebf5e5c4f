#pragma once
// The hosts' databases' trip to rank 0 at the end of a pool run, in chunks (MPI counts are int).
// A sender reads its file chunk by chunk (a host database of a long run is gigabytes: it is never
// held in memory whole). Rank 0 receives from every host at once, so every sender makes progress
// and one host's long transfer does not use up the deadline of a host waiting behind it; each
// chunk must come within the timeout of the one before, as every wait between hosts has a deadline.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "orchestrator/pool_comm.h"

namespace seatmark::orchestrator {

inline constexpr size_t db_chunk_bytes = 4u << 20;

// Sends the file at `path` to rank 0: its size, then its chunks. "" when sent; otherwise what
// went wrong (a file that cannot be read is announced as empty, so rank 0 does not wait for it).
// `first_timeout_s` bounds the wait for rank 0 to take the first chunk (rank 0 may still be
// ending its own run: stopping sessions, their last telemetry), `timeout_s` each later one.
// `after_chunk` is called after each chunk sent (a test paces a sender with it).
std::string send_database(PoolComm& comm, const std::string& path, double first_timeout_s, double timeout_s,
                          const std::function<void()>& after_chunk = {});

struct IncomingDatabase {
    int from = 0;          // the sender's rank
    std::string path;      // where rank 0 writes it
    std::string problem;   // after receive_databases: "" = arrived whole; the file is removed otherwise
};

// Receives every listed sender's database at once: its size within `first_timeout_s` (a host
// may end its run later than rank 0), then each chunk within `timeout_s` of the one before.
void receive_databases(PoolComm& comm, std::vector<IncomingDatabase>& in, double first_timeout_s, double timeout_s);

// A rank waits for rank 0's word that the merge is done before it exits.
void wait_bye(PoolComm& comm, double timeout_s);

}  // namespace seatmark::orchestrator
