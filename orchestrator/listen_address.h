#pragma once
// `--listen HOST:PORT` for the live API: parsed here, bound by the HTTP server
// (orchestrator/live_http.h). An IP literal only, so no name lookup decides
// where the API is exposed.
#include <cstdint>
#include <string>

namespace seatmark::orchestrator {

constexpr const char* default_listen = "127.0.0.1:7878";

struct ListenAddress {
    std::string host;     // an IP address literal ("localhost" reads as 127.0.0.1)
    uint16_t port = 0;    // 0: any free port
    bool loopback = true;
};

// Parses HOST:PORT ("127.0.0.1:7878", "[::1]:0", "localhost:7878", "0.0.0.0:7878").
// Throws InputError naming `option` (the live API's --listen, join mode's --accept) and what was
// expected.
ListenAddress parse_listen(const std::string& text, const std::string& option);

}  // namespace seatmark::orchestrator
