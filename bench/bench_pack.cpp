// Packs, measured against peers in the same run:
//  1. pack load rate (open + map + checksum + every check, no upload) against a raw sequential
//     read() of the same file, both from a cold page cache (posix_fadvise DONTNEED) and warm;
//     the goal is >= 80 % of the raw rate.
//  2. `seatmark pack` of a generated 1M+ triangle glTF against `assimp export` of the same file
//     to binary STL (Debian's assimp-utils), wall time and peak RSS of each child.
//  3. peak RSS of a session that opens a large pack, and 4. of `seatmark pack` making a pack that
//     large from a glTF, each against the pack size.
// Usage: bench_pack [load]   (load: only part 1; SEATMARK_BENCH_PACK_MB: large pack size, default 256; SEATMARK_BENCH_DIR)
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "pack/pack_reader.h"
#include "pack/pack_writer.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace seatmark;

namespace {

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string exe_dir() {
    char buf[4096];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    std::string s(buf, size_t(n > 0 ? n : 0));
    return s.substr(0, s.find_last_of('/'));
}

void drop_cache(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) return;
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
}

double raw_read(const std::string& path) {
    std::vector<char> buf(1 << 20);
    int fd = ::open(path.c_str(), O_RDONLY);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    auto t = Clock::now();
    uint64_t total = 0;
    for (ssize_t n; (n = ::read(fd, buf.data(), buf.size())) > 0;) total += uint64_t(n);
    double s = since(t);
    ::close(fd);
    return double(total) / s;
}

double pack_load(const std::string& path, uint64_t bytes) {
    auto t = Clock::now();
    pack::PackFile p(path);
    double s = since(t);
    if (p.header().file_bytes != bytes) std::abort();
    return double(bytes) / s;
}

struct Child {
    double wall_s = 0, maxrss_mb = 0;
    int status = -1;
};
Child run(const std::vector<std::string>& args, bool quiet = true) {
    Child c;
    auto t = Clock::now();
    pid_t pid = ::fork();
    if (pid == 0) {
        if (quiet) {
            int dn = ::open("/dev/null", O_WRONLY);
            ::dup2(dn, 1);
            ::dup2(dn, 2);
        }
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execvp(argv[0], argv.data());
        ::_exit(127);
    }
    struct rusage ru {};
    ::wait4(pid, &c.status, 0, &ru);
    c.wall_s = since(t);
    c.maxrss_mb = double(ru.ru_maxrss) / 1024.0;
    return c;
}

// A grid of n x n quads, z gently curved so normals vary (each mesh unique: no instancing).
workloads::RenderMesh grid(uint32_t n, float x0) {
    workloads::Mesh m;
    for (uint32_t j = 0; j <= n; ++j)
        for (uint32_t i = 0; i <= n; ++i)
            m.positions.push_back({x0 + float(i), float(j), 0.02f * float((i * 7 + j * 13) % 17)});
    for (uint32_t j = 0; j < n; ++j)
        for (uint32_t i = 0; i < n; ++i) {
            uint32_t a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
            m.triangles.insert(m.triangles.end(), {a, b, d, a, d, c});
        }
    workloads::RenderMesh r;
    for (const auto& p : m.positions) r.vertices.push_back({{p[0], p[1], p[2]}, {0, 0, 1}});
    r.indices = m.triangles;
    for (uint32_t i = 0; i < n; ++i) r.edges.insert(r.edges.end(), {i, i + 1});  // one border
    r.bounds.min = {x0, 0, 0};
    r.bounds.max = {x0 + float(n), float(n), 0.4f};
    return r;
}

