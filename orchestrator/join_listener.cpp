#include "orchestrator/join_listener.h"

#include <boost/asio/write.hpp>

#include <array>
#include <chrono>
#include <deque>
#include <vector>

#include "common/clock.h"
#include "common/errors.h"
#include "common/join_auth.h"
#include "core/peer_stamps.h"
#include "orchestrator/accept_loop.h"
#include "orchestrator/cloexec.h"

namespace seatmark::orchestrator {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using namespace std::chrono_literals;

class JoinListener::Connection : public std::enable_shared_from_this<Connection> {
public:
    enum class Stage { challenged, syncing, ready, started, gone };

    // `address`: the peer's IP (what the pending budget counts by); `full`: IP:PORT, for records.
    Connection(JoinListener& l, uint64_t id, tcp::socket s, std::string address, std::string full)
        : l_(l), id_(id), socket_(std::move(s)), address_(std::move(address)), full_(std::move(full)), opened_ns_(now_ns()) {}

    void begin() {
        nonce_ = join::random_nonce();
        send(join::Challenge{join::join_version, nonce_});
        read();
    }

    bool authenticated() const { return stage_ != Stage::challenged && stage_ != Stage::gone; }
    bool measuring_clock() const { return stage_ != Stage::gone && pings_left_ > 0; }
    bool gone() const { return stage_ == Stage::gone; }
    const std::string& address() const { return address_; }
    int64_t opened_ns() const { return opened_ns_; }

    void start(const join::Start& as) {
        if (stage_ != Stage::ready) return;
        stage_ = Stage::started;
        send(as);
    }
    void stop() {
        if (authenticated()) send(join::Stop{});
        stopped_ = true;
    }
    void watch(const join::Watch& w) {
        if (authenticated()) send(w);
    }
    void send_any(const join::JoinMessage& m) {
        if (authenticated()) send_message(m);
    }

    // Refusal before authentication: reported as refused, the peer told why.
    void refuse(const std::string& why, bool tell) {
        if (stage_ == Stage::gone) return;
        if (tell) send(join::Refused{why});
        stage_ = Stage::gone;
        if (l_.cb_.refused) l_.cb_.refused(full_, why);
        linger_close();
    }

    // End of an authenticated connection.
    void end(CloseReason reason, const std::string& detail) {
        if (stage_ == Stage::gone) return;
        const bool peer = authenticated();
        stage_ = Stage::gone;
        error_code ignored;
        socket_.close(ignored);
        if (!*alive_) return;  // the listener is closing: its owner is done listening
        if (peer && l_.cb_.closed) l_.cb_.closed(id_, {reason, detail, saw_bye_});
        if (!peer && l_.cb_.refused) l_.cb_.refused(full_, detail.empty() ? "closed before JOIN" : detail);
        l_.conns_.erase(id_);
    }

    void tick(int64_t t) {
        if (stage_ == Stage::challenged) {
            if (double(t - opened_ns_) * 1e-9 > l_.opt_.handshake_timeout_s)
                refuse("no JOIN within " + std::to_string(int(l_.opt_.handshake_timeout_s)) + " s", false);
            return;
        }
        if (stage_ == Stage::gone) return;
        // A started session's silence is the controller's to judge (a hang); anyone else that
        // leaves a PING unanswered this long is gone. (Counted from the PING, not from the last
        // message: a waiting session sends nothing between the periodic re-syncs.)
        if (stage_ != Stage::started && unanswered_since_ns_ &&
            double(t - unanswered_since_ns_) * 1e-9 > l_.opt_.idle_timeout_s) {
            end(CloseReason::io_error, "no answer for " + std::to_string(int(l_.opt_.idle_timeout_s)) + " s");
            return;
        }
        const double every = offset_.uncertainty_ns > l_.opt_.poor_uncertainty_ns ? l_.opt_.poor_resync_interval_s
                                                                                   : l_.opt_.resync_interval_s;
        if (stage_ != Stage::syncing && pings_left_ == 0 && double(t - last_sync_ns_) * 1e-9 >= every) {
            pings_left_ = l_.opt_.resync_pings;
            burst_.clear();
            ping();
        }
    }

private:
    template <class M>
    void send(const M& m) {
        send_message(join::JoinMessage{m});
    }
    void send_message(const join::JoinMessage& m) {
        std::vector<uint8_t> out;
        join::encode(out, m);
        out_.push_back(std::move(out));
        if (out_.size() == 1) write_next();
    }

