#include "pack/pack_reader.h"

#include <cerrno>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include <xxhash.h>

#include "common/file_hash.h"
#include "common/input_file.h"

namespace seatmark::pack {

namespace {

std::string human_bytes(double b) {
    const char* unit[] = {"B", "KB", "MB", "GB", "TB", "PB"};
    int u = 0;
    while (b >= 1000 && u < 5) {
        b /= 1000;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
    return buf;
}

std::unique_ptr<InputFile> open_read(const std::string& path, uint64_t& size) {
    std::unique_ptr<InputFile> f;
    try {
        f = std::make_unique<InputFile>(path);
    } catch (const FileError& e) {
        throw PackError(path + ": cannot open (" + e.what() + "); check the path, or pack the model with 'seatmark pack'");
    }
    size = f->size();
    return f;
}

// Checks the header alone against the file's size; returns the problem, or "" when it is sound.
std::string header_problem(const PackHeader& h, uint64_t size) {
    if (std::memcmp(h.magic, pack_magic, sizeof pack_magic) != 0)
        return "not a seatmark pack (no SMPACK magic); make one with 'seatmark pack MODEL --out FILE.smpack'";
    if (h.version > pack_version)
        return "pack format version " + std::to_string(h.version) + " is newer than this seatmark reads (up to " +
               std::to_string(pack_version) + "); use a newer seatmark or re-pack the model with this one";
    if (h.version == 0) return "pack format version 0 is not a valid version";
    if (h.header_bytes != sizeof(PackHeader))
        return "header size " + std::to_string(h.header_bytes) + " (expected " + std::to_string(sizeof(PackHeader)) + ")";
    if (h.file_bytes != size)
        return "header says the file has " + std::to_string(h.file_bytes) + " bytes but it has " + std::to_string(size) +
               (size < h.file_bytes ? " (truncated: copy or stage it again)" : " (extra bytes at the end)");
    if (h.vertex_count > max_pack_vertices)
        return "header claims " + std::to_string(h.vertex_count) + " vertices (at most 2^32 can be indexed)";
    if (h.mesh_count > max_pack_meshes) return "header claims " + std::to_string(h.mesh_count) + " meshes (at most 2^24)";
    if (h.part_count > max_pack_parts) return "header claims " + std::to_string(h.part_count) + " parts (at most 2^26)";
    // Sections in order, aligned, inside the file; sizes in 128 bits of room (counts are < 2^64 / 72).
    struct Sec {
        const char* name;
        uint64_t offset;
        long double count, size;
    } secs[] = {{"vertices", h.vertices_offset, (long double)h.vertex_count, sizeof(workloads::Vertex)},
                {"indices", h.indices_offset, (long double)h.index_count, 4},
                {"meshes", h.meshes_offset, (long double)h.mesh_count, sizeof(PackMesh)},
                {"instances", h.instances_offset, (long double)h.part_count, sizeof(PackInstance)},
                {"parts", h.parts_offset, (long double)h.part_count, sizeof(PackPart)},
                {"names", h.names_offset, (long double)h.names_bytes, 1}};
    uint64_t end = sizeof(PackHeader);
    for (const Sec& s : secs) {
        const long double bytes = s.count * s.size;
        if (s.offset % pack_align != 0 || s.offset < end)
            return std::string("section ") + s.name + " at offset " + std::to_string(s.offset) + " is misplaced";
        if ((long double)s.offset + bytes > (long double)size)
            return std::string("header claims ") + s.name + " of " + human_bytes(double(bytes)) + " (" +
                   std::to_string(uint64_t(s.count)) + " entries) but the file has " + human_bytes(double(size));
        end = s.offset + uint64_t(bytes);
    }
    // Every drawn triangle is stored at least once and a mesh has at most 2^32 of them per part.
    if (h.triangles == 0 || h.part_count == 0) return "the pack draws no triangles";
    if ((long double)h.triangles > (long double)h.part_count * 4294967296.0L)
        return "header claims " + std::to_string(h.triangles) + " triangles drawn, impossible for " +
               std::to_string(h.part_count) + " parts";
    for (int a = 0; a < 3; ++a)
        if (!std::isfinite(h.bounds_min[a]) || !std::isfinite(h.bounds_max[a]) || h.bounds_min[a] > h.bounds_max[a])
            return "header bounds are not finite or not ordered";
    return "";
}

bool finite3(const float* v) { return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]); }

}  // namespace

