#pragma once
// After the store writer failed (a full disk, an I/O error) nothing more goes through it. This
// records what it still can on a fresh connection, in one small transaction: the run's status
// 'aborted', its end time, and a 'run-abort' event giving the cause. Space the rolled-back
// transaction took in the write-ahead log is usually enough for that; when not, the reason is
// returned and the file reads as a run that did not finish (crashed).
#include <cstdint>
#include <string>

namespace seatmark::store {

// Returns "" when recorded, else why not ("run.db: marking the run aborted: database or disk is full").
std::string mark_aborted(const std::string& path, const std::string& cause, int64_t t_ns, int64_t ended_unix_ns);

}  // namespace seatmark::store
