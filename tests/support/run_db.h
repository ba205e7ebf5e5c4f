#pragma once
// What tests of real runs share: a free loopback TCP port for a listener the test starts, and one
// value read from a run's database after it finished.
#include <doctest/doctest.h>

#include <utility>  // before Asio

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "store/frames_table.h"

namespace seatmark::test {

// A port free now on 127.0.0.1 (the kernel's pick; released before the listener binds it).
inline uint16_t free_port() {
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    return a.local_endpoint().port();
}

// One value ("" for NULL or no row) from a finished run's database.
inline std::string q(const std::string& db, const std::string& sql) {
    sqlite3* h = nullptr;
    REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    store::register_frames_table(h);  // `frames` of a schema-4 file (store/frames_table.h)
    sqlite3_stmt* st = nullptr;
    REQUIRE_MESSAGE(sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK, sqlite3_errmsg(h));
    std::string out;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(h);
    return out;
}

// The same as an integer; -1 for NULL or no row.
inline int64_t qi(const std::string& db, const std::string& sql) {
    const auto v = q(db, sql);
    return v.empty() ? -1 : std::stoll(v);
}

}  // namespace seatmark::test
