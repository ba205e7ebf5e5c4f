// Delivery to real sinks (push/deliver.h): a real InfluxDB 1.x from Debian started here on
// loopback, and a small HTTP server in this file that answers 500, never answers, or takes the
// records. Nothing is lost: what a sink did not take stays pending and a later delivery sends it
// exactly once (the ledger beside the database).
#include <doctest/doctest.h>

#include <utility>  // before Asio

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "push/deliver.h"
#include "push/http_post.h"
#include "push/push_format.h"
#include "store/store_reader.h"
#include "store/store_writer.h"
#include "tests/support/process.h"
#include "tests/support/run_db.h"
#include "tests/support/skip.h"

using namespace seatmark;
using namespace seatmark::push;
using namespace std::chrono_literals;

namespace {

// Three steps (pooled + one window each) and three ended sessions: 1 + 6 + 3 = 10 records.
std::string write_run(const test::TempDir& dir) {
    const std::string path = dir.file("run.db");
    auto w = store::StoreWriter::open(path);
    w.begin_run({.plan_text = "name = \"p\"", .plan_path = "", .tool_version = "t", .host = "node1",
                 .started_unix_ns = 1'700'000'000'000'000'000, .mono_origin_ns = 0});
    for (int step = 0; step < 3; ++step)
        for (int repeat : {store::pooled_repeat, 0}) {
            store::VerdictRow v;
            v.step_idx = step;
            v.repeat = repeat;
            v.target_sessions = step + 1;
            v.t0_ns = int64_t(step) * 10'000'000'000;
            v.t1_ns = v.t0_ns + 5'000'000'000;
            v.pass = step < 2;
            v.sessions = step + 1;
            v.frames = 300 * (step + 1);
            v.fps_median = 60.0 - step * 0.25;
            v.p95_worst_ms = 16.5 + step;
            w.add_verdict(v);
        }
    for (int id = 1; id <= 3; ++id) {
        w.add_session({.id = id, .profile = "ci-tiny", .pid = id, .device = {}, .started_ns = 0});
        w.update_session_end({.id = id, .ended_ns = 30'000'000'000 + id, .reason = store::SessionEnd::ok,
                              .frames_received = 1000 + id});
    }
    w.end_run(store::RunStatus::finished, 1'700'000'031'000'000'000, 2);
    w.finish();
    return path;
}

// A loopback HTTP server answering each POST as `mode` says: 200 (keeping the body), 500, or never.
struct Sink {
    enum Mode { ok, error500, silent };
    std::atomic<Mode> mode{ok};
    std::mutex m;
    std::vector<std::string> bodies;
    std::vector<std::string> auth;
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor acceptor{io, {boost::asio::ip::make_address("127.0.0.1"), 0}};
    std::atomic<bool> stop{false};
    std::thread thread;

    Sink() {
        thread = std::thread([this] {
            while (!stop) {
                boost::system::error_code ec;
                boost::asio::ip::tcp::socket s(io);
                acceptor.accept(s, ec);
                if (ec || stop) return;
                namespace http = boost::beast::http;
                boost::beast::flat_buffer buf;
                http::request<http::string_body> req;
                http::read(s, buf, req, ec);
                if (ec) continue;
                if (mode == silent) {
                    std::this_thread::sleep_for(1500ms);  // longer than the client's timeout
                    continue;
                }
                http::response<http::string_body> res{mode == ok ? http::status::no_content
                                                                 : http::status::internal_server_error, 11};
                if (mode == ok) {
                    std::lock_guard l(m);
                    bodies.push_back(req.body());
                    auth.push_back(std::string(req[http::field::authorization]));
                }
                res.prepare_payload();
                http::write(s, res, ec);
            }
        });
    }
    ~Sink() {
        stop = true;
        boost::system::error_code ec;
        boost::asio::ip::tcp::socket s(io);
        s.connect(acceptor.local_endpoint(), ec);  // wakes accept()
        thread.join();
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()) + "/ingest"; }
};

size_t lines(const std::vector<std::string>& bodies) {
    size_t n = 0;
    for (const auto& b : bodies) n += size_t(std::count(b.begin(), b.end(), '\n'));
    return n;
}

}  // namespace

TEST_CASE("push: a JSON sink that answers 500, then never, loses nothing, and a later delivery sends each record once") {
    test::TempDir dir;
    const std::string db = write_run(dir);
    const auto records = collect_records(store::StoreReader(db));
    REQUIRE(records.size() == 10);
    Sink sink;
    const PushTarget t = parse_push_url(sink.url(), "--push");
    PushOptions o;
    o.timeout = 500ms;
    o.wait_s = 1;
    o.batch = 4;
    o.headers = {{"Authorization", "Bearer s3cret"}};

    sink.mode = Sink::error500;
    {
        Ledger ledger(db, t.url);
        const Delivery d = deliver(records, t, ledger, o);
        CHECK(d.sent_now == 0);
        CHECK(d.pending == 10);
        CHECK(d.attempts >= 2);  // retried with backoff within wait_s
        CHECK(d.error.find("500") == 0);
    }
    {
        // A server that takes requests and never answers: its own, so that the requests it holds
        // are not read later by the sink above (a server that processes a request after the client
        // gave up gets it again later: delivery is exactly once only when answers arrive in time;
        // seatmark_record lets such an ingest drop the repeat).
        Sink slow;
        slow.mode = Sink::silent;
        const PushTarget st = parse_push_url(slow.url(), "--push");
        Ledger ledger(db, st.url);
        const Delivery d = deliver(records, st, ledger, o);
        CHECK(d.pending == 10);
        CHECK(d.error.find("no answer") != std::string::npos);
    }
    CHECK(ledger_urls(db).size() == 2);  // both sinks are named beside the database
    sink.mode = Sink::ok;
    {
        Ledger ledger(db, t.url);  // a later run of the tool: the ledger is read from disk
        const Delivery d = deliver(records, t, ledger, o);
        CHECK(d.sent_now == 10);
        CHECK(d.pending == 0);
        CHECK(d.error.empty());
    }
    {
        Ledger ledger(db, t.url);
        const Delivery d = deliver(records, t, ledger, o);
        CHECK(d.sent_now == 0);  // exactly once: nothing is sent twice
        CHECK(d.attempts == 0);
    }
    std::lock_guard l(sink.m);
    CHECK(sink.bodies.size() == 3);  // batches of 4, 4, 2
    CHECK(lines(sink.bodies) == 10);
    for (const auto& a : sink.auth) CHECK(a == "Bearer s3cret");
    std::set<std::string> keys;
    for (const auto& b : sink.bodies) {
        std::istringstream in(b);
        for (std::string line; std::getline(in, line);) keys.insert(nlohmann::json::parse(line)["seatmark_record"]);
    }
    CHECK(keys.size() == 10);
}

