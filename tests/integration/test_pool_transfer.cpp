// The hosts' databases' trip to rank 0 (orchestrator/pool_transfer.h) under a real mpirun of
// three ranks: files over several 4 MiB chunks (and a partial last one) arrive byte for byte from
// two hosts at once (a slow host does not hold up the other past its deadline); a host with no
// file and a host that sends nothing are each reported by rank 0, within the timeout, while the
// other host's file still arrives whole.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "orchestrator/pool_transfer.h"
#include "tests/support/mpi_pool.h"

using namespace seatmark;
using namespace seatmark::test;

namespace {

ProcessResult transfer(const std::string& dir, uint64_t bytes, const std::string& mode) {
    std::vector<std::string> argv = mpirun_argv(3);
    argv.insert(argv.end(), {SEATMARK_POOL_TRANSFER, dir, std::to_string(bytes), mode});
    return run_process(argv, 60, mpi_env);
}

}  // namespace

TEST_CASE("pool: host databases travel to rank 0 in chunks, from every host at once, byte for byte") {
    TempDir t;
    const uint64_t bytes = 2 * orchestrator::db_chunk_bytes + 12345;  // three chunks, the last partial
    auto r = transfer(t.path, bytes, "all");
    INFO(r.out);
        INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("1 ok\n") != std::string::npos);
    CHECK(r.out.find("2 ok\n") != std::string::npos);
    for (const std::string k : {"1", "2"}) {
        CAPTURE(k);
        REQUIRE(std::filesystem::file_size(t.file("got." + k)) == std::filesystem::file_size(t.file("sent." + k)));
        CHECK(read_file(t.file("got." + k)) == read_file(t.file("sent." + k)));
    }
    CHECK(std::filesystem::file_size(t.file("got.2")) == bytes + 26);
}

TEST_CASE("pool: a slow host's transfer does not make another host's miss its deadline") {
    TempDir t;
    // Rank 1 sends four chunks 1.5 s apart (4.5 s in all), each within the 3 s timeout; rank 2
    // sends at once and must not wait behind rank 1.
    auto r = transfer(t.path, 3 * orchestrator::db_chunk_bytes + 1, "slow-first");
    INFO(r.out);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("1 ok\n") != std::string::npos);
    CHECK(r.out.find("2 ok\n") != std::string::npos);
    CHECK(read_file(t.file("got.1")) == read_file(t.file("sent.1")));
    CHECK(read_file(t.file("got.2")) == read_file(t.file("sent.2")));
}

TEST_CASE("pool: a host without its database, or silent, is reported by rank 0 and the others still arrive") {
    TempDir t;
    const uint64_t bytes = orchestrator::db_chunk_bytes + 1;
    SUBCASE("missing file") {
        auto r = transfer(t.path, bytes, "missing-last");
        INFO(r.out);
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(r.out.find("1 ok\n") != std::string::npos);
        CHECK(r.out.find("2 problem: its host had no database to send") != std::string::npos);
        CHECK(r.err.find("rank 2: cannot read " + t.file("sent.2")) != std::string::npos);
        CHECK(read_file(t.file("got.1")) == read_file(t.file("sent.1")));
        CHECK_FALSE(std::filesystem::exists(t.file("got.2")));
    }
    SUBCASE("silent host") {
        auto r = transfer(t.path, bytes, "silent-last");
        INFO(r.out);
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(r.out.find("1 ok\n") != std::string::npos);
        CHECK(r.out.find("2 problem: no database came within 3 s") != std::string::npos);
        CHECK(read_file(t.file("got.1")) == read_file(t.file("sent.1")));
        CHECK_FALSE(std::filesystem::exists(t.file("got.2")));
    }
}
