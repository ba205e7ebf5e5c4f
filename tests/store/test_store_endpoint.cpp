// The endpoint tables of schema 3 (store/endpoint_rows.h): logons, arrivals and SSIM samples
// round-trip; a file written before the tables existed reads as having no launched sessions.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "store/sqlite_handle.h"
#include "store/store_reader.h"
#include "store/store_writer.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::store;

TEST_CASE("store: endpoint logons, arrivals and SSIM round-trip") {
    test::TempDir dir;
    const std::string db = dir.file("run.db");
    {
        StoreWriter w = StoreWriter::open(db);
        w.begin_run({.plan_text = "", .plan_path = "", .tool_version = "t", .host = "ctl"});
        w.add_session({.id = 1, .profile = "p", .pid = 10, .device = {}, .started_ns = 5, .host = "vdi"});
        EndpointLogonRow ok;
        ok.id = 1;
        ok.launcher = "launch-1";
        ok.rdp_host = "127.0.0.1:33890";
        ok.host = "vdi";
        ok.user = "u1";
        ok.session_id = 1;
        ok.connect_ns = 100;
        ok.logon_ms = 1234.5;
        w.add_endpoint_logon(ok);  // first while it lasts, then whole again when it ended
        ok.ended_ns = 900;
        ok.codec = "remotefx";
        ok.payload_bytes = 4096;
        ok.bytes_per_s = 2048;
        ok.figures.rendered = 10;
        ok.figures.arrivals = 8;
        ok.figures.fps = 8;
        ok.figures.delivered_ratio = 0.8;
        ok.figures.latency_p95_ms = 31;
        ok.figures.ssim_samples = 1;
        ok.figures.ssim_mean = 0.97;
        w.add_endpoint_logon(ok);
        EndpointLogonRow bad;
        bad.id = 2;
        bad.launcher = "launch-1";
        bad.rdp_host = "127.0.0.1:33890";
        bad.host = "vdi";
        bad.user = "u2";
        bad.connect_ns = 200;
        bad.ended_ns = 300;
        bad.fault = "logon";
        bad.fault_detail = "wrong password";
        w.add_endpoint_logon(bad);
        w.add_endpoint_batch({1, {{3, 400}, {4, 433}, {3, 999}}, {{3, 0.97}}});  // a repeated number is kept once
        w.end_run(RunStatus::finished, 0, 1);
        w.finish();
    }
    StoreReader r(db);
    CHECK(r.has_endpoint_tables());
    const auto logons = r.endpoint_logons();
    REQUIRE(logons.size() == 2);
    CHECK(logons[0].user == "u1");
    CHECK(logons[0].session_id == 1);
    CHECK(*logons[0].logon_ms == doctest::Approx(1234.5));
    CHECK(logons[0].ended_ns == 900);
    CHECK(logons[0].codec == "remotefx");
    CHECK(logons[0].figures.arrivals == 8);
    CHECK(logons[0].figures.delivered_ratio == doctest::Approx(0.8));
    CHECK(std::isnan(logons[0].figures.latency_p50_ms));  // NULL reads back as NaN
    CHECK(logons[1].fault == "logon");
    CHECK(logons[1].fault_detail == "wrong password");
    CHECK_FALSE(logons[1].session_id);
    CHECK_FALSE(logons[1].logon_ms);
    const auto series = r.endpoint_series();
    REQUIRE(series.count(1));
    REQUIRE(series.at(1).arrivals.size() == 2);
    CHECK(series.at(1).arrivals[0].arrival_ns == 400);
    REQUIRE(series.at(1).ssim.size() == 1);
    CHECK(series.at(1).ssim[0].ssim == doctest::Approx(0.97));
}

TEST_CASE("store: a file without the endpoint tables reads as nothing launched") {
    test::TempDir dir;
    const std::string db = dir.file("run.db");
    {
        StoreWriter w = StoreWriter::open(db);
        w.begin_run({.plan_text = "", .plan_path = "", .tool_version = "t", .host = "ctl"});
        w.end_run(RunStatus::finished, 0, 0);
        w.finish();
    }
    {
        Db d(db, SQLITE_OPEN_READWRITE);
        d.exec("DROP TABLE endpoint_logons; DROP TABLE endpoint_arrivals; DROP TABLE endpoint_ssim;", "dropping");
    }
    StoreReader r(db);
    CHECK_FALSE(r.has_endpoint_tables());
    CHECK(r.endpoint_logons().empty());
    CHECK(r.endpoint_series().empty());
}
