// The live API against a fake run (LiveSource) on a real socket: routing, limits,
// token, port fallback, event stream, Prometheus text. The real orchestrator is
// in test_live_api_run.cpp.
#include <doctest/doctest.h>

#include <utility>  // before Asio

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <cmath>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/errors.h"
#include "orchestrator/live_api.h"
#include "core/live_json.h"
#include "orchestrator/live_routes.h"
#include "tests/orchestrator/http_test_client.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::orchestrator;
using namespace seatmark::test;

namespace {

class FakeSource : public LiveSource {
public:
    core::LiveState live_state() override {
        ++calls;
        core::LiveState s;
        s.plan = "fake \"plan\"";
        s.db_path = "/tmp/x.db";
        s.host = "h";
        s.elapsed_s = 12.5;
        s.step = 2;
        s.steps = 3;
        s.target = 2;
        s.alive = 2;
        s.phase = "measuring";
        s.phase_left_s = 1.5;
        s.max_density_so_far = 1;
        s.host_cpu_pct = 40;
        s.host_mem_used_bytes = 1e9;
        s.host_mem_total_bytes = 8e9;
        s.gpu_util_pct = s.gpu_mem_used_bytes = s.gpu_mem_total_bytes = NAN;
        s.gpu_backend = "none";
        for (uint32_t i = 0; i < 2; ++i) {
            core::LiveSession x;
            x.id = i;
            x.profile = "ci-tiny";
            x.pid = 100 + i;
            x.state = "running";
            x.frames = 500 + i;
            x.fps = 60 - i * 30;
            x.p95_ms = i ? 45 : 17;
            x.sla_ok = i == 0;
            x.cpu_pct = 50;
            x.rss_bytes = 1 << 20;
            x.gpu_share_pct = NAN;
            s.sessions.push_back(x);
        }
        s.finished_steps.push_back({0, 1, true, 60, 17, ""});
        s.frames_stored = 1001;
        return s;
    }
    std::vector<core::LiveFrame> live_frames(uint32_t, uint64_t since, size_t max) override {
        std::vector<core::LiveFrame> out;
        for (uint64_t q = std::max<uint64_t>(since, 500 > max ? 500 - max : 0); q < 500; ++q)
            out.push_back({q, int64_t(q) * 16'000'000, q % 100 == 0 ? NAN : 16.0});
        return out;
    }
    int calls = 0;
};

// A LiveApi on its own event loop thread, as the run controller would drive it.
struct Served {
    explicit Served(LiveApiOptions o = {}) {
        if (o.listen == default_listen) o.listen = "127.0.0.1:0";
        api = std::make_unique<LiveApi>(o);
        api->started(io, source);
        thread = std::thread([this] { io.run(); });
    }
    ~Served() {
        boost::asio::post(io, [this] {
            api->finished();
            io.stop();
        });
        thread.join();
    }
    void event(const core::RunEvent& e) {
        std::promise<void> done;
        boost::asio::post(io, [&] {
            api->event(e);
            done.set_value();
        });
        done.get_future().wait();
    }
    uint16_t port() const { return api->port(); }

    boost::asio::io_context io;
    FakeSource source;
    std::unique_ptr<LiveApi> api;
    std::thread thread;
};

}  // namespace

