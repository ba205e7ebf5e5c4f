// The telemetry wire decoder on arbitrary bytes, fed in pieces as a socket delivers them: it must
// report an error or wait for more, never crash, overread or allocate what a header claims.
// Every message it accepts must encode again and decode to the same message.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <variant>

#include "common/wire_protocol.h"

using namespace seatmark::wire;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    // The first byte chooses how the rest is cut into reads (1..256 bytes each).
    const size_t piece = size_t(data[0]) + 1;
    ++data, --size;
    Decoder d;
    size_t fed = 0;
    Message m;
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
        encode(a, m);
        Decoder again;
        again.feed(a.data(), a.size());
        Message m2;
        if (again.next(m2) != DecodeStatus::ok) __builtin_trap();
        encode(b, m2);
        if (a != b) __builtin_trap();
    }
    return 0;
}
