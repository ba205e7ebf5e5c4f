// The telemetry wire decoder and the join decoder (common/join_protocol.h: the same framing and
// codec, with the join messages beside the telemetry ones) on arbitrary bytes, fed in pieces as a
// socket delivers them: each must report an error or wait for more, never crash, overread or
// allocate what a header claims. Every message either accepts must encode again and decode to
// the same message.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <variant>

#include "common/join_protocol.h"
#include "common/wire_protocol.h"

using namespace seatmark::wire;

namespace {

void encode_any(std::vector<uint8_t>& out, const Message& m) { encode(out, m); }
void encode_any(std::vector<uint8_t>& out, const seatmark::join::Message& m) {
    if (auto* w = std::get_if<Message>(&m)) encode(out, *w);
    else seatmark::join::encode(out, std::get<seatmark::join::JoinMessage>(m));
}

// Feeds `data` to a fresh D in pieces of `piece` bytes; every accepted message round-trips.
template <class D, class M>
void run(const uint8_t* data, size_t size, size_t piece) {
    D d;
    if constexpr (requires { d.set_limit(max_payload); }) d.set_limit(max_payload);  // as once authenticated
    size_t fed = 0;
    M m;
    for (;;) {
        DecodeStatus st = d.next(m);
        if (st == DecodeStatus::error) {
            if (d.error().empty()) __builtin_trap();
            break;
        }
        if (st == DecodeStatus::need_more) {
            if (fed >= size) break;
            size_t n = std::min(piece, size - fed);
            d.feed(data + fed, n);
            fed += n;
            continue;
        }
        // Accepted: it round-trips (NaN figures compare unequal, so compare the bytes).
        std::vector<uint8_t> a, b;
        encode_any(a, m);
        D again;
        if constexpr (requires { again.set_limit(max_payload); }) again.set_limit(max_payload);
        again.feed(a.data(), a.size());
        M m2;
        if (again.next(m2) != DecodeStatus::ok) __builtin_trap();
        encode_any(b, m2);
        if (a != b) __builtin_trap();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    // The first byte chooses how the rest is cut into reads (1..256 bytes each).
    const size_t piece = size_t(data[0]) + 1;
    ++data, --size;
    run<Decoder, Message>(data, size, piece);
    run<seatmark::join::Decoder, seatmark::join::Message>(data, size, piece);
    return 0;
}