TEST_CASE("GET /api/v1/state: the documented fields, readable back by the monitor") {
    Served s;
    auto r = http_get(s.port(), "/api/v1/state");
    REQUIRE(r.status == 200);
    CHECK(r.headers["content-type"] == "application/json");
    auto j = nlohmann::json::parse(r.body);
    for (const char* k : {"schema", "run", "step", "verdict", "host", "gpu", "frames", "sessions", "events"})
        CHECK_MESSAGE(j.contains(k), k);
    for (const char* k : {"plan", "db", "host", "status", "started_unix_ns", "mono_start_ns", "elapsed_s"})
        CHECK_MESSAGE(j["run"].contains(k), k);
    CHECK(j["step"]["current"] == 2);
    CHECK(j["step"]["count"] == 3);
    CHECK(j["verdict"]["steps"][0]["step"] == 1);
    CHECK(j["gpu"]["util_pct"].is_null());  // NaN: not measured
    REQUIRE(j["sessions"].size() == 2);
    for (const char* k : {"id", "profile", "pid", "state", "fps", "p95_ms", "sla_ok", "gpu_share_pct", "cpu_pct"})
        CHECK_MESSAGE(j["sessions"][0].contains(k), k);
    core::LiveState back = core::state_from_json(j);
    CHECK(back.plan == "fake \"plan\"");
    CHECK(back.sessions.size() == 2);
    CHECK(back.sessions[1].p95_ms == doctest::Approx(45));
    CHECK_FALSE(back.sessions[1].sla_ok);
    CHECK(std::isnan(back.gpu_util_pct));
    CHECK(back.finished_steps.at(0).index == 0);
    CHECK(back.finished_steps.at(0).pass);
}

TEST_CASE("GET /api/v1/frames is bounded and checks its query") {
    Served s;
    auto r = http_get(s.port(), "/api/v1/frames?session=1&since=450");
    REQUIRE(r.status == 200);
    auto j = nlohmann::json::parse(r.body);
    CHECK(j["count"] == 50);
    CHECK(j["next"] == 500);
    auto frames = core::frames_from_json(j);
    REQUIRE(frames.size() == 50);
    CHECK(frames.front().seq == 450);
    auto m = nlohmann::json::parse(http_get(s.port(), "/api/v1/frames?session=0&max=10").body);
    CHECK(m["count"] == 10);
    CHECK(std::isnan(core::frames_from_json(m).back().interval_ms) == false);
    CHECK(http_get(s.port(), "/api/v1/frames").status == 400);                      // session required
    CHECK(http_get(s.port(), "/api/v1/frames?session=abc").status == 400);
    CHECK(http_get(s.port(), "/api/v1/frames?session=-1").status == 400);
    CHECK(http_get(s.port(), "/api/v1/frames?session=99999999999999999999").status == 400);
    CHECK(http_get(s.port(), "/api/v1/frames?session=0&max=0").status == 400);
    CHECK(http_get(s.port(), "/api/v1/frames?session=0&max=100000").status == 400);
    CHECK(http_get(s.port(), "/api/v1/frames?session=0&session=1").status == 400);
    CHECK(http_get(s.port(), "/api/v1/frames?session=0&file=/etc/passwd").status == 400);
    CHECK(http_get(s.port(), "/api/v1/frames?session=7").status == 404);            // no such session
    CHECK(http_get(s.port(), "/api/v1/state?x=1").status == 400);
}

TEST_CASE("read-only, unknown paths, HEAD and keep-alive") {
    Served s;
    for (const char* m : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"}) {
        auto r = http_get(s.port(), "/api/v1/state", "", m);
        CHECK_MESSAGE(r.status == 405, m);
        CHECK(r.headers["allow"] == "GET, HEAD");
    }
    CHECK(http_get(s.port(), "/nope").status == 404);
    CHECK(http_get(s.port(), "/api/v1/state/../../etc/passwd").status == 404);
    CHECK(http_get(s.port(), "/").status == 200);
    auto h = http_get(s.port(), "/metrics", "", "HEAD");
    CHECK(h.status == 200);
    CHECK(h.body.empty());
    CHECK(std::atoi(h.headers["content-length"].c_str()) > 100);
    // Two requests on one connection.
    std::string two = "GET /api/v1/state HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    std::string raw = http_exchange(s.port(), two);
    size_t n = 0;
    for (size_t p = raw.find("HTTP/1.1 200"); p != std::string::npos; p = raw.find("HTTP/1.1 200", p + 1)) ++n;
    CHECK(n == 2);
}

