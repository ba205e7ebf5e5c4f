#pragma once
// The session source of a join-mode run (plan `[run] sessions = "join"`): sessions started
// elsewhere (`seatmark session --join`, e.g. from a logon script in each user's desktop) and
// host agents (`seatmark agent --join`) connect to the listener (orchestrator/join_listener.h).
// Sessions wait in join order and are activated step by step; the rest wait without rendering.
// A step that cannot get its count within the plan's join timeout fails with the shortfall as
// its reason. Each session's host is the one it names; its host figures come from that host's
// agent, or are recorded as unavailable with the reason. RDP launchers (`seatmark launch
// --join`) are asked for logons while a step is short of sessions (launcher_source.cpp); each
// logon's session joins by itself and is matched to its logon when activated.
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "core/plan.h"
#include "orchestrator/join_listener.h"
#include "orchestrator/launcher_hub.h"
#include "orchestrator/session_host.h"
#include "orchestrator/step_seams.h"

namespace seatmark::orchestrator {

class JoinSessionSource final : public SessionSource {
public:
    // Binds the listener (throws InputError when it cannot) and prints where it listens.
    JoinSessionSource(SessionHost& host, const core::Plan& plan, JoinListener::Options opt, bool quiet);
    ~JoinSessionSource() override;

    void start_up_to(uint32_t n) override;
    void stop_newest(uint32_t count) override;
    uint32_t active() const override;
    bool ready() const override;
    std::optional<std::string> shortfall() const override;
    void stop_all() override;
    void kill_all() override;
    void failed(uint32_t id) override;

    std::string url() const { return listener_->url(); }
    const core::EndpointSeries* endpoint(uint32_t id) const override { return hub_->series(id); }
    const store::EndpointLogonRow* logon(uint32_t id) const override { return hub_->logon_of(id); }
    bool prompt_io() const override { return listener_->measuring_clock(); }

private:
    struct Peer {
        JoinedPeer info;
        bool ready = false;
        std::optional<uint32_t> session;  // once activated
        core::ClockOffset clock;
        int32_t bye_exit = -1;            // BYE's exit code; -1: no BYE
        std::string bye_message;
    };

    std::optional<join::Welcome> on_joined(const JoinedPeer& p, std::string& refuse);
    void on_clock(uint64_t conn, const core::ClockOffset& c, bool first);
    void on_message(uint64_t conn, wire::Message&& m);
    void on_samples(uint64_t conn, join::Samples&& s);
    void on_host_info(uint64_t conn, join::HostInfo&& h);
    void on_refused(const std::string& address, const std::string& why);
    void on_closed(uint64_t conn, const ConnectionEnd& end);
    void make_hub();                                        // launcher_source.cpp
    void on_launcher(uint64_t conn, join::JoinMessage&& m); // launcher_source.cpp
    void ask_launchers();                                   // launcher_source.cpp

    void activate(uint64_t conn);
    void fill();
    void host_seen(const std::string& host);
    void set_agent(const std::string& host, const std::string& agent_status, const std::string& detail);
    // Why a host's sessions have no process figures, from its hosts row's agent status.
    std::string agent_missing(const std::string& host) const;
    void send_watch(const std::string& host);
    const std::string& profile_text(const std::string& profile);
    // An event row; `host`: the joined host it concerns ("": run-wide).
    void event(std::optional<uint32_t> session, const std::string& kind, const std::string& detail,
               const std::string& host = "");

    SessionHost& host_;
    const core::Plan& plan_;
    JoinListener::Options opt_;
    std::unique_ptr<JoinListener> listener_;
    std::unique_ptr<LauncherHub> hub_;  // RDP launchers and their logons (launcher_hub.h)
    std::map<uint64_t, Peer> peers_;
    std::deque<uint64_t> waiting_;                // ready sessions in join order
    std::map<uint32_t, uint64_t> conn_of_;        // session id -> connection
    std::map<std::string, uint64_t> agents_;      // host -> its agent's connection
    std::map<std::string, store::HostInfo> hosts_;
    std::map<std::string, std::string> profile_texts_;
    std::set<std::string> unavailable_said_;  // hosts whose missing agent was recorded
    uint32_t want_ = 0;
    int64_t want_since_ = 0;
    uint32_t peer_count_ = 0;
    uint64_t refused_ = 0;
    bool stopping_ = false;
    mutable bool filling_ = false;  // the step is starting: joined sessions are activated up to want_
    bool announced_ = false;
};

}  // namespace seatmark::orchestrator