    void write_next() {
        auto self = shared_from_this();
        asio::async_write(socket_, asio::buffer(out_.front()), [self](error_code ec, size_t) {
            if (!*self->alive_) return;
            if (!self->out_.empty()) self->out_.pop_front();
            if (ec) {
                if (!self->gone()) self->end(CloseReason::io_error, "send failed: " + ec.message());
                return;
            }
            if (!self->out_.empty()) write_next_of(self);
        });
    }
    static void write_next_of(const std::shared_ptr<Connection>& c) { c->write_next(); }

    // After a refusal: let the REFUSED go out, then close (bounded by the next write's end).
    void linger_close() {
        auto self = shared_from_this();
        l_.conns_.erase(id_);
        if (out_.empty()) {
            error_code ignored;
            socket_.close(ignored);
            return;
        }
        auto t = std::make_shared<asio::steady_timer>(socket_.get_executor(), 500ms);
        t->async_wait([self, t](error_code) {
            error_code ignored;
            self->socket_.close(ignored);
        });
    }

    void read() {
        auto self = shared_from_this();
        socket_.async_read_some(asio::buffer(buf_), [self](error_code ec, size_t n) {
            if (!*self->alive_ || self->gone()) return;
            if (ec) {
                if (ec == asio::error::eof || ec == asio::error::connection_reset)
                    self->end(CloseReason::clean, "");
                else
                    self->end(CloseReason::io_error, ec.message());
                return;
            }
            self->unanswered_since_ns_ = 0;
            self->decoder_.feed(self->buf_.data(), n);
            join::Message m;
            for (;;) {
                auto st = self->decoder_.next(m);
                if (st == wire::DecodeStatus::need_more) break;
                if (st == wire::DecodeStatus::error) {
                    const std::string why = "protocol error: " + self->decoder_.error();
                    if (self->authenticated()) self->end(CloseReason::protocol, why);
                    else self->refuse(why, true);
                    return;
                }
                if (!self->dispatch(std::move(m))) return;
            }
            self->read();
        });
    }

    bool dispatch(join::Message&& m) {
        if (stage_ == Stage::challenged) {
            auto* jm = std::get_if<join::JoinMessage>(&m);
            auto* j = jm ? std::get_if<join::Join>(jm) : nullptr;
            if (!j) {
                refuse(std::string("protocol error: ") + (jm ? "a join message" : "telemetry") + " before JOIN", true);
                return false;
            }
            return on_join(*j);
        }
        if (auto* jm = std::get_if<join::JoinMessage>(&m)) {
            if (auto* p = std::get_if<join::Pong>(jm)) return on_pong(*p);
            // Stamps into this clock, and any that cannot be true refused (core/peer_stamps.h).
            if (std::string why = core::admit(*jm, peer_clock(), now_ns()); !why.empty()) return protocol(why);
            if (auto* s = std::get_if<join::Samples>(jm)) {
                if (peer_.role != join::Role::agent) return protocol("SAMPLES from a session");
                if (l_.cb_.samples) l_.cb_.samples(id_, std::move(*s));
                return true;
            }
            if (auto* hi = std::get_if<join::HostInfo>(jm)) {
                if (peer_.role != join::Role::agent) return protocol("HOST_INFO from a " + std::string(join::to_string(peer_.role)));
                if (l_.cb_.host_info) l_.cb_.host_info(id_, std::move(*hi));
                return !gone();
            }
            if (peer_.role == join::Role::launcher && (std::holds_alternative<join::LogonState>(*jm) ||
                                                       std::holds_alternative<join::Arrivals>(*jm) ||
                                                       std::holds_alternative<join::RefAsk>(*jm))) {
                if (l_.cb_.launcher) l_.cb_.launcher(id_, std::move(*jm));
                return !gone();
            }
            if (peer_.role == join::Role::session && stage_ == Stage::started && std::holds_alternative<join::Reference>(*jm)) {
                if (l_.cb_.launcher) l_.cb_.launcher(id_, std::move(*jm));
                return !gone();
            }
            return protocol(std::string("unexpected ") + join::type_name(uint8_t(jm->index() + 16)));
        }
        auto& wm = std::get<wire::Message>(m);
        if (stage_ != Stage::started) return protocol("telemetry from a session that was not started");
        if (std::string why = core::admit(wm, peer_clock(), now_ns()); !why.empty()) return protocol(why);
        if (std::holds_alternative<wire::Bye>(wm)) saw_bye_ = true;
        if (l_.cb_.message) l_.cb_.message(id_, std::move(wm));
        return !gone();
    }

    // The peer's stamps become this clock's with the measured offset, within the connection's life.
    core::PeerClock peer_clock() const { return {offset_.offset_ns, offset_.uncertainty_ns, opened_ns_}; }

