#include "push/deliver.h"

#include <algorithm>
#include <thread>

#include "push/http_post.h"
#include "push/push_format.h"

namespace seatmark::push {

std::string batch_body(SinkKind kind, const std::vector<const PushRecord*>& batch) {
    std::string body;
    for (const PushRecord* r : batch) body += (kind == SinkKind::influx ? influx_line(*r) : json_line(*r)) + "\n";
    return body;
}

const char* content_type(SinkKind kind) {
    return kind == SinkKind::influx ? "text/plain; charset=utf-8" : "application/x-ndjson";
}

Delivery deliver(const std::vector<PushRecord>& records, const PushTarget& target, Ledger& ledger,
                 const PushOptions& options) {
    Delivery d;
    d.url = target.url;
    d.records = records.size();
    ledger.add({});  // the sink is named beside the database before anything is tried
    std::vector<const PushRecord*> todo;
    for (const PushRecord& r : records)
        if (!ledger.has(r.key)) todo.push_back(&r);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(options.wait_s);
    auto backoff = std::chrono::milliseconds(250);
    size_t at = 0;
    while (at < todo.size()) {
        const size_t n = std::min(options.batch, todo.size() - at);
        const std::vector<const PushRecord*> batch(todo.begin() + long(at), todo.begin() + long(at + n));
        ++d.attempts;
        const PostResult r = http_post(target, batch_body(target.kind, batch), content_type(target.kind),
                                       options.headers, options.timeout);
        if (r.delivered) {
            std::vector<std::string> keys;
            for (const PushRecord* p : batch) keys.push_back(p->key);
            ledger.add(keys);
            d.sent_now += n;
            at += n;
            backoff = std::chrono::milliseconds(250);
            continue;
        }
        d.error = r.detail;
        // A refusal that will not change by waiting (400 bad data, 401, 404 no such database).
        if (!r.retry || std::chrono::steady_clock::now() + backoff >= deadline) break;
        std::this_thread::sleep_for(backoff);
        backoff = std::min(backoff * 2, std::chrono::milliseconds(8000));
    }
    d.pending = todo.size() - at;
    if (d.pending == 0) d.error.clear();
    return d;
}

}  // namespace seatmark::push
