#include "store/frames_table.h"

#include <new>
#include <string>

#include "store/frame_block.h"
#include "store/block_check.h"

namespace seatmark::store {

namespace {

enum Column { c_session, c_seq, c_t_begin, c_cpu, c_gpu, c_interval, c_latency, c_stretch, c_mode, c_flags,
              c_begin_interval, c_t_present };

// Which constraints xBestIndex handed to xFilter (idxNum bits), in argv order.
enum Use { use_session = 1, use_t_lo = 2, use_t_hi = 4, use_row_lo = 8, use_row_hi = 16, use_row_eq = 32 };

struct Table {
    sqlite3_vtab base{};
    sqlite3* db = nullptr;
};

struct Cursor {
    sqlite3_vtab_cursor base{};
    sqlite3_stmt* blocks = nullptr;  // rowid, session_id, frames, records of the blocks in range
    const unsigned char* blob = nullptr;
    int64_t block = 0, session = 0;
    size_t count = 0, at = 0;
    FrameRecord f;
    bool eof = true;
};

int fail(Cursor* c, const std::string& what) {
    sqlite3_free(c->base.pVtab->zErrMsg);
    c->base.pVtab->zErrMsg = sqlite3_mprintf("%s", what.c_str());
    return SQLITE_CORRUPT;
}

int x_connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char**) {
    int rc = sqlite3_declare_vtab(db,
                                  "CREATE TABLE x(session_id INTEGER, seq INTEGER, t_begin_ns INTEGER, cpu_ns INTEGER,"
                                  " gpu_ns INTEGER, interval_ns INTEGER, latency_ns INTEGER, stretch INTEGER,"
                                  " mode INTEGER, flags INTEGER, begin_interval_ns INTEGER, t_present_ns INTEGER)");
    if (rc != SQLITE_OK) return rc;
    auto* t = new (std::nothrow) Table;
    if (!t) return SQLITE_NOMEM;
    t->db = db;
    *out = &t->base;
    return SQLITE_OK;
}

int x_disconnect(sqlite3_vtab* v) {
    delete reinterpret_cast<Table*>(v);
    return SQLITE_OK;
}

// Takes the session, t_begin and rowid bounds to select blocks; SQLite still checks every row
// against every constraint (nothing is omitted), so a block-level bound only has to be wide
// enough: > reads as >=, < as <=, and t_begin = x as t_begin >= x.
int x_best_index(sqlite3_vtab*, sqlite3_index_info* info) {
    int slot[6] = {-1, -1, -1, -1, -1, -1};  // by bit of Use
    for (int i = 0; i < info->nConstraint; ++i) {
        const auto& c = info->aConstraint[i];
        if (!c.usable) continue;
        const bool lo = c.op == SQLITE_INDEX_CONSTRAINT_GE || c.op == SQLITE_INDEX_CONSTRAINT_GT;
        const bool hi = c.op == SQLITE_INDEX_CONSTRAINT_LE || c.op == SQLITE_INDEX_CONSTRAINT_LT;
        const bool eq = c.op == SQLITE_INDEX_CONSTRAINT_EQ;
        if (c.iColumn == c_session && eq) slot[0] = i;
        else if (c.iColumn == c_t_begin && (lo || eq)) slot[1] = i;
        else if (c.iColumn == c_t_begin && hi) slot[2] = i;
        else if (c.iColumn == -1 && lo) slot[3] = i;
        else if (c.iColumn == -1 && hi) slot[4] = i;
        else if (c.iColumn == -1 && eq) slot[5] = i;
    }
    int argv = 0, used = 0;
    for (int k = 0; k < 6; ++k) {
        if (slot[k] < 0) continue;
        info->aConstraintUsage[slot[k]].argvIndex = ++argv;
        used |= 1 << k;
    }
    info->idxNum = used;
    info->estimatedCost = (used & (use_session | use_row_eq)) ? 1e3 : (used ? 1e5 : 1e7);
    info->estimatedRows = (used & (use_session | use_row_eq)) ? 1000 : 1000000;
    return SQLITE_OK;
}

int x_open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
    auto* c = new (std::nothrow) Cursor;
    if (!c) return SQLITE_NOMEM;
    *out = &c->base;
    return SQLITE_OK;
}

int x_close(sqlite3_vtab_cursor* base) {
    auto* c = reinterpret_cast<Cursor*>(base);
    sqlite3_finalize(c->blocks);
    delete c;
    return SQLITE_OK;
}