    bool protocol(const std::string& why) {
        end(CloseReason::protocol, "protocol error: " + why);
        return false;
    }

    bool on_join(const join::Join& j) {
        if (!join::verify_join(j, nonce_, l_.opt_.token)) {
            refuse("authentication failed: the JOIN does not prove this run's token (a different --token-file, "
                   "or a JOIN recorded from another connection)",
                   true);
            return false;
        }
        peer_.conn = id_;
        peer_.role = j.role;
        peer_.address = full_;
        peer_.host = j.host;
        peer_.user = j.user;
        peer_.os_session = j.os_session;
        peer_.device = j.device;
        peer_.tool_version = j.tool_version;
        peer_.pid = j.pid;
        peer_.accepted_ns = opened_ns_;
        std::string why;
        std::optional<join::Welcome> w;
        if (l_.cb_.joined) w = l_.cb_.joined(peer_, why);
        if (!w) {
            refuse(why.empty() ? "this run takes no more peers" : why, true);
            return false;
        }
        w->mac = join::welcome_mac(l_.opt_.token, j.client_nonce, nonce_, w->id);
        decoder_.set_limit(wire::max_payload);
        stage_ = Stage::syncing;
        send(*w);
        pings_left_ = l_.opt_.join_pings;
        ping();
        return true;
    }

    void ping() {
        ++ping_seq_;
        ping_sent_ns_ = now_ns();
        if (!unanswered_since_ns_) unanswered_since_ns_ = ping_sent_ns_;
        send(join::Ping{ping_seq_, ping_sent_ns_});
    }

    bool on_pong(const join::Pong& p) {
        const int64_t t = now_ns();
        if (p.seq != ping_seq_ || p.t_orch_ns != ping_sent_ns_ || pings_left_ == 0) return true;  // stale: ignored
        // The peer's stamp is untrusted: a reading of its clock, and one that agrees with the
        // burst's others and with the offset in use (core/clock_offset.h). A PONG that moves the
        // offset where no clock can be would put every later stamp of the peer there.
        if (std::string why = core::clock_reading(p.t_peer_ns, "PONG t_peer_ns"); !why.empty()) return protocol(why);
        burst_.push_back({p.t_orch_ns, p.t_peer_ns, t});
        if (--pings_left_ > 0) {
            ping();
            return true;
        }
        last_sync_ns_ = t;
        if (std::string why = core::disagreement(burst_); !why.empty()) return protocol(why);
        auto est = core::estimate_offset(burst_);
        if (!est) return true;
        const bool first = stage_ == Stage::syncing;
        if (!first)
            if (std::string why = core::disagreement(offset_, offset_at_ns_, *est, t); !why.empty()) return protocol(why);
        // A later burst replaces the estimate only when it is about as good: a congested burst
        // (long round trips) would widen the error for no gain.
        if (first || est->uncertainty_ns <= 2 * offset_.uncertainty_ns + 100'000) {
            offset_ = *est;
            offset_at_ns_ = t;
        }
        if (first) stage_ = Stage::ready;
        if (l_.cb_.clock) l_.cb_.clock(id_, offset_, first);
        return !gone();
    }

