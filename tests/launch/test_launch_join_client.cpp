// `seatmark launch --join` against a stand-in orchestrator on a real TCP socket: the launcher
// proves the token, answers clock PINGs, opens a logon per LOGON (here to a port nobody
// listens on, so the logon fails at once) and reports it, says when it is out of test users,
// keeps an idle connection alive and leaves after STOP. No xrdp needed.
#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <sys/socket.h>
#include <sys/time.h>

#include <string>
#include <vector>

#include "common/clock.h"
#include "common/join_auth.h"
#include "common/join_protocol.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

struct Conn {
    tcp::socket s;
    join::Decoder d;
    explicit Conn(tcp::socket sock) : s(std::move(sock)) {
        timeval tv{20, 0};  // a launcher that stops talking fails the test instead of hanging it
        ::setsockopt(s.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        d.set_limit(wire::max_payload);
    }
    void send(const join::JoinMessage& m) {
        std::vector<uint8_t> b;
        join::encode(b, m);
        asio::write(s, asio::buffer(b));
    }
    // The next join message that is not a keepalive (an empty ARRIVALS).
    join::JoinMessage next() {
        for (;;) {
            join::Message m;
            auto st = d.next(m);
            REQUIRE(st != wire::DecodeStatus::error);
            if (st == wire::DecodeStatus::ok) {
                REQUIRE(std::holds_alternative<join::JoinMessage>(m));
                auto jm = std::get<join::JoinMessage>(std::move(m));
                if (auto* a = std::get_if<join::Arrivals>(&jm); a && a->user.empty() && a->arrivals.empty()) continue;
                return jm;
            }
            uint8_t buf[4096];
            boost::system::error_code ec;
            const size_t n = s.read_some(asio::buffer(buf), ec);
            REQUIRE_MESSAGE(!ec, "reading from the launcher: " << ec.message());
            d.feed(buf, n);
        }
    }
};

}  // namespace

TEST_CASE("launch --join: proves the token, answers PINGs, reports each logon and its fault, leaves after STOP") {
    TempDir dir;
    const std::string token = "launch-join-client-token-42";
    write_file(dir.file("token"), token + "\n");
    write_file(dir.file("users"), "tester:secret\n");
    asio::io_context io;
    tcp::acceptor acc(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    const std::string addr = "127.0.0.1:" + std::to_string(acc.local_endpoint().port());
    BackgroundProcess launcher(seatmark_argv({"launch", "--rdp", "127.0.0.1:1", "--users", dir.file("users"), "--join", addr,
                                              "--token-file", dir.file("token"), "--host-name", "lab-1", "--session-host",
                                              "vdi-7", "--logon-timeout", "5s"}));
    Conn c(acc.accept());
    const join::Nonce nonce = join::random_nonce();
    c.send(join::Challenge{join::join_version, nonce});
    auto j = std::get<join::Join>(c.next());
    CHECK(j.role == join::Role::launcher);
    CHECK(j.host == "lab-1");
    CHECK(j.device == "rdp 127.0.0.1:1");
    CHECK(join::verify_join(j, nonce, token));
    join::Welcome w;
    w.id = 3;
    w.mac = join::welcome_mac(token, j.client_nonce, nonce, w.id);
    c.send(w);
    c.send(join::Ping{1, 12345});
    auto pong = std::get<join::Pong>(c.next());
    CHECK(pong.seq == 1);
    CHECK(pong.t_orch_ns == 12345);
    CHECK(pong.t_peer_ns > 0);

    const int64_t asked = now_ns();
    c.send(join::Logon{2});
    auto s1 = std::get<join::LogonState>(c.next());
    CHECK(s1.state == join::LogonState::connecting);
    CHECK(s1.user == "tester");
    CHECK(s1.host == "vdi-7");
    CHECK(s1.rdp_host == "127.0.0.1:1");
    CHECK(s1.t_ns >= asked);  // the launcher's clock: the same machine's CLOCK_MONOTONIC here
    // The second logon has no user left; the first fails at once (nothing listens on port 1).
    std::vector<join::LogonState> ends;
    for (int i = 0; i < 2; ++i) ends.push_back(std::get<join::LogonState>(c.next()));
    bool no_user = false, refused = false;
    for (const auto& e : ends) {
        CHECK(e.state == join::LogonState::ended);
        if (e.fault == "no-user") no_user = e.detail.find("1 test users") != std::string::npos;
        if (e.fault == "refused") refused = e.user == "tester" && e.detail.find("127.0.0.1:1") != std::string::npos;
    }
    CHECK(no_user);
    CHECK(refused);
    c.send(join::Stop{});
    const auto r = launcher.wait(30);
    INFO(r.err);
    CHECK(r.exit_code == 0);
}

TEST_CASE("launch --join needs a token file and leaves the counting to the run") {
    TempDir dir;
    write_file(dir.file("users"), "tester:secret\n");
    auto r = run_process(seatmark_argv({"launch", "--rdp", "127.0.0.1:1", "--users", dir.file("users"), "--join", "127.0.0.1:9"}), 30);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--join needs --token-file") != std::string::npos);
    write_file(dir.file("token"), "t\n");
    r = run_process(seatmark_argv({"launch", "--rdp", "127.0.0.1:1", "--users", dir.file("users"), "--join", "127.0.0.1:9",
                                   "--token-file", dir.file("token"), "--sessions", "1"}),
                    30);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("leave out --sessions") != std::string::npos);
}
