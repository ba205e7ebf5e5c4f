#pragma once
// A join-mode run for tests of real processes: `seatmark run --accept` on a free loopback port
// with its token file and plan in a temporary directory, and the arguments that join it as a
// session or an agent; and a count read from a database the run is still writing.
#include <memory>
#include <string>
#include <vector>

#include <sqlite3.h>

#include "store/frames_table.h"
#include "tests/support/process.h"
#include "tests/support/run_db.h"

namespace seatmark::test {

// For polling a database the run is writing: 0 while it is not there yet or busy.
inline int64_t count_or_zero(const std::string& db, const std::string& sql) {
    sqlite3* h = nullptr;
    int64_t n = 0;
    if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        store::register_frames_table(h);  // `frames` of a schema-4 file (store/frames_table.h)
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return n;
}

struct JoinRun {
    static constexpr const char* token_text = "a3f1c2-join-run-token";
    TempDir dir;
    uint16_t port = free_port();
    std::string token, db, addr;
    std::unique_ptr<BackgroundProcess> run;
    // `listen`: the live API's --listen ("off": none; "127.0.0.1:0": a free port, read back with
    // port_in from the run's stderr).
    explicit JoinRun(const std::string& plan_body, const std::string& listen = "off") {
        token = dir.file("token");
        write_file(token, std::string(token_text) + "\n");
        db = dir.file("run.db");
        addr = "127.0.0.1:" + std::to_string(port);
        write_file(dir.file("plan.toml"), "name = \"join\"\n[run]\nsessions = \"join\"\nstop = \"max\"\n" + plan_body);
        run = std::make_unique<BackgroundProcess>(seatmark_argv(
            {"run", dir.file("plan.toml"), "--db", db, "--accept", addr, "--token-file", token, "--listen", listen, "-q"}));
    }
    // quiet = false: it says on stderr how it joined and which session it became.
    std::vector<std::string> session(const std::string& host, bool quiet = true) const {
        std::vector<std::string> a = {"session", "--join", addr, "--token-file", token, "--host-name", host,
                                      "--synthetic-fps", "60", "--retry-for", "20s"};
        if (quiet) a.push_back("--quiet");
        return seatmark_argv(a);
    }
    std::vector<std::string> agent(const std::string& host) const {
        return seatmark_argv({"agent", "--join", addr, "--token-file", token, "--host-name", host, "--quiet",
                              "--interval", "250ms", "--retry-for", "20s"});
    }
};

}  // namespace seatmark::test
