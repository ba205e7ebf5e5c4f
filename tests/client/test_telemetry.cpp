// The session's telemetry (client/telemetry.h) against a real Asio Unix-socket
// server in this test: the TelemetrySender in process, and real `seatmark
// session --connect` processes, synthetic and on Vulkan (lavapipe on CI).
#include <doctest/doctest.h>

#include <utility>  // before Asio: GCC 12 needs it for Boost 1.81's headers

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>

#include <array>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client/frame_log.h"
#include "client/telemetry.h"
#include "common/clock.h"
#include "common/errors.h"
#include "common/exit_codes.h"
#include "common/wire_protocol.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;
namespace asio = boost::asio;
using unix_socket = asio::local::stream_protocol;
using boost::system::error_code;

namespace {

struct Received {
    wire::Message msg;
    int64_t at_ns = 0;
};

// An orchestrator stand-in: accepts one connection on a Unix socket and decodes
// what arrives, on its own thread.
class TestServer {
public:
    enum class Mode {
        read_all,           // read until the session closes
        close_after_hello,  // close the connection once HELLO arrived (an orchestrator that died)
        never_read,         // accept, then read nothing (an orchestrator that hangs)
    };

    explicit TestServer(std::string path, Mode mode = Mode::read_all)
        : path_(std::move(path)), mode_(mode), acceptor_(io_, unix_socket::endpoint(path_)) {
        acceptor_.async_accept(sock_, [this](const error_code& ec) {
            if (ec) return;
            error_code ignored;
            acceptor_.close(ignored);
            if (mode_ != Mode::never_read) read();
        });
        thread_ = std::thread([this] { io_.run_for(std::chrono::seconds(300)); });
    }
    ~TestServer() { stop(); }

    void stop() {
        if (!thread_.joinable()) return;
        asio::post(io_, [this] {
            error_code ignored;
            sock_.close(ignored);
            acceptor_.close(ignored);
            guard_.reset();
        });
        thread_.join();
    }

    // Waits until the peer closed (or we did); false on timeout.
    bool wait_closed(double timeout_s) {
        std::unique_lock<std::mutex> lock(mu_);
        return cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), [this] { return closed_; });
    }

    std::vector<Received> messages() const {
        std::lock_guard<std::mutex> lock(mu_);
        return messages_;
    }
    std::string decode_error() const {
        std::lock_guard<std::mutex> lock(mu_);
        return error_;
    }

private:
    void set_closed() {
        std::lock_guard<std::mutex> lock(mu_);
        closed_ = true;
        cv_.notify_all();
    }
    void read() {
        sock_.async_read_some(asio::buffer(buf_), [this](const error_code& ec, size_t n) {
            if (ec) {
                set_closed();
                return;
            }
            decoder_.feed(buf_.data(), n);
            wire::Message m;
            wire::DecodeStatus s;
            while ((s = decoder_.next(m)) == wire::DecodeStatus::ok) {
                bool hello = std::holds_alternative<wire::Hello>(m);
                {
                    std::lock_guard<std::mutex> lock(mu_);
                    messages_.push_back({std::move(m), now_ns()});
                }
                if (hello && mode_ == Mode::close_after_hello) {
                    error_code ignored;
                    sock_.close(ignored);
                    set_closed();
                    return;
                }
            }
            if (s == wire::DecodeStatus::error) {
                {
                    std::lock_guard<std::mutex> lock(mu_);
                    error_ = decoder_.error();
                }
                error_code ignored;
                sock_.close(ignored);
                set_closed();
                return;
            }
            read();
        });
    }

    std::string path_;
    Mode mode_;
    asio::io_context io_;
    asio::executor_work_guard<asio::io_context::executor_type> guard_ = asio::make_work_guard(io_);
    unix_socket::acceptor acceptor_;
    unix_socket::socket sock_{io_};
    std::array<uint8_t, 65536> buf_{};
    wire::Decoder decoder_;
    std::thread thread_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::vector<Received> messages_;
    std::string error_;
    bool closed_ = false;
};

