// The run's side of launchers (orchestrator/launcher_hub.h), driven without processes: logons
// spread over launchers, matched to their sessions by (host, user), logon time from connect to
// HELLO, arrivals judged against the session's frames, faults recorded with their reasons.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "orchestrator/launcher_hub.h"

using namespace seatmark;
using namespace seatmark::orchestrator;

namespace {

struct Fake {
    std::vector<std::pair<uint64_t, join::JoinMessage>> sent;
    std::map<int, store::EndpointLogonRow> rows;
    std::vector<store::EndpointBatch> batches;
    std::vector<std::string> events;
    int shortfalls = 0;
    LauncherHub hub{{[this](uint64_t c, const join::JoinMessage& m) { sent.emplace_back(c, m); },
                     [this](const store::EndpointLogonRow& r) { rows[r.id] = r; },
                     [this](store::EndpointBatch b) { batches.push_back(std::move(b)); },
                     [this](std::optional<uint32_t>, const std::string& k, const std::string& d) { events.push_back(k + ": " + d); },
                     [] { return int64_t(5); }}};
    Fake() {
        hub.on_shortfall = [this] { ++shortfalls; };
    }
    uint32_t logons_asked_of(uint64_t conn) const {
        uint32_t n = 0;
        for (const auto& [c, m] : sent)
            if (c == conn && std::holds_alternative<join::Logon>(m)) n += std::get<join::Logon>(m).count;
        return n;
    }
};

join::LogonState state(const std::string& user, uint8_t st, int64_t t, const std::string& fault = "none") {
    join::LogonState s;
    s.host = "vdi";
    s.user = user;
    s.rdp_host = "vdi:3389";
    s.state = st;
    s.t_ns = t;
    s.fault = fault;
    s.detail = fault == "none" ? "" : "because";
    s.codec = "remotefx";
    return s;
}

}  // namespace

