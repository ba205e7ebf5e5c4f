// The live API's request handling on arbitrary bytes: read the way its server reads
// a connection (orchestrator/live_http.h: the same parser limits and error replies),
// then, for a request that reads, answered by its real routes (token check, query
// parsing, every endpoint) over a fixed run. Any peer on the API's port can send
// these bytes; each must end in a reply, never a crash, leak or undefined behaviour.
#include <utility>  // before Asio

#include <boost/beast/http/error.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "orchestrator/live_events.h"
#include "orchestrator/live_http.h"
#include "orchestrator/live_routes.h"

using namespace seatmark;
using namespace seatmark::orchestrator;
namespace http = boost::beast::http;

namespace {

class FixedRun : public LiveSource {
public:
    core::LiveState live_state() override {
        core::LiveState s;
        s.plan = "fuzz";
        s.step = 1;
        s.steps = 2;
        s.gpu_util_pct = NAN;
        for (uint32_t i = 0; i < 2; ++i) {
            core::LiveSession x;
            x.id = i;
            x.state = "running";
            x.fps = 60;
            x.p95_ms = NAN;
            s.sessions.push_back(x);
        }
        return s;
    }
    std::vector<core::LiveFrame> live_frames(uint32_t, uint64_t since, size_t max) override {
        std::vector<core::LiveFrame> out;
        for (uint64_t q = since; q < since + 3 && out.size() < max; ++q) out.push_back({q, int64_t(q), 16.0});
        return out;
    }
};

struct Api {
    Api() : routes("fuzz-token", nullptr, events, history, counters) {
        routes.attach(run);
        events.publish(core::StepBeginEvent{1, 2, 1}, 1);
    }
    FixedRun run;
    EventStream events;
    core::LiveHistory history;
    ApiCounters counters;
    LiveRoutes routes;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static Api api;
    // The first byte splits the input in two reads, as bytes may arrive over a socket.
    size_t split = size ? data[0] % (size + 1) : 0;
    const char* p = reinterpret_cast<const char*>(data);
    RequestParser parser;
    limit_request(parser);
    boost::system::error_code ec;
    std::string buffered;
    // As Beast's read_header: put what has arrived; after need_more, put again once more came.
    for (std::string_view chunk : {std::string_view(p, split), std::string_view(p + split, size - split)}) {
        if (chunk.empty()) continue;
        buffered.append(chunk);
        while (!buffered.empty() && !parser.is_header_done()) {
            size_t used = parser.put(boost::asio::buffer(buffered), ec);
            buffered.erase(0, used);
            if (ec) break;
        }
        if (ec == http::error::need_more) ec = {};
        if (ec || parser.is_header_done()) break;
    }
    if (!ec && !parser.is_header_done()) {
        // The peer closed: quietly when nothing came, else the parser says what is missing.
        if (!parser.got_some()) return 0;
        parser.put_eof(ec);
        if (!ec) __builtin_trap();  // a header cut short cannot be complete
    }
    if (!ec) ec = request_complete(parser);
    HttpReply r = ec ? unreadable_reply(ec) : api.routes.handle(parser.get());
    if (r.status < 200 || r.status > 599) __builtin_trap();
    if (r.status >= 400 && !r.close) __builtin_trap();  // every error closes its connection
    // Without the token, nothing but 401 (or a reading error) comes back.
    if (r.authorized && !ec && parser.is_done()) {
        auto it = parser.get().find(http::field::authorization);
        if (it == parser.get().end() || !bearer_matches(std::string_view(it->value().data(), it->value().size()), "fuzz-token"))
            __builtin_trap();
    }
    return 0;
}
