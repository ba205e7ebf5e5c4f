// The monitor's live source against a real LiveApi (HTTP on loopback) serving a
// fake run: state, history, the selected session's frames, disconnects and a new run.
#include <doctest/doctest.h>

#include <utility>  // before Asio

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "common/clock.h"
#include "monitor/host_groups.h"
#include "monitor/live_bounds.h"
#include "monitor/live_source.h"
#include "orchestrator/live_api.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::monitor;
using namespace seatmark::orchestrator;
using namespace seatmark::core;
using namespace seatmark::test;

namespace {

class FakeRun : public LiveSource {
public:
    explicit FakeRun(int64_t started_unix_ns, size_t steps = 2, bool pool = false)
        : started_(started_unix_ns), steps_(steps), t0_(now_ns()), pool_(pool) {}
    LiveState live_state() override {
        LiveState s;
        s.plan = "fake";
        s.status = "running";
        s.started_unix_ns = started_;
        s.elapsed_s = double(now_ns() - t0_) * 1e-9;
        s.step = 1;
        s.steps = steps_;
        s.target = 2;
        s.alive = 2;
        s.phase = "measuring";
        s.host_cpu_pct = 50;
        s.gpu_util_pct = s.gpu_mem_used_bytes = s.gpu_mem_total_bytes = NAN;
        for (uint32_t i = 0; i < 2; ++i) {
            LiveSession x;
            x.id = i;
            x.state = "running";
            x.fps = 60;
            x.p95_ms = 17;
            s.sessions.push_back(x);
        }
        if (pool_) {  // rank 0 of a pool of two: its own sessions and h1's, numbered alike per host
            s.host = "h0";
            s.sessions[0].host = s.sessions[1].host = "h0";
            for (uint32_t i = 0; i < 2; ++i) {
                LiveSession x = s.sessions[i];
                x.host = "h1";
                x.state = i == 1 ? "crash" : "running";
                s.sessions.push_back(x);
            }
            s.hosts = {{"h0", 0, "ok", 0, 0, 2, 0.1}, {"h1", 1, "lost", 45'000, 173'000, 1, 4.5}};
        }
        return s;
    }
    std::vector<LiveFrame> live_frames(uint32_t, uint64_t since, size_t max) override {
        // 60 frames a second since the start.
        uint64_t n = uint64_t(double(now_ns() - t0_) * 1e-9 * 60);
        std::vector<LiveFrame> out;
        for (uint64_t q = std::max(since, n > max ? n - max : 0); q < n; ++q)
            out.push_back({q, t0_ + int64_t(q) * 16'666'667, 16.7});
        return out;
    }

private:
    int64_t started_;
    size_t steps_;
    int64_t t0_;
    bool pool_;
};

struct Served {
    Served(const std::string& listen, int64_t started, const std::string& token = "", size_t steps = 2, bool pool = false)
        : run(started, steps, pool) {
        LiveApiOptions o;
        o.listen = listen;
        o.port_fallback = false;
        o.token = token;
        api = std::make_unique<LiveApi>(o);
        api->started(io, run);
        thread = std::thread([this] { io.run(); });
    }
    ~Served() {
        boost::asio::post(io, [this] {
            api->finished();
            io.stop();
        });
        thread.join();
    }
    boost::asio::io_context io;
    FakeRun run;
    std::unique_ptr<LiveApi> api;
    std::thread thread;
};

}  // namespace

TEST_CASE("the live source follows a run, keeps the last state when it goes, and picks up the next") {
    auto first = std::make_unique<Served>("127.0.0.1:0", 111);
    const uint16_t port = first->api->port();
    LiveSourceOptions o;
    o.url = "http://127.0.0.1:" + std::to_string(port);
    o.poll_s = 0.1;
    LiveApiSource src(o);
    src.select_session(1);
    REQUIRE(wait_until(10, [&] {
        auto d = src.snapshot();
        return d->link == Link::live && d->frames && d->frames->t_s.size() > 10 && !d->history.empty();
    }));
    auto d = src.snapshot();
    CHECK(d->state.plan == "fake");
    CHECK(d->state.sessions.size() == 2);
    CHECK(d->frames->session == 1);
    CHECK(d->frames->interval_ms.back() == doctest::Approx(16.7f));
    CHECK(d->frames->t_s.back() >= 0);  // on the run's time axis
    CHECK(d->frames->t_s.back() < 5);
    CHECK(d->source == o.url);

    first.reset();  // the orchestrator goes away
    REQUIRE(wait_until(10, [&] { return src.snapshot()->link == Link::lost; }));
    d = src.snapshot();
    CHECK(d->state.plan == "fake");  // the last state stays on screen
    CHECK(d->link_note.find("retrying") != std::string::npos);

    Served second("127.0.0.1:" + std::to_string(port), 222);  // a new run on the same port
    REQUIRE(wait_until(10, [&] { return src.snapshot()->link == Link::live; }));
    CHECK(src.snapshot()->state.started_unix_ns == 222);
}

TEST_CASE("the live source says when the API wants a token, and sends it") {
    Served s("127.0.0.1:0", 1, "tok");
    LiveSourceOptions o;
    o.url = "127.0.0.1:" + std::to_string(s.api->port());
    o.poll_s = 0.1;
    {
        LiveApiSource no_token(o);
        REQUIRE(wait_until(10, [&] { return !no_token.snapshot()->link_note.empty(); }));
        CHECK(no_token.snapshot()->link == Link::connecting);
        CHECK(no_token.snapshot()->link_note.find("token") != std::string::npos);
    }
    o.token = "tok";
    LiveApiSource with_token(o);
    CHECK(wait_until(10, [&] { return with_token.snapshot()->link == Link::live; }));
}