// A glTF with `meshes` unique grid meshes of 2 n^2 triangles each, one node per mesh.
void write_gltf(const std::string& dir, uint32_t meshes, uint32_t n) {
    std::ofstream bin(dir + "/big.bin", std::ios::binary);
    std::string nodes, ms, accs, views;
    uint64_t off = 0;
    const uint32_t nv = (n + 1) * (n + 1), ni = 6 * n * n;
    for (uint32_t k = 0; k < meshes; ++k) {
        std::vector<float> pos;
        for (uint32_t j = 0; j <= n; ++j)
            for (uint32_t i = 0; i <= n; ++i) pos.insert(pos.end(), {float(i + k * (n + 2)), float(j), 0.02f * float((i * 7 + j * 13) % 17)});
        std::vector<uint32_t> idx;
        for (uint32_t j = 0; j < n; ++j)
            for (uint32_t i = 0; i < n; ++i) {
                uint32_t a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
                idx.insert(idx.end(), {a, b, d, a, d, c});
            }
        bin.write(reinterpret_cast<const char*>(pos.data()), std::streamsize(pos.size() * 4));
        bin.write(reinterpret_cast<const char*>(idx.data()), std::streamsize(idx.size() * 4));
        const std::string K = std::to_string(k);
        views += std::string(k ? "," : "") + "{\"buffer\":0,\"byteOffset\":" + std::to_string(off) + ",\"byteLength\":" + std::to_string(pos.size() * 4) +
                 "},{\"buffer\":0,\"byteOffset\":" + std::to_string(off + pos.size() * 4) + ",\"byteLength\":" + std::to_string(idx.size() * 4) + "}";
        off += pos.size() * 4 + idx.size() * 4;
        float maxx = float(n + k * (n + 2));
        accs += std::string(k ? "," : "") + "{\"bufferView\":" + std::to_string(2 * k) + ",\"componentType\":5126,\"count\":" + std::to_string(nv) +
                ",\"type\":\"VEC3\",\"min\":[" + std::to_string(k * (n + 2)) + ",0,0],\"max\":[" + std::to_string(maxx) + "," + std::to_string(n) +
                ",0.4]},{\"bufferView\":" + std::to_string(2 * k + 1) + ",\"componentType\":5125,\"count\":" + std::to_string(ni) + ",\"type\":\"SCALAR\"}";
        ms += std::string(k ? "," : "") + "{\"primitives\":[{\"attributes\":{\"POSITION\":" + std::to_string(2 * k) + "},\"indices\":" + std::to_string(2 * k + 1) + "}]}";
        nodes += std::string(k ? "," : "") + "{\"mesh\":" + K + "}";
    }
    std::string scene_nodes;
    for (uint32_t k = 0; k < meshes; ++k) scene_nodes += std::string(k ? "," : "") + std::to_string(k);
    std::ofstream j(dir + "/big.gltf");
    j << "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[" << scene_nodes << "]}],\"nodes\":[" << nodes
      << "],\"meshes\":[" << ms << "],\"accessors\":[" << accs << "],\"bufferViews\":[" << views
      << "],\"buffers\":[{\"uri\":\"big.bin\",\"byteLength\":" << off << "}]}";
}

}  // namespace

