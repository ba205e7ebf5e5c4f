#pragma once
// The join protocol's proof of the run's token (common/join_protocol.h): HMAC-SHA256 from
// OpenSSL over fresh nonces, compared in constant time. The token never crosses the wire.
#include <cstdint>
#include <string>
#include <vector>

#include "common/join_protocol.h"

namespace seatmark::join {

// Reads a token file: its bytes with trailing whitespace (a newline) removed. Throws
// InputError naming the file when it is missing, unreadable or empty (`what`: the option).
std::string read_token_file(const std::string& path, const std::string& what = "--token-file");
// "" or a warning, with the command that fixes it, when others than the owner may read the file:
// POSIX: group or others have read permission (chmod 600); Windows: the file's access list
// lets Everyone, Users or Authenticated Users read it (icacls).
std::string token_file_warning(const std::string& path);

Nonce random_nonce();  // OpenSSL RAND_bytes / BCryptGenRandom; throws std::runtime_error if the generator fails

Mac hmac_sha256(const std::string& key, const std::vector<uint8_t>& data);
bool mac_equal(const Mac& a, const Mac& b);  // constant time (CRYPTO_memcmp on POSIX)

// The peer's proof for a JOIN answering `challenge` (fills j.mac).
void sign_join(Join& j, const Nonce& challenge, const std::string& token);
bool verify_join(const Join& j, const Nonce& challenge, const std::string& token);
// The orchestrator's proof in WELCOME.
Mac welcome_mac(const std::string& token, const Nonce& client_nonce, const Nonce& server_nonce, uint32_t id);

}  // namespace seatmark::join
