#include "push/push_target.h"

#include <cctype>
#include <sstream>

#include "common/errors.h"
#include "common/input_file.h"

namespace seatmark::push {

namespace {

bool token_char(char c) {  // RFC 9110 tchar
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string percent_encoded(const std::string& s) {
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            out += char(c);
        } else {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", c);
            out += buf;
        }
    }
    return out;
}

}  // namespace

PushTarget parse_push_url(const std::string& url, const std::string& option) {
    auto bad = [&](const std::string& why) -> InputError {
        return InputError(option + " '" + url + "': " + why +
                          "; expected influx://HOST[:PORT]/DATABASE (InfluxDB 1.x), influxs://..., "
                          "http://HOST[:PORT]/PATH or https://HOST[:PORT]/PATH (JSON lines)");
    };
    for (char c : url)
        if (std::iscntrl(static_cast<unsigned char>(c)) || c == ' ') throw bad("it holds a space or control character");
    PushTarget t;
    t.url = url;
    const size_t sep = url.find("://");
    if (sep == std::string::npos) throw bad("no scheme");
    std::string scheme = url.substr(0, sep);
    for (char& c : scheme) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (scheme == "influx" || scheme == "influxs") {
        t.kind = SinkKind::influx;
        t.tls = scheme == "influxs";
    } else if (scheme == "http" || scheme == "https") {
        t.kind = SinkKind::json;
        t.tls = scheme == "https";
    } else {
        throw bad("unknown scheme '" + scheme + "'");
    }
    const std::string rest = url.substr(sep + 3);
    const size_t slash = rest.find_first_of("/?#");
    const std::string authority = rest.substr(0, slash);
    std::string path = slash == std::string::npos ? "" : rest.substr(slash);
    if (path.find('#') != std::string::npos) throw bad("a fragment (#...) means nothing to a server");
    if (authority.find('@') != std::string::npos)
        throw bad("credentials in the URL would be printed and stored; give them as a header (--push-header or --push-header-file)");
    // HOST, HOST:PORT, [V6], [V6]:PORT
    std::string host = authority, port;
    if (!authority.empty() && authority.front() == '[') {
        const size_t close = authority.find(']');
        if (close == std::string::npos) throw bad("an IPv6 address without its closing ']'");
        host = authority.substr(1, close - 1);
        if (close + 1 < authority.size()) {
            if (authority[close + 1] != ':') throw bad("text after the IPv6 address");
            port = authority.substr(close + 2);
        }
    } else if (const size_t colon = authority.rfind(':'); colon != std::string::npos) {
        host = authority.substr(0, colon);
        port = authority.substr(colon + 1);
        if (port.empty()) throw bad("an empty port");
    }
    if (host.empty()) throw bad("no host");
    if (!port.empty()) {
        if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) < 1 ||
            std::stoi(port) > 65535)
            throw bad("port '" + port + "' is not a number from 1 to 65535");
    } else {
        port = t.kind == SinkKind::influx ? "8086" : (t.tls ? "443" : "80");
    }
    t.host = host;
    t.port = port;
    if (t.kind == SinkKind::influx) {
        const size_t q = path.find('?');
        std::string db = path.substr(path.empty() ? 0 : 1, q == std::string::npos ? std::string::npos : q - 1);
        const std::string query = q == std::string::npos ? "" : path.substr(q + 1);
        if (db.empty() || db.find('/') != std::string::npos)
            throw bad("the path must be the database's name, one segment (influx://HOST:8086/DATABASE)");
        if (query.find("db=") == 0 || query.find("&db=") != std::string::npos || query.find("precision=") != std::string::npos)
            throw bad("db= and precision= come from the URL's path and seatmark; give only rp=, u=, p= or consistency=");
        t.target = "/write?db=" + percent_encoded(db) + "&precision=ns" + (query.empty() ? "" : "&" + query);
    } else {
        t.target = path.empty() ? "/" : (path.front() == '?' ? "/" + path : path);
    }
    return t;
}

Header parse_header(const std::string& text, const std::string& where) {
    const size_t colon = text.find(':');
    auto bad = [&](const std::string& why) {
        return InputError(where + ": " + why + "; expected 'Name: value', e.g. 'Authorization: Bearer TOKEN'");
    };
    if (colon == std::string::npos || colon == 0) throw bad("no header name before ':'");
    const std::string name = text.substr(0, colon);
    for (char c : name)
        if (!token_char(c)) throw bad("'" + name + "' is not a header name");
    std::string value = text.substr(colon + 1);
    const size_t b = value.find_first_not_of(" \t"), e = value.find_last_not_of(" \t\r");
    value = b == std::string::npos ? "" : value.substr(b, e - b + 1);
    for (char c : value)
        if (c == '\n' || c == '\r' || c == '\0') throw bad("a line break in the value");
    return {name, value};
}

std::vector<Header> read_header_file(const std::string& path) {
    // The one rule for inputs (common/input_file.h): a regular file of a token file's size, so a
    // device or FIFO given by mistake is refused instead of read without end.
    std::istringstream in(read_input_text(path, "header file (one 'Name: value' per line)", max_token_bytes));
    std::vector<Header> out;
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const size_t b = line.find_first_not_of(" \t");
        if (b == std::string::npos || line[b] == '#') continue;
        out.push_back(parse_header(line.substr(b), path + ":" + std::to_string(n)));
    }
    return out;
}

}  // namespace seatmark::push
