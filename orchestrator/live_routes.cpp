#include "orchestrator/live_routes.h"

#include <utility>  // before Asio

#include <boost/beast/http/field.hpp>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <initializer_list>
#include <vector>

#include "common/clock.h"

namespace seatmark::orchestrator {

namespace http = boost::beast::http;

namespace {

// Constant-time comparison for the token: the time taken does not say how much matched.
bool same(std::string_view a, const std::string& b) {
    if (b.empty()) return false;
    unsigned char d = a.size() == b.size() ? 0 : 1;
    for (size_t i = 0; i < a.size(); ++i) d |= static_cast<unsigned char>(a[i] ^ b[i % b.size()]);
    return d == 0;
}

bool parse_uint(std::string_view s, uint64_t& out) {
    // Digits only: from_chars takes no sign, space or prefix, and says when it overflows.
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc() && end == s.data() + s.size();
}

bool parse_seconds(std::string_view s, double& out) {
    if (s.empty() || s.size() > 24) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || c == '.' || c == '-')) return false;
    std::string t(s);
    char* end = nullptr;
    out = std::strtod(t.c_str(), &end);
    return end == t.c_str() + t.size() && std::isfinite(out);
}

bool is_space(char c) { return c == ' ' || c == '\t'; }

}  // namespace

bool bearer_matches(std::string_view h, const std::string& token) {
    while (!h.empty() && is_space(h.front())) h.remove_prefix(1);
    while (!h.empty() && is_space(h.back())) h.remove_suffix(1);
    constexpr std::string_view scheme = "bearer";
    if (h.size() <= scheme.size() || !is_space(h[scheme.size()])) return false;
    for (size_t i = 0; i < scheme.size(); ++i)
        if ((h[i] | 0x20) != scheme[i]) return false;  // ASCII letters: | 0x20 lower-cases
    h.remove_prefix(scheme.size());
    while (!h.empty() && is_space(h.front())) h.remove_prefix(1);
    return same(h, token);
}

LiveRoutes::LiveRoutes(std::string token, nlohmann::json plan, const EventStream& events, const core::LiveHistory& history,
                       const ApiCounters& counters)
    : token_(std::move(token)), plan_(std::move(plan)), events_(events), history_(history), counters_(counters) {}

const core::LiveState& LiveRoutes::current_state(bool force) {
    int64_t t = now_ns();
    if (!state_ || force || t - state_at_ns_ >= state_cache_ns) {
        state_ = source_->live_state();
        state_at_ns_ = now_ns();
        mono_start_ns_ = state_at_ns_ - int64_t(state_->elapsed_s * 1e9);
    }
    return *state_;
}

HttpReply LiveRoutes::handle(const HttpRequest& req) {
    if (!token_.empty()) {
        auto it = req.find(http::field::authorization);
        if (it == req.end() || !bearer_matches(std::string_view(it->value().data(), it->value().size()), token_)) {
            HttpReply r = error_reply(401, "this API needs the header 'Authorization: Bearer TOKEN' (seatmark run --token)");
            r.headers.push_back({"WWW-Authenticate", "Bearer realm=\"seatmark\""});
            return r;
        }
    }
    HttpReply r = [&] {
        if (req.method() != http::verb::get && req.method() != http::verb::head) {
            HttpReply e = error_reply(405, "the live API is read-only: GET or HEAD");
            e.headers.push_back({"Allow", "GET, HEAD"});
            return e;
        }
        std::string_view target(req.target().data(), req.target().size());
        if (target.empty() || target.front() != '/') return error_reply(400, "the request target must be a path");
        auto q = target.find('?');
        std::string_view path = target.substr(0, q);
        std::string_view query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
        return route(path, query, req);
    }();
    r.authorized = true;
    return r;
}

