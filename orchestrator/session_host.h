#pragma once
// What a session source (step_seams.h) is given by the run controller: the session table and
// the way into the run for sessions it brings in itself (joined over TCP: no child process,
// no local telemetry socket). Spawned sessions take the same paths through the controller.
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/wire_protocol.h"
#include "orchestrator/session_table.h"
#include "orchestrator/telemetry_server.h"
#include "store/endpoint_rows.h"
#include "store/records.h"

namespace boost::asio {
class io_context;
}

namespace seatmark::orchestrator {

class SessionHost {
public:
    virtual ~SessionHost() = default;
    virtual boost::asio::io_context& io() = 0;  // the run's event loop; everything happens on it
    virtual const SessionTable& sessions() const = 0;
    // A new session at the next id for the plan's mix (its profile and SLA), started now and
    // recorded in the store; `pid` where the source knows it (per-process figures), else 0.
    // `host`: the host it runs on ("": this one); a session on another host is `remote`.
    virtual Session& add_session(pid_t pid, const std::string& host = "") = 0;
    // Its HELLO, once the source has vouched for the peer (the join handshake). False: refused
    // (unknown id, said HELLO before, already ended).
    virtual bool hello(const wire::Hello& h) = 0;
    // FRAMES, HEARTBEAT, EVENT, BYE, with times already in this run's clock.
    virtual void message(uint32_t id, wire::Message&& m) = 0;
    virtual void link_closed(uint32_t id, const ConnectionEnd& end) = 0;
    // The session is over and has no process to wait for: how it ended, as the source saw it
    // (ok after BYE; a failure reason when it dropped). Stores its end row.
    virtual void ended(uint32_t id, store::SessionEnd reason, const std::string& detail) = 0;
    // The source stops a session itself (a STOP over its connection): from now on it is
    // stopping, not active; ended() follows when it has said BYE and closed.
    virtual void request_stop(uint32_t id) = 0;
    // What the source saw that the run should record (a refused connection, an agent that
    // joined or left, a clock offset): an event row.
    virtual void record(const store::EventRow& e) = 0;
    // Samples taken elsewhere (a host agent), times in this run's clock. A joined session's own
    // rows (cpu_pct, rss_bytes with its host's name) are its live figures too.
    virtual void add_samples(std::vector<store::SampleRow> rows) = 0;
    // The joined sessions of `host` have no process figures from now on (no agent for it, its
    // agent left): unknown with this reason, until its agent's samples come.
    virtual void figures_unavailable(const std::string& host, const std::string& why) = 0;
    // A host taking part (a joined host): its row in `hosts`, replaced when given again.
    virtual void add_host(const store::HostInfo& h) = 0;
    // What RDP launchers saw (orchestrator/launcher_hub.h): a logon row (whole, again on each
    // change) and arrivals / SSIM samples, times in this run's clock.
    virtual void add_endpoint_logon(const store::EndpointLogonRow& r) = 0;
    virtual void add_endpoint_batch(store::EndpointBatch b) = 0;
};

}  // namespace seatmark::orchestrator
