// A HELLO is attributed by the connecting process's pid as the kernel reports it (SO_PEERCRED),
// never by the pid the message claims: a well-formed HELLO from another process, claiming the
// session's pid, is refused and its connection closed; the real process is accepted.
#include <doctest/doctest.h>

#include <utility>  // before Asio

#include <boost/asio/io_context.hpp>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "common/wire_protocol.h"
#include "orchestrator/telemetry_server.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

namespace {
// Connects to `path`, sends a valid HELLO for session 3 claiming `claimed_pid`, then waits until
// the server closes the connection (read returns 0) or 5 s pass. Exit 0: closed by the server.
pid_t hello_from_child(const std::string& path, uint32_t claimed_pid) {
    std::vector<uint8_t> bytes;
    wire::Hello h;
    h.session_id = 3;
    h.pid = claimed_pid;
    h.profile = "ci-tiny";
    h.device_name = "llvmpipe";
    wire::encode(bytes, h);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
        if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) _exit(10);
        if (::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) _exit(11);
        timeval tv{5, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        char c;
        ssize_t n = ::read(fd, &c, 1);
        _exit(n == 0 ? 0 : 12);
    }
    return pid;
}
}  // namespace

TEST_CASE("a valid HELLO from a process that is not the session's is refused (SO_PEERCRED)") {
    TempDir t;
    boost::asio::io_context io;
    pid_t session_pid = 0;  // the process "the orchestrator started" for session 3
    std::vector<pid_t> peers;
    std::vector<std::string> closed;
    orchestrator::TelemetryServer::Callbacks cb;
    cb.hello = [&](const wire::Hello& h, pid_t peer) {
        peers.push_back(peer);
        return h.session_id == 3 && peer == session_pid;  // as Controller::on_hello decides
    };
    cb.message = [](uint32_t, wire::Message&&) {};
    cb.closed = [&](int64_t id, const orchestrator::ConnectionEnd& end) { closed.push_back(std::to_string(id) + ":" + end.detail); };
    orchestrator::TelemetryServer server(io, t.file("telemetry.sock"), cb);

    // The impostor claims the session's pid in its HELLO; the kernel says who it is.
    session_pid = getpid() + 100000;  // not the impostor
    pid_t impostor = hello_from_child(server.path(), static_cast<uint32_t>(session_pid));
    int status = -1;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline && waitpid(impostor, &status, WNOHANG) == 0) io.run_for(std::chrono::milliseconds(20));
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);  // the server closed its connection
    REQUIRE(peers.size() == 1);
    CHECK(peers[0] == impostor);  // SO_PEERCRED's pid, not the claimed one
    REQUIRE(closed.size() == 1);
    CHECK(closed[0].rfind("-1:", 0) == 0);  // never attributed to a session

    // The real process (whose pid is the one the orchestrator knows) is accepted and kept.
    pid_t real = hello_from_child(server.path(), 0);
    session_pid = real;
    deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (std::chrono::steady_clock::now() < deadline && peers.size() < 2) io.run_for(std::chrono::milliseconds(20));
    REQUIRE(peers.size() == 2);
    CHECK(peers[1] == real);
    io.run_for(std::chrono::milliseconds(300));
    CHECK(waitpid(real, &status, WNOHANG) == 0);  // still connected: not closed by the server
    CHECK(closed.size() == 1);  // only the impostor's connection ended
    kill(real, SIGKILL);
    waitpid(real, &status, 0);
    server.close();
}