HttpReply LiveRoutes::route(std::string_view path, std::string_view query, const HttpRequest& req) {
    // The query: known keys only, each once, plain values.
    std::vector<std::pair<std::string_view, std::string_view>> params;
    for (size_t start = 0; start < query.size();) {
        size_t end = query.find('&', start);
        if (end == std::string_view::npos) end = query.size();
        std::string_view kv = query.substr(start, end - start);
        size_t eq = kv.find('=');
        if (kv.empty() || eq == std::string_view::npos) return error_reply(400, "bad query: expected key=value pairs");
        params.push_back({kv.substr(0, eq), kv.substr(eq + 1)});
        start = end + 1;
    }
    auto check_keys = [&](std::initializer_list<std::string_view> allowed) -> std::optional<HttpReply> {
        for (size_t i = 0; i < params.size(); ++i) {
            bool known = false;
            for (auto a : allowed) known = known || params[i].first == a;
            if (!known)
                return error_reply(400, "bad query: unknown parameter '" + std::string(params[i].first.substr(0, 40)) + "'");
            for (size_t k = 0; k < i; ++k)
                if (params[k].first == params[i].first)
                    return error_reply(400, "bad query: '" + std::string(params[i].first) + "' given twice");
        }
        return std::nullopt;
    };
    auto param = [&](std::string_view key) -> std::optional<std::string_view> {
        for (auto& [k, v] : params)
            if (k == key) return v;
        return std::nullopt;
    };

    HttpReply r;
    if (path == "/api/v1/state") {
        if (auto e = check_keys({})) return *e;
        const core::LiveState& s = current_state();
        const auto& backlog = events_.backlog();
        std::deque<core::LiveEvent> recent(backlog.size() > state_events ? backlog.end() - state_events : backlog.begin(),
                                     backlog.end());
        r.body = core::json_text(core::state_json(s, mono_start_ns_, recent, plan_)) + "\n";
        return r;
    }
    if (path == "/api/v1/frames") {
        if (auto e = check_keys({"session", "since", "max"})) return *e;
        uint64_t session = 0, since = 0, max = frames_default;
        auto sv = param("session");
        if (!sv) return error_reply(400, "bad query: session=N is required");
        if (!parse_uint(*sv, session) || session > UINT32_MAX)
            return error_reply(400, "bad query: session must be a session number");
        if (auto v = param("since"); v && !parse_uint(*v, since))
            return error_reply(400, "bad query: since must be a frame sequence number");
        if (auto v = param("max"); v && (!parse_uint(*v, max) || max < 1 || max > frames_limit))
            return error_reply(400, "bad query: max must be 1.." + std::to_string(frames_limit));
        const core::LiveState& s = current_state();
        bool known = false;
        for (const auto& x : s.sessions) known = known || x.id == session;
        if (!known) return error_reply(404, "no session " + std::to_string(session) + " in this run");
        auto frames = source_->live_frames(static_cast<uint32_t>(session), since, max);
        r.body = core::json_text(core::frames_json(static_cast<uint32_t>(session), since, frames, max)) + "\n";
        return r;
    }
    if (path == "/api/v1/history") {
        if (auto e = check_keys({"since"})) return *e;
        double since = -1;
        if (auto v = param("since"); v && !parse_seconds(*v, since))
            return error_reply(400, "bad query: since must be seconds since the run started");
        r.body = core::json_text(core::history_json(history_.points(), since, history_.spacing_s())) + "\n";
        return r;
    }
    if (path == "/api/v1/events") {
        if (auto e = check_keys({})) return *e;
        r.event_stream = true;
        r.content_type = "text/event-stream";
        auto it = req.find("Last-Event-ID");
        if (it != req.end()) {
            uint64_t id = 0;
            if (!parse_uint(std::string_view(it->value().data(), it->value().size()), id))
                return error_reply(400, "bad Last-Event-ID: expected an event id");
            r.last_event_id = id;
        }
        // A GET becomes a stream only when there is room for one more; a HEAD gets the headers.
        if (req.method() == http::verb::get && events_.full())
            return error_reply(503, "too many event-stream subscribers");
        return r;
    }
    if (path == "/metrics") {
        if (auto e = check_keys({})) return *e;
        r.content_type = "text/plain; version=0.0.4; charset=utf-8";
        r.body = prometheus_text(current_state(), counters_);
        return r;
    }
    if (path == "/" || path == "/api/v1") {
        if (auto e = check_keys({})) return *e;
        r.body = core::json_text({{"service", "seatmark live API"},
                            {"docs", "docs/live-api.md"},
                            {"endpoints",
                             {"/api/v1/state", "/api/v1/frames?session=N&since=SEQ&max=M",
                              "/api/v1/history?since=SECONDS", "/api/v1/events", "/metrics"}}},
                           2) +
                 "\n";
        return r;
    }
    return error_reply(404, "no such endpoint; see / for the list");
}

}  // namespace seatmark::orchestrator
