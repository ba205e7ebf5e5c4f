#pragma once
// The live API's event stream (GET /api/v1/events, server-sent events): numbers
// and keeps what the run reports, sends it to every subscriber as it happens, and
// gives a late subscriber the backlog so it misses nothing.
#include <utility>  // before Asio

#include <boost/asio/ip/tcp.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "core/live_json.h"

namespace seatmark::orchestrator {

class SseClient;

class EventStream {
public:
    static constexpr size_t max_subscribers = 16;
    static constexpr size_t backlog_size = 256;  // events a late subscriber can still get

    // Numbers the event, keeps it and sends it to every subscriber.
    const core::LiveEvent& publish(const core::RunEvent& e, int64_t t_unix_ns);
    const std::deque<core::LiveEvent>& backlog() const { return backlog_; }

    bool full() const;  // no room for another subscriber
    // Takes the socket of a GET /api/v1/events: the response head, the backlog after
    // last_event_id, then every event as it comes.
    void subscribe(boost::asio::ip::tcp::socket s, uint64_t last_event_id);
    // A comment line that keeps idle streams open through proxies and notices dead ones.
    void ping();
    // Sends what each subscriber still has queued as far as its socket takes it
    // without waiting, then closes every stream.
    void finish();

private:
    void prune();
    std::deque<core::LiveEvent> backlog_;
    uint64_t next_id_ = 1;
    // The clients are owned by their pending handlers: the run's loop ending frees them.
    std::vector<std::weak_ptr<SseClient>> subscribers_;
    bool finished_ = false;
};

}  // namespace seatmark::orchestrator