int main(int argc, char** argv) {
    const bool load_only = argc > 1 && std::strcmp(argv[1], "load") == 0;
    const char* mb_env = std::getenv("SEATMARK_BENCH_PACK_MB");
    const double target_mb = mb_env ? std::atof(mb_env) : 256;
    const std::string dir = std::getenv("SEATMARK_BENCH_DIR") ? std::getenv("SEATMARK_BENCH_DIR") : "/tmp/seatmark-bench-pack";
    fs::create_directories(dir);
    const std::string bin = exe_dir() + "/../seatmark";

    // 1. Load rate.
    pack::PackContents c;
    const uint32_t n = 500;  // 500k triangles a mesh, ~24 B each with its vertices
    const uint32_t meshes = std::max(1u, uint32_t(std::lround(target_mb * 1e6 / (500.0 * 500 * 2 * 24.2))));
    for (uint32_t k = 0; k < meshes; ++k) {
        c.meshes.push_back(grid(n, float(k * (n + 2))));
        pack::PackPartIn p;
        p.mesh = k;
        p.id = k + 1;
        p.name = "grid " + std::to_string(k);
        c.parts.push_back(p);
    }
    const std::string big = dir + "/big.smpack";
    auto w = pack::write_pack(c, big);
    c = {};
    std::printf("pack           %s: %.0f MB, %u meshes, %.1fM triangles\n", big.c_str(), double(w.file_bytes) / 1e6, meshes,
                double(w.triangles) / 1e6);
    double raw_cold = 0, load_cold = 0, raw_warm = 0, load_warm = 0;
    const int reps = 3;
    for (int r = 0; r < reps; ++r) {  // best of three, alternating, so neither gets a warmer disk
        drop_cache(big);
        raw_cold = std::max(raw_cold, raw_read(big));
        drop_cache(big);
        load_cold = std::max(load_cold, pack_load(big, w.file_bytes));
        raw_warm = std::max(raw_warm, raw_read(big));
        load_warm = std::max(load_warm, pack_load(big, w.file_bytes));
    }
    std::printf("load cold      pack open+map+check %.2f GB/s vs raw sequential read %.2f GB/s: %.0f %% (goal >= 80 %%)\n",
                load_cold / 1e9, raw_cold / 1e9, 100 * load_cold / raw_cold);
    std::printf("load warm      pack open+map+check %.2f GB/s vs raw read from page cache %.2f GB/s: %.0f %%\n", load_warm / 1e9,
                raw_warm / 1e9, 100 * load_warm / raw_warm);

    if (load_only) {
        fs::remove_all(dir);
        return 0;
    }

    // 2. Import of a large glTF against assimp.
    write_gltf(dir, 4, 360);  // 4 x 259k = 1.04M triangles
    auto ours = run({bin, "pack", dir + "/big.gltf", "--out", dir + "/gltf.smpack", "--quiet"});
    auto peer = run({"assimp", "export", dir + "/big.gltf", dir + "/big.stl", "-fstlb"});
    std::printf("import 1.04M   seatmark pack %.2f s, %.0f MB peak RSS (exit %d) vs assimp export -> binary STL %.2f s, %.0f MB (exit %d): "
                "%.2fx the peer's time\n",
                ours.wall_s, ours.maxrss_mb, WEXITSTATUS(ours.status), peer.wall_s, peer.maxrss_mb, WEXITSTATUS(peer.status),
                ours.wall_s / peer.wall_s);

    // 3. Memory of a session that opens the large pack.
    auto sess = run({bin, "session", "--model", big, "--duration", "1s", "--width", "320", "--height", "240", "--quiet"});
    std::printf("session RSS    %.0f MB peak opening a %.0f MB pack: %.2fx its size (exit %d; lavapipe's device memory is host memory)\n",
                sess.maxrss_mb, double(w.file_bytes) / 1e6, sess.maxrss_mb * 1.048576e6 / double(w.file_bytes), WEXITSTATUS(sess.status));

    // 4. Memory of `seatmark pack` making a pack of that size from a glTF of the same meshes.
    fs::remove(big);
    std::printf("(writing a glTF of %u meshes x %.1fk triangles for `seatmark pack` ...)\n", meshes, 2.0 * n * n / 1e3);
    std::fflush(stdout);
    write_gltf(dir, meshes, n);
    const double src_mb = double(fs::file_size(dir + "/big.gltf") + fs::file_size(dir + "/big.bin")) / 1e6;
    auto packer = run({bin, "pack", dir + "/big.gltf", "--out", big, "--quiet"});
    const double out_bytes = fs::exists(big) ? double(fs::file_size(big)) : 0;
    std::printf("pack RSS       %.0f MB peak packing a %.0f MB glTF into a %.0f MB pack: %.2fx the pack's size (%.1f s, exit %d)\n",
                packer.maxrss_mb, src_mb, out_bytes / 1e6, out_bytes > 0 ? packer.maxrss_mb * 1.048576e6 / out_bytes : 0.0,
                packer.wall_s, WEXITSTATUS(packer.status));
    fs::remove_all(dir);
    return 0;
}