TEST_CASE("push: a sink that is down keeps every record pending") {
    test::TempDir dir;
    const std::string db = write_run(dir);
    const auto records = collect_records(store::StoreReader(db));
    const PushTarget t = parse_push_url("http://127.0.0.1:" + std::to_string(test::free_port()) + "/x", "--push");
    Ledger ledger(db, t.url);
    PushOptions o;
    o.timeout = 500ms;
    o.wait_s = 0.5;
    const Delivery d = deliver(records, t, ledger, o);
    CHECK(d.pending == 10);
    CHECK(d.sent_now == 0);
    CHECK_FALSE(d.error.empty());
}

TEST_CASE("push: a real InfluxDB 1.x takes the records and a query reads back the run's figures") {
    if (!std::filesystem::exists("/usr/bin/influxd")) SEATMARK_SKIP("influxd not installed (Debian package influxdb)");
    test::TempDir dir;
    const std::string db = write_run(dir);
    const auto records = collect_records(store::StoreReader(db));
    const uint16_t port = test::free_port(), meta_port = test::free_port();
    const std::string conf = dir.file("influxdb.conf");
    test::write_file(conf, "reporting-disabled = true\nbind-address = \"127.0.0.1:" + std::to_string(meta_port) +
                               "\"\n[meta]\ndir = \"" + dir.file("meta") + "\"\n[data]\ndir = \"" + dir.file("data") +
                               "\"\nwal-dir = \"" + dir.file("wal") + "\"\n[http]\nbind-address = \"127.0.0.1:" +
                               std::to_string(port) + "\"\n[monitor]\nstore-enabled = false\n");
    test::BackgroundProcess influxd({"/usr/bin/influxd", "-config", conf});
    const PushTarget query = parse_push_url("http://127.0.0.1:" + std::to_string(port) + "/query", "--push");
    auto q = [&](const std::string& sql) {
        PushTarget t = query;
        std::string enc;
        for (unsigned char c : sql) {
            char b[4];
            std::snprintf(b, sizeof b, "%%%02X", c);
            enc += std::isalnum(c) ? std::string(1, char(c)) : std::string(b);
        }
        t.target = "/query?db=seatmark&epoch=ns&q=" + enc;
        return http_post(t, "", "application/x-www-form-urlencoded", {}, 5000ms);
    };
    REQUIRE_MESSAGE(test::wait_until(30, [&] { return q("CREATE DATABASE seatmark").delivered; }),
                    "influxd did not answer on 127.0.0.1:" << port << ": " << influxd.err_so_far());
    const PushTarget t = parse_push_url("influx://127.0.0.1:" + std::to_string(port) + "/seatmark", "--push");
    Ledger ledger(db, t.url);
    PushOptions o;
    o.wait_s = 5;
    const Delivery d = deliver(records, t, ledger, o);
    CHECK_MESSAGE(d.pending == 0, d.error);
    CHECK(d.sent_now == 10);

    const store::StoreReader reader(db);
    const auto verdicts = reader.verdicts();
    const auto steps = nlohmann::json::parse(q("SELECT fps_median, p95_worst_ms, pass, frames FROM seatmark_step").body);
    const auto& rows = steps["results"][0]["series"][0]["values"];
    REQUIRE(rows.size() == 3);
    size_t i = 0;
    for (const auto& v : verdicts) {
        if (v.repeat != store::pooled_repeat) continue;
        CHECK(rows[i][1].get<double>() == v.fps_median);
        CHECK(rows[i][2].get<double>() == v.p95_worst_ms);
        CHECK(rows[i][3].get<bool>() == v.pass);
        CHECK(rows[i][4].get<int64_t>() == v.frames);
        ++i;
    }
    const auto counts = nlohmann::json::parse(
        q("SELECT count(frames_received) FROM seatmark_session; SELECT count(frames) FROM seatmark_window; "
          "SELECT max_density FROM seatmark_run").body);
    CHECK(counts["results"][0]["series"][0]["values"][0][1] == 3);
    CHECK(counts["results"][1]["series"][0]["values"][0][1] == 3);
    CHECK(counts["results"][2]["series"][0]["values"][0][1] == 2);
    MESSAGE("influxd took " << d.sent_now << " points; read back 3 steps, 3 windows, 3 sessions, 1 run");
    influxd.signal(SIGTERM);
    influxd.wait(30);
}