TEST_CASE("oversized, malformed and body-carrying requests are rejected") {
    Served s;
    std::string big = "GET /api/v1/state HTTP/1.1\r\nHost: x\r\nX-Fill: " + std::string(10000, 'a') + "\r\n\r\n";
    CHECK(parse_reply(http_exchange(s.port(), big)).status == 431);
    std::string long_target = "GET /api/v1/state?" + std::string(9000, 'q') + " HTTP/1.1\r\nHost: x\r\n\r\n";
    CHECK(parse_reply(http_exchange(s.port(), long_target)).status == 431);
    std::string body = "GET /api/v1/state HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello";
    CHECK(parse_reply(http_exchange(s.port(), body)).status == 413);
    std::string chunked = "GET /api/v1/state HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
    CHECK(parse_reply(http_exchange(s.port(), chunked)).status == 413);
    CHECK(parse_reply(http_exchange(s.port(), "HELLO THERE\r\n\r\n")).status == 400);
    CHECK(parse_reply(http_exchange(s.port(), "GET /api/v1/state HTTP/9.9\r\n\r\n")).status == 400);
    CHECK(parse_reply(http_exchange(s.port(), "GET api/v1/state HTTP/1.1\r\nHost: x\r\n\r\n")).status == 400);
    CHECK(parse_reply(http_exchange(s.port(), std::string("GET /\0 HTTP/1.1\r\n\r\n", 20))).status == 400);
    // The API is still there after all of that.
    CHECK(http_get(s.port(), "/api/v1/state").status == 200);
}

TEST_CASE("bytes that are not UTF-8 in a request get a 400, and the API goes on (found by fuzz/fuzz_http_request)") {
    Served s;
    // The error names the unknown parameter: its JSON must not throw out of the run's event loop.
    auto r = parse_reply(http_exchange(s.port(), "GET /api/v1/state?\xC1\xC1=1 HTTP/1.1\r\nHost: x\r\n\r\n"));
    CHECK(r.status == 400);
    CHECK(r.body.find("unknown parameter") != std::string::npos);
    CHECK(nlohmann::json::parse(r.body)["status"] == 400);
    CHECK(parse_reply(http_exchange(s.port(), "GET /api/v1/frames?session=\xFF HTTP/1.1\r\nHost: x\r\n\r\n")).status == 400);
    CHECK(http_get(s.port(), "/api/v1/state").status == 200);
}

TEST_CASE("a client that sends its request slowly is cut off (slowloris)") {
    LiveApiOptions o;
    o.request_timeout_s = 1;
    Served s(o);
    bool closed = false;
    auto t0 = std::chrono::steady_clock::now();
    std::string got = http_exchange(s.port(), "GET /api/v1/state HTTP/1.1\r\nHost: x\r\n", 6, &closed);  // never ends
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(closed);
    CHECK(waited < 4);
    CHECK(got.find("\"sessions\"") == std::string::npos);
    // An idle keep-alive connection is closed too.
    closed = false;
    http_exchange(s.port(), "GET /api/v1/state HTTP/1.1\r\nHost: x\r\n\r\n", 6, &closed);
    CHECK(closed);
}

TEST_CASE("with a token, every request needs the bearer header") {
    LiveApiOptions o;
    o.token = "s3cret-token";
    Served s(o);
    auto no = http_get(s.port(), "/api/v1/state");
    CHECK(no.status == 401);
    CHECK(no.headers["www-authenticate"].find("Bearer") == 0);
    CHECK(http_get(s.port(), "/metrics").status == 401);
    CHECK(http_get(s.port(), "/api/v1/events").status == 401);
    CHECK(http_get(s.port(), "/api/v1/state", "Authorization: Bearer wrong\r\n").status == 401);
    CHECK(http_get(s.port(), "/api/v1/state", "Authorization: Bearer s3cret-tokenX\r\n").status == 401);
    CHECK(http_get(s.port(), "/api/v1/state", "Authorization: Bearer s3cret-token\r\n").status == 200);
}

