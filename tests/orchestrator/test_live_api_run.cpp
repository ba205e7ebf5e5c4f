// The live API of a real `seatmark run` (real sessions on lavapipe): what it serves
// while the run goes agrees with the database the run leaves behind.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "store/store_reader.h"
#include "tests/orchestrator/http_test_client.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

namespace {

const char* tiny_plan =
    "name = \"live-api\"\n[run]\nallow_software = true\nheartbeat_timeout = \"5s\"\nstop = \"max\"\n"
    "[steps]\nlist = [1, 2]\nsettle = \"1s\"\nwindow = \"3s\"\n[[mix]]\nprofile = \"ci-tiny\"\n";

// What a running child has written to its stderr so far (BackgroundProcess sends it to a file).
std::string stderr_of(int pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/fd/2");
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace

TEST_CASE("a real run's live API: state, frames, events and metrics agree with its database") {
    TempDir dir;
    write_file(dir.file("plan.toml"), tiny_plan);
    const std::string token = "t0ken-for-test";
    const std::string auth = "Authorization: Bearer " + token + "\r\n";
    BackgroundProcess run(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--listen",
                                         "127.0.0.1:0", "--token", token, "--quiet"}));
    uint16_t port = 0;
    REQUIRE(wait_until(30, [&] { return (port = port_in(stderr_of(run.pid()))) != 0; }));

    // Subscribe to events at once; the stream ends when the run does.
    std::string stream;
    std::thread reader([&] {
        stream = http_exchange(port, "GET /api/v1/events HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", 60);
    });

    CHECK(http_get(port, "/api/v1/state").status == 401);
    std::set<uint32_t> sessions_seen;
    size_t max_step_seen = 0;
    nlohmann::json last;
    std::string metrics;
    bool frames_ok = false;
    nlohmann::json frames_answer;
    wait_until(60, [&] {
        auto r = http_get(port, "/api/v1/state", auth);
        if (r.status != 200) return !run.running();
        last = nlohmann::json::parse(r.body);
        for (const auto& s : last["sessions"]) sessions_seen.insert(s["id"].get<uint32_t>());
        max_step_seen = std::max(max_step_seen, last["step"]["current"].get<size_t>());
        if (!frames_ok && !last["sessions"].empty() && last["sessions"][0]["frames"].get<uint64_t>() > 10) {
            auto f = http_get(port, "/api/v1/frames?session=0&max=50", auth);
            auto j = nlohmann::json::parse(f.body);
            frames_ok = f.status == 200 && j["count"].get<int>() > 0 && j["count"].get<int>() <= 50 &&
                        j["seq"].size() == j["interval_ms"].size();
            if (frames_ok) frames_answer = j;
        }
        if (metrics.empty() && max_step_seen == 2) metrics = http_get(port, "/metrics", auth).body;
        return false;
    });
    auto done = run.wait(60);
    reader.join();
    INFO(done.out << done.err);
    REQUIRE(done.exit_code == 0);

    // The state while it ran.
    CHECK(last["run"]["plan"] == "live-api");
    CHECK(last["step"]["count"] == 2);
    CHECK(max_step_seen == 2);
    CHECK(frames_ok);
    CHECK(last["sessions"][0]["device"].get<std::string>() != "");
    CHECK(last["run"]["db"] == dir.file("run.db"));

    // Metrics parse and say what the state said.
    std::vector<PromSample> samples;
    INFO(metrics);
    CHECK(parse_prometheus(metrics, samples) == "");
    CHECK(find_sample(samples, "seatmark_steps")->value == 2);
    CHECK(find_sample(samples, "seatmark_sessions_target")->value == 2);
    CHECK(find_sample(samples, "seatmark_session_frames_total", {{"session", "0"}, {"profile", "ci-tiny"}}));

    // Events: both steps began and were judged, and the run ended.
    auto count = [&](const std::string& kind) {
        size_t n = 0;
        for (size_t p = stream.find("event: " + kind + "\n"); p != std::string::npos;
             p = stream.find("event: " + kind + "\n", p + 1))
            ++n;
        return n;
    };
    CHECK(stream.rfind("HTTP/1.1 200", 0) == 0);
    CHECK(count("step-begin") == 2);
    CHECK(count("step-verdict") == 2);
    CHECK(count("run-end") == 1);