PackHeader read_pack_header(const std::string& path) {
    uint64_t size = 0;
    auto f = open_read(path, size);
    PackHeader h{};
    if (size < sizeof h) throw PackError(path + ": " + std::to_string(size) + " bytes is too short for a seatmark pack header (truncated?)");
    if (!f->read_at(&h, sizeof h, 0)) throw PackError(path + ": cannot read the header");
    if (auto p = header_problem(h, size); !p.empty()) throw PackError(path + ": " + p);
    return h;
}

PackHeader verify_pack_payload(const std::string& path) {
    const PackHeader h = read_pack_header(path);
    uint64_t size = 0;
    auto f = open_read(path, size);  // opened for sequential reading
    XXH3_state_t* st = XXH3_createState();
    XXH3_64bits_reset(st);
    std::vector<char> buf(4 << 20);
    uint64_t at = h.header_bytes;
    while (at < size) {
        const size_t n = size_t(std::min<uint64_t>(buf.size(), size - at));
        if (!f->read_at(buf.data(), n, at)) {
            XXH3_freeState(st);
            throw PackError(path + ": read failed at byte " + std::to_string(at));
        }
        XXH3_64bits_update(st, buf.data(), size_t(n));
        at += uint64_t(n);
    }
    const uint64_t sum = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    if (sum != h.payload_xxh3)
        throw PackError(path + ": payload checksum mismatch (XXH3 " + xxh3_hex(sum) + ", header says " + xxh3_hex(h.payload_xxh3) +
                        "): the copy is damaged");
    return h;
}

PackFile::PackFile(const std::string& path) : path_(path) {
    uint64_t size = 0;
    auto f = open_read(path, size);
    if (size < sizeof(PackHeader))
        fail(std::to_string(size) + " bytes is too short for a seatmark pack header (truncated?)");
    if (!f->read_at(&header_, sizeof header_, 0)) fail("cannot read the header");
    if (auto p = header_problem(header_, size); !p.empty()) fail(p);  // before anything is mapped
    try {
        map_ = std::make_unique<FileMapping>(*f, size);
    } catch (const FileError& e) {
        fail(std::string("cannot map ") + human_bytes(double(size)) + " (" + e.what() + ")");
    }
    check({map_->data(), size});  // a throw here unmaps with map_
}

PackFile::PackFile(std::span<const uint8_t> data, std::string name) : path_(std::move(name)) {
    if (data.size() < sizeof(PackHeader))
        fail(std::to_string(data.size()) + " bytes is too short for a seatmark pack header (truncated?)");
    std::memcpy(&header_, data.data(), sizeof header_);
    if (auto p = header_problem(header_, data.size()); !p.empty()) fail(p);
    check(data);
}

PackFile::~PackFile() = default;

void PackFile::fail(const std::string& what) const { throw PackError(path_ + ": " + what); }

void PackFile::page_out(const void* p, size_t n) const {
    if (map_) map_->page_out(p, n);
}

namespace {

// The two scans below are most of a pack's load time: branch-free, built -O3 (pack/CMakeLists.txt)
// and, on x86-64, also for AVX2 (chosen at load time), they run at memory speed.
#if defined(__x86_64__) && defined(__GNUC__) && defined(__ELF__)  // the clones dispatch through ELF ifuncs
#define SEATMARK_SCAN [[gnu::target_clones("avx2", "default")]]
#else
#define SEATMARK_SCAN
#endif

// True when any of the n floats is NaN or infinite.
SEATMARK_SCAN bool any_nonfinite(const float* f, size_t n) {
    uint32_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        uint32_t b;
        std::memcpy(&b, f + i, 4);
        bad |= uint32_t((b & 0x7f800000u) == 0x7f800000u);
    }
    return bad != 0;
}