TEST_CASE("the bearer scheme is case-insensitive, the token is not") {
    LiveApiOptions o;
    o.token = "s3cret-token";
    Served s(o);
    for (const char* scheme : {"bearer", "BEARER", "bEaReR"})
        CHECK_MESSAGE(http_get(s.port(), "/api/v1/state", std::string("Authorization: ") + scheme + " s3cret-token\r\n").status == 200, scheme);
    CHECK(http_get(s.port(), "/api/v1/state", "Authorization: Bearer   s3cret-token\r\n").status == 200);
    CHECK(http_get(s.port(), "/api/v1/state", "Authorization: bearer S3CRET-TOKEN\r\n").status == 401);
    CHECK(http_get(s.port(), "/api/v1/state", "Authorization: Basic s3cret-token\r\n").status == 401);
    CHECK(http_get(s.port(), "/api/v1/state", "Authorization: Bearers3cret-token\r\n").status == 401);
    CHECK(http_get(s.port(), "/api/v1/state", "Authorization: s3cret-token\r\n").status == 401);
    CHECK(http_get(s.port(), "/api/v1/state", "Authorization: Bearer\r\n").status == 401);
    CHECK(bearer_matches("Bearer tok", "tok"));
    CHECK(bearer_matches("bearer\ttok", "tok"));
    CHECK_FALSE(bearer_matches("bearer tok", ""));  // no token configured never matches
    CHECK_FALSE(bearer_matches("bearer tok ok", "tok"));
    CHECK_FALSE(bearer_matches("bearez tok", "tok"));
}

namespace {

// Connections held open from the test that never send a byte.
struct IdleFlood {
    IdleFlood(uint16_t port, size_t n, const char* from = "127.0.0.1") {
        for (size_t i = 0; i < n; ++i)
            if (int fd = tcp_connect(port, from); fd >= 0) fds.push_back(fd);
    }
    ~IdleFlood() {
        for (int fd : fds) close(fd);
    }
    size_t closed() const {
        size_t n = 0;
        for (int fd : fds) n += closed_by_server(fd);
        return n;
    }
    std::vector<int> fds;
};

const std::string auth_header = "Authorization: Bearer s3cret-token\r\n";

}  // namespace

TEST_CASE("idle connections cannot lock out the API: with 300 held open, an authenticated client gets through") {
    LiveApiOptions o;
    o.token = "s3cret-token";
    o.header_timeout_s = 60;  // longer than the test: what lets the client in is the budget, not the deadline
    Served s(o);
    // An authenticated keep-alive connection made before the flood keeps its place.
    int kept = tcp_connect(s.port());
    REQUIRE(kept >= 0);
    const std::string keep_alive = "GET /api/v1/state HTTP/1.1\r\nHost: x\r\n" + auth_header + "\r\n";
    CHECK(request_on(kept, keep_alive).status == 200);
    // Another peer's idle connection (127.0.0.2 is this host too) is not crowded out by one peer's flood.
    int neighbour = tcp_connect(s.port(), "127.0.0.2");
    REQUIRE(neighbour >= 0);

    IdleFlood flood(s.port(), 300);
    REQUIRE(flood.fds.size() == 300);
    auto t0 = std::chrono::steady_clock::now();
    auto r = http_get(s.port(), "/api/v1/state", auth_header);
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(r.status == 200);
    CHECK(took < 5);  // sanity: well inside the 60 s deadline the idle ones still have
    CHECK(request_on(kept, keep_alive).status == 200);
    CHECK(request_on(neighbour, "GET /api/v1/state HTTP/1.1\r\nHost: x\r\n" + auth_header + "\r\n").status == 200);
    // The flood holds at most its peer's budget; the rest were closed by the server.
    REQUIRE(wait_until(10, [&] { return flood.closed() >= 300 - o.max_pending_per_peer; }));
    std::promise<size_t> pending;
    boost::asio::post(s.io, [&] { pending.set_value(s.api->pending_connections()); });
    CHECK(pending.get_future().get() <= o.max_pending);
    close(kept);
    close(neighbour);
}

