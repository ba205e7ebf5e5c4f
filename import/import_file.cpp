#include "import/import_file.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/input_file.h"
#include "import/importers.h"
#include "pack/pack_reader.h"

namespace seatmark::import {

namespace {

std::string lower_ext(const std::string& path) {
    const auto dot = path.find_last_of('.');
    const auto slash = path.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string e = path.substr(dot + 1);
    for (auto& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
    return e;
}

std::string mesher_path() {
    if (const char* env = std::getenv("SEATMARK_CAD_MESHER")) return env;
    char buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    std::string self = n > 0 ? std::string(buf, size_t(n)) : "seatmark";
    return self.substr(0, self.find_last_of('/') + 1) + "seatmark-cad-mesher";
}

// A pack's meshes and parts back as an imported model (the mesher's output, merged with other inputs).
ImportedModel from_pack(const pack::PackFile& p) {
    ImportedModel m;
    m.y_up = true;  // the mesher already turned it
    for (const auto& pm : p.meshes()) {
        workloads::Mesh mesh;
        mesh.positions.resize(pm.vertex_count);
        for (uint32_t i = 0; i < pm.vertex_count; ++i) {
            const auto& v = p.vertices()[pm.first_vertex + i];
            mesh.positions[i] = {v.position[0], v.position[1], v.position[2]};
        }
        const auto idx = p.indices().subspan(size_t(pm.first_index), 3 * size_t(pm.triangle_count));
        mesh.triangles.assign(idx.begin(), idx.end());
        m.meshes.push_back(std::move(mesh));
        m.mesh_names.emplace_back();
    }
    std::unordered_map<uint32_t, uint32_t> first_with_id;  // the mesher's colour pieces share their part's id
    for (size_t i = 0; i < p.parts().size(); ++i) {
        ImportedPart part;
        auto [first, fresh] = first_with_id.try_emplace(p.instances()[i].id, uint32_t(i));
        if (!fresh) part.piece_of = first->second;
        part.mesh = p.parts()[i].mesh;
        std::memcpy(part.transform.data(), p.instances()[i].model, sizeof part.transform);
        part.rgba = p.instances()[i].rgba;
        part.name = std::string(p.part_name(i));
        if (m.mesh_names[part.mesh].empty()) m.mesh_names[part.mesh] = part.name;
        m.parts.push_back(std::move(part));
    }
    return m;
}

ImportedModel import_cad(const std::string& path, const CadOptions& o, const std::function<void(const std::string&)>& status) {
    const std::string exe = mesher_path();
    if (::access(exe.c_str(), X_OK) != 0)
        throw InputError(path + ": STEP/IGES need " + exe + " (built with seatmark); it is missing");
    char tmpl[] = "/tmp/seatmark-cad-XXXXXX";
    const int tfd = ::mkstemp(tmpl);
    if (tfd < 0) throw std::runtime_error(std::string("cannot create a temporary file: ") + std::strerror(errno));
    ::close(tfd);
    const std::string out = tmpl;
    struct Cleanup {
        std::string p;
        ~Cleanup() { ::unlink(p.c_str()); }
    } cleanup{out};
    auto num = [](double v) { return std::to_string(v); };
    std::vector<std::string> args = {exe, path, "--out", out, "--deflection", num(o.deflection), "--angle", num(o.angle_deg),
                                     "--crease", num(o.crease_deg), "--timeout", num(o.timeout_s)};
    int out_pipe[2], err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        ::dup2(out_pipe[1], 1);
        ::dup2(err_pipe[1], 2);
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(exe.c_str(), argv.data());
        ::_exit(127);
    }
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    std::string out_buf, err_buf, part = "(reading the file)";
    auto part_start = std::chrono::steady_clock::now();
    // The mesher stops itself at the deadline between faces; this catches a hang inside one face.
    const double grace_s = o.timeout_s + 10;
    bool killed = false;
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    int open_fds = 2;
    while (open_fds > 0) {
        const int r = ::poll(fds, 2, 200);
        if (r < 0 && errno != EINTR) break;
        for (auto& f : fds) {
            if (f.fd < 0 || !(f.revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char buf[4096];
            const ssize_t n = ::read(f.fd, buf, sizeof buf);
            if (n <= 0) {
                ::close(f.fd);
                f.fd = -1;
                --open_fds;
                continue;
            }
            (f.fd == out_pipe[0] ? out_buf : err_buf).append(buf, size_t(n));
        }
        for (size_t nl; (nl = out_buf.find('\n')) != std::string::npos; out_buf.erase(0, nl + 1)) {
            const std::string line = out_buf.substr(0, nl);
            if (line.rfind("part ", 0) == 0) {
                // "part I N NAME"
                unsigned i = 0, n = 0;
                int used = 0;
                if (std::sscanf(line.c_str(), "part %u %u %n", &i, &n, &used) >= 2 && used > 0) part = line.substr(size_t(used));
                part_start = std::chrono::steady_clock::now();
                if (status) status("meshing part " + std::to_string(i) + "/" + std::to_string(n) + " '" + part + "'");
            } else if (line.rfind("note ", 0) == 0 && status) {
                status(line.substr(5));
            }
        }
        const double in_part = std::chrono::duration<double>(std::chrono::steady_clock::now() - part_start).count();
        if (!killed && in_part > grace_s) {
            ::kill(pid, SIGKILL);
            killed = true;
        }
    }
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (killed)
        throw InputError(path + ": meshing part '" + part + "' did not finish within " + std::to_string(int(o.timeout_s)) +
                         " s (the mesher was stopped); raise --mesh-timeout, coarsen --deflection, or fix that part");
    while (!err_buf.empty() && err_buf.back() == '\n') err_buf.pop_back();
    if (WIFSIGNALED(st))
        throw InputError(path + ": the CAD mesher crashed (signal " + std::to_string(WTERMSIG(st)) + ") while on part '" + part + "'" +
                         (err_buf.empty() ? "" : ": " + err_buf));
    if (WEXITSTATUS(st) != 0) throw InputError(err_buf.empty() ? path + ": the CAD mesher failed" : err_buf);
    pack::PackFile p(out);
    return from_pack(p);
}

// OBJ, .gltf and ASCII STL are read as ASCII/UTF-8: a UTF-16 file reads as no faces at all (its
// every other byte is 0), so "zero triangles" would hide the cause. A byte-order mark says it;
// for OBJ and .gltf, which never hold a 0 byte, so does one in the first 4 KiB (UTF-16 without a
// mark). A binary STL's 80-byte header is often all zeros, so only its mark counts.
void check_text_encoding(const std::string& path, bool zeros_mean_utf16) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return;  // the reader says why
    unsigned char head[4096];
    const size_t n = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
    std::string what;
    if (n >= 2 && head[0] == 0xFE && head[1] == 0xFF) what = "UTF-16 big-endian text (byte-order mark FE FF)";
    else if (n >= 2 && head[0] == 0xFF && head[1] == 0xFE) what = "UTF-16 little-endian text (byte-order mark FF FE)";
    else if (zeros_mean_utf16 && std::memchr(head, 0, n)) what = "not ASCII or UTF-8 text (it holds 0 bytes: UTF-16 without a byte-order mark?)";
    if (what.empty()) return;
    const std::string ext = lower_ext(path);
    throw InputError(path + ": is " + what + ", an encoding that is not supported: ." + ext + " files are read as ASCII or UTF-8. " +
                     "Convert it first: iconv -f UTF-16 -t UTF-8 " + path + " > model-utf8." + ext);
}

}  // namespace

bool is_cad(const std::string& path) {
    const auto e = lower_ext(path);
    return e == "step" || e == "stp" || e == "iges" || e == "igs";
}

bool is_supported(const std::string& path) {
    const auto e = lower_ext(path);
    return is_cad(path) || e == "gltf" || e == "glb" || e == "obj" || e == "stl";
}

ImportedModel import_file(const std::string& path, const CadOptions& cad, const std::function<void(const std::string&)>& status) {
    // Every importer reads by path, some in a library or a child process: the rule for inputs is
    // checked here first (the OBJ and glTF readers apply it again to the files a model names).
    check_input_file(path, "model", max_model_bytes);
    const auto e = lower_ext(path);
    if (e == "gltf" || e == "obj") check_text_encoding(path, true);
    if (e == "stl") check_text_encoding(path, false);
    if (e == "gltf" || e == "glb") return import_gltf(path);
    if (e == "obj") return import_obj(path);
    if (e == "stl") return import_stl(path);
    if (is_cad(path)) return import_cad(path, cad, status);
    throw InputError(path + ": unknown model format '." + e + "' (expected .gltf, .glb, .obj, .stl, .step, .stp, .iges or .igs)");
}

}  // namespace seatmark::import
