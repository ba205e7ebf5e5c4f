#pragma once
// One destination copy while it is being written: a hidden temporary file beside the final name
// (".NAME.seatmark-stage.PID.tmp"), written with O_DIRECT where the file system takes it, and
// renamed into place only by commit(), after fsync and the optional verification. Until then
// nothing exists under the final name; a DestFile that is not committed removes its temporary
// file, and so does SIGTERM/SIGINT (mpirun ends the other ranks that way when one fails).
// Temporary files of processes that died without cleaning up (SIGKILL) are removed by
// remove_stale_temps() in the next run's pre-check.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace seatmark::stage {

constexpr size_t kDirectAlign = 4096;  // O_DIRECT: buffer address, offset and length multiples of this
inline size_t round_up_direct(size_t n) { return (n + kDirectAlign - 1) / kDirectAlign * kDirectAlign; }

class DestFile {
public:
    // Creates the temporary file and reserves size bytes; check ok() and error().
    // `sparse`: the source has holes; chunks of zeros are then skipped (left as holes) and the
    // space is not reserved up front, so the copy stays as sparse as the source.
    DestFile(std::string dest, uint64_t size, bool direct, bool sparse = false);
    ~DestFile();
    DestFile(const DestFile&) = delete;
    DestFile& operator=(const DestFile&) = delete;

    bool ok() const { return error_.empty(); }
    const std::string& error() const { return error_; }
    const std::string& temp_path() const { return tmp_; }
    bool direct() const { return direct_; }
    bool sparse() const { return sparse_; }

    // Writes n bytes at off. buf must be aligned to kDirectAlign with room for
    // round_up_direct(n) bytes (the last chunk is padded with zeros and cut by commit()).
    void write(char* buf, size_t n, uint64_t off);
    // Records a failure that happened elsewhere (the source could not be read): nothing is committed.
    void fail(const std::string& why);

    struct Times {
        double fsync_s = 0, verify_s = 0;
    };
    // Sizes, sets mode, fsyncs, sets mtime, verifies against expected_xxh3 when given, renames
    // into place. On any failure the temporary file is removed and ok() is false.
    Times commit(uint32_t mode, int64_t mtime_s, int64_t mtime_ns, std::optional<uint64_t> expected_xxh3);

private:
    void abandon();

    void write_span(char* buf, size_t n, uint64_t off);
    std::string dest_, tmp_, error_;
    uint64_t size_ = 0;
    int fd_ = -1;
    bool direct_ = false, committed_ = false, sparse_ = false;
    int signal_slot_ = -1;
};

// Removes ".NAME.seatmark-stage.PID.tmp" files in dir whose process no longer runs on this host
// (left by a killed stage). Returns how many were removed.
int remove_stale_temps(const std::string& dir);

}  // namespace seatmark::stage