TEST_CASE("a connection that sends nothing is closed after the header deadline, before its token is read") {
    LiveApiOptions o;
    o.token = "s3cret-token";
    o.header_timeout_s = 0.5;
    Served s(o);
    int fd = tcp_connect(s.port());
    REQUIRE(fd >= 0);
    auto t0 = std::chrono::steady_clock::now();
    REQUIRE(wait_until(10, [&] { return closed_by_server(fd); }));
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(took >= 0.4);
    CHECK(took < 5);
    close(fd);
    // An authenticated keep-alive connection then has the longer request timeout between requests.
    int kept = tcp_connect(s.port());
    REQUIRE(kept >= 0);
    CHECK(request_on(kept, "GET /api/v1/state HTTP/1.1\r\nHost: x\r\n" + auth_header + "\r\n").status == 200);
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    CHECK_FALSE(closed_by_server(kept));
    CHECK(request_on(kept, "GET /metrics HTTP/1.1\r\nHost: x\r\n" + auth_header + "\r\n").status == 200);
    close(kept);
}

TEST_CASE("--listen: loopback by default, non-loopback needs a token, taken ports fall back") {
    CHECK_THROWS_AS(LiveApi({"0.0.0.0:0", ""}), InputError);
    try {
        LiveApi({"0.0.0.0:0", ""});
    } catch (const InputError& e) {
        CHECK(std::string(e.what()).find("--token") != std::string::npos);
    }
    CHECK_NOTHROW(LiveApi({"0.0.0.0:0", "tok"}));
    CHECK_THROWS_AS(parse_listen("7878", "--listen"), InputError);
    CHECK_THROWS_AS(parse_listen("example.com:7878", "--listen"), InputError);
    CHECK_THROWS_AS(parse_listen("127.0.0.1:70000", "--listen"), InputError);
    CHECK(parse_listen("localhost:7878", "--listen").host == "127.0.0.1");
    CHECK(parse_listen("[::1]:0", "--listen").loopback);
    CHECK_FALSE(parse_listen("10.1.2.3:80", "--listen").loopback);

    LiveApi first({"127.0.0.1:0", ""});
    uint16_t taken = first.port();
    LiveApi second({"127.0.0.1:" + std::to_string(taken), ""});
    CHECK(second.port() != taken);
    CHECK(second.note().find("taken") != std::string::npos);
    CHECK(second.url() == "http://127.0.0.1:" + std::to_string(second.port()));
}

TEST_CASE("GET /api/v1/events streams events, with a backlog for late subscribers") {
    Served s;
    s.event(core::StepBeginEvent{1, 3, 1});
    s.event(core::StepVerdictEvent{1, 1, true, NAN, NAN, ""});
    // A late subscriber gets both, then a new one as it happens, then the end.
    int fd = tcp_connect(s.port());
    REQUIRE(fd >= 0);
    const std::string req = "GET /api/v1/events HTTP/1.1\r\nHost: x\r\n\r\n";
    REQUIRE(send(fd, req.data(), req.size(), MSG_NOSIGNAL) == ssize_t(req.size()));
    std::string got;
    REQUIRE(read_until(fd, got, "event: step-verdict\n", 5));  // the backlog came: it is subscribed
    s.event(core::SessionEndEvent{1, "crash", true, ""});
    s.event(core::RunEndEvent{"finished", ""});
    CHECK(read_until(fd, got, "event: run-end\n", 5));
    boost::asio::post(s.io, [&] { s.api->finished(); });  // closes the stream
    CHECK(read_until(fd, got, "", 5));
    close(fd);
    auto r = parse_reply(got);
    CHECK(r.status == 200);
    CHECK(r.headers["content-type"] == "text/event-stream");
    CHECK(r.body.find("event: step-begin\n") != std::string::npos);
    CHECK(r.body.find("event: step-verdict\n") != std::string::npos);
    CHECK(r.body.find("event: session-end\n") != std::string::npos);
    CHECK(r.body.find("event: run-end\n") != std::string::npos);
    CHECK(r.body.find("id: 4\n") != std::string::npos);
    auto data = r.body.find("data: ", r.body.find("event: session-end"));
    auto ev = nlohmann::json::parse(r.body.substr(data + 6, r.body.find('\n', data) - data - 6));
    CHECK(ev["data"]["reason"] == "crash");
}

