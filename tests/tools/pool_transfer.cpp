// pool_transfer DIR BYTES MODE: the pool's database transfer (orchestrator/pool_transfer.h) under
// a real mpirun, for tests/integration/test_pool_transfer.cpp. Rank k > 0 writes DIR/sent.k
// (BYTES + 13 k bytes of a pattern seeded by k) and sends it to rank 0, which receives every rank's
// at once into DIR/got.k and prints "k ok" or "k problem: ..." per rank.
// MODE "all": every rank sends; "missing-last": the last rank's file does not exist;
// "silent-last": the last rank sends nothing (as a hung host) and exits after rank 0's timeout;
// "slow-first": rank 1 waits 1.5 s after each chunk (within the 3 s timeout), so a rank 0 that
// took the hosts one after another would let the others' first chunk wait past the timeout.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "orchestrator/pool_transfer.h"

using namespace seatmark::orchestrator;

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: mpirun -np N pool_transfer DIR BYTES all|missing-last|silent-last|slow-first\n");
        return 2;
    }
    PoolComm comm(&argc, &argv);
    const std::string dir = argv[1], mode = argv[3];
    const uint64_t bytes = std::strtoull(argv[2], nullptr, 10);
    const double timeout_s = 3;
    const int last = comm.size() - 1;
    if (comm.rank() == 0) {
        std::vector<IncomingDatabase> in;
        for (int k = 1; k < comm.size(); ++k) in.push_back({k, dir + "/got." + std::to_string(k), ""});
        receive_databases(comm, in, timeout_s, timeout_s);
        for (const auto& d : in)
            std::printf("%d %s\n", d.from, d.problem.empty() ? "ok" : ("problem: " + d.problem).c_str());
        std::fflush(stdout);
    } else if (mode == "silent-last" && comm.rank() == last) {
        std::this_thread::sleep_for(std::chrono::duration<double>(timeout_s + 1));
    } else {
        const std::string path = dir + "/sent." + std::to_string(comm.rank());
        if (!(mode == "missing-last" && comm.rank() == last)) {
            std::ofstream out(path, std::ios::binary);
            uint64_t x = 0x9e3779b97f4a7c15ull * uint64_t(comm.rank());
            for (uint64_t i = 0; i < bytes + 13 * uint64_t(comm.rank()); ++i) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                out.put(static_cast<char>(x >> 56));
            }
        }
        std::function<void()> pace;
        if (mode == "slow-first" && comm.rank() == 1)
            pace = [] { std::this_thread::sleep_for(std::chrono::milliseconds(1500)); };
        const std::string problem = send_database(comm, path, timeout_s, timeout_s, pace);
        if (!problem.empty()) std::fprintf(stderr, "rank %d: %s\n", comm.rank(), problem.c_str());
    }
    return 0;
}
