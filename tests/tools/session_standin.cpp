// A stand-in for seatmark-session that speaks the real wire protocol over the real socket and then
// dies on cue, which a rendering session cannot be made to do at an exact point: HELLO, frames
// 0..sent+skip-1 with `skip` of them left out (a sequence gap), one heartbeat counting `counted`
// frames, then SIGKILL without BYE. The orchestrator must count every frame it was told of and did
// not get as lost. Sessions other than --standin-victim (default 0) behave: a frame every 16 ms,
// a heartbeat every 0.5 s, BYE and exit 0 on SIGTERM, so a run around the victim ends normally.
// Usage (as `seatmark run` starts a session, plus):
//   session_standin --connect SOCK --session-id ID --standin-sent N --standin-skip K --standin-counted M
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/wire_protocol.h"

using namespace seatmark;

namespace {
std::atomic<bool> stop{false};
void on_term(int) { stop = true; }

bool write_all(int fd, const std::vector<uint8_t>& out) {
    for (size_t at = 0; at < out.size();) {
        const ssize_t n = ::write(fd, out.data() + at, out.size() - at);
        if (n <= 0) return false;
        at += size_t(n);
    }
    return true;
}

FrameRecord frame(uint64_t seq, int64_t t0) {
    FrameRecord r;
    r.seq = seq;
    r.t_begin_ns = t0 + int64_t(seq) * 16'000'000;
    r.t_present_ns = r.t_begin_ns + 8'000'000;
    r.cpu_ns = 1'000'000;
    r.interval_ns = seq ? 16'000'000 : -1;
    return r;
}

// A well-behaved session: frames until SIGTERM, then BYE counting them all.
int behave(int fd) {
    const int64_t t0 = now_ns();
    uint64_t seq = 0;
    int64_t last_hb = 0;
    while (!stop) {
        std::vector<uint8_t> out;
        wire::Frames f;
        for (int i = 0; i < 8; ++i) f.frames.push_back(frame(seq++, t0));
        wire::encode(out, f);
        if (now_ns() - last_hb > 500'000'000) {
            last_hb = now_ns();
            wire::encode(out, wire::Heartbeat{last_hb, seq});
        }
        if (!write_all(fd, out)) return 1;
        std::this_thread::sleep_for(std::chrono::milliseconds(128));
    }
    std::vector<uint8_t> out;
    wire::Bye b;
    b.frames_sent = seq;
    b.frames = seq;
    wire::encode(out, b);
    return write_all(fd, out) ? 0 : 1;
}
}  // namespace

int main(int argc, char** argv) {
    std::string sock;
    uint32_t id = 0, victim = 0;
    uint64_t sent = 10, skip = 2, counted = 25;
    // `seatmark run` asks first which device sessions would render on: none, like a synthetic one.
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]) == "--preflight") {
            std::printf("{\"renders\": false}\n");
            return 0;
        }
    for (int i = 1; i + 1 < argc; ++i) {
        const std::string a = argv[i], v = argv[i + 1];
        if (a == "--connect") sock = v;
        if (a == "--session-id") id = uint32_t(std::stoul(v));
        if (a == "--standin-sent") sent = std::stoull(v);
        if (a == "--standin-skip") skip = std::stoull(v);
        if (a == "--standin-counted") counted = std::stoull(v);
        if (a == "--standin-victim") victim = uint32_t(std::stoul(v));
    }
    ::signal(SIGTERM, on_term);
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, sock.c_str(), sizeof addr.sun_path - 1);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        std::perror("session_standin: connect");
        return 1;
    }
    std::vector<uint8_t> out;
    wire::Hello h;
    h.session_id = id;
    h.pid = uint32_t(::getpid());
    h.profile = "ci-tiny";
    h.device_name = "session stand-in";
    h.device_type = "cpu";
    h.width = 64;
    h.height = 64;
    h.t_ns = now_ns();
    wire::encode(out, h);
    if (id != victim) {
        if (!write_all(fd, out)) return 1;
        return behave(fd);
    }
    wire::Frames f;
    const int64_t t0 = now_ns();
    for (uint64_t s = 0; s < sent + skip; ++s) {
        if (s >= 3 && s < 3 + skip) continue;  // the gap
        f.frames.push_back(frame(s, t0));
    }
    wire::encode(out, f);
    wire::encode(out, wire::Heartbeat{now_ns(), counted});
    if (!write_all(fd, out)) return 1;
    // Give the orchestrator time to read it all, then die as a crashing session does.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ::raise(SIGKILL);
    return 0;
}