namespace {
// Resident memory of this process, from /proc/self/statm (pages).
double rss_mib() {
    std::string t = read_file("/proc/self/statm");
    unsigned long long size = 0, resident = 0;
    std::sscanf(t.c_str(), "%llu %llu", &size, &resident);
    return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1 << 20);
}
}  // namespace

TEST_CASE("a state document whose step count no plan can have is refused, with memory bounded") {
    // A real LiveApi answering a real state document, as anything listening on the monitor's
    // ports could: 10^7 steps once took the monitor to 6 GB, 2^62 hung it.
    for (size_t steps : {size_t(10'000'000), size_t(1) << 62}) {
        CAPTURE(steps);
        double before = rss_mib();
        Served s("127.0.0.1:0", 1, "", steps);
        LiveSourceOptions o;
        o.url = "127.0.0.1:" + std::to_string(s.api->port());
        o.poll_s = 0.05;
        LiveApiSource src(o);
        REQUIRE(wait_until(10, [&] { return !src.snapshot()->link_note.empty(); }));
        // Let it poll a while: every answer is refused again, nothing accumulates.
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        auto d = src.snapshot();
        CAPTURE(d->link_note);
        CHECK(d->link == Link::connecting);
        CHECK(d->link_note.find("step.count = " + std::to_string(steps)) != std::string::npos);
        CHECK(d->link_note.find("limit of 4096") != std::string::npos);
        CHECK(d->state.steps == 0);  // nothing of it adopted
        CHECK(rss_mib() - before < 64);
    }
}

TEST_CASE("a live API that turns hostile mid-run: the last good state stays, the bad one is refused") {
    auto good = std::make_unique<Served>("127.0.0.1:0", 5);
    const uint16_t port = good->api->port();
    LiveSourceOptions o;
    o.url = "127.0.0.1:" + std::to_string(port);
    o.poll_s = 0.05;
    LiveApiSource src(o);
    REQUIRE(wait_until(10, [&] { return src.snapshot()->link == Link::live; }));
    good.reset();
    Served bad("127.0.0.1:" + std::to_string(port), 5, "", 5000);
    REQUIRE(wait_until(10, [&] { return src.snapshot()->link_note.find("step.count = 5000") != std::string::npos; }));
    auto d = src.snapshot();
    CHECK(d->link == Link::lost);
    CHECK(d->state.steps == 2);
}

TEST_CASE("live JSON: a number that does not fit its field is an error naming it, not a wrapped cast") {
    auto error_of = [](const nlohmann::json& j) {
        try {
            check_live_state(state_from_json(j));
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(error_of({{"run", {{"started_unix_ns", 1e300}}}}).find("'started_unix_ns'") != std::string::npos);
    CHECK(error_of({{"step", {{"target", -1}}}}).find("'target': -1 is not a whole number") != std::string::npos);
    CHECK(error_of({{"step", {{"count", 2}, {"current", 3}}}}).find("step.current = 3") != std::string::npos);
    CHECK(error_of({{"run", {{"elapsed_s", 1e200}}}}).find("run.elapsed_s") != std::string::npos);
    CHECK(error_of({{"step", {{"count", 3}, {"current", 1}}}}).empty());
    // History counts out of range read as 0; times going backwards are refused.
    nlohmann::json h = {{"points", {{"t_s", {1.0, 2.0}}, {"step", {1e300, -5}}}}};
    auto hist = history_from_json(h);
    REQUIRE(hist.size() == 2);
    CHECK(hist[0].step == 0);
    CHECK(hist[1].step == 0);
    hist[1].t_s = 0.5;
    CHECK_THROWS_AS(check_live_history(hist), std::runtime_error);
    // More frames than asked for are refused.
    std::vector<LiveFrame> frames(3);
    CHECK_THROWS_AS(check_live_frames(frames, 2, 0), std::runtime_error);
    CHECK_NOTHROW(check_live_frames(frames, 3, 0));
}

TEST_CASE("a pool's live state: rank 0's hosts and each session's host reach the monitor, grouped by host") {
    Served pool("127.0.0.1:0", 333, "", 2, true);
    LiveSourceOptions o;
    o.url = "http://127.0.0.1:" + std::to_string(pool.api->port());
    o.poll_s = 0.1;
    LiveApiSource src(o);
    REQUIRE(wait_until(10, [&] { return src.snapshot()->link == Link::live && src.snapshot()->state.sessions.size() == 4; }));
    const auto d = src.snapshot();
    REQUIRE(d->state.hosts.size() == 2);
    CHECK(d->state.hosts[1].name == "h1");
    CHECK(d->state.hosts[1].status == "lost");
    CHECK(d->state.hosts[1].clock_uncertainty_ns == 173'000);
    CHECK(d->state.sessions[2].host == "h1");
    const auto groups = group_by_host(d->state);
    REQUIRE(groups.size() == 2);
    CHECK(groups[0].name == "h0");
    CHECK(groups[0].sessions == std::vector<size_t>{0, 1});
    CHECK(groups[1].sessions == std::vector<size_t>{2, 3});
    CHECK(groups[1].running == 1);
    CHECK(groups[1].failed == 1);
    CHECK(groups[1].label() == "h1  \u00b7  rank 1  \u00b7  LOST  \u00b7  1 running, 1 failed  \u00b7  clock +45 us \u00b1 173 us");
    // A single host: one group, named by the run.
    core::LiveState one;
    one.host = "solo";
    one.sessions.resize(3);
    const auto g1 = group_by_host(one);
    REQUIRE(g1.size() == 1);
    CHECK(g1[0].name == "solo");
    CHECK(g1[0].sessions.size() == 3);
}
