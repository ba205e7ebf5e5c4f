#include "orchestrator/live_events.h"

#include <utility>  // before Asio

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <chrono>

namespace seatmark::orchestrator {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

namespace {

constexpr auto write_timeout = 30s;         // a subscriber that takes longer is dropped
constexpr size_t max_queue = 1 << 20;       // bytes queued for one subscriber

std::string sse_text(const core::LiveEvent& e) {
    return "id: " + std::to_string(e.id) + "\nevent: " + e.kind() + "\ndata: " + core::json_text(core::event_json(e)) + "\n\n";
}

}  // namespace

// One event-stream subscriber, on the socket its HTTP connection handed over.
class SseClient : public std::enable_shared_from_this<SseClient> {
public:
    explicit SseClient(tcp::socket s) : sock_(std::move(s)), deadline_(sock_.get_executor()) {}

    void start(std::string first) {
        push(std::move(first));
        watch();
    }
    void push(std::string s) {
        if (closed_) return;
        if (queue_.empty() && !writing_) {
            // Usually the socket takes it at once; the queue is for a subscriber that lags.
            boost::system::error_code ec;
            sock_.non_blocking(true, ec);
            size_t n = ec ? 0 : sock_.write_some(asio::buffer(s), ec);
            if (ec && ec != asio::error::would_block && ec != asio::error::try_again) return close();
            if (n >= s.size()) return;
            s.erase(0, n);
        }
        if (queued_ + s.size() > max_queue) return close();  // it stopped reading
        queued_ += s.size();
        queue_.push_back(std::move(s));
        if (!writing_) write_next();
    }
    // Best effort, without blocking: what fits into the socket's buffer now.
    void flush_now() {
        if (closed_) return;
        boost::system::error_code ec;
        sock_.non_blocking(true, ec);
        // The front is in flight when a write is pending (it may have gone out already).
        for (size_t i = writing_ ? 1 : 0; i < queue_.size(); ++i) {
            const std::string& s = queue_[i];
            size_t off = 0;
            while (off < s.size()) {
                size_t n = sock_.write_some(asio::buffer(s.data() + off, s.size() - off), ec);
                if (ec) return;
                off += n;
            }
        }
    }
    void close() {
        if (closed_) return;
        closed_ = true;
        boost::system::error_code ec;
        sock_.shutdown(tcp::socket::shutdown_both, ec);
        sock_.close(ec);
        deadline_.cancel();
        queue_.clear();
    }
    bool closed() const { return closed_; }

private:
    void write_next() {
        writing_ = true;
        deadline_.expires_after(write_timeout);
        deadline_.async_wait([w = weak_from_this()](boost::system::error_code ec) {
            if (auto self = w.lock(); self && !ec) self->close();
        });
        asio::async_write(sock_, asio::buffer(queue_.front()),
                          [self = shared_from_this()](boost::system::error_code ec, size_t) { self->on_written(ec); });
    }
    void on_written(boost::system::error_code ec) {
        writing_ = false;
        deadline_.cancel();
        if (ec || closed_) return close();
        queued_ -= queue_.front().size();
        queue_.pop_front();
        if (!queue_.empty()) write_next();
    }
    // The client says nothing after its request; reading only notices it leaving.
    void watch() {
        sock_.async_read_some(asio::buffer(scratch_), [self = shared_from_this()](boost::system::error_code ec, size_t) {
            if (ec)
                self->close();
            else
                self->watch();
        });
    }

    tcp::socket sock_;
    asio::steady_timer deadline_;
    std::deque<std::string> queue_;
    size_t queued_ = 0;
    bool writing_ = false, closed_ = false;
    char scratch_[512];
};

const core::LiveEvent& EventStream::publish(const core::RunEvent& e, int64_t t_unix_ns) {
    backlog_.push_back(core::LiveEvent{next_id_++, t_unix_ns, e});
    while (backlog_.size() > backlog_size) backlog_.pop_front();
    const core::LiveEvent& kept = backlog_.back();
    if (!finished_) {
        std::string text = sse_text(kept);
        prune();
        for (auto& w : subscribers_)
            if (auto s = w.lock()) s->push(text);
    }
    return kept;
}

void EventStream::prune() {
    std::erase_if(subscribers_, [](const std::weak_ptr<SseClient>& w) {
        auto s = w.lock();
        return !s || s->closed();
    });
}

bool EventStream::full() const {
    size_t n = 0;
    for (auto& w : subscribers_)
        if (auto s = w.lock(); s && !s->closed()) ++n;
    return n >= max_subscribers;
}

void EventStream::subscribe(tcp::socket s, uint64_t last_event_id) {
    std::string first =
        "HTTP/1.1 200 OK\r\nServer: seatmark\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
        "X-Accel-Buffering: no\r\nConnection: close\r\n\r\nretry: 2000\n\n";
    for (const auto& e : backlog_)
        if (e.id > last_event_id) first += sse_text(e);
    auto client = std::make_shared<SseClient>(std::move(s));
    subscribers_.push_back(client);
    client->start(std::move(first));
}

void EventStream::ping() {
    prune();
    for (auto& w : subscribers_)
        if (auto s = w.lock()) s->push(": ping\n\n");
}

void EventStream::finish() {
    finished_ = true;
    for (auto& w : subscribers_)
        if (auto s = w.lock()) {
            s->flush_now();  // the run-end event reaches subscribers before the loop stops
            s->close();
        }
    subscribers_.clear();
}

}  // namespace seatmark::orchestrator
