#pragma once
// A deliberately plain HTTP/1.1 client for the live API tests: blocking POSIX
// sockets, raw bytes in and out (so tests can send malformed requests), and a
// small parser for the Prometheus text exposition format.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace seatmark::test {

// Connects to 127.0.0.1:port, sends `request` (in pieces `delay_ms` apart when > 0),
// and reads until the server closes or timeout_s passes. -1 socket errors give "".
inline std::string http_exchange(uint16_t port, const std::string& request, double timeout_s = 10,
                                 bool* closed_by_server = nullptr) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return {};
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{};
    tv.tv_sec = 0;
    tv.tv_usec = 200'000;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        close(fd);
        return {};
    }
    size_t off = 0;
    while (off < request.size()) {
        ssize_t n = send(fd, request.data() + off, request.size() - off, MSG_NOSIGNAL);
        if (n <= 0) break;
        off += size_t(n);
    }
    std::string out;
    char buf[4096];
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(int64_t(timeout_s * 1000));
    bool closed = false;
    while (std::chrono::steady_clock::now() < end) {
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
            closed = true;
            break;
        }
        if (n > 0) out.append(buf, size_t(n));
    }
    if (closed_by_server) *closed_by_server = closed;
    close(fd);
    return out;
}

struct HttpReply {
    int status = 0;
    std::map<std::string, std::string> headers;  // names lower-cased
    std::string body;
};

inline HttpReply parse_reply(const std::string& raw) {
    HttpReply r;
    auto head_end = raw.find("\r\n\r\n");
    if (raw.rfind("HTTP/1.1 ", 0) != 0 || head_end == std::string::npos) return r;
    r.status = std::atoi(raw.c_str() + 9);
    size_t pos = raw.find("\r\n") + 2;
    while (pos < head_end) {
        size_t eol = raw.find("\r\n", pos);
        std::string line = raw.substr(pos, eol - pos);
        auto colon = line.find(':');
        if (colon != std::string::npos) {
            std::string name = line.substr(0, colon);
            for (auto& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
            std::string value = line.substr(colon + 1);
            while (!value.empty() && value.front() == ' ') value.erase(0, 1);
            r.headers[name] = value;
        }
        pos = eol + 2;
    }
    r.body = raw.substr(head_end + 4);
    return r;
}

inline HttpReply http_get(uint16_t port, const std::string& target, const std::string& extra_headers = "",
                          const std::string& method = "GET") {
    return parse_reply(http_exchange(port,
                                     method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra_headers +
                                         "Connection: close\r\n\r\n"));
}

// "http://127.0.0.1:PORT" anywhere in text -> PORT (0 when absent).
inline uint16_t port_in(const std::string& text) {
    auto p = text.find("http://127.0.0.1:");
    if (p == std::string::npos) return 0;
    return static_cast<uint16_t>(std::atoi(text.c_str() + p + 17));
}

// The data lines of every `kind` event in a server-sent event stream, in order.
inline std::vector<std::string> sse_data(const std::string& stream, const std::string& kind) {
    std::vector<std::string> out;
    const std::string head = "\nevent: " + kind + "\ndata: ";
    for (size_t p = stream.find(head); p != std::string::npos; p = stream.find(head, p + 1)) {
        const size_t at = p + head.size();
        out.push_back(stream.substr(at, stream.find('\n', at) - at));
    }
    return out;
}

struct PromSample {
    std::string name;
    std::map<std::string, std::string> labels;
    double value = 0;
};

// Parses the Prometheus text format (0.0.4): '# HELP name text', '# TYPE name type',
// 'name{label="value",...} number'. Every sample's family must have been typed first
// with a known type, each family once. Returns "" or what is wrong, with the line.
inline std::string parse_prometheus(const std::string& text, std::vector<PromSample>& out) {
    std::map<std::string, std::string> types;
    std::set<std::string> helped;
    auto name_ok = [](const std::string& n) {
        if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
        for (char c : n)
            if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':')) return false;
        return true;
    };
    size_t line_no = 0, pos = 0;
    if (text.empty() || text.back() != '\n') return "does not end with a newline";
    while (pos < text.size()) {
        size_t eol = text.find('\n', pos);
        std::string line = text.substr(pos, eol - pos);
        pos = eol + 1;
        ++line_no;
        auto fail = [&](const std::string& why) { return "line " + std::to_string(line_no) + ": " + why + ": " + line; };
        if (line.empty()) continue;
        if (line[0] == '#') {
            std::string kind = line.substr(0, 7);
            if (kind != "# HELP " && kind != "# TYPE ") continue;  // a plain comment
            std::string rest = line.substr(7);
            auto sp = rest.find(' ');
            std::string name = rest.substr(0, sp);
            if (!name_ok(name)) return fail("bad metric name");
            if (kind == "# TYPE ") {
                std::string type = sp == std::string::npos ? "" : rest.substr(sp + 1);
                if (types.count(name)) return fail("family typed twice");
                if (type != "gauge" && type != "counter" && type != "untyped" && type != "histogram" && type != "summary")
                    return fail("unknown type");
                types[name] = type;
            } else {
                if (helped.count(name)) return fail("family helped twice");
                helped.insert(name);
            }
            continue;
        }
        PromSample s;
        size_t i = 0;
        while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
        s.name = line.substr(0, i);
        if (!name_ok(s.name)) return fail("bad metric name");
        if (i < line.size() && line[i] == '{') {
            ++i;
            while (i < line.size() && line[i] != '}') {
                size_t eq = line.find('=', i);
                if (eq == std::string::npos || eq + 1 >= line.size() || line[eq + 1] != '"') return fail("bad label");
                std::string key = line.substr(i, eq - i);
                if (!name_ok(key)) return fail("bad label name");
                std::string value;
                size_t j = eq + 2;
                for (; j < line.size() && line[j] != '"'; ++j) {
                    if (line[j] == '\\' && j + 1 < line.size()) {
                        char e = line[++j];
                        if (e == 'n')
                            value += '\n';
                        else if (e == '\\' || e == '"')
                            value += e;
                        else
                            return fail("bad escape");
                    } else {
                        value += line[j];
                    }
                }
                if (j >= line.size()) return fail("unterminated label value");
                s.labels[key] = value;
                i = j + 1;
                if (i < line.size() && line[i] == ',') ++i;
            }
            if (i >= line.size()) return fail("unterminated labels");
            ++i;
        }
        if (i >= line.size() || line[i] != ' ') return fail("no value");
        std::string v = line.substr(i + 1);
        auto sp = v.find(' ');  // an optional timestamp follows
        if (sp != std::string::npos) v = v.substr(0, sp);
        if (v == "NaN")
            s.value = NAN;
        else if (v == "+Inf")
            s.value = INFINITY;
        else if (v == "-Inf")
            s.value = -INFINITY;
        else {
            char* end = nullptr;
            s.value = std::strtod(v.c_str(), &end);
            if (v.empty() || *end) return fail("bad value");
        }
        std::string family = s.name;
        if (!types.count(family)) return fail("sample before its # TYPE");
        out.push_back(std::move(s));
    }
    return "";
}

