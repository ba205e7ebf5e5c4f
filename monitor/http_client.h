#pragma once
// A small blocking HTTP/1.1 GET (Boost.Beast) with one deadline for the whole
// exchange, for the monitor's live source. Plain http:// only.
#include <cstdint>
#include <string>

namespace seatmark::monitor {

struct HttpUrl {
    std::string host = "127.0.0.1";
    uint16_t port = 7878;
    std::string base_path;  // "" or a prefix such as "/seatmark" (no trailing slash)
    std::string text() const;
};

// "http://HOST:PORT[/prefix]" or "HOST:PORT"; throws InputError otherwise.
HttpUrl parse_url(const std::string& text);

struct HttpResult {
    int status = 0;
    std::string body;
};

// Throws std::runtime_error on connection errors and timeouts (the message says which).
HttpResult http_get(const HttpUrl& url, const std::string& target, const std::string& token, double timeout_s);

}  // namespace seatmark::monitor
