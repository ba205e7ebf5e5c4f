#pragma once
// Sends one sink the records its ledger does not have, in batches, retrying with backoff until a
// deadline; what is still not taken then stays pending for a later `seatmark push`.
#include <chrono>
#include <string>
#include <vector>

#include "push/push_ledger.h"
#include "push/push_record.h"
#include "push/push_target.h"

namespace seatmark::push {

struct PushOptions {
    std::vector<Header> headers;                 // every request carries them (a token, a key)
    std::chrono::milliseconds timeout{10000};    // one request, from resolve to the answer
    double wait_s = 30;                          // how long to keep trying a sink that fails
    size_t batch = 500;                          // records per request
};

struct Delivery {
    std::string url;
    size_t records = 0;    // the file's records now
    size_t sent_now = 0;   // taken by this call
    size_t pending = 0;    // still not taken
    int attempts = 0;      // requests made
    std::string error;     // the last failure, "" when everything was taken
};

// The request body for a batch and its content type, per sink kind.
std::string batch_body(SinkKind kind, const std::vector<const PushRecord*>& batch);
const char* content_type(SinkKind kind);

Delivery deliver(const std::vector<PushRecord>& records, const PushTarget& target, Ledger& ledger,
                 const PushOptions& options);

}  // namespace seatmark::push
