// The join messages and their proofs (common/join_protocol.h, common/join_auth.h).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "common/errors.h"
#include "common/join_auth.h"
#include "common/join_peer.h"
#include "common/join_protocol.h"

using namespace seatmark;

namespace {
join::Message roundtrip(const join::JoinMessage& m) {
    std::vector<uint8_t> out;
    join::encode(out, m);
    join::Decoder d;
    d.set_limit(wire::max_payload);
    d.feed(out.data(), out.size());
    join::Message got;
    REQUIRE(d.next(got) == wire::DecodeStatus::ok);
    return got;
}
}  // namespace

TEST_CASE("join messages round-trip, telemetry messages decode on the same stream") {
    join::Join j;
    j.role = join::Role::agent;
    j.client_nonce = join::random_nonce();
    j.host = "avd-host-07";
    j.user = "cad.user";
    j.os_session = "rdp-tcp#3";
    j.pid = 777;
    j.device = "0";
    j.tool_version = "1.2";
    join::sign_join(j, join::Nonce{}, "k");
    auto got = std::get<join::Join>(std::get<join::JoinMessage>(roundtrip(j)));
    CHECK(got.host == j.host);
    CHECK(got.os_session == j.os_session);
    CHECK(got.pid == 777);
    CHECK(got.role == join::Role::agent);
    CHECK(got.mac == j.mac);
    join::Samples s;
    s.t_ns = 5;
    s.rows = {{-1, "nvml", "gpu_util_pct", 40}, {2, "proc", "rss_bytes", 1e6}};
    auto gs = std::get<join::Samples>(std::get<join::JoinMessage>(roundtrip(s)));
    REQUIRE(gs.rows.size() == 2);
    CHECK(gs.rows[1].session_id == 2);
    CHECK(gs.rows[1].value == 1e6);
    join::Welcome w;
    w.id = 9;
    w.device = "1";
    w.allow_software = false;
    w.duration_s = 99;
    auto gw = std::get<join::Welcome>(std::get<join::JoinMessage>(roundtrip(w)));
    CHECK(gw.id == 9);
    CHECK(!gw.allow_software);
    CHECK(gw.duration_s == 99);
    CHECK(gw.device == "1");
    auto st = std::get<join::Start>(std::get<join::JoinMessage>(roundtrip(join::Start{5, "p", "name = 'p'"})));
    CHECK(st.session_id == 5);
    CHECK(st.profile_text == "name = 'p'");
    join::HostInfo hi{"AMD EPYC 9V74", 96, 1ull << 40, "Windows 11 Enterprise multi-session", "10.0.22631"};
    auto gh = std::get<join::HostInfo>(std::get<join::JoinMessage>(roundtrip(hi)));
    CHECK(gh.cpu_model == hi.cpu_model);
    CHECK(gh.cpu_count == 96);
    CHECK(gh.mem_total_bytes == hi.mem_total_bytes);
    CHECK(gh.os == hi.os);
    CHECK(gh.kernel == hi.kernel);
    std::vector<uint8_t> out;
    wire::encode(out, wire::Heartbeat{1, 2});
    join::Decoder d;
    d.feed(out.data(), out.size());
    join::Message m;
    REQUIRE(d.next(m) == wire::DecodeStatus::ok);
    CHECK(std::get<wire::Heartbeat>(std::get<wire::Message>(m)).frames_emitted == 2);
}

TEST_CASE("the join decoder refuses bad bytes with the reason, and counts it cannot hold") {
    auto fails = [](std::vector<uint8_t> bytes, const std::string& why, uint32_t limit = join::max_handshake_payload) {
        join::Decoder d;
        d.set_limit(limit);
        d.feed(bytes.data(), bytes.size());
        join::Message m;
        CHECK(d.next(m) == wire::DecodeStatus::error);
        CHECK_MESSAGE(d.error().find(why) != std::string::npos, d.error());
    };
    fails({'x', 'y'}, "bad magic");
    fails({0x53, 0x4D, 9}, "unsupported version 9");
    fails({0x53, 0x4D, wire::version, 40}, "unknown message type 40");
    fails({0x53, 0x4D, wire::version, 17, 0, 0x20, 0, 0}, "JOIN payload 8192 bytes exceeds limit 4096");
    // SAMPLES claiming a million rows in a 12-byte payload.
    fails({0x53, 0x4D, wire::version, 25, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x42, 0x0F, 0}, "does not fit",
          wire::max_payload);
    fails({0x53, 0x4D, wire::version, 17, 1, 0, 0, 0, 7}, "JOIN role 7");
    // HOST_INFO: an empty cpu_model, then a CPU count no machine has.
    fails({0x53, 0x4D, wire::version, 32, 8, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF}, "HOST_INFO cpu_count 4294967295",
          wire::max_payload);
}

TEST_CASE("a JOIN's proof holds for its own challenge and token only") {
    join::Join j;
    j.client_nonce = join::random_nonce();
    j.host = "h";
    const auto c1 = join::random_nonce(), c2 = join::random_nonce();
    CHECK(c1 != c2);
    join::sign_join(j, c1, "token");
    CHECK(join::verify_join(j, c1, "token"));
    CHECK(!join::verify_join(j, c2, "token"));
    CHECK(!join::verify_join(j, c1, "tokeN"));
    auto tampered = j;
    tampered.host = "other";
    CHECK(!join::verify_join(tampered, c1, "token"));
    CHECK(join::welcome_mac("token", j.client_nonce, c1, 1) != join::welcome_mac("token", j.client_nonce, c1, 2));
    // RFC 4231 test case 2: HMAC-SHA256("Jefe", "what do ya want for nothing?").
    std::string msg = "what do ya want for nothing?";
    auto mac = join::hmac_sha256("Jefe", std::vector<uint8_t>(msg.begin(), msg.end()));
    CHECK(mac[0] == 0x5b);
    CHECK(mac[1] == 0xdc);
    CHECK(mac[31] == 0x43);
}

TEST_CASE("token files: missing or empty is an error naming the file, and the newline is not part of the token") {
    auto dir = std::filesystem::temp_directory_path() / ("seatmark-token-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto f = (dir / "t").string();
    CHECK_THROWS_WITH_AS(join::read_token_file(f), doctest::Contains("cannot read the token file"), InputError);
    std::ofstream(f) << "\n";
    CHECK_THROWS_WITH_AS(join::read_token_file(f), doctest::Contains("the file is empty"), InputError);
    std::ofstream(f) << "abc123\n";
    CHECK(join::read_token_file(f) == "abc123");
    // Who may read it: tests/common/test_token_file_posix.cpp, tests/windows/test_token_file_windows.cpp.
    std::filesystem::remove_all(dir);
}

TEST_CASE("--join HOST:PORT") {
    auto hp = join::parse_host_port("controller.example.com:7879", "--join");
    CHECK(hp.host == "controller.example.com");
    CHECK(hp.port == 7879);
    CHECK(join::parse_host_port("[::1]:80", "--join").host == "::1");
    CHECK_THROWS_WITH_AS(join::parse_host_port("host", "--join"), doctest::Contains("expected HOST:PORT"), InputError);
    CHECK_THROWS_AS(join::parse_host_port("host:0", "--join"), InputError);
    CHECK_THROWS_AS(join::parse_host_port("::1:80", "--join"), InputError);
    CHECK(join::local_identity("vm-3").host == "vm-3");
    CHECK(join::local_identity("").pid > 0);
}