template <class T>
std::vector<T> all_of(const std::vector<Received>& msgs) {
    std::vector<T> out;
    for (const auto& r : msgs)
        if (auto* p = std::get_if<T>(&r.msg)) out.push_back(*p);
    return out;
}

std::vector<FrameRecord> frames_of(const std::vector<Received>& msgs) {
    std::vector<FrameRecord> out;
    for (const auto& f : all_of<wire::Frames>(msgs)) out.insert(out.end(), f.frames.begin(), f.frames.end());
    return out;
}

// The conversation rules of common/wire_protocol.h: HELLO first and once, BYE
// last and once, contiguous frames from seq 0, BYE counting every frame sent.
void check_conversation(const TestServer& server, uint32_t session_id) {
    auto msgs = server.messages();
    CHECK(server.decode_error() == "");
    REQUIRE(msgs.size() >= 2);
    REQUIRE(std::holds_alternative<wire::Hello>(msgs.front().msg));
    REQUIRE(std::holds_alternative<wire::Bye>(msgs.back().msg));
    CHECK(all_of<wire::Hello>(msgs).size() == 1);
    CHECK(all_of<wire::Bye>(msgs).size() == 1);
    const auto& hello = std::get<wire::Hello>(msgs.front().msg);
    CHECK(hello.session_id == session_id);
    CHECK(hello.pid > 0);
    CHECK(hello.profile == "ci-tiny");
    auto frames = frames_of(msgs);
    for (size_t i = 0; i < frames.size(); ++i) {
        if (frames[i].seq != i) {
            FAIL_CHECK("frame " << i << " has seq " << frames[i].seq);
            break;
        }
    }
    const auto& bye = std::get<wire::Bye>(msgs.back().msg);
    CHECK(bye.frames_sent == frames.size());
    CHECK(bye.frames == frames.size());
    CHECK(bye.exit_code == 0);
    CHECK(bye.message == "");
    CHECK(bye.fps > 0);
}

}  // namespace

TEST_CASE("telemetry: a synthetic session streams HELLO, contiguous frames, heartbeats and BYE") {
    TempDir dir;
    const std::string sock = dir.file("run.sock");
    TestServer server(sock);
    auto r = run_process(seatmark_argv({"session", "--synthetic-fps", "200", "--duration", "2s", "--connect", sock,
                                        "--session-id", "7"}),
                         60);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("FPS") != std::string::npos);  // the summary is still printed
    REQUIRE(server.wait_closed(10));
    check_conversation(server, 7);
    auto msgs = server.messages();
    const auto& hello = std::get<wire::Hello>(msgs.front().msg);
    CHECK(hello.device_name == "synthetic");
    CHECK(hello.device_type == "synthetic");
    CHECK_FALSE(hello.software);
    CHECK(hello.duration_s == doctest::Approx(2.0));
    auto frames = frames_of(msgs);
    CHECK(frames.size() > 100);  // 200 FPS over ~1.7 s active; generous for a loaded host
    CHECK(frames.size() < 600);
    for (const auto& f : frames) {
        CHECK(f.cpu_ns >= 0);  // measured (begin -> the synthetic submit returned), no CPU spent per frame
        CHECK(f.cpu_ns < 50'000'000);
        CHECK(f.gpu_ns == -1);
    }
    CHECK(frames.back().stretch >= 1);  // think pauses happened
    auto beats = all_of<wire::Heartbeat>(msgs);
    CHECK(beats.size() >= 1);
    for (size_t i = 1; i < beats.size(); ++i) CHECK(beats[i].frames_emitted >= beats[i - 1].frames_emitted);
}

