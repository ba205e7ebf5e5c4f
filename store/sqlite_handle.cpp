#include "store/sqlite_handle.h"

#include <cstdio>

#include <utility>

#include "store/frames_table.h"

namespace seatmark::store {

std::string error_text(const std::string& path, sqlite3* db, int rc, const char* what) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    return path + ": " + what + ": " + msg;
}

Db::Db(const std::string& path, int flags, const std::string& uri) : path_(path) {
    int rc = sqlite3_open_v2(uri.empty() ? path.c_str() : uri.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = error_text(path, db_, rc, "cannot open");
        sqlite3_close(db_);
        db_ = nullptr;
        throw StoreError(msg, rc & 0xff);
    }
    sqlite3_extended_result_codes(db_, 1);
    // Schema 4's frames read through `frames` as schema 3's did (store/frames_table.h).
    rc = register_frames_table(db_);
    if (rc != SQLITE_OK) {
        std::string msg = error_text(path, db_, rc, "registering the frames table");
        sqlite3_close(db_);
        db_ = nullptr;
        throw StoreError(msg, rc & 0xff);
    }
}

Db::~Db() { sqlite3_close(db_); }

Db::Db(Db&& o) noexcept : db_(std::exchange(o.db_, nullptr)), path_(std::move(o.path_)) {}

Db& Db::operator=(Db&& o) noexcept {
    if (this != &o) {
        sqlite3_close(db_);
        db_ = std::exchange(o.db_, nullptr);
        path_ = std::move(o.path_);
    }
    return *this;
}

void Db::fail(int rc, const char* what) const { throw StoreError(error_text(path_, db_, rc, what), rc & 0xff); }

void Db::exec(const char* sql, const char* what) const {
    char* err = nullptr;
    int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
        std::string msg = path_ + ": " + what + ": " + (err ? err : sqlite3_errstr(rc));
        sqlite3_free(err);
        throw StoreError(msg, rc & 0xff);
    }
}

int64_t Db::pragma_int(const char* name) const {
    Stmt s(*this, std::string("PRAGMA ") + name);
    return s.step() ? s.col_int(0) : 0;
}

void Db::close() {
    if (!db_) return;
    int rc = sqlite3_close(db_);
    if (rc != SQLITE_OK) fail(rc, "closing");  // SQLITE_BUSY: a statement is still open
    db_ = nullptr;
}

Stmt::Stmt(const Db& db, std::string_view sql, const char* what) : db_(&db), what_(what) {
    int rc = sqlite3_prepare_v3(db.get(), sql.data(), static_cast<int>(sql.size()),
                                SQLITE_PREPARE_PERSISTENT, &s_, nullptr);
    if (rc != SQLITE_OK) db.fail(rc, what);
}

Stmt::Stmt(Stmt&& o) noexcept : s_(std::exchange(o.s_, nullptr)), db_(o.db_), what_(o.what_) {}

Stmt& Stmt::operator=(Stmt&& o) noexcept {
    if (this != &o) {
        sqlite3_finalize(s_);
        s_ = std::exchange(o.s_, nullptr);
        db_ = o.db_;
        what_ = o.what_;
    }
    return *this;
}

void Stmt::check_bind(int rc) {
    if (rc != SQLITE_OK) db_->fail(rc, what_);
}

Stmt& Stmt::bind_text(int i, std::string_view v) {
    check_bind(sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
}

bool Stmt::step() {
    int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    StoreError err(error_text(db_->path(), db_->get(), rc, what_), rc & 0xff);
    sqlite3_reset(s_);
    throw err;
}

void Stmt::run() {
    while (step()) {
    }
    reset();
}

std::string Stmt::col_text(int c) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, c));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(s_, c))) : std::string();
}

std::optional<int64_t> Stmt::col_opt_int(int c) const {
    if (col_null(c)) return std::nullopt;
    return col_int(c);
}

std::optional<std::string> Stmt::col_opt_text(int c) const {
    if (col_null(c)) return std::nullopt;
    return col_text(c);
}

std::string file_uri(const std::string& path, const char* query) {
    std::string u = "file:";
    for (unsigned char c : path) {
        if (c == '%' || c == '?' || c == '#' || c < 0x20 || c >= 0x7f) {
            char b[4];
            std::snprintf(b, sizeof b, "%%%02X", c);
            u += b;
        } else {
            u += char(c);
        }
    }
    return u + "?" + query;
}

}  // namespace seatmark::store
