#include "common/join_auth.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/input_file.h"
#include "common/errors.h"

namespace seatmark::join {

namespace {
constexpr char peer_label[] = "seatmark-join-1 peer";
constexpr char orchestrator_label[] = "seatmark-join-1 orchestrator";

void append(std::vector<uint8_t>& v, const char* label) {
    v.insert(v.end(), label, label + std::char_traits<char>::length(label));
}
void append(std::vector<uint8_t>& v, const Nonce& n) { v.insert(v.end(), n.begin(), n.end()); }

std::vector<uint8_t> join_input(const Join& j, const Nonce& challenge) {
    std::vector<uint8_t> in;
    append(in, peer_label);
    append(in, challenge);
    auto body = join_mac_input(j);
    in.insert(in.end(), body.begin(), body.end());
    return in;
}
}  // namespace

std::string read_token_file(const std::string& path, const std::string& what) {
    if (path.empty()) throw InputError(what + ": expected the path of a file holding the run's token");
    std::string t;
    try {
        t = read_input_text(path, "token file", max_token_bytes);
    } catch (const InputError& e) {
        // How to make one only where none is: a device or folder given by mistake is no place for it.
        if (file_id(path)) throw InputError(what + " " + e.what());
        throw InputError(what + " " + e.what() + "; it should hold the run's token, e.g. from `openssl rand -hex 32 > " +
                         path + "`");
    }
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ' || t.back() == '\t')) t.pop_back();
    if (t.empty())
        throw InputError(what + " " + path + ": the file is empty; put the run's token in it, e.g. "
                         "`openssl rand -hex 32 > " + path + "`");
    return t;
}

// token_file_warning: common/token_file_posix.cpp (mode bits) and common/token_file_windows.cpp
// (the file's access list).

// random_nonce, hmac_sha256, mac_equal: common/join_crypto_posix.cpp (OpenSSL) and
// common/join_crypto_windows.cpp (BCrypt).

void sign_join(Join& j, const Nonce& challenge, const std::string& token) {
    j.mac = hmac_sha256(token, join_input(j, challenge));
}

bool verify_join(const Join& j, const Nonce& challenge, const std::string& token) {
    return mac_equal(j.mac, hmac_sha256(token, join_input(j, challenge)));
}

Mac welcome_mac(const std::string& token, const Nonce& client_nonce, const Nonce& server_nonce, uint32_t id) {
    std::vector<uint8_t> in;
    append(in, orchestrator_label);
    append(in, client_nonce);
    append(in, server_nonce);
    for (int i = 0; i < 4; ++i) in.push_back(static_cast<uint8_t>(id >> (8 * i)));
    return hmac_sha256(token, in);
}

}  // namespace seatmark::join
