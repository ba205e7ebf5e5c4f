#pragma once
// A real InfluxDB 1.x (Debian's influxd) on loopback ports of its own, with its files in a test's
// folder, stopped when the test ends; query() asks its /query endpoint.
#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "push/http_post.h"
#include "push/push_target.h"
#include "tests/support/process.h"
#include "tests/support/run_db.h"

namespace seatmark::test {

inline bool influxd_installed() { return std::filesystem::exists("/usr/bin/influxd"); }

struct Influxd {
    uint16_t port = free_port(), meta_port = free_port();
    std::string conf;
    std::unique_ptr<BackgroundProcess> process;

    // Starts influxd with its files under `dir` and creates database `db`; fails the test if it
    // does not answer within 30 s.
    Influxd(const TempDir& dir, const std::string& db) : conf(dir.file("influxdb.conf")) {
        write_file(conf, "reporting-disabled = true\nbind-address = \"127.0.0.1:" + std::to_string(meta_port) +
                             "\"\n[meta]\ndir = \"" + dir.file("meta") + "\"\n[data]\ndir = \"" + dir.file("data") +
                             "\"\nwal-dir = \"" + dir.file("wal") + "\"\n[http]\nbind-address = \"127.0.0.1:" +
                             std::to_string(port) + "\"\n[monitor]\nstore-enabled = false\n");
        process = std::make_unique<BackgroundProcess>(std::vector<std::string>{"/usr/bin/influxd", "-config", conf});
        REQUIRE_MESSAGE(wait_until(30, [&] { return query(db, "CREATE DATABASE " + db).delivered; }),
                        "influxd did not answer on 127.0.0.1:" << port << ": " << process->err_so_far());
    }
    ~Influxd() {
        process->signal(SIGTERM);
        process->wait(30);
    }
    std::string write_url(const std::string& db) const { return "influx://127.0.0.1:" + std::to_string(port) + "/" + db; }

    // POST /query?db=DB&epoch=ns&q=SQL (InfluxQL; several statements separated by ';').
    push::PostResult query(const std::string& db, const std::string& sql) const {
        push::PushTarget t = push::parse_push_url("http://127.0.0.1:" + std::to_string(port) + "/query", "--push");
        std::string enc;
        for (unsigned char c : sql) {
            char b[4];
            std::snprintf(b, sizeof b, "%%%02X", c);
            enc += std::isalnum(c) ? std::string(1, char(c)) : std::string(b);
        }
        t.target = "/query?db=" + db + "&epoch=ns&q=" + enc;
        return push::http_post(t, "", "application/x-www-form-urlencoded", {}, std::chrono::milliseconds(5000));
    }
};

}  // namespace seatmark::test