    JoinListener& l_;
    uint64_t id_;
    tcp::socket socket_;
    std::string address_, full_;
    int64_t opened_ns_, last_sync_ns_ = 0;
    int64_t unanswered_since_ns_ = 0;  // the first PING sent since the peer last said anything
    std::shared_ptr<bool> alive_ = l_.alive_;
    std::array<uint8_t, 65536> buf_{};
    join::Decoder decoder_;
    std::deque<std::vector<uint8_t>> out_;
    Stage stage_ = Stage::challenged;
    join::Nonce nonce_{};
    JoinedPeer peer_;
    uint32_t ping_seq_ = 0, pings_left_ = 0;
    int64_t ping_sent_ns_ = 0;
    std::vector<core::ClockSample> burst_;
    core::ClockOffset offset_;
    int64_t offset_at_ns_ = 0;  // when offset_ was measured
    bool saw_bye_ = false, stopped_ = false;
};

JoinListener::JoinListener(asio::io_context& io, Options opt, Callbacks cb)
    : io_(io), opt_(std::move(opt)), cb_(std::move(cb)), acceptor_(io), tick_(io), alive_(std::make_shared<bool>(true)) {
    error_code ec;
    auto addr = asio::ip::make_address(opt_.address.host, ec);
    const std::string where = opt_.address.host + ":" + std::to_string(opt_.address.port);
    if (ec) throw InputError("--accept " + where + ": not an IP address");
    tcp::endpoint ep(addr, opt_.address.port);
    acceptor_.open(ep.protocol(), ec);
    if (!ec) {
        mark_cloexec(acceptor_.native_handle());
        acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
        acceptor_.bind(ep, ec);
    }
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
        throw InputError("--accept " + where + ": cannot listen there: " + ec.message() +
                         " (another run on that port? pick another with --accept ADDR:PORT)");
    port_ = acceptor_.local_endpoint().port();
    accept();
    tick_.expires_after(250ms);
    tick_.async_wait([this, alive = alive_](error_code e) {
        if (!e && *alive) on_tick();
    });
}

JoinListener::~JoinListener() { close(); }

std::string JoinListener::url() const {
    const bool v6 = opt_.address.host.find(':') != std::string::npos;
    return (v6 ? "[" + opt_.address.host + "]" : opt_.address.host) + ":" + std::to_string(port_);
}

void JoinListener::close() {
    if (!*alive_) return;
    *alive_ = false;
    error_code ignored;
    acceptor_.close(ignored);
    tick_.cancel();
    auto conns = std::move(conns_);
    conns_.clear();
    for (auto& [id, c] : conns) c->end(CloseReason::clean, "");
}

bool JoinListener::measuring_clock() const {
    for (const auto& [id, c] : conns_)
        if (c->measuring_clock()) return true;
    return false;
}

size_t JoinListener::pending() const {
    size_t n = 0;
    for (const auto& [id, c] : conns_) n += !c->authenticated();
    return n;
}

void JoinListener::start(uint64_t conn, const join::Start& as) {
    if (auto it = conns_.find(conn); it != conns_.end()) it->second->start(as);
}
void JoinListener::stop(uint64_t conn) {
    if (auto it = conns_.find(conn); it != conns_.end()) it->second->stop();
}
void JoinListener::watch(uint64_t conn, const join::Watch& w) {
    if (auto it = conns_.find(conn); it != conns_.end()) it->second->watch(w);
}
void JoinListener::send(uint64_t conn, const join::JoinMessage& m) {
    if (auto it = conns_.find(conn); it != conns_.end()) it->second->send_any(m);
}
void JoinListener::drop(uint64_t conn, const std::string& why) {
    if (auto it = conns_.find(conn); it != conns_.end()) {
        auto keep = it->second;
        keep->end(CloseReason::io_error, why);
    }
}

// Room for one more pending connection from `address`: the oldest pending connection of
// whichever address holds most places (that address itself when it is over its share).
void JoinListener::make_room(const std::string& address) {
    std::map<std::string, size_t> per;
    size_t total = 0;
    for (const auto& [id, c] : conns_)
        if (!c->authenticated()) ++per[c->address()], ++total;
    std::string victim_addr;
    if (per[address] >= opt_.max_pending_per_address) victim_addr = address;
    else if (total >= opt_.max_pending) {
        size_t most = 0;
        for (const auto& [a, n] : per)
            if (n > most) most = n, victim_addr = a;
    }
    if (victim_addr.empty()) return;
    std::shared_ptr<Connection> oldest;
    for (const auto& [id, c] : conns_)
        if (!c->authenticated() && c->address() == victim_addr && (!oldest || c->opened_ns() < oldest->opened_ns()))
            oldest = c;
    if (oldest) oldest->refuse("evicted: too many connections waiting to authenticate from " + victim_addr, false);
}

void JoinListener::accept() {
    accept_loop(
        io_, acceptor_, alive_, accept_failing_,
        [this](tcp::socket s) {
            error_code e2;
            auto ep = s.remote_endpoint(e2);
            std::string addr = e2 ? "?" : ep.address().to_string();
            std::string full = e2 ? "?" : (ep.address().is_v6() ? "[" + addr + "]" : addr) + ":" + std::to_string(ep.port());
            s.set_option(tcp::no_delay(true), e2);
            make_room(addr);
            const uint64_t id = next_conn_++;
            auto c = std::make_shared<Connection>(*this, id, std::move(s), addr, full);
            conns_[id] = c;
            c->begin();
        },
        [this](const std::string& what) {
            if (cb_.refused) cb_.refused("?", "cannot accept a connection: " + what);
        });
}

void JoinListener::on_tick() {
    const int64_t t = now_ns();
    std::vector<std::shared_ptr<Connection>> all;
    all.reserve(conns_.size());
    for (auto& [id, c] : conns_) all.push_back(c);
    for (auto& c : all) c->tick(t);
    tick_.expires_after(250ms);
    tick_.async_wait([this, alive = alive_](error_code e) {
        if (!e && *alive) on_tick();
    });
}

}  // namespace seatmark::orchestrator
