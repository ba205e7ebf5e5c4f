// The join handshake's crypto on Windows: CNG (bcrypt.dll), which every Windows has; Debian
// ships no OpenSSL for MinGW. The same HMAC-SHA256 as common/join_crypto_posix.cpp, so a
// Windows peer and a Linux orchestrator agree (tests/common/test_join_protocol.cpp has an RFC 4231
// vectors and runs in both builds).
#include <windows.h>
#include <bcrypt.h>

#include <stdexcept>

#include "common/join_auth.h"

namespace seatmark::join {

Nonce random_nonce() {
    Nonce n;
    if (BCryptGenRandom(nullptr, n.data(), ULONG(n.size()), BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
        throw std::runtime_error("BCryptGenRandom failed: no random nonce for the join handshake");
    return n;
}

Mac hmac_sha256(const std::string& key, const std::vector<uint8_t>& data) {
    Mac out{};
    BCRYPT_ALG_HANDLE alg = nullptr;
    if (BCryptOpenAlgorithmProvider(&alg, BCRYPT_SHA256_ALGORITHM, nullptr, BCRYPT_ALG_HANDLE_HMAC_FLAG) != 0)
        throw std::runtime_error("BCrypt HMAC-SHA256 is not available");
    BCRYPT_HASH_HANDLE hash = nullptr;
    NTSTATUS st = BCryptCreateHash(alg, &hash, nullptr, 0, reinterpret_cast<PUCHAR>(const_cast<char*>(key.data())),
                                   ULONG(key.size()), 0);
    if (st == 0) st = BCryptHashData(hash, const_cast<PUCHAR>(data.data()), ULONG(data.size()), 0);
    if (st == 0) st = BCryptFinishHash(hash, out.data(), ULONG(out.size()), 0);
    if (hash) BCryptDestroyHash(hash);
    BCryptCloseAlgorithmProvider(alg, 0);
    if (st != 0) throw std::runtime_error("BCrypt HMAC-SHA256 failed");
    return out;
}

bool mac_equal(const Mac& a, const Mac& b) {
    // Constant time: every byte is looked at whatever the first difference.
    unsigned char diff = 0;
    for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

}  // namespace seatmark::join