inline const PromSample* find_sample(const std::vector<PromSample>& v, const std::string& name,
                                     const std::map<std::string, std::string>& labels = {}) {
    for (const auto& s : v) {
        if (s.name != name) continue;
        bool ok = true;
        for (const auto& [k, val] : labels) ok = ok && s.labels.count(k) && s.labels.at(k) == val;
        if (ok) return &s;
    }
    return nullptr;
}

// A TCP connection to 127.0.0.1:port from the loopback address `from` (any of
// 127.0.0.0/8 is this host, so tests can play several peers). -1 on failure.
inline int tcp_connect(uint16_t port, const char* from = "127.0.0.1") {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    sockaddr_in local{};
    local.sin_family = AF_INET;
    inet_pton(AF_INET, from, &local.sin_addr);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0 ||
        connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

// The server closed (or reset) this connection: a read says EOF or an error now.
inline bool closed_by_server(int fd) {
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

// Appends what the server sends on fd to `got` until `want` appears in it (true), or, with
// `want` empty, until the server closes (true); false when timeout_s passes first. For streams
// (server-sent events): the test waits on what arrived, not for a fixed time.
inline bool read_until(int fd, std::string& got, const std::string& want, double timeout_s) {
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(int64_t(timeout_s * 1000));
    char buf[4096];
    while (want.empty() || got.find(want) == std::string::npos) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, int(left.count())) <= 0) continue;
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n > 0) got.append(buf, size_t(n));
        else if (n == 0 || (errno != EAGAIN && errno != EINTR)) return want.empty();
    }
    return true;
}

// One request on an open connection, its reply read up to the end of the body
// (Content-Length) or until the server closes; keeps the connection.
inline HttpReply request_on(int fd, const std::string& request, double timeout_s = 10) {
    size_t off = 0;
    while (off < request.size()) {
        ssize_t n = send(fd, request.data() + off, request.size() - off, MSG_NOSIGNAL);
        if (n <= 0) return {};
        off += size_t(n);
    }
    timeval tv{};
    tv.tv_usec = 200'000;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string out;
    char buf[4096];
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(int64_t(timeout_s * 1000));
    while (std::chrono::steady_clock::now() < end) {
        auto head = out.find("\r\n\r\n");
        if (head != std::string::npos) {
            HttpReply r = parse_reply(out);
            auto it = r.headers.find("content-length");
            if (it != r.headers.end() && r.body.size() >= size_t(std::atoll(it->second.c_str()))) return r;
        }
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) break;
        if (n > 0) out.append(buf, size_t(n));
    }
    return parse_reply(out);
}

}  // namespace seatmark::test
