#pragma once
// A join listener (orchestrator/join_listener.h) on its own event-loop thread, recording what it
// reports; for the listener's tests and the joined-session tests.
#include <utility>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>

#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "common/join_peer.h"
#include "orchestrator/join_listener.h"

namespace seatmark::test {

namespace asio = boost::asio;
using namespace std::chrono_literals;

// A listener on its own event loop thread, recording what it reports.
struct Harness {
    asio::io_context io;
    std::unique_ptr<seatmark::orchestrator::JoinListener> listener;
    std::thread thread;
    std::mutex mu;
    std::condition_variable cv;
    std::vector<std::string> refused;
    std::vector<seatmark::orchestrator::JoinedPeer> joined;
    std::vector<uint64_t> ready;
    std::vector<seatmark::core::ClockOffset> clocks;
    seatmark::join::Welcome welcome = [] {
        seatmark::join::Welcome w;
        w.device = "";
        return w;
    }();
    std::vector<seatmark::wire::Message> messages;
    std::vector<seatmark::join::Samples> samples;
    std::vector<std::pair<uint64_t, seatmark::join::JoinMessage>> launcher;  // cb.launcher
    std::vector<std::pair<uint64_t, seatmark::orchestrator::ConnectionEnd>> closed;

    explicit Harness(seatmark::orchestrator::JoinListener::Options o = {}) {
        o.address = {"127.0.0.1", 0, true};
        if (o.token.empty()) o.token = "sesame-0123456789";
        seatmark::orchestrator::JoinListener::Callbacks cb;
        cb.joined = [this](const seatmark::orchestrator::JoinedPeer& p, std::string&) -> std::optional<seatmark::join::Welcome> {
            std::lock_guard<std::mutex> l(mu);
            joined.push_back(p);
            seatmark::join::Welcome w = welcome;
            w.id = static_cast<uint32_t>(joined.size() - 1);
            cv.notify_all();
            return w;
        };
        cb.clock = [this](uint64_t c, const seatmark::core::ClockOffset& off, bool first) {
            std::lock_guard<std::mutex> l(mu);
            if (first) ready.push_back(c);
            clocks.push_back(off);
            cv.notify_all();
        };
        cb.message = [this](uint64_t, seatmark::wire::Message&& m) {
            std::lock_guard<std::mutex> l(mu);
            messages.push_back(std::move(m));
            cv.notify_all();
        };
        cb.samples = [this](uint64_t, seatmark::join::Samples&& s) {
            std::lock_guard<std::mutex> l(mu);
            samples.push_back(std::move(s));
            cv.notify_all();
        };
        cb.launcher = [this](uint64_t c, seatmark::join::JoinMessage&& m) {
            std::lock_guard<std::mutex> l(mu);
            launcher.emplace_back(c, std::move(m));
            cv.notify_all();
        };
        cb.refused = [this](const std::string& a, const std::string& why) {
            std::lock_guard<std::mutex> l(mu);
            refused.push_back(a + ": " + why);
            cv.notify_all();
        };
        cb.closed = [this](uint64_t c, const seatmark::orchestrator::ConnectionEnd& e) {
            std::lock_guard<std::mutex> l(mu);
            closed.push_back({c, e});
            cv.notify_all();
        };
        listener = std::make_unique<seatmark::orchestrator::JoinListener>(io, o, cb);
        thread = std::thread([this] {
            auto g = asio::make_work_guard(io);
            io.run();
        });
    }
    ~Harness() {
        asio::post(io, [this] {
            listener->close();
            io.stop();
        });
        thread.join();
    }
    template <class F>
    bool wait(F pred, std::chrono::milliseconds limit = 10s) {
        std::unique_lock<std::mutex> l(mu);
        return cv.wait_for(l, limit, pred);
    }
    seatmark::join::HostPort where() const { return {"127.0.0.1", listener->port()}; }
    template <class F>
    void on_loop(F f) {
        std::promise<void> p;
        asio::post(io, [&] {
            f();
            p.set_value();
        });
        p.get_future().wait();
    }
};

}  // namespace seatmark::test