TEST_CASE("launcher hub: logons spread over launchers, matched to sessions, figures over the whole life") {
    Fake f;
    CHECK_FALSE(f.hub.ask(1));  // no launcher yet
    f.hub.joined(10, "l", "1.2.3.4:5");
    f.hub.joined(11, "l", "1.2.3.4:6");
    CHECK(f.hub.ask(4));
    CHECK(f.logons_asked_of(10) == 2);
    CHECK(f.logons_asked_of(11) == 2);
    CHECK(f.hub.pending() == 4);
    f.hub.message(10, state("u1", join::LogonState::connecting, 1'000'000'000));
    f.hub.message(11, state("u2", join::LogonState::connecting, 1'000'000'000));
    CHECK(f.hub.pending() == 4);  // connecting, not joined yet
    REQUIRE(f.rows.size() == 2);
    CHECK(f.rows[1].launcher == "l");
    CHECK(f.rows[2].launcher == "l#2");

    // u1's session joins under its machine's name; the launcher named the host "vdi": the user matches.
    f.hub.session_activated(7, "vdi-machine", "u1");
    CHECK(f.rows[1].session_id == 7);
    CHECK(f.rows[1].host == "vdi-machine");
    CHECK(f.hub.pending() == 3);
    f.hub.session_hello(7, 2'500'000'000);
    CHECK(*f.rows[1].logon_ms == doctest::Approx(1500));
    std::vector<FrameRecord> frames;
    for (uint64_t k = 0; k < 10; ++k) {
        FrameRecord r;
        r.seq = k;
        r.t_begin_ns = 3'000'000'000 + int64_t(k) * 100'000'000;
        r.t_present_ns = r.t_begin_ns + 1'000'000;
        frames.push_back(r);
    }
    f.hub.session_frames(7, frames);
    join::Arrivals a;
    a.host = "vdi";
    a.user = "u1";
    for (uint64_t k = 0; k < 10; k += 2) a.arrivals.push_back({k, frames[k].t_present_ns + 30'000'000});
    a.ssim = {{0, 0.9}};
    f.hub.message(10, std::move(a));
    REQUIRE(f.batches.size() == 1);
    CHECK(f.batches[0].session_id == 7);
    // References on request: the launcher's logon names its session, the session its launcher.
    CHECK(f.hub.session_for(10, "vdi", "u1") == 7u);
    CHECK_FALSE(f.hub.session_for(11, "vdi", "u1"));  // not that launcher's logon
    REQUIRE(f.hub.launcher_of(7));
    CHECK(f.hub.launcher_of(7)->first == 10);
    CHECK(f.hub.launcher_of(7)->second == "u1");
    const auto* s = f.hub.series(7);
    REQUIRE(s);
    CHECK(s->arrivals.size() == 5);
    CHECK(f.hub.series(8) == nullptr);

    // The run stops session 7: LOGOFF to its launcher; the desktop's end is not a fault.
    f.hub.session_stopping(7);
    REQUIRE(std::holds_alternative<join::Logoff>(f.sent.back().second));
    CHECK(f.sent.back().first == 10);
    CHECK(std::get<join::Logoff>(f.sent.back().second).user == "u1");
    f.hub.session_ended(7);
    f.hub.message(10, state("u1", join::LogonState::ended, 9'000'000'000, "logged-off"));
    CHECK(f.rows[1].fault == "none");
    CHECK(f.rows[1].ended_ns == 9'000'000'000);
    CHECK(f.rows[1].figures.arrivals == 5);
    CHECK(f.rows[1].figures.rendered == 10);
    CHECK(f.rows[1].figures.delivered_ratio == doctest::Approx(0.5));
    CHECK(f.rows[1].figures.latency_p50_ms == doctest::Approx(30));
    CHECK(f.rows[1].figures.ssim_mean == doctest::Approx(0.9));

    // u2's logon fails before its session joined: recorded with its reason, the source asks again.
    f.hub.message(11, state("u2", join::LogonState::ended, 4'000'000'000, "logon"));
    CHECK(f.rows[2].fault == "logon");
    CHECK(f.rows[2].fault_detail == "because");
    CHECK_FALSE(f.rows[2].session_id);
    CHECK(f.shortfalls == 1);
    bool said = false;
    for (const auto& e : f.events) said = said || e.find("logon-fault: logon 2 (u2 via launcher l#2 to vdi:3389): logon: because") == 0;
    CHECK(said);

    // A launcher out of users is asked no more; one that leaves ends its logons as launcher-lost.
    join::LogonState none = state("", join::LogonState::ended, 1, "no-user");
    f.hub.message(11, std::move(none));
    f.hub.message(10, state("u3", join::LogonState::connecting, 10));
    f.hub.closed(10, "connection reset");
    CHECK(f.rows[3].fault == "launcher-lost");
    CHECK(f.rows[3].fault_detail.find("connection reset") != std::string::npos);
    CHECK(f.hub.launchers() == 1);
    const size_t before = f.sent.size();
    CHECK_FALSE(f.hub.ask(1));  // the one left is out of users
    CHECK(f.sent.size() == before);
}

TEST_CASE("launcher hub: at the run's end a logon ends with its session, the launcher's last word still fills its row") {
    Fake f;
    f.hub.joined(10, "l", "1.2.3.4:5");
    CHECK(f.hub.ask(1));
    f.hub.message(10, state("u1", join::LogonState::connecting, 1'000'000'000));
    f.hub.session_activated(3, "vdi", "u1");
    std::vector<FrameRecord> frames(4);
    for (uint64_t k = 0; k < 4; ++k) {
        frames[k].seq = k;
        frames[k].t_begin_ns = 2'000'000'000 + int64_t(k) * 100'000'000;
        frames[k].t_present_ns = frames[k].t_begin_ns + 1'000'000;
    }
    f.hub.session_frames(3, frames);
    // The run ends: it does not wait for the launcher's logoff, so the row is closed with the session.
    f.hub.stop_all();
    f.hub.session_ended(3);
    CHECK(f.rows[1].ended_ns == 5);  // the hub's clock
    CHECK(f.rows[1].fault == "none");
    CHECK(f.rows[1].fault_detail.find("the run ended its session") != std::string::npos);
    CHECK(f.rows[1].figures.rendered == 4);
    CHECK(f.hub.pending() == 0);
    CHECK_FALSE(f.hub.ask(1));  // nothing is asked while the run ends
    // The launcher's report of the logoff arrives after all: its counts and end time go in the row.
    auto last = state("u1", join::LogonState::ended, 7'000'000'000, "logged-off");
    last.payload_bytes = 4096;
    last.paints = 40;
    f.hub.message(10, std::move(last));
    CHECK(f.rows[1].fault == "none");
    CHECK(f.rows[1].ended_ns == 7'000'000'000);
    CHECK(f.rows[1].payload_bytes == 4096);
    CHECK(f.rows[1].paints == 40);
}
