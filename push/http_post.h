#pragma once
// One HTTP(S) POST with a deadline over everything (resolve, connect, TLS, write, read), on
// Boost.Beast. Never throws for the network: the answer says what happened.
#include <chrono>
#include <string>
#include <vector>

#include "push/push_target.h"

namespace seatmark::push {

struct PostResult {
    bool delivered = false;  // a 2xx answer
    bool retry = false;      // worth trying again later: no answer, a timeout, 408, 429 or 5xx
    int status = 0;          // the HTTP status, 0 without an answer
    std::string detail;      // what happened, for a message ("connection refused", "500: ...")
    std::string body;        // the answer's body (at most 1 MiB)
};

PostResult http_post(const PushTarget& t, const std::string& body, const std::string& content_type,
                     const std::vector<Header>& headers, std::chrono::milliseconds timeout);

}  // namespace seatmark::push
