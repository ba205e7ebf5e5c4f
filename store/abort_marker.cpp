#include "store/abort_marker.h"

#include <chrono>

#include "store/sqlite_handle.h"

namespace seatmark::store {

std::string mark_aborted(const std::string& path, const std::string& cause, int64_t t_ns, int64_t ended_unix_ns) {
    if (ended_unix_ns == 0)
        ended_unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::system_clock::now().time_since_epoch()).count();
    try {
        Db db(path, SQLITE_OPEN_READWRITE);
        db.exec("PRAGMA busy_timeout = 2000", "marking the run aborted");
        db.exec("BEGIN IMMEDIATE", "marking the run aborted");
        {
            Stmt up(db, "UPDATE runs SET status = 'aborted', ended_unix_ns = ?1 WHERE id = 1", "marking the run aborted");
            up.bind_int(1, ended_unix_ns);
            up.step();
        }
        if (sqlite3_changes(db.get()) == 0) {
            db.exec("ROLLBACK", "marking the run aborted");
            return path + ": the run itself was never stored; the file reads as a run that did not start";
        }
        {
            Stmt ev(db, "INSERT INTO events (t_ns, session_id, kind, detail) VALUES (?1, NULL, 'run-abort', ?2)",
                    "marking the run aborted");
            ev.bind_int(1, t_ns);
            ev.bind_text(2, cause);
            ev.step();
        }
        db.exec("COMMIT", "marking the run aborted");
        db.close();
    } catch (const StoreError& e) {
        return e.what();
    }
    return "";
}

}  // namespace seatmark::store
