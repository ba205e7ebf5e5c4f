// libFuzzer target: the .smpack reader (pack/pack_reader.cpp) on arbitrary bytes. A pack either
// opens with every span inside the buffer and every index in range, or is refused with a
// PackError; anything else (a crash, a sanitizer report, another exception) is a bug.
// Inputs whose first byte is odd get their payload checksum rewritten first, so the fuzzer
// reaches the structural checks behind it instead of stopping at the checksum.
#include <cstdint>
#include <cstring>
#include <vector>

#include <xxhash.h>

#include "pack/pack_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace seatmark::pack;
    std::vector<uint8_t> buf(data, data + size);  // the reader's spans point into it: keep it aligned and owned
    if (size >= sizeof(PackHeader) && (data[0] & 1)) {
        PackHeader h;
        std::memcpy(&h, buf.data(), sizeof h);
        std::memcpy(h.magic, pack_magic, sizeof pack_magic);
        h.file_bytes = size;
        h.payload_xxh3 = XXH3_64bits(buf.data() + sizeof h, size - sizeof h);
        std::memcpy(buf.data(), &h, sizeof h);
    }
    try {
        PackFile p(buf, "fuzz");
        // Touch what a session would upload and draw: every index through its mesh.
        uint64_t sum = 0;
        for (const auto& m : p.meshes()) {
            const auto idx = p.indices().subspan(size_t(m.first_index), 3 * size_t(m.triangle_count) + 2 * size_t(m.edge_count));
            for (uint32_t i : idx) sum += p.vertices()[m.first_vertex + i].position[0] != 0;
        }
        for (size_t i = 0; i < p.parts().size(); ++i) sum += p.part_name(i).size();
        volatile uint64_t keep = sum;
        (void)keep;
    } catch (const PackError&) {
    }
    return 0;
}
