// The .smpack reader on packs this test writes and then damages: every fault is a PackError
// naming the file and what was wrong, found before anything out of range is touched.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include <xxhash.h>

#include "pack/pack_reader.h"
#include "pack/pack_writer.h"
#include "tests/support/process.h"

using namespace seatmark;
using seatmark::test::TempDir;

namespace {

workloads::RenderMesh cube(float s) {
    workloads::Mesh m;
    for (int i = 0; i < 8; ++i) m.positions.push_back({(i & 1) ? s : 0, (i & 2) ? s : 0, (i & 4) ? s : 0});
    const uint32_t f[] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4, 2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
    m.triangles.assign(std::begin(f), std::end(f));
    return workloads::to_render_mesh(m, 30);
}

// Two meshes, five parts: the small cube placed four times.
pack::PackContents sample() {
    pack::PackContents c;
    c.meshes = {cube(10), cube(1)};
    for (int i = 0; i < 5; ++i) {
        pack::PackPartIn p;
        p.mesh = i == 2 ? 0 : 1;
        p.transform[12] = float(3 * i);
        p.id = uint32_t(100 + i);
        p.name = "part " + std::to_string(i);
        p.rgba = 0xff0000ffu + uint32_t(i);
        c.parts.push_back(p);
    }
    return c;
}

std::string bytes_of(const std::string& path) { return test::read_file(path); }
void put(const std::string& path, const std::string& b) { test::write_file(path, b); }

// Rewrites the payload checksum, as a careless or hostile writer would, so the checks behind it are reached.
void reseal(std::string& b) {
    pack::PackHeader h;
    std::memcpy(&h, b.data(), sizeof h);
    h.payload_xxh3 = XXH3_64bits(b.data() + sizeof h, b.size() - sizeof h);
    std::memcpy(b.data(), &h, sizeof h);
}
pack::PackHeader header_of(const std::string& b) {
    pack::PackHeader h;
    std::memcpy(&h, b.data(), sizeof h);
    return h;
}
void set_header(std::string& b, const pack::PackHeader& h) { std::memcpy(b.data(), &h, sizeof h); }

std::string error_of(const std::string& path) {
    try {
        pack::PackFile p(path);
    } catch (const pack::PackError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("a written pack maps back with its meshes stored once, parts sorted by mesh, bounds and counts") {
    TempDir dir;
    const auto w = pack::write_pack(sample(), dir.file("a.smpack"));
    pack::PackFile p(dir.file("a.smpack"));
    CHECK(p.header().file_bytes == w.file_bytes);
    CHECK(p.meshes().size() == 2);
    CHECK(p.parts().size() == 5);
    CHECK(p.header().triangles == 5 * 12);
    CHECK(p.header().edges == 5 * 12);  // a cube's 12 feature edges
    for (size_t i = 0; i + 1 < p.parts().size(); ++i) CHECK(p.parts()[i].mesh <= p.parts()[i + 1].mesh);
    CHECK(p.parts()[0].mesh == 0);
    CHECK(p.part_name(0) == "part 2");
    CHECK(p.instances()[0].id == 102);
    CHECK(p.bounds().min[0] == doctest::Approx(0));
    CHECK(p.bounds().max[0] == doctest::Approx(16));  // the big cube placed at x = 6
    CHECK(p.bounds().max[1] == doctest::Approx(10));
    CHECK(pack::read_pack_header(dir.file("a.smpack")).payload_xxh3 == w.payload_xxh3);
    // Sections are where a renderer can use them directly.
    CHECK(reinterpret_cast<uintptr_t>(p.vertices().data()) % 64 == 0);
    CHECK(reinterpret_cast<uintptr_t>(p.instances().data()) % 64 == 0);
}

TEST_CASE("a truncated pack is refused by size, naming the file") {
    TempDir dir;
    pack::write_pack(sample(), dir.file("a.smpack"));
    auto b = bytes_of(dir.file("a.smpack"));
    put(dir.file("cut.smpack"), b.substr(0, b.size() - 100));
    auto e = error_of(dir.file("cut.smpack"));
    CHECK(e.find(dir.file("cut.smpack")) == 0);
    CHECK(e.find("truncated") != std::string::npos);
    put(dir.file("tiny.smpack"), b.substr(0, 40));
    CHECK(error_of(dir.file("tiny.smpack")).find("too short") != std::string::npos);
}

TEST_CASE("a flipped bit anywhere in the payload fails the checksum") {
    TempDir dir;
    pack::write_pack(sample(), dir.file("a.smpack"));
    const auto b = bytes_of(dir.file("a.smpack"));
    for (size_t at : {size_t(256), b.size() / 2, b.size() - 1}) {
        auto f = b;
        f[at] ^= 0x10;
        put(dir.file("f.smpack"), f);
        auto e = error_of(dir.file("f.smpack"));
        INFO("offset " << at << ": " << e);
        CHECK(e.find("checksum mismatch") != std::string::npos);
    }
}

TEST_CASE("a pack from a newer format version asks for a newer seatmark") {
    TempDir dir;
    pack::write_pack(sample(), dir.file("a.smpack"));
    auto b = bytes_of(dir.file("a.smpack"));
    auto h = header_of(b);
    h.version = pack::pack_version + 1;
    set_header(b, h);
    put(dir.file("v.smpack"), b);
    auto e = error_of(dir.file("v.smpack"));
    CHECK(e.find("newer") != std::string::npos);
    CHECK(e.find("version 2") != std::string::npos);
}

TEST_CASE("a header claiming 10^12 triangles is refused before anything is mapped or allocated") {
    TempDir dir;
    pack::write_pack(sample(), dir.file("a.smpack"));
    auto b = bytes_of(dir.file("a.smpack"));
    auto h = header_of(b);
    h.index_count = 3'000'000'000'000ull;
    h.triangles = 1'000'000'000'000ull;
    set_header(b, h);
    put(dir.file("big.smpack"), b);
    auto e = error_of(dir.file("big.smpack"));
    INFO(e);
    CHECK(e.find("claims indices of 12.0 TB") != std::string::npos);
    // Only the drawn count inflated (sections consistent): the parts' sum disagrees.
    b = bytes_of(dir.file("a.smpack"));
    h = header_of(b);
    h.triangles = 1'000'000'000'000ull;
    set_header(b, h);
    put(dir.file("claim.smpack"), b);
    e = error_of(dir.file("claim.smpack"));
    INFO(e);
    CHECK(e.find("triangles") != std::string::npos);
}

TEST_CASE("out-of-range indices, NaN positions and bad part meshes are found behind a valid checksum") {
    TempDir dir;
    pack::write_pack(sample(), dir.file("a.smpack"));
    const auto b = bytes_of(dir.file("a.smpack"));
    const auto h = header_of(b);
    {
        auto f = b;
        const uint32_t bad = 1000;
        std::memcpy(f.data() + h.indices_offset + 4 * 5, &bad, 4);
        reseal(f);
        put(dir.file("i.smpack"), f);
        auto e = error_of(dir.file("i.smpack"));
        CHECK(e.find("index 1000 is out of range") != std::string::npos);
    }
    {
        auto f = b;
        const float nan = std::nanf("");
        std::memcpy(f.data() + h.vertices_offset + 24 * 3 + 4, &nan, 4);
        reseal(f);
        put(dir.file("n.smpack"), f);
        CHECK(error_of(dir.file("n.smpack")).find("vertex 3 has a NaN or infinite position") != std::string::npos);
    }
    {
        auto f = b;
        const float inf = INFINITY;
        std::memcpy(f.data() + h.instances_offset + 72 + 48, &inf, 4);
        reseal(f);
        put(dir.file("t.smpack"), f);
        CHECK(error_of(dir.file("t.smpack")).find("part 1: transform is not finite") != std::string::npos);
    }
    {
        auto f = b;
        const uint32_t mesh = 7;
        std::memcpy(f.data() + h.parts_offset + 16 * 4, &mesh, 4);
        reseal(f);
        put(dir.file("m.smpack"), f);
        CHECK(error_of(dir.file("m.smpack")).find("part 4 uses mesh 7 of 2") != std::string::npos);
    }
}

TEST_CASE("a pack with zero triangles and a file that is not a pack are refused") {
    TempDir dir;
    pack::PackContents empty;
    pack::write_pack(empty, dir.file("e.smpack"));
    CHECK(error_of(dir.file("e.smpack")).find("draws no triangles") != std::string::npos);
    test::write_file(dir.file("x.smpack"), std::string(300, 'x'));
    CHECK(error_of(dir.file("x.smpack")).find("not a seatmark pack") != std::string::npos);
    CHECK(error_of(dir.file("missing.smpack")).find("cannot open") != std::string::npos);
}

TEST_CASE("an in-memory image is checked like a file (the fuzz target's path)") {
    TempDir dir;
    pack::write_pack(sample(), dir.file("a.smpack"));
    const auto b = bytes_of(dir.file("a.smpack"));
    std::vector<uint8_t> v(b.begin(), b.end());
    pack::PackFile ok(v, "memory");
    CHECK(ok.parts().size() == 5);
    v.resize(v.size() - 1);
    CHECK_THROWS_AS(pack::PackFile(v, "memory"), pack::PackError);
}

namespace {
// A curved n x n grid: large enough that its vertices and indices cross the reader's 256 KiB blocks.
workloads::RenderMesh grid(uint32_t n) {
    workloads::Mesh m;
    for (uint32_t j = 0; j <= n; ++j)
        for (uint32_t i = 0; i <= n; ++i) m.positions.push_back({float(i), float(j), 0.01f * float((i * 7 + j * 13) % 17)});
    for (uint32_t j = 0; j < n; ++j)
        for (uint32_t i = 0; i < n; ++i) {
            const uint32_t a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
            m.triangles.insert(m.triangles.end(), {a, b, d, a, d, c});
        }
    return workloads::to_render_mesh(m, 30);
}
}  // namespace

TEST_CASE("the one-pass check finds faults where a value crosses a block, and reports the first in file order") {
    TempDir dir;
    pack::PackContents c;
    c.meshes = {grid(120), grid(120)};
    for (uint32_t k = 0; k < 2; ++k) {
        pack::PackPartIn p;
        p.mesh = k;
        p.name = "grid " + std::to_string(k);
        c.parts.push_back(p);
    }
    pack::write_pack(c, dir.file("g.smpack"));
    const auto b = bytes_of(dir.file("g.smpack"));
    const auto h = header_of(b);
    REQUIRE(h.vertex_count * 24 > 2 * (256 << 10));  // both sections span blocks
    pack::PackFile ok(dir.file("g.smpack"));
    const auto m0 = ok.meshes()[0], m1 = ok.meshes()[1];
    auto error_after = [&](auto&& damage, bool seal = true) {
        auto f = b;
        damage(f);
        if (seal) reseal(f);
        put(dir.file("d.smpack"), f);
        return error_of(dir.file("d.smpack"));
    };
    // The vertex whose bytes straddle the first block boundary (file offset 256 + 256 KiB).
    const uint64_t boundary = 256 + (256 << 10);
    const uint64_t v = (boundary - h.vertices_offset) / 24;
    const uint64_t nan_at = h.vertices_offset + 24 * v + 20;  // its last float, behind the boundary
    REQUIRE(nan_at >= boundary);
    const float nan = std::nanf("");
    CHECK(error_after([&](std::string& f) { std::memcpy(f.data() + nan_at, &nan, 4); }) ==
          dir.file("d.smpack") + ": vertex " + std::to_string(v) + " has a NaN or infinite position or normal");
    // Unsealed, the same damage is a checksum mismatch: the checksum is reported before any value.
    CHECK(error_after([&](std::string& f) { std::memcpy(f.data() + nan_at, &nan, 4); }, false).find("checksum mismatch") !=
          std::string::npos);
    // The last index of mesh 1, and of mesh 0 (whose range crosses a block).
    const uint32_t big = 99999;
    const uint64_t last1 = h.indices_offset + 4 * (m1.first_index + 3ull * m1.triangle_count + 2ull * m1.edge_count - 1);
    const uint64_t last0 = h.indices_offset + 4 * (m0.first_index + 3ull * m0.triangle_count + 2ull * m0.edge_count - 1);
    CHECK(error_after([&](std::string& f) { std::memcpy(f.data() + last1, &big, 4); }).find("mesh 1: index 99999 is out of range") !=
          std::string::npos);
    // Mesh 0's bad index comes before mesh 1's bad bounds, and before mesh 1's bad range.
    CHECK(error_after([&](std::string& f) {
              std::memcpy(f.data() + last0, &big, 4);
              std::memcpy(f.data() + h.meshes_offset + 48 + 24, &nan, 4);
          }).find("mesh 0: index 99999 is out of range") != std::string::npos);
    CHECK(error_after([&](std::string& f) {
              const uint64_t wrong = m1.first_index + 1;
              std::memcpy(f.data() + h.meshes_offset + 48 + 8, &wrong, 8);
              std::memcpy(f.data() + last0, &big, 4);
          }).find("mesh 0: index 99999") != std::string::npos);
    // A mesh with an unsound range is reported before a later mesh's bad index is looked for.
    CHECK(error_after([&](std::string& f) {
              const uint64_t wrong = m0.first_index + 3;
              std::memcpy(f.data() + h.meshes_offset + 8, &wrong, 8);
              std::memcpy(f.data() + last1, &big, 4);
          }).find("mesh 0: index range outside the indices or not in order") != std::string::npos);
    // Within one mesh, its bad index is named before its bad bounds.
    CHECK(error_after([&](std::string& f) {
              std::memcpy(f.data() + last1, &big, 4);
              std::memcpy(f.data() + h.meshes_offset + 48 + 24, &nan, 4);
          }).find("mesh 1: index 99999") != std::string::npos);
    CHECK(error_after([&](std::string& f) { std::memcpy(f.data() + h.meshes_offset + 48 + 24, &nan, 4); }).find("mesh 1: bounds not finite") !=
          std::string::npos);
}

namespace {
// This process's resident pages of mapped files, from /proc/self/status (Linux).
double rss_file_mb() {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("RssFile:", 0) == 0) return std::atof(line.c_str() + 8) / 1024.0;
    return -1;
}
}  // namespace

TEST_CASE("opening a large pack checks all of it without keeping it resident, and its data still reads back") {
    TempDir dir;
    pack::PackContents c;
    workloads::RenderMesh big;  // 3M vertices: 72 MB of the pack's 84 MB
    const uint32_t nv = 3'000'000;
    for (uint32_t i = 0; i < nv; ++i) big.vertices.push_back({{float(i % 1000), float(i / 1000), 0}, {0, 0, 1}});
    for (uint32_t i = 0; i + 2 < nv; i += 3) big.indices.insert(big.indices.end(), {i, i + 1, i + 2});
    big.bounds.min = {0, 0, 0};
    big.bounds.max = {999, float(nv / 1000), 0};
    c.meshes.push_back(std::move(big));
    pack::PackPartIn part;
    part.name = "grid";
    c.parts.push_back(part);
    const auto w = pack::write_pack(c, dir.path + "/big.smpack");
    c = {};
    const double file_mb = double(w.file_bytes) / (1 << 20);
    REQUIRE(file_mb > 64);

    const double before = rss_file_mb();
    REQUIRE(before >= 0);
    pack::PackFile p(dir.path + "/big.smpack");
    const double grew = rss_file_mb() - before;
    INFO("pack " << file_mb << " MB, resident file pages grew by " << grew << " MB");
    CHECK(grew < file_mb / 4);  // the check pages in a block at a time; a whole mapping would be all of it
    // What was handed back pages in again, unchanged.
    REQUIRE(p.vertices().size() == nv);
    CHECK(p.vertices()[nv - 1].position[0] == float((nv - 1) % 1000));
    CHECK(p.vertices()[nv - 1].position[1] == float((nv - 1) / 1000));
    CHECK(p.indices()[p.indices().size() - 1] == nv - 1);
    p.page_out(p.vertices().data(), p.vertices().size_bytes());
    CHECK(p.vertices()[12345].position[0] == 345.0f);
}
