#pragma once
// Watches the free space where the run database grows, so a disk that is getting full is said
// before the store fails: the database's growth so far, projected over the rest of the run,
// must fit in the free space with a margin to spare.
#include <cstdint>
#include <optional>
#include <string>

namespace seatmark::orchestrator {

class DiskWatch {
public:
    // `db_path`: the database (its -wal beside it); `planned_s`: the run's worst-case length.
    DiskWatch(std::string db_path, double planned_s, uint64_t margin_bytes = 64ull << 20);
    // Call every few seconds with the seconds since the run started. Returns a warning the first
    // time free space falls short (and again when it falls below the bare margin), else nullopt.
    std::optional<std::string> check(double elapsed_s);

    // Holds `bytes` of the database's file system in reserve: a file created beside it, allocated
    // and unlinked at once (so nothing is left however the process ends). release() frees it, so
    // that after the disk filled the run can still record that it was aborted and why.
    void reserve(uint64_t bytes = 4ull << 20);
    void release();
    ~DiskWatch();
    DiskWatch(const DiskWatch&) = delete;
    DiskWatch& operator=(const DiskWatch&) = delete;

    // The test of check(), on given figures: the bytes the rest of the run needs, projected.
    static uint64_t projected_need(uint64_t written, double elapsed_s, double planned_s);

private:
    std::string db_path_, dir_;
    double planned_s_;
    uint64_t margin_;
    int warned_ = 0;  // 0 none, 1 projected shortfall, 2 below the margin
    int reserve_fd_ = -1;
};

}  // namespace seatmark::orchestrator
