// `seatmark session --join` as a real process against a real join listener: joins, waits
// without rendering, renders from START to STOP with the profile it was sent, stops rendering
// and joins again when its connection is cut, and gives up when nobody answers.
#include <doctest/doctest.h>

#include <csignal>

#include "tests/orchestrator/join_harness.h"
#include "tests/support/process.h"
#include "workloads/profile.h"

using namespace seatmark;
using seatmark::test::Harness;
using namespace std::chrono_literals;

namespace {

struct Joined {
    test::TempDir dir;
    std::string token_file;
    Joined() {
        token_file = dir.file("token");
        test::write_file(token_file, "sesame-0123456789\n");
    }
    std::vector<std::string> argv(const Harness& h, const std::string& host, std::vector<std::string> extra = {}) {
        std::vector<std::string> a = {"session", "--join", "127.0.0.1:" + std::to_string(h.listener->port()),
                                      "--token-file", token_file, "--host-name", host, "--synthetic-fps", "60", "--quiet"};
        a.insert(a.end(), extra.begin(), extra.end());
        return test::seatmark_argv(a);
    }
};

join::Start tiny(uint32_t id) {
    return {id, "ci-tiny", std::string(workloads::builtin_profile_text("ci-tiny"))};
}

size_t count_frames(Harness& h) {
    size_t n = 0;
    for (const auto& m : h.messages)
        if (auto* f = std::get_if<wire::Frames>(&m)) n += f->frames.size();
    return n;
}

template <class T>
bool has(Harness& h) {
    for (const auto& m : h.messages)
        if (std::holds_alternative<T>(m)) return true;
    return false;
}

}  // namespace

TEST_CASE("a joined session waits without rendering, renders the profile it was sent from START to STOP, and exits 0") {
    Harness h;
    Joined j;
    test::BackgroundProcess s(j.argv(h, "desk-01"));
    REQUIRE(h.wait([&] { return !h.ready.empty(); }, 30s));
    std::this_thread::sleep_for(500ms);
    {
        std::lock_guard<std::mutex> l(h.mu);
        CHECK(h.joined[0].host == "desk-01");
        CHECK(h.joined[0].pid == uint32_t(s.pid()));
        CHECK(!h.joined[0].user.empty());
        CHECK(!h.joined[0].os_session.empty());
        CHECK(h.messages.empty());  // waiting: no HELLO, no frames
    }
    const uint64_t conn = h.ready[0];
    h.on_loop([&] { h.listener->start(conn, tiny(7)); });
    REQUIRE(h.wait([&] { return count_frames(h) >= 30; }, 30s));
    {
        std::lock_guard<std::mutex> l(h.mu);
        auto& hello = std::get<wire::Hello>(h.messages.front());
        CHECK(hello.profile == "ci-tiny");
        CHECK(hello.device_type == "synthetic");
        CHECK(hello.pid == uint32_t(s.pid()));
        CHECK(hello.session_id == 7);  // the id START gave
    }
    h.on_loop([&] { h.listener->stop(conn); });
    auto r = s.wait(30);
    CHECK(r.exit_code == 0);
    REQUIRE(h.wait([&] { return has<wire::Bye>(h); }, 5s));
    std::lock_guard<std::mutex> l(h.mu);
    uint64_t sent = 0;
    for (const auto& m : h.messages)
        if (auto* b = std::get_if<wire::Bye>(&m)) sent = b->frames_sent;
    CHECK(sent == count_frames(h));  // every frame sent arrived
}

TEST_CASE("a joined session told to stop before it was activated exits 0 without rendering") {
    Harness h;
    Joined j;
    test::BackgroundProcess s(j.argv(h, "desk-02"));
    REQUIRE(h.wait([&] { return !h.ready.empty(); }, 30s));
    const uint64_t conn = h.ready[0];
    h.on_loop([&] { h.listener->stop(conn); });
    auto r = s.wait(30);
    CHECK(r.exit_code == 0);
    std::lock_guard<std::mutex> l(h.mu);
    CHECK(h.messages.empty());
}

TEST_CASE("a joined session whose connection is cut stops rendering and joins again") {
    Harness h;
    Joined j;
    test::BackgroundProcess s(j.argv(h, "desk-03", {"--retry-for", "20s"}));
    REQUIRE(h.wait([&] { return !h.ready.empty(); }, 30s));
    uint64_t conn = h.ready[0];
    h.on_loop([&] { h.listener->start(conn, tiny(7)); });
    REQUIRE(h.wait([&] { return count_frames(h) >= 10; }, 30s));
    h.on_loop([&] { h.listener->drop(conn, "cut by the test"); });
    // It joins again as a new peer and waits (no frames on the new connection until START).
    REQUIRE(h.wait([&] { return h.ready.size() == 2; }, 30s));
    {
        std::lock_guard<std::mutex> l(h.mu);
        CHECK(h.joined[1].pid == uint32_t(s.pid()));
    }
    h.on_loop([&] { h.listener->stop(h.ready[1]); });
    auto r = s.wait(30);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("lost while rendering") != std::string::npos);
}

TEST_CASE("a joined session with the wrong token is refused at once, and one with nobody to join gives up") {
    Harness h;
    Joined j;
    test::write_file(j.token_file, "wrong\n");
    auto r = test::run_process(j.argv(h, "desk-04"), 30);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("refused") != std::string::npos);
    CHECK(r.err.find("authentication failed") != std::string::npos);
    test::write_file(j.token_file, "");
    r = test::run_process(j.argv(h, "desk-04"), 30);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("the file is empty") != std::string::npos);
    const uint16_t port = h.listener->port();
    h.on_loop([&] { h.listener->close(); });
    test::write_file(j.token_file, "sesame-0123456789\n");
    r = test::run_process(test::seatmark_argv({"session", "--join", "127.0.0.1:" + std::to_string(port), "--token-file",
                                               j.token_file, "--synthetic-fps", "60", "--retry-for", "1s"}),
                          30);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("cannot join the run") != std::string::npos);
    r = test::run_process(test::seatmark_argv({"session", "--join", "127.0.0.1:1", "--synthetic-fps", "60"}), 30);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--join needs --token-file") != std::string::npos);
}
