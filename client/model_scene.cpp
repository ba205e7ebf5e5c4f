#include "client/model_scene.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/file_hash.h"

namespace seatmark::client {

namespace {

bool ends_with_ci(const std::string& s, const std::string& suffix) {
    if (s.size() < suffix.size()) return false;
    for (size_t i = 0; i < suffix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
    return true;
}

std::string cache_dir() {
    if (const char* d = std::getenv("SEATMARK_PACK_CACHE"); d && *d) return d;
    if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/seatmark/packs";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/seatmark/packs";
    return "/tmp/seatmark-packs";
}

// The `seatmark` binary beside this one (the session may run from a leaner executable).
std::string seatmark_exe() {
    char buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    const std::string self = n > 0 ? std::string(buf, size_t(n)) : "";
    return self.substr(0, self.find_last_of('/') + 1) + "seatmark";
}

void run_pack(const std::string& source, const std::string& out) {
    const std::string exe = seatmark_exe();
    std::vector<std::string> args = {exe, "pack", source, "--out", out, "--quiet"};
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        ::dup2(2, 1);  // its summary must not mix with the session's stdout
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(exe.c_str(), argv.data());
        ::_exit(127);
    }
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        throw InputError(source + ": packing it for this session failed (see the message above); try 'seatmark pack " +
                         source + " --out FILE.smpack' and name the pack instead");
}

}  // namespace

std::string model_pack_path(const std::string& model) {
    if (ends_with_ci(model, ".smpack")) return model;
    if (::access(model.c_str(), R_OK) != 0) throw InputError(model + ": cannot read the model (" + std::strerror(errno) + ")");
    const std::string dir = cache_dir();
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw InputError(dir + ": cannot create the pack cache (" + ec.message() + "); set SEATMARK_PACK_CACHE");
    const std::string pack = dir + "/" + xxh3_hex(file_xxh3(model)) + ".smpack";
    // Thirty sessions starting on one new model: one packs it, the others wait for it.
    const std::string lock = pack + ".lock";
    const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw InputError(lock + ": cannot open (" + std::strerror(errno) + ")");
    struct Unlock {
        int fd;
        ~Unlock() { ::close(fd); }
    } unlock{fd};
    while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
    }
    bool usable = false;
    if (::access(pack.c_str(), R_OK) == 0) {
        try {
            pack::read_pack_header(pack);
            usable = true;
        } catch (const InputError&) {
            usable = false;  // damaged or from another version: make it again
        }
    }
    if (!usable) run_pack(model, pack);
    return pack;
}

std::unique_ptr<pack::PackFile> open_model(const std::string& model) {
    return std::make_unique<pack::PackFile>(model_pack_path(model));
}

workloads::Assembly pack_outline(const pack::PackFile& p) {
    workloads::Assembly a;
    a.bounds = p.bounds();
    a.triangles = p.header().triangles;
    a.edges = p.header().edges;
    a.parts.resize(p.parts().size());
    for (size_t i = 0; i < a.parts.size(); ++i) {
        auto& part = a.parts[i];
        part.mesh = p.parts()[i].mesh;
        std::memcpy(part.transform.data(), p.instances()[i].model, sizeof part.transform);
        part.rgba = p.instances()[i].rgba;
        part.id = p.instances()[i].id;
    }
    return a;
}

}  // namespace seatmark::client
