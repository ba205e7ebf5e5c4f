#include "orchestrator/listen_address.h"

#include <utility>  // before Asio

#include <boost/asio/ip/address.hpp>

#include <charconv>

#include "common/errors.h"

namespace seatmark::orchestrator {

ListenAddress parse_listen(const std::string& text, const std::string& option) {
    auto bad = [&](const std::string& why) {
        return InputError(option + " " + text + ": " + why + " (expected HOST:PORT, e.g. 127.0.0.1:7878 or [::1]:0)");
    };
    std::string host, port;
    if (!text.empty() && text.front() == '[') {
        auto close = text.find(']');
        if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
            throw bad("an IPv6 address needs brackets and a port");
        host = text.substr(1, close - 1);
        port = text.substr(close + 2);
    } else {
        auto colon = text.rfind(':');
        if (colon == std::string::npos) throw bad("no port");
        host = text.substr(0, colon);
        port = text.substr(colon + 1);
    }
    if (host == "localhost") host = "127.0.0.1";
    boost::system::error_code ec;
    auto addr = boost::asio::ip::make_address(host, ec);
    if (ec) throw bad("'" + host + "' is not an IP address");
    // Digits only: from_chars takes no sign, space or prefix, and says when it overflows.
    uint32_t p = 0;
    auto [end, err] = std::from_chars(port.data(), port.data() + port.size(), p);
    if (port.empty() || err != std::errc() || end != port.data() + port.size() || p > 65535)
        throw bad("port must be 0..65535");
    return {addr.to_string(), static_cast<uint16_t>(p), addr.is_loopback()};
}

}  // namespace seatmark::orchestrator