TEST_CASE("Last-Event-ID resumes after the events a subscriber already has") {
    Served s;
    for (int i = 0; i < 3; ++i) s.event(core::StepBeginEvent{1});
    std::string got;
    std::thread reader([&] {
        got = http_exchange(s.port(), "GET /api/v1/events HTTP/1.1\r\nHost: x\r\nLast-Event-ID: 2\r\n\r\n", 1.5);
    });
    reader.join();
    CHECK(got.find("id: 1\n") == std::string::npos);
    CHECK(got.find("id: 2\n") == std::string::npos);
    CHECK(got.find("id: 3\n") != std::string::npos);
    // The recent events are in the state too.
    auto j = nlohmann::json::parse(http_get(s.port(), "/api/v1/state").body);
    CHECK(j["events"].size() == 3);
}

TEST_CASE("GET /metrics is Prometheus text with seatmark_* families") {
    Served s;
    s.event(core::StepVerdictEvent{1});
    auto r = http_get(s.port(), "/metrics");
    REQUIRE(r.status == 200);
    CHECK(r.headers["content-type"].find("text/plain; version=0.0.4") == 0);
    std::vector<PromSample> samples;
    std::string err = parse_prometheus(r.body, samples);
    INFO(r.body);
    CHECK(err == "");
    CHECK(samples.size() > 20);
    for (const auto& x : samples) CHECK(x.name.rfind("seatmark_", 0) == 0);
    auto* info = find_sample(samples, "seatmark_run_info");
    REQUIRE(info);
    CHECK(info->labels.at("plan") == "fake \"plan\"");  // escaped and read back
    CHECK(find_sample(samples, "seatmark_sessions_alive")->value == 2);
    CHECK(find_sample(samples, "seatmark_session_fps", {{"session", "1"}})->value == doctest::Approx(30));
    CHECK(find_sample(samples, "seatmark_session_sla_ok", {{"session", "1"}})->value == 0);
    CHECK(find_sample(samples, "seatmark_step_pass", {{"step", "1"}})->value == 1);
    CHECK(find_sample(samples, "seatmark_events_total", {{"kind", "step-verdict"}})->value == 1);
    CHECK(find_sample(samples, "seatmark_gpu_utilization_percent") == nullptr);  // not measured: left out
    CHECK(find_sample(samples, "seatmark_frames_stored_total")->value == 1001);
}

TEST_CASE("a flood of requests costs at most a few state snapshots a second") {
    Served s;
    for (int i = 0; i < 40; ++i) CHECK(http_get(s.port(), "/api/v1/state").status == 200);
    CHECK(s.source.calls < 20);
}

TEST_CASE("history keeps the whole run in a bounded number of points") {
    core::LiveHistory h(100);
    for (int i = 0; i < 1000; ++i) {
        core::LiveHistoryPoint p;
        p.t_s = i;
        h.add(p);
    }
    CHECK(h.points().size() <= 100);
    CHECK(h.points().front().t_s == 0);
    CHECK(h.points().back().t_s > 900);
    CHECK(h.spacing_s() >= 8);
    auto back = core::history_from_json(core::history_json(h.points(), -1, h.spacing_s()));
    CHECK(back.size() == h.points().size());
}
