// Why a telemetry connection ended, as the run controller sees it: a CloseReason,
// not a message to search. A real Unix socket and TelemetryServer; the client is
// this process (the HELLO check accepts session 7 only).
#include <doctest/doctest.h>

#include <utility>  // before Asio

#include <boost/asio/io_context.hpp>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/wire_protocol.h"
#include "orchestrator/telemetry_server.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::orchestrator;
using namespace seatmark::test;

namespace {

std::vector<uint8_t> hello(uint32_t id) {
    std::vector<uint8_t> out;
    wire::Hello h;
    h.session_id = id;
    h.profile = "ci-tiny";
    wire::encode(out, h);
    return out;
}

struct Ended {
    int64_t id = -2;
    ConnectionEnd end;
};

// Connects, sends `bytes`, closes when `then_close`; returns how the server saw it end.
std::optional<Ended> session_exchange(const std::vector<uint8_t>& bytes, bool then_close) {
    TempDir t;
    boost::asio::io_context io;
    std::optional<Ended> seen;
    TelemetryServer::Callbacks cb;
    cb.hello = [](const wire::Hello& h, pid_t) { return h.session_id == 7; };
    cb.closed = [&](int64_t id, const ConnectionEnd& e) { seen = Ended{id, e}; };
    TelemetryServer server(io, t.file("telemetry.sock"), cb);
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, t.file("telemetry.sock").c_str(), sizeof a.sun_path - 1);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    if (then_close) ::close(fd);
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!seen && std::chrono::steady_clock::now() < end) io.run_for(std::chrono::milliseconds(20));
    if (!then_close) ::close(fd);
    return seen;
}

std::vector<uint8_t> operator+(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

}  // namespace

TEST_CASE("a session's connection ends with a reason the controller can act on, not a message to search") {
    // Undecodable bytes after an accepted HELLO: protocol, for that session.
    std::vector<uint8_t> junk(64, 0xEE);
    auto e = session_exchange(hello(7) + junk, false);
    REQUIRE(e);
    CHECK(e->id == 7);
    CHECK(e->end.reason == CloseReason::protocol);
    CHECK(e->end.detail.find("protocol error") == 0);

    e = session_exchange(hello(7) + hello(7), false);  // a second HELLO
    REQUIRE(e);
    CHECK(e->id == 7);
    CHECK(e->end.reason == CloseReason::protocol);
    CHECK(e->end.detail.find("second HELLO") != std::string::npos);

    // A HELLO this run did not expect: not a session (and no session id).
    e = session_exchange(hello(8), false);
    REQUIRE(e);
    CHECK(e->id == -1);
    CHECK(e->end.reason == CloseReason::not_a_session);
    CHECK(e->end.detail.find("does not match a session") != std::string::npos);

    // Something before HELLO.
    std::vector<uint8_t> beat;
    wire::encode(beat, wire::Heartbeat{1, 0});
    e = session_exchange(beat, false);
    REQUIRE(e);
    CHECK(e->id == -1);
    CHECK(e->end.reason == CloseReason::protocol);

    // HELLO, BYE and EOF: a clean end that saw the BYE.
    std::vector<uint8_t> bye;
    wire::encode(bye, wire::Bye{});
    e = session_exchange(hello(7) + bye, true);
    REQUIRE(e);
    CHECK(e->id == 7);
    CHECK(e->end.reason == CloseReason::clean);
    CHECK(e->end.detail.empty());
    CHECK(e->end.saw_bye);
}

TEST_CASE("a spawned session's stamp or count that cannot be true ends its connection as a protocol fault") {
    // Its clock is this host's (no offset), and its stamps are untrusted all the same (issue 35:
    // a frame stamped near INT64_MIN hung the orchestrator's live-frames window).
    FrameRecord bad;
    bad.seq = 0;
    bad.t_begin_ns = std::numeric_limits<int64_t>::min();
    std::vector<uint8_t> frames;
    wire::encode(frames, wire::Frames{{bad}});
    auto e = session_exchange(hello(7) + frames, false);
    REQUIRE(e);
    CHECK(e->id == 7);
    CHECK(e->end.reason == CloseReason::protocol);
    CHECK(e->end.detail ==
          "protocol error: FRAMES frame seq 0 t_begin_ns -9223372036854775808 is not a monotonic clock reading (expected 1 .. "
          "2^62 ns, or 0 for none)");
    std::vector<uint8_t> beat;
    wire::encode(beat, wire::Heartbeat{seatmark::now_ns() + 3'600'000'000'000, 1});  // an hour from now
    e = session_exchange(hello(7) + beat, false);
    REQUIRE(e);
    CHECK(e->end.reason == CloseReason::protocol);
    CHECK(e->end.detail.find("after it arrived") != std::string::npos);
    std::vector<uint8_t> bye;
    wire::Bye b;
    b.frames_sent = std::numeric_limits<uint64_t>::max();
    wire::encode(bye, b);
    e = session_exchange(hello(7) + bye, false);
    REQUIRE(e);
    CHECK(e->end.reason == CloseReason::protocol);
    CHECK(e->end.detail.find("BYE frames_sent 18446744073709551615 exceeds 2^53") != std::string::npos);
    CHECK_FALSE(e->end.saw_bye);  // not believed
}