// Steps to the next block with frames; checks it before any of its frames is read.
int next_block(Cursor* c) {
    for (;;) {
        int rc = sqlite3_step(c->blocks);
        if (rc == SQLITE_DONE) {
            c->eof = true;
            return SQLITE_OK;
        }
        if (rc != SQLITE_ROW) return rc;
        c->block = sqlite3_column_int64(c->blocks, 0);
        c->session = sqlite3_column_int64(c->blocks, 1);
        const int64_t expected = sqlite3_column_int64(c->blocks, 2);
        std::string bad;
        c->blob = checked_block(c->blocks, 3, c->block, c->session, expected, bad);
        if (!c->blob) return fail(c, bad);
        c->count = static_cast<size_t>(expected);
        c->at = 0;
        if (c->count == 0) continue;
        c->f = decode_frame(c->blob, 0);
        return SQLITE_OK;
    }
}

int x_filter(sqlite3_vtab_cursor* base, int idx, const char*, int argc, sqlite3_value** argv) {
    auto* c = reinterpret_cast<Cursor*>(base);
    sqlite3_finalize(c->blocks);
    c->blocks = nullptr;
    c->eof = false;
    std::string sql = "SELECT rowid, session_id, frames, records FROM frame_blocks WHERE 1";
    if (idx & use_session) sql += " AND session_id = ?";
    if (idx & use_t_lo) sql += " AND t_begin_max_ns >= ?";
    if (idx & use_t_hi) sql += " AND t_begin_min_ns <= ?";
    if (idx & use_row_lo) sql += " AND rowid >= ?";
    if (idx & use_row_hi) sql += " AND rowid <= ?";
    if (idx & use_row_eq) sql += " AND rowid = ?";
    // A session's blocks follow each other in time: its index (schema.cpp) reads them in order.
    sql += (idx & use_session) ? " ORDER BY session_id, t_begin_max_ns" : " ORDER BY rowid";
    sqlite3* db = reinterpret_cast<Table*>(base->pVtab)->db;
    int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &c->blocks, nullptr);
    if (rc != SQLITE_OK) {
        sqlite3_free(base->pVtab->zErrMsg);
        base->pVtab->zErrMsg = sqlite3_mprintf("reading frame_blocks: %s", sqlite3_errmsg(db));
        return rc;
    }
    for (int i = 0; i < argc; ++i) sqlite3_bind_value(c->blocks, i + 1, argv[i]);
    return next_block(c);
}

int x_next(sqlite3_vtab_cursor* base) {
    auto* c = reinterpret_cast<Cursor*>(base);
    if (++c->at < c->count) {
        c->f = decode_frame(c->blob, c->at);
        return SQLITE_OK;
    }
    return next_block(c);
}

int x_eof(sqlite3_vtab_cursor* base) { return reinterpret_cast<Cursor*>(base)->eof; }

int x_column(sqlite3_vtab_cursor* base, sqlite3_context* ctx, int col) {
    const auto* c = reinterpret_cast<Cursor*>(base);
    const FrameRecord& f = c->f;
    int64_t v = 0;
    switch (col) {
        case c_session: v = c->session; break;
        case c_seq: v = static_cast<int64_t>(f.seq); break;
        case c_t_begin: v = f.t_begin_ns; break;
        case c_cpu: v = f.cpu_ns; break;
        case c_gpu: v = f.gpu_ns; break;
        case c_interval: v = f.interval_ns; break;
        case c_latency: v = f.latency_ns; break;
        case c_stretch: v = f.stretch; break;
        case c_mode: v = f.mode; break;
        case c_flags: v = f.flags; break;
        case c_begin_interval: v = f.begin_interval_ns; break;
        case c_t_present: v = f.t_present_ns; break;
        default: break;
    }
    sqlite3_result_int64(ctx, v);
    return SQLITE_OK;
}

int x_rowid(sqlite3_vtab_cursor* base, sqlite_int64* out) {
    *out = reinterpret_cast<Cursor*>(base)->block;
    return SQLITE_OK;
}

sqlite3_module module_of() {
    sqlite3_module m{};
    m.iVersion = 0;
    m.xCreate = nullptr;  // eponymous only: `frames` exists without CREATE VIRTUAL TABLE
    m.xConnect = x_connect;
    m.xBestIndex = x_best_index;
    m.xDisconnect = x_disconnect;
    m.xDestroy = x_disconnect;
    m.xOpen = x_open;
    m.xClose = x_close;
    m.xFilter = x_filter;
    m.xNext = x_next;
    m.xEof = x_eof;
    m.xColumn = x_column;
    m.xRowid = x_rowid;
    return m;
}

const sqlite3_module frames_module = module_of();

}  // namespace

int register_frames_table(sqlite3* db) { return sqlite3_create_module_v2(db, "frames", &frames_module, nullptr, nullptr); }

}  // namespace seatmark::store
