#pragma once
// MPI for a pool run (`seatmark run` under mpirun or srun): initialised only when this process
// was launched as an MPI rank, never for a plain run. Every wait between hosts has a deadline:
// Open MPI ends the whole job when a rank dies and a collective with a stopped rank never
// completes, so only point-to-point messages with MPI_Test polling are used, and a peer that
// does not answer in time is reported, not waited for.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace seatmark::orchestrator {

// True when this process is an MPI rank (mpirun, srun with PMI/PMIx set the environment).
bool launched_by_mpi();

// Not "": this is one task of several of an srun step that started it without an MPI plugin
// (Slurm's MpiDefault=none), so the tasks cannot find each other; the message says to give
// srun --mpi=pmix (the PMI Debian's Open MPI speaks). Each task would otherwise run alone.
std::string srun_without_mpi();

// Message tags: one per kind of exchange, so a late message of one kind is never read as another.
enum PoolTag : int {
    tag_hello = 1,   // start-up: host name, asset check
    tag_verdict,     // start-up: rank 0's go / no-go
    tag_ping,        // clock offset round trips
    tag_pong,
    tag_arrive,      // step coordination: a rank reached a sync point
    tag_go,          // rank 0: when (in the receiver's clock) to go on, or that the pool is lost
    tag_continue,    // the planner's collective: does the ramp go on
    tag_db,          // a host's database, in chunks
    tag_bye,         // rank 0 merged: ranks may exit
    tag_live,        // a rank's live summary for rank 0's live API (orchestrator/pool_live.h)
};

class PoolComm {
public:
    PoolComm(int* argc, char*** argv);  // MPI_Init_thread
    ~PoolComm();                        // MPI_Finalize, unless abandon() was called
    PoolComm(const PoolComm&) = delete;
    PoolComm& operator=(const PoolComm&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }

    // Sends / receives bytes, waiting until `deadline_ns` (CLOCK_MONOTONIC) at most, or until
    // `stop` says so (asked while waiting). false / nullopt: not done (the request is cancelled).
    using Stop = std::function<bool()>;
    bool send(int to, int tag, const void* data, size_t bytes, int64_t deadline_ns, const Stop& stop = {});
    bool send(int to, int tag, const std::string& s, int64_t deadline_ns, const Stop& stop = {});
    // Any size, probed first.
    std::optional<std::string> recv(int from, int tag, int64_t deadline_ns, const Stop& stop = {});

    // A receive posted now and tested later (step coordination polls it from the event loop).
    class Pending {
    public:
        Pending() = default;
        Pending(int from, int tag, size_t bytes);
        Pending(Pending&&) noexcept;
        Pending& operator=(Pending&&) noexcept;
        ~Pending();
        bool ready();                  // MPI_Test
        const char* data() const { return buf_.data(); }
        bool active() const { return req_ != MPI_REQUEST_NULL; }

    private:
        std::vector<char> buf_;  // heap storage: the address MPI writes to survives a move
        MPI_Request req_ = MPI_REQUEST_NULL;
        bool done_ = false;
    };

    // After a peer was lost: MPI_Finalize would wait for it forever, so it is skipped and the
    // process ends with _exit once its own work is saved.
    void abandon() { abandoned_ = true; }
    bool abandoned() const { return abandoned_; }

private:
    int rank_ = 0, size_ = 1;
    bool abandoned_ = false;
};

}  // namespace seatmark::orchestrator
