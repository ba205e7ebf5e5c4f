#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <stdexcept>

#include "common/join_auth.h"

namespace seatmark::join {

Nonce random_nonce() {
    Nonce n;
    if (RAND_bytes(n.data(), static_cast<int>(n.size())) != 1)
        throw std::runtime_error("OpenSSL RAND_bytes failed: no random nonce for the join handshake");
    return n;
}

Mac hmac_sha256(const std::string& key, const std::vector<uint8_t>& data) {
    Mac out{};
    unsigned len = 0;
    if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), data.data(), data.size(), out.data(), &len) ||
        len != out.size())
        throw std::runtime_error("OpenSSL HMAC-SHA256 failed");
    return out;
}

bool mac_equal(const Mac& a, const Mac& b) { return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0; }

}  // namespace seatmark::join
