// `seatmark stage` throughput against what this machine allows, all measured in the same run:
// raw chunked MPI_Ibcast bandwidth of the same ranks, the disk's write rate (write + fsync), and
// `cp` of the same file to the same number of destinations. Also the no-op time (every rank
// already holds the file) in size and checksum mode.
// Usage: bench_stage [SIZE] [DIR]   (SIZE: 512M by default, e.g. 2G; DIR: /tmp/seatmark-bench-stage)
// Internal: bench_stage --ibcast-worker BYTES CHUNK   (run under mpirun)
#include <fcntl.h>
#include <mpi.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>
#include <string>
#include <vector>

#include "stage/file_check.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int ibcast_worker(uint64_t bytes, size_t chunk) {
    MPI_Init(nullptr, nullptr);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int nbuf = 3;
    std::vector<std::vector<char>> bufs(nbuf, std::vector<char>(chunk, 1));
    uint64_t chunks = (bytes + chunk - 1) / chunk;
    MPI_Barrier(MPI_COMM_WORLD);
    auto t = Clock::now();
    std::vector<MPI_Request> req(nbuf, MPI_REQUEST_NULL);
    for (uint64_t i = 0; i < chunks; ++i) {
        int s = static_cast<int>(i % nbuf);
        MPI_Wait(&req[static_cast<size_t>(s)], MPI_STATUS_IGNORE);
        int n = static_cast<int>(std::min<uint64_t>(chunk, bytes - i * chunk));
        MPI_Ibcast(bufs[static_cast<size_t>(s)].data(), n, MPI_BYTE, 0, MPI_COMM_WORLD, &req[static_cast<size_t>(s)]);
    }
    MPI_Waitall(nbuf, req.data(), MPI_STATUSES_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    double s = since(t);
    if (rank == 0) std::printf("%.6f\n", s);
    MPI_Finalize();
    return 0;
}

// Runs a command through the shell, returns wall seconds and its output; aborts on failure.
double timed(const std::string& cmd, std::string* out = nullptr) {
    auto t = Clock::now();
    FILE* p = popen(cmd.c_str(), "r");
    std::string text;
    char buf[4096];
    while (p && fgets(buf, sizeof buf, p)) text += buf;
    int rc = p ? pclose(p) : -1;
    double s = since(t);
    if (rc != 0) {
        std::fprintf(stderr, "bench_stage: command failed (%d): %s\n%s", rc, cmd.c_str(), text.c_str());
        std::exit(1);
    }
    if (out) *out = text;
    return s;
}

