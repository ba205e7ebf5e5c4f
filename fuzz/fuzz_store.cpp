// The store reader on mutated run databases: every query a reader makes (report, check, the
// monitor's .db source) either answers or throws a clear error, never crashes. The input is
// written to a private file each time, as a damaged database would be found on disk.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include "store/store_reader.h"
#include "monitor/db_source.h"

using namespace seatmark;

namespace {
std::string db_path() {
    static std::string p = [] {
        const char* dir = getenv("TMPDIR");
        return std::string(dir && *dir ? dir : "/tmp") + "/seatmark-fuzz-store-" + std::to_string(getpid()) + ".db";
    }();
    return p;
}
void remove_db(const std::string& p) {
    for (const char* s : {"", "-wal", "-shm", "-journal"}) ::unlink((p + s).c_str());
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string p = db_path();
    remove_db(p);
    FILE* f = std::fopen(p.c_str(), "wb");
    if (!f) return 0;
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    try {
        store::StoreReader r(p);
        (void)r.effective_status();
        try {
            (void)r.run();
        } catch (const std::exception&) {
        }
        (void)r.hosts();
        (void)r.steps();
        for (const auto& s : r.sessions()) {
            (void)r.frames(s.id);
            (void)r.frame_count(s.id);
            (void)r.frames_in(s.id, 0, INT64_MAX);
        }
        (void)r.frame_count();
        (void)r.samples();
        (void)r.events();
        (void)r.integrity_ok();
    } catch (const std::exception&) {
    }
    try {
        monitor::DbSource src(p);
        double end = src.run_seconds();
        (void)src.state_at(0);
        (void)src.state_at(end / 2);
        (void)src.state_at(end);
        src.select_session(0);
    } catch (const std::exception&) {
    }
    remove_db(p);
    return 0;
}