TEST_CASE("telemetry: a Vulkan session names its real device in HELLO and sends heartbeats while rendering") {
    TempDir dir;
    const std::string sock = dir.file("run.sock");
    TestServer server(sock);
    auto r = run_process(
        seatmark_argv({"session", "--workload", "ci-tiny", "--duration", "2s", "--connect", sock, "--session-id", "3"}),
        180);
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    REQUIRE(server.wait_closed(10));
    check_conversation(server, 3);
    auto msgs = server.messages();
    const auto& hello = std::get<wire::Hello>(msgs.front().msg);
    CHECK(hello.device_name != "synthetic");
    CHECK(!hello.device_name.empty());
    CHECK(!hello.device_type.empty());
    CHECK(!hello.driver_name.empty());
    CHECK(!hello.api_version.empty());
    CHECK(hello.width == 480);
    CHECK(hello.height == 360);
    CHECK(hello.scene_triangles > 0);
    CHECK(r.out.find(hello.device_name) != std::string::npos);  // the summary names the same device
    auto events = all_of<wire::Event>(msgs);
    bool fallback_event = false;
    for (const auto& e : events) fallback_event |= e.kind == wire::EventKind::software_fallback;
    CHECK(fallback_event == hello.software);

    // Heartbeats between the first frames and BYE: the render loop was alive.
    int64_t first_frames = -1, bye_at = msgs.back().at_ns;
    for (const auto& m : msgs)
        if (std::holds_alternative<wire::Frames>(m.msg)) {
            first_frames = m.at_ns;
            break;
        }
    REQUIRE(first_frames > 0);
    int during = 0;
    for (const auto& m : msgs)
        if (std::holds_alternative<wire::Heartbeat>(m.msg) && m.at_ns >= first_frames && m.at_ns <= bye_at) ++during;
    CHECK(during >= 1);
    auto frames = frames_of(msgs);
    CHECK(frames.size() > 10);
    int with_gpu = 0;
    for (const auto& f : frames) with_gpu += f.gpu_ns >= 0;
    CHECK(with_gpu > 0);  // real Vulkan timestamps, not the synthetic -1
}

TEST_CASE("telemetry: a session whose orchestrator goes away exits 1 within seconds, saying so") {
    TempDir dir;
    const std::string sock = dir.file("run.sock");
    TestServer server(sock, TestServer::Mode::close_after_hello);
    auto t0 = std::chrono::steady_clock::now();
    auto r = run_process(seatmark_argv({"session", "--synthetic-fps", "60", "--duration", "60s", "--connect", sock,
                                        "--session-id", "1", "--quiet"}),
                         40);
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    INFO(r.out << r.err);
    CHECK_FALSE(r.timed_out);
    CHECK(r.exit_code == exit_code::failure);
    CHECK(r.err.find("telemetry connection to " + sock + " lost") != std::string::npos);
    CHECK(took < 15);  // the session was asked for 60 s
}

TEST_CASE("telemetry: --connect to a socket that does not exist is bad input (exit 2) naming the path") {
    auto r = run_process(
        seatmark_argv({"session", "--synthetic-fps", "60", "--duration", "1s", "--connect", "/nonexistent/sock"}), 30);
    INFO(r.out << r.err);
    CHECK(r.exit_code == exit_code::bad_input);
    CHECK(r.err.find("/nonexistent/sock") != std::string::npos);
    CHECK(r.err.find("cannot connect") != std::string::npos);
    CHECK(r.out.find("FPS") == std::string::npos);  // nothing ran

    TempDir dir;
    auto plain = dir.file("not-a-socket");
    write_file(plain, "x");
    auto r2 = run_process(seatmark_argv({"session", "--synthetic-fps", "60", "--connect", plain}), 30);
    CHECK(r2.exit_code == exit_code::bad_input);
    CHECK(r2.err.find(plain) != std::string::npos);
}

TEST_CASE("telemetry: bad synthetic options are bad input") {
    auto r = run_process(seatmark_argv({"session", "--synthetic-fps", "-5"}), 30);
    CHECK(r.exit_code == exit_code::bad_input);
    CHECK(r.err.find("--synthetic-fps") != std::string::npos);
    auto r2 = run_process(seatmark_argv({"session", "--synthetic-fps", "60", "--screenshot", "/tmp/x.png"}), 30);
    CHECK(r2.exit_code == exit_code::bad_input);
    CHECK(r2.err.find("--synthetic-fps") != std::string::npos);
}

// ---- the sender in process ----