    // The database agrees.
    store::StoreReader db(dir.file("run.db"));
    auto rows = db.sessions();
    CHECK(rows.size() == sessions_seen.size());
    for (const auto& s : rows) CHECK(sessions_seen.count(static_cast<uint32_t>(s.id)));
    std::set<int> judged;
    for (const auto& st : db.steps())
        if (st.verdict) judged.insert(st.idx);
    CHECK(judged.size() == 2);
    size_t verdicts_in_state = last["verdict"]["steps"].size();
    CHECK(verdicts_in_state >= 1);  // the last poll may precede the final verdict
    for (const auto& v : last["verdict"]["steps"]) CHECK(judged.count(v["step"].get<int>() - 1));

    // Values, not shapes: what the API said is what the database holds.
    auto steps = db.steps();
    auto step_row = [&](int idx) -> const store::StepRow* {
        for (const auto& st : steps)
            if (st.idx == idx && st.verdict) return &st;
        return nullptr;
    };
    for (const auto& v : last["verdict"]["steps"]) {
        const auto* st = step_row(v["step"].get<int>() - 1);
        REQUIRE(st);
        CHECK(v["pass"].get<bool>() == (*st->verdict == "pass"));
        CHECK(v["sessions"].get<int>() == st->target_sessions);
    }
    auto session_row = [&](int id) -> const store::SessionRow* {
        for (const auto& r : rows)
            if (r.id == id) return &r;
        return nullptr;
    };
    for (const auto& x : last["sessions"]) {
        const auto* r = session_row(x["id"].get<int>());
        REQUIRE(r);
        CHECK(x["profile"] == r->profile);
        CHECK(x["pid"].get<int64_t>() == r->pid);
        if (!x["device"].get<std::string>().empty()) CHECK(x["device"] == r->device.device_name);
        CHECK(x["frames"].get<int64_t>() <= r->frames_received);  // the state was taken before the end
    }
    CHECK(last["frames"]["stored"].get<uint64_t>() <= db.frame_count());
    // The frames the API served are the stored frames: same sequence numbers, begin times and intervals.
    REQUIRE(frames_answer.is_object());
    auto stored = db.frames(0);
    std::map<uint64_t, FrameRecord> by_seq;
    for (const auto& f : stored) by_seq[f.seq] = f;
    for (size_t i = 0; i < frames_answer["seq"].size(); ++i) {
        uint64_t q = frames_answer["seq"][i].get<uint64_t>();
        REQUIRE(by_seq.count(q));
        CHECK(frames_answer["t_begin_ns"][i].get<int64_t>() == by_seq[q].t_begin_ns);
        const auto& ms = frames_answer["interval_ms"][i];
        if (by_seq[q].interval_ns < 0)
            CHECK(ms.is_null());
        else
            CHECK(ms.get<double>() == doctest::Approx(double(by_seq[q].interval_ns) * 1e-6).epsilon(1e-9));
    }
    // Each event's data against the rows it describes.
    std::vector<nlohmann::json> events;
    for (size_t p = stream.find("\ndata: "); p != std::string::npos; p = stream.find("\ndata: ", p + 1))
        events.push_back(nlohmann::json::parse(stream.substr(p + 7, stream.find('\n', p + 7) - p - 7)));
    size_t verdicts = 0, ends = 0, run_ends = 0;
    for (const auto& e : events) {
        const auto& d = e["data"];
        if (e["kind"] == "step-verdict") {
            ++verdicts;
            const auto* st = step_row(d["step"].get<int>() - 1);
            REQUIRE(st);
            CHECK(d["pass"].get<bool>() == (*st->verdict == "pass"));
            CHECK(d["sessions"].get<int>() == st->target_sessions);
        } else if (e["kind"] == "session-end") {
            ++ends;
            const auto* r = session_row(d["session"].get<int>());
            REQUIRE(r);
            CHECK(d["reason"] == std::string(store::to_string(r->end_reason)));
            CHECK(d["detail"] == r->detail);
        } else if (e["kind"] == "run-end") {
            ++run_ends;
            CHECK(d["status"] == std::string(store::to_string(db.run().status)));
            CHECK(d["db"] == dir.file("run.db"));
        }
    }
    CHECK(verdicts == 2);
    CHECK(ends == rows.size());
    CHECK(run_ends == 1);
    CHECK(db.run().status == store::RunStatus::finished);
}

TEST_CASE("seatmark run refuses a non-loopback --listen without --token, before anything starts") {
    TempDir dir;
    write_file(dir.file("plan.toml"), tiny_plan);
    auto r = run_process(seatmark_argv({"run", dir.file("plan.toml"), "--db", dir.file("run.db"), "--listen", "0.0.0.0:0"}), 30);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--token") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir.file("run.db")));
    auto bad = run_process(seatmark_argv({"demo", "--out", dir.file("demo"), "--listen", "nonsense"}), 30);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("HOST:PORT") != std::string::npos);
}
