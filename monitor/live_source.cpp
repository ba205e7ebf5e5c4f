#include "monitor/live_source.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

#include "monitor/live_bounds.h"
#include "orchestrator/live_api.h"

namespace seatmark::monitor {

namespace {
constexpr size_t max_frames_kept = 200'000;  // per selected session (~1 h at 60 FPS)
constexpr size_t max_events_kept = 2000;
constexpr size_t max_history_kept = 400'000;  // ~4.6 days at the API's 1 s spacing
constexpr size_t frames_per_request = 10'000;

// A number the peer sent, checked before it is cast (nlohmann's get<int64_t>() of 1e300 is undefined).
int64_t int64_member(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return 0;
    if (it->is_number_integer() && !it->is_number_unsigned()) return it->get<int64_t>();
    if (it->is_number_unsigned() && it->get<uint64_t>() <= uint64_t(INT64_MAX)) return int64_t(it->get<uint64_t>());
    throw std::runtime_error(std::string("live API sent run.") + key + " = " + it->dump() + ", not a 64-bit count of ns");
}
}  // namespace

LiveApiSource::LiveApiSource(LiveSourceOptions o) : opts_(std::move(o)) {
    if (opts_.url.empty()) {
        for (uint16_t p = core::default_live_port; p < core::default_live_port + 10; ++p) {
            HttpUrl u;
            u.port = p;
            candidates_.push_back(u);
        }
    } else {
        candidates_.push_back(parse_url(opts_.url));
    }
    work_.link = Link::connecting;
    work_.source = candidates_.front().text();
    published_ = std::make_shared<MonitorData>(work_);
    thread_ = std::thread([this] { loop(); });
}

LiveApiSource::~LiveApiSource() {
    {
        std::lock_guard lk(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

std::shared_ptr<const MonitorData> LiveApiSource::snapshot() {
    std::lock_guard lk(mu_);
    return published_;
}

void LiveApiSource::select_session(std::optional<uint32_t> id) {
    {
        std::lock_guard lk(mu_);
        if (wanted_ == id) return;
        wanted_ = id;
    }
    cv_.notify_all();
}

void LiveApiSource::publish() {
    ++work_.version;
    auto snap = std::make_shared<MonitorData>(work_);
    std::lock_guard lk(mu_);
    published_ = std::move(snap);
}

void LiveApiSource::reset_run() {
    work_.history.clear();
    work_.events.clear();
    work_.bands.clear();
    frames_.reset();
    work_.frames.reset();
    frames_next_ = 0;
    history_since_ = -1;
    last_event_id_ = 0;
    run_ended_ = false;
}

nlohmann::json LiveApiSource::get_json(const HttpUrl& u, const std::string& target) {
    HttpResult r = http_get(u, target, opts_.token, opts_.timeout_s);
    if (r.status == 401)
        throw std::runtime_error("the API wants a token (seatmark monitor --token TOKEN, as given to seatmark run)");
    if (r.status != 200) throw std::runtime_error(target + ": HTTP " + std::to_string(r.status));
    auto j = nlohmann::json::parse(r.body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw std::runtime_error(target + ": not a seatmark live API answer");
    return j;
}

void LiveApiSource::poll(const HttpUrl& u) {
    auto sj = get_json(u, "/api/v1/state");
    if (!sj.contains("schema") || !sj.contains("run")) throw std::runtime_error("not a seatmark live API");
    auto state = core::state_from_json(sj);
    check_live_state(state);
    int64_t mono_start = sj["run"].is_object() ? int64_member(sj["run"], "mono_start_ns") : 0;
    if (state.started_unix_ns != run_started_unix_ns_) {  // a new run (or the first)
        reset_run();
        run_started_unix_ns_ = state.started_unix_ns;
    }
    mono_start_ns_ = mono_start;
    if (auto p = sj.find("plan"); p != sj.end() && p->is_object() && p->contains("sla") && (*p)["sla"].is_object())
        if (auto b = (*p)["sla"].find("p95_interval_ms"); b != (*p)["sla"].end() && b->is_number()) {
            double v = b->get<double>();
            work_.sla_p95_ms = v > 0 && v <= 1e6 ? v : NAN;  // a bound no frame interval reaches is no line
        }
    // Events: the state carries the recent ones; keep each once.
    if (auto it = sj.find("events"); it != sj.end() && it->is_array())
        for (const auto& ej : *it) {
            auto e = core::event_from_json(ej);  // nullopt: a kind this monitor does not know
            if (!e || e->id <= last_event_id_) continue;
            last_event_id_ = e->id;
            work_.events.push_back(describe_event(*e, state.started_unix_ns));
            if (std::holds_alternative<core::RunEndEvent>(e->data)) run_ended_ = true;
        }
    if (work_.events.size() > max_events_kept)
        work_.events.erase(work_.events.begin(), work_.events.begin() + long(work_.events.size() - max_events_kept));
    // History since the last point we have.
    char q[64];
    std::snprintf(q, sizeof q, "/api/v1/history?since=%.3f", history_since_);
    auto hist = core::history_from_json(get_json(u, q));
    check_live_history(hist);
    for (const auto& p : hist) {
        if (p.t_s <= history_since_) continue;
        work_.history.push_back(p);
        history_since_ = p.t_s;
    }
    if (work_.history.size() > max_history_kept)
        work_.history.erase(work_.history.begin(),
                            work_.history.begin() + long(work_.history.size() - max_history_kept));
    // The selected session's frames since the last one we have.
    std::optional<uint32_t> want;
    {
        std::lock_guard lk(mu_);
        want = wanted_;
    }
    if (want && (!frames_ || frames_->session != *want)) {
        frames_.reset();
        frames_next_ = 0;
    }
    if (!want) frames_.reset();
    if (want) {
        bool known = false;
        for (const auto& s : state.sessions) known = known || s.id == *want;
        if (known) {
            auto fj = get_json(u, "/api/v1/frames?session=" + std::to_string(*want) +
                                      "&since=" + std::to_string(frames_next_) +
                                      "&max=" + std::to_string(frames_per_request));
            auto frames = core::frames_from_json(fj);
            check_live_frames(frames, frames_per_request, mono_start_ns_);
            if (!frames_ || !frames.empty()) {
                auto next = std::make_shared<FrameSeries>(frames_ ? *frames_ : FrameSeries{});
                next->session = *want;
                for (const auto& f : frames) {
                    // Frames the API no longer held (its window moved on between two reads) leave a
                    // gap: a NaN breaks the line there instead of joining across it.
                    if (!next->t_s.empty() && f.seq > frames_next_) {
                        next->t_s.push_back((double(f.t_begin_ns) - double(mono_start_ns_)) * 1e-9);
                        next->interval_ms.push_back(NAN);
                    }
                    next->t_s.push_back((double(f.t_begin_ns) - double(mono_start_ns_)) * 1e-9);
                    next->interval_ms.push_back(static_cast<float>(f.interval_ms));
                    frames_next_ = f.seq + 1;
                }
                if (next->t_s.size() > max_frames_kept) {
                    size_t drop = next->t_s.size() - max_frames_kept;
                    next->t_s.erase(next->t_s.begin(), next->t_s.begin() + long(drop));
                    next->interval_ms.erase(next->interval_ms.begin(), next->interval_ms.begin() + long(drop));
                }
                frames_ = std::move(next);
            }
        }
    }
    work_.frames = frames_;
    work_.state = std::move(state);
    work_.t_now_s = work_.t_end_s = work_.state.elapsed_s;
    work_.bands = bands_from_history(work_.history, work_.state.finished_steps, work_.t_end_s);
    bool over = work_.state.status == "finished" || work_.state.status == "aborted";
    run_ended_ = run_ended_ || over;
    work_.link = over ? Link::ended : Link::live;
    work_.link_note = over ? "run " + work_.state.status : "";
    work_.source = u.text();
}

void LiveApiSource::loop() {
    for (;;) {
        std::string error;
        bool ok = false;
        // The current candidate first, then the others (a restarted run may land on another port).
        for (size_t k = 0; k < candidates_.size() && !ok; ++k) {
            size_t i = (current_ + k) % candidates_.size();
            try {
                poll(candidates_[i]);
                current_ = i;
                ok = true;
                connected_once_ = true;
            } catch (const std::exception& e) {
                if (k == 0) error = e.what();
            }
        }
        if (!ok) {
            work_.link = !connected_once_ ? Link::connecting : run_ended_ ? Link::ended : Link::lost;
            std::string where = candidates_.size() > 1 ? candidates_.front().text() + " .. :" +
                                                             std::to_string(candidates_.back().port)
                                                       : candidates_.front().text();
            work_.link_note = (run_ended_ ? "run ended; disconnected (" : "no live API at " + where + " (") +
                              error + "); retrying";
        }
        publish();
        std::unique_lock lk(mu_);
        auto want = wanted_;
        cv_.wait_for(lk, std::chrono::milliseconds(int64_t(opts_.poll_s * 1000)),
                     [&] { return stop_ || wanted_ != want; });
        if (stop_) return;
    }
}

}  // namespace seatmark::monitor
