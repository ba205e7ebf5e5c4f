#include "orchestrator/pool_comm.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "common/clock.h"

namespace seatmark::orchestrator {

namespace {

// Polls a request until it completes or the deadline passes; cancels it then.
bool wait_for(MPI_Request& req, int64_t deadline_ns, const PoolComm::Stop& stop) {
    int done = 0;
    for (;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done) return true;
        if (now_ns() >= deadline_ns || (stop && stop())) break;
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    MPI_Cancel(&req);
    MPI_Request_free(&req);
    return false;
}

}  // namespace

bool launched_by_mpi() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
        if (std::getenv(v)) return true;
    return false;
}

std::string srun_without_mpi() {
    const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");
    if (launched_by_mpi() || !tasks || !std::getenv("SLURM_PROCID") || std::atoi(tasks) < 2) return "";
    return std::string("this is task ") + std::getenv("SLURM_PROCID") + " of " + tasks +
           " of an srun step without an MPI plugin, so the tasks cannot form a pool: start it with "
           "srun --mpi=pmix (Open MPI here speaks PMIx; or set MpiDefault=pmix in slurm.conf)";
}

PoolComm::PoolComm(int* argc, char*** argv) {
    int provided = 0;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    // Errors come back as codes (a peer gone is reported, not fatal here).
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

PoolComm::~PoolComm() {
    if (!abandoned_) MPI_Finalize();
}

bool PoolComm::send(int to, int tag, const void* data, size_t bytes, int64_t deadline_ns, const Stop& stop) {
    MPI_Request req;
    if (MPI_Isend(data, static_cast<int>(bytes), MPI_BYTE, to, tag, MPI_COMM_WORLD, &req) != MPI_SUCCESS) return false;
    return wait_for(req, deadline_ns, stop);
}

bool PoolComm::send(int to, int tag, const std::string& s, int64_t deadline_ns, const Stop& stop) {
    return send(to, tag, s.data(), s.size(), deadline_ns, stop);
}

std::optional<std::string> PoolComm::recv(int from, int tag, int64_t deadline_ns, const Stop& stop) {
    MPI_Status st;
    int flag = 0;
    for (;;) {
        MPI_Iprobe(from, tag, MPI_COMM_WORLD, &flag, &st);
        if (flag) break;
        if (now_ns() >= deadline_ns || (stop && stop())) return std::nullopt;
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    std::string buf(static_cast<size_t>(count), '\0');
    MPI_Recv(buf.data(), count, MPI_BYTE, st.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return buf;
}

PoolComm::Pending::Pending(int from, int tag, size_t bytes) : buf_(bytes) {
    MPI_Irecv(buf_.data(), static_cast<int>(bytes), MPI_BYTE, from, tag, MPI_COMM_WORLD, &req_);
}

PoolComm::Pending::Pending(Pending&& o) noexcept : buf_(std::move(o.buf_)), req_(o.req_), done_(o.done_) {
    o.req_ = MPI_REQUEST_NULL;
}

PoolComm::Pending& PoolComm::Pending::operator=(Pending&& o) noexcept {
    if (this != &o) {
        this->~Pending();
        new (this) Pending(std::move(o));
    }
    return *this;
}

PoolComm::Pending::~Pending() {
    if (req_ != MPI_REQUEST_NULL && !done_) {
        MPI_Cancel(&req_);
        MPI_Request_free(&req_);
    }
}

bool PoolComm::Pending::ready() {
    if (done_) return true;
    if (req_ == MPI_REQUEST_NULL) return false;
    int flag = 0;
    MPI_Test(&req_, &flag, MPI_STATUS_IGNORE);
    if (flag) done_ = true;  // MPI_Test set req_ to MPI_REQUEST_NULL
    return done_;
}

}  // namespace seatmark::orchestrator