SEATMARK_SCAN uint32_t max_of(const uint32_t* v, size_t n) {
    uint32_t top = 0;
    for (size_t k = 0; k < n; ++k) top = v[k] > top ? v[k] : top;
    return top;
}

// The payload is read once from memory, in blocks small enough to stay in cache between the
// checksum and the value checks.
constexpr uint64_t check_block = 256 << 10;

}  // namespace

void PackFile::check(std::span<const uint8_t> data) {
    const PackHeader& h = header_;
    const uint8_t* base = data.data();
    vertices_ = {reinterpret_cast<const workloads::Vertex*>(base + h.vertices_offset), size_t(h.vertex_count)};
    indices_ = {reinterpret_cast<const uint32_t*>(base + h.indices_offset), size_t(h.index_count)};
    meshes_ = {reinterpret_cast<const PackMesh*>(base + h.meshes_offset), h.mesh_count};
    instances_ = {reinterpret_cast<const PackInstance*>(base + h.instances_offset), h.part_count};
    parts_ = {reinterpret_cast<const PackPart*>(base + h.parts_offset), h.part_count};
    names_ = {reinterpret_cast<const char*>(base + h.names_offset), size_t(h.names_bytes)};

    // The mesh table first (small): the index scan below walks the meshes that are sound, up to
    // the first that is not. Problems are only noted here; the checksum is reported before any.
    size_t bad_mesh = meshes_.size();  // the first mesh with unsound ranges
    std::string bad_mesh_why;
    size_t bad_bounds = meshes_.size();
    uint64_t next_index = 0;
    for (size_t m = 0; m < meshes_.size(); ++m) {
        const PackMesh& pm = meshes_[m];
        if (bad_bounds == meshes_.size() && (!finite3(pm.bounds_min) || !finite3(pm.bounds_max))) bad_bounds = m;
        if (bad_mesh != meshes_.size()) continue;
        const uint64_t n = 3ull * pm.triangle_count + 2ull * pm.edge_count;
        if (uint64_t(pm.first_vertex) + pm.vertex_count > h.vertex_count)
            bad_mesh_why = ": vertex range outside the vertices";
        else if (pm.triangle_count == 0)
            bad_mesh_why = " has no triangles";
        else if (pm.first_index != next_index || pm.first_index + n > h.index_count)
            bad_mesh_why = ": index range outside the indices or not in order";
        if (!bad_mesh_why.empty()) {
            bad_mesh = m;
            continue;
        }
        next_index = pm.first_index + n;
    }

    // One pass: checksum, vertices finite, each sound mesh's largest index.
    XXH3_state_t* st = XXH3_createState();
    XXH3_64bits_reset(st);
    const uint64_t voff = h.vertices_offset, ioff = h.indices_offset;
    uint64_t v_done = 0, i_done = 0, bad_vertex = UINT64_MAX;
    size_t cur = 0, bad_top = meshes_.size();
    uint32_t top = 0, bad_top_value = 0;
    for (uint64_t at = h.header_bytes; at < data.size(); at += check_block) {
        const uint64_t end = std::min<uint64_t>(data.size(), at + check_block);
        // A mapped file is paged in a block at a time and handed back after it (see page_out).
        if (map_) map_->page_in(base + at, end - at);
        XXH3_64bits_update(st, base + at, end - at);
        if (end > voff && v_done < vertices_.size()) {
            const uint64_t v_end = std::min<uint64_t>(vertices_.size(), (end - voff) / sizeof(workloads::Vertex));
            if (v_end > v_done && bad_vertex == UINT64_MAX &&
                any_nonfinite(vertices_[v_done].position, 6 * (v_end - v_done)))
                for (uint64_t i = v_done; i < v_end; ++i)
                    if (!finite3(vertices_[i].position) || !finite3(vertices_[i].normal)) {
                        bad_vertex = i;
                        break;
                    }
            v_done = std::max(v_done, v_end);
        }
        if (end > ioff && i_done < indices_.size()) {
            const uint64_t i_end = std::min<uint64_t>(indices_.size(), (end - ioff) / 4);
            while (i_done < i_end && cur < bad_mesh) {
                const PackMesh& pm = meshes_[cur];
                const uint64_t mesh_end = pm.first_index + 3ull * pm.triangle_count + 2ull * pm.edge_count;
                const uint64_t upto = std::min(i_end, mesh_end);
                top = std::max(top, max_of(indices_.data() + i_done, size_t(upto - i_done)));
                i_done = upto;
                if (i_done == mesh_end) {
                    if (top >= pm.vertex_count && bad_top == meshes_.size()) {
                        bad_top = cur;
                        bad_top_value = top;
                    }
                    top = 0;
                    ++cur;
                }
            }
            if (cur >= bad_mesh) i_done = indices_.size();  // what follows belongs to no sound mesh
        }
        if (map_) map_->page_out(base + at, end - at);
    }
    const uint64_t sum = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    if (sum != h.payload_xxh3)
        fail("payload checksum mismatch (XXH3 " + xxh3_hex(sum) + ", header says " + xxh3_hex(h.payload_xxh3) +
             "): the file is damaged; copy or stage it again, or re-pack the model");
    if (bad_vertex != UINT64_MAX) fail("vertex " + std::to_string(bad_vertex) + " has a NaN or infinite position or normal");
    // The first faulty mesh, in the order a mesh is checked: ranges, then its indices, then its bounds.
    const size_t first = std::min({bad_mesh, bad_top, bad_bounds});
    if (first < meshes_.size()) {
        const std::string which = "mesh " + std::to_string(first);
        if (first == bad_mesh) fail(which + bad_mesh_why);
        if (first == bad_top)
            fail(which + ": index " + std::to_string(bad_top_value) + " is out of range (the mesh has " +
                 std::to_string(meshes_[first].vertex_count) + " vertices)");
        fail(which + ": bounds not finite");
    }
    if (next_index != h.index_count) fail("indices not used by any mesh");
    uint64_t triangles = 0, edges = 0;
    uint32_t prev_mesh = 0;
    for (size_t p = 0; p < parts_.size(); ++p) {
        const PackPart& pp = parts_[p];
        const std::string which = "part " + std::to_string(p);
        if (pp.mesh >= h.mesh_count) fail(which + " uses mesh " + std::to_string(pp.mesh) + " of " + std::to_string(h.mesh_count));
        if (pp.mesh < prev_mesh) fail(which + ": parts are not sorted by mesh");
        prev_mesh = pp.mesh;
        if (pp.name_bytes > max_part_name_bytes || pp.name_offset > names_.size() || pp.name_bytes > names_.size() - pp.name_offset)
            fail(which + ": name outside the names");
        for (float v : instances_[p].model)
            if (!std::isfinite(v)) fail(which + ": transform is not finite");
        triangles += meshes_[pp.mesh].triangle_count;
        edges += meshes_[pp.mesh].edge_count;
    }
    if (triangles != h.triangles || edges != h.edges)
        fail("header says " + std::to_string(h.triangles) + " triangles and " + std::to_string(h.edges) +
             " edges drawn, the parts draw " + std::to_string(triangles) + " and " + std::to_string(edges));
}

std::string_view PackFile::part_name(size_t part) const {
    const PackPart& p = parts_[part];
    return names_.substr(size_t(p.name_offset), p.name_bytes);
}

workloads::Bounds PackFile::bounds() const {
    workloads::Bounds b;
    for (int a = 0; a < 3; ++a) {
        b.min[size_t(a)] = header_.bounds_min[a];
        b.max[size_t(a)] = header_.bounds_max[a];
    }
    return b;
}

}  // namespace seatmark::pack
