#pragma once
// RAII for the SQLite C API: one connection (Db) and one prepared statement (Stmt).
// Every error names the database file as the caller gave it and carries SQLite's own message.
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace seatmark::store {

// A SQLite failure while reading or writing a run database:
// "<path>: <what we were doing>: <SQLite's message>".
struct StoreError : std::runtime_error {
    StoreError(const std::string& what, int code) : std::runtime_error(what), code(code) {}
    int code;  // SQLite primary result code (SQLITE_FULL, SQLITE_CORRUPT, ...)
};

// One connection. Not copyable; closed by the destructor (or close(), which reports errors).
class Db {
public:
    Db() = default;
    // sqlite3_open_v2; throws StoreError. `uri` (with SQLITE_OPEN_URI), when given, is what is
    // opened; messages still name `path`.
    Db(const std::string& path, int flags, const std::string& uri = "");
    ~Db();
    Db(Db&& o) noexcept;
    Db& operator=(Db&& o) noexcept;
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;

    sqlite3* get() const { return db_; }
    const std::string& path() const { return path_; }
    explicit operator bool() const { return db_ != nullptr; }

    void exec(const char* sql, const char* what) const;      // throws StoreError
    int64_t pragma_int(const char* name) const;              // "PRAGMA <name>" -> first column
    [[noreturn]] void fail(int rc, const char* what) const;  // throws with errmsg
    void close();                                            // throws if sqlite3_close fails

private:
    sqlite3* db_ = nullptr;
    std::string path_;
};

// "file:" URI of a path, with the characters a URI gives meaning to escaped, and `query`
// (e.g. "immutable=1", "mode=ro") after it.
std::string file_uri(const std::string& path, const char* query);

// "<path>: <what>: <message>" for rc on db (db may be null).
std::string error_text(const std::string& path, sqlite3* db, int rc, const char* what);

// One prepared statement. Bind indexes are 1-based, column indexes 0-based (as in SQLite).
class Stmt {
public:
    Stmt() = default;
    // sqlite3_prepare_v3 (persistent); throws. `what` names the statement's job in errors
    // ("<path>: storing frames: database or disk is full").
    Stmt(const Db& db, std::string_view sql, const char* what = "reading");
    ~Stmt() { sqlite3_finalize(s_); }
    Stmt(Stmt&& o) noexcept;
    Stmt& operator=(Stmt&& o) noexcept;
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;

    Stmt& bind_int(int i, int64_t v) { check_bind(sqlite3_bind_int64(s_, i, v)); return *this; }
    Stmt& bind_real(int i, double v) { check_bind(sqlite3_bind_double(s_, i, v)); return *this; }
    Stmt& bind_text(int i, std::string_view v);
    // The bytes must stay put until the next bind of `i` or the statement's end (SQLITE_STATIC).
    Stmt& bind_blob(int i, const void* p, size_t n) {
        check_bind(sqlite3_bind_blob64(s_, i, p, n, SQLITE_STATIC));
        return *this;
    }
    Stmt& bind_null(int i) { check_bind(sqlite3_bind_null(s_, i)); return *this; }
    Stmt& bind_opt_int(int i, const std::optional<int64_t>& v) { return v ? bind_int(i, *v) : bind_null(i); }
    Stmt& bind_opt_text(int i, const std::optional<std::string>& v) { return v ? bind_text(i, *v) : bind_null(i); }

    bool step();  // true: a row is ready; false: done. Throws StoreError on failure (and resets).
    void run();   // step() to completion of a statement without rows, then reset()
    void reset() { sqlite3_reset(s_); }
    sqlite3_stmt* get() const { return s_; }

    int64_t col_int(int c) const { return sqlite3_column_int64(s_, c); }
    double col_real(int c) const { return sqlite3_column_double(s_, c); }
    int col_type(int c) const { return sqlite3_column_type(s_, c); }  // SQLITE_NULL, SQLITE_INTEGER, ...
    std::string col_text(int c) const;
    bool col_null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
    std::optional<int64_t> col_opt_int(int c) const;
    std::optional<std::string> col_opt_text(int c) const;

private:
    void check_bind(int rc);
    sqlite3_stmt* s_ = nullptr;
    const Db* db_ = nullptr;  // for error messages; must outlive the statement
    const char* what_ = "";
};

}  // namespace seatmark::store