namespace {

wire::Hello test_hello() {
    wire::Hello h;
    h.session_id = 11;
    h.pid = 1;
    h.profile = "unit";
    h.device_name = "synthetic";
    return h;
}

FrameRecord frame_no(uint64_t seq) {
    FrameRecord r;
    r.seq = seq;
    r.t_begin_ns = int64_t(seq) * 1000;
    return r;
}

size_t count_beats(const TestServer& s) { return all_of<wire::Heartbeat>(s.messages()).size(); }

}  // namespace

TEST_CASE("telemetry sender: heartbeats only while the render loop marks progress") {
    TempDir dir;
    const std::string sock = dir.file("s.sock");
    TestServer server(sock);
    client::TelemetrySender::Options o;
    o.heartbeat_interval = std::chrono::milliseconds(100);
    client::TelemetrySender sender(o);
    sender.connect(sock);
    sender.start(test_hello());  // marks progress once: at most one heartbeat follows
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    size_t after_start = count_beats(server);
    std::this_thread::sleep_for(std::chrono::milliseconds(600));  // a "hung" render loop
    size_t hung = count_beats(server);
    CHECK(after_start <= 1);
    CHECK(hung == after_start);
    for (int i = 0; i < 40; ++i) {  // a live render loop, 800 ms
        sender.alive(now_ns());
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    size_t live = count_beats(server);
    CHECK(live >= hung + 2);
    CHECK(sender.finish(wire::Bye{}));
    REQUIRE(server.wait_closed(10));
    CHECK_FALSE(sender.lost());
}

TEST_CASE("telemetry sender: a heartbeat is stamped no later than the oldest frame still in flight") {
    // The orchestrator judges a window once a heartbeat says every frame begun before its end was
    // counted; a slow frame begun before the end and not finished must hold the stamp back.
    TempDir dir;
    const std::string sock = dir.file("s.sock");
    TestServer server(sock);
    client::TelemetrySender::Options o;
    o.heartbeat_interval = std::chrono::milliseconds(50);
    client::TelemetrySender sender(o);
    sender.connect(sock);
    sender.start(test_hello());
    client::FrameLog log([&](const FrameRecord& r) { sender.frame(r); });
    FrameRecord r{};
    r.t_begin_ns = now_ns();
    const uint64_t seq = log.begin(r, -1);  // in flight: no cpu, present or fence yet
    const int64_t in_flight_since = r.t_begin_ns;
    for (int i = 0; i < 10; ++i) {
        sender.alive(log.complete_through(now_ns()));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    log.set_cpu(seq, 1000);
    log.complete(client::FrameDone{seq, now_ns(), -1});  // emitted now
    const int64_t after = now_ns();
    for (int i = 0; i < 10; ++i) {
        sender.alive(log.complete_through(now_ns()));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CHECK(sender.finish(wire::Bye{}));
    REQUIRE(server.wait_closed(10));
    auto beats = all_of<wire::Heartbeat>(server.messages());
    REQUIRE(beats.size() >= 3);
    bool held = false, moved_on = false;
    for (const auto& b : beats) {
        if (b.frames_emitted == 0) {
            CHECK(b.t_ns <= in_flight_since);
            held = true;
        }
        if (b.frames_emitted == 1 && b.t_ns >= after) moved_on = true;
    }
    CHECK(held);
    CHECK(moved_on);
}

TEST_CASE("telemetry sender: frames in batches, events after the frames before them, BYE counts them all") {
    TempDir dir;
    const std::string sock = dir.file("s.sock");
    TestServer server(sock);
    client::TelemetrySender sender;
    sender.connect(sock);
    CHECK(sender.path() == sock);
    sender.start(test_hello());
    for (uint64_t i = 0; i < 3000; ++i) sender.frame(frame_no(i));
    sender.event(wire::EventKind::warning, "after 3000");
    for (uint64_t i = 3000; i < 3100; ++i) sender.frame(frame_no(i));
    wire::Bye bye;
    bye.frames_sent = 999999;  // filled in by the sender
    bye.fps = 42;
    REQUIRE(sender.finish(bye));
    CHECK(sender.frames_given() == 3100);
    CHECK(sender.frames_sent() == 3100);
    REQUIRE(server.wait_closed(10));
    auto msgs = server.messages();
    CHECK(server.decode_error() == "");
    REQUIRE(std::holds_alternative<wire::Hello>(msgs.front().msg));
    CHECK(std::get<wire::Hello>(msgs.front().msg) == test_hello());
    REQUIRE(std::holds_alternative<wire::Bye>(msgs.back().msg));
    CHECK(std::get<wire::Bye>(msgs.back().msg).frames_sent == 3100);
    CHECK(std::get<wire::Bye>(msgs.back().msg).fps == 42);
    uint64_t seen = 0;
    bool event_seen = false;
    for (const auto& m : msgs) {
        if (auto* f = std::get_if<wire::Frames>(&m.msg)) {
            for (const auto& r : f->frames) CHECK(r.seq == seen++);
        } else if (auto* e = std::get_if<wire::Event>(&m.msg)) {
            CHECK(e->text == "after 3000");
            CHECK(seen == 3000);
            event_seen = true;
        }
    }
    CHECK(seen == 3100);
    CHECK(event_seen);
}

TEST_CASE("telemetry sender: a closed connection is noticed and reported, never blocks") {
    TempDir dir;
    const std::string sock = dir.file("s.sock");
    TestServer server(sock, TestServer::Mode::close_after_hello);
    client::TelemetrySender sender;
    sender.connect(sock);
    sender.start(test_hello());
    REQUIRE(server.wait_closed(10));
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!sender.lost() && std::chrono::steady_clock::now() < deadline) {
        sender.frame(frame_no(0));
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    REQUIRE(sender.lost());
    INFO(sender.lost_reason());
    CHECK(!sender.lost_reason().empty());
    try {
        sender.check();
        FAIL("check() did not throw");
    } catch (const ExitError& e) {
        CHECK(e.code == exit_code::failure);
        CHECK(std::string(e.what()).find("telemetry connection to " + sock + " lost: ") == 0);
    }
    CHECK_FALSE(sender.finish(wire::Bye{}));
}

TEST_CASE("telemetry sender: an orchestrator that stops reading makes the connection lost after the send timeout") {
    TempDir dir;
    const std::string sock = dir.file("s.sock");
    TestServer server(sock, TestServer::Mode::never_read);
    client::TelemetrySender::Options o;
    o.send_timeout = std::chrono::milliseconds(300);
    client::TelemetrySender sender(o);
    sender.connect(sock);
    sender.start(test_hello());
    auto t0 = std::chrono::steady_clock::now();
    auto deadline = t0 + std::chrono::seconds(20);
    uint64_t seq = 0;
    while (!sender.lost() && std::chrono::steady_clock::now() < deadline) {
        for (int i = 0; i < 5000; ++i) sender.frame(frame_no(seq++));  // never blocks, whatever the socket does
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    REQUIRE(sender.lost());
    CHECK(sender.lost_reason().find("took longer than 0.3 s") != std::string::npos);
    CHECK(sender.frames_sent() < seq);
    CHECK_FALSE(sender.finish(wire::Bye{}));
}

TEST_CASE("telemetry: a session refused for its software renderer sends HELLO, then BYE with exit code 6") {
    TempDir dir;
    const std::string sock = dir.file("run.sock");
    TestServer server(sock);
    auto r = run_process(seatmark_argv({"session", "--workload", "ci-tiny", "--duration", "1s", "--no-software",
                                        "--connect", sock, "--session-id", "5"}),
                         120);
    INFO(r.out << r.err);
    REQUIRE(server.wait_closed(10));
    auto msgs = server.messages();
    REQUIRE(msgs.size() >= 2);
    REQUIRE(std::holds_alternative<wire::Hello>(msgs.front().msg));
    const auto& hello = std::get<wire::Hello>(msgs.front().msg);
    REQUIRE(std::holds_alternative<wire::Bye>(msgs.back().msg));
    const auto& bye = std::get<wire::Bye>(msgs.back().msg);
    CHECK(bye.exit_code == r.exit_code);
    if (hello.software) {
        CHECK(r.exit_code == exit_code::software_fallback);
        CHECK(bye.message.find("software renderer") != std::string::npos);
        CHECK(bye.frames_sent == 0);
    } else {
        CHECK(r.exit_code == exit_code::ok);
    }
}