// N writers at once, each writing `bytes` to its own file in 16 MiB writes and fsync'ing it, as
// stage's writers do when one machine plays N hosts; seconds until the last one is done.
// direct: O_DIRECT (what stage uses where it can), else through the page cache.
double disk_write_seconds(const std::string& dir, int writers, uint64_t bytes, bool direct) {
    const size_t chunk = 16u << 20;
    auto t = Clock::now();
    std::vector<std::thread> ts;
    for (int w = 0; w < writers; ++w)
        ts.emplace_back([&, w] {
            std::string path = dir + "/disk-probe-" + std::to_string(w);
            char* buf = static_cast<char*>(std::aligned_alloc(4096, chunk));
            std::memset(buf, 7, chunk);
            int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | (direct ? O_DIRECT : 0), 0644);
            if (fd < 0) {
                std::perror(("bench_stage: open " + path).c_str());
                std::exit(1);
            }
            for (uint64_t off = 0; off < bytes;) {
                size_t n = static_cast<size_t>(std::min<uint64_t>(chunk, bytes - off));
                if (::write(fd, buf, n) != static_cast<ssize_t>(n)) {
                    std::perror("bench_stage: write");
                    std::exit(1);
                }
                off += n;
            }
            ::fsync(fd);
            ::close(fd);
            std::free(buf);
        });
    for (auto& th : ts) th.join();
    double s = since(t);
    for (int w = 0; w < writers; ++w) fs::remove(dir + "/disk-probe-" + std::to_string(w));
    return s;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 4 && std::string(argv[1]) == "--ibcast-worker")
        return ibcast_worker(std::stoull(argv[2]), static_cast<size_t>(std::stoull(argv[3])));
    uint64_t size = seatmark::stage::parse_bytes(argc > 1 ? argv[1] : "512M");
    std::string dir = argc > 2 ? argv[2] : "/tmp/seatmark-bench-stage";
    const std::string self = fs::canonical("/proc/self/exe").string();
    const std::string seatmark = (fs::path(self).parent_path().parent_path() / "seatmark").string();
    // Shared-memory transport with its single-copy mechanism (CMA) when this machine allows it
    // (containers often forbid it), otherwise the copy-in/copy-out fallback; the table says which.
    std::string mpirun = std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader "
                                     "mpirun --oversubscribe") + (geteuid() == 0 ? " --allow-run-as-root" : "");
    std::string single_copy = "default (CMA)";
    if (std::system((mpirun + " -np 2 " + self + " --ibcast-worker 67108864 16777216 >/dev/null 2>&1").c_str()) != 0) {
        mpirun = "OMPI_MCA_btl_vader_single_copy_mechanism=none " + mpirun;
        single_copy = "none (CMA not permitted here)";
    }
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string src = dir + "/asset.bin";
    {
        std::vector<char> buf(16u << 20);
        std::mt19937_64 g(42);
        int fd = ::open(src.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        for (uint64_t off = 0; off < size; off += buf.size()) {
            for (size_t i = 0; i < buf.size(); i += 8) {
                uint64_t v = g();
                std::memcpy(buf.data() + i, &v, 8);
            }
            size_t n = static_cast<size_t>(std::min<uint64_t>(buf.size(), size - off));
            if (::write(fd, buf.data(), n) != static_cast<ssize_t>(n)) return 1;
        }
        ::fsync(fd);
        ::close(fd);
    }
    const double mb = static_cast<double>(size) / 1e6;
    const int reps = 3;
    std::printf("bench_stage: %.0f MiB file, %u CPUs, chunk 16M, triple buffering, median of %d rounds;\n"
                "MB/s = file bytes / seconds until every copy is written and fsync'ed; MPI shared-memory single copy: %s\n"
                "disk/writers = the disk's rate with N writers at once (the faster of O_DIRECT and page cache + fsync) / N\n\n",
                static_cast<double>(size) / 1048576.0, std::thread::hardware_concurrency(), reps, single_copy.c_str());
    std::printf("%5s %10s %10s %12s %10s %8s %10s %12s %12s\n", "ranks", "stage", "raw-ibcast", "disk/writers", "cp x N", "stage/",
                "stage/cp", "no-op size", "no-op xxh3");
    std::printf("%5s %10s %10s %12s %10s %8s %10s %12s %12s\n", "", "MB/s", "MB/s", "MB/s", "MB/s", "bound", "", "s", "s");
    for (int n : {2, 4}) {
        std::vector<double> stage_v, raw_v, disk_v, cp_v, ratio_v, cp_ratio_v, noop_size_v, noop_sum_v;
        for (int rep = 0; rep < reps; ++rep) {
            std::string out;
            timed(mpirun + " -np " + std::to_string(n) + " " + self + " --ibcast-worker " + std::to_string(size) + " " +
                      std::to_string(16u << 20),
                  &out);
            double raw = mb / std::stod(out);
            timed("sync");
            // The VM's disk rate swings between runs, so it is measured next to each staging run.
            double disk = mb / std::min(disk_write_seconds(dir, n, size, true), disk_write_seconds(dir, n, size, false));
            std::string dest = dir + "/stage-" + std::to_string(n);
            std::string base = mpirun + " -np " + std::to_string(n) + " " + seatmark + " stage --quiet --source " + src +
                               " --dest '" + dest + "/{rank}'";
            timed("sync");
            std::string js = dir + "/s.json";
            timed(base + " --json " + js);
            timed("grep -o '\"transfer\": [0-9.e-]*' " + js + " | cut -d' ' -f2", &out);
            double stage = mb / std::stod(out);
            noop_size_v.push_back(timed(base + " --verify size"));
            noop_sum_v.push_back(timed(base + " --verify checksum"));
            fs::remove_all(dest);
            std::string cps = "cp " + src + " " + dir + "/cp-0";
            for (int k = 1; k < n; ++k) cps += " && cp " + src + " " + dir + "/cp-" + std::to_string(k);
            timed("sync");
            double cp = mb / timed(cps + " && sync");
            for (int k = 0; k < n; ++k) fs::remove(dir + "/cp-" + std::to_string(k));
            stage_v.push_back(stage);
            raw_v.push_back(raw);
            disk_v.push_back(disk);
            cp_v.push_back(cp);
            ratio_v.push_back(stage / std::min(raw, disk));
            cp_ratio_v.push_back(stage / cp);
        }
        std::printf("%5d %10.0f %10.0f %12.0f %10.0f %7.0f%% %9.2fx %12.3f %12.3f\n", n, median(stage_v), median(raw_v),
                    median(disk_v), median(cp_v), 100.0 * median(ratio_v), median(cp_ratio_v), median(noop_size_v),
                    median(noop_sum_v));
        std::fflush(stdout);
    }
    fs::remove_all(dir);
    return 0;
}
