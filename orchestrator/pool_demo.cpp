#include "orchestrator/pool_demo.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "common/errors.h"
#include "common/output_file.h"
#include "core/plan.h"

namespace seatmark::orchestrator {

namespace fs = std::filesystem;

std::string find_mpirun() {
    const char* path = std::getenv("PATH");
    std::string p = path ? path : "";
    for (size_t at = 0; at <= p.size();) {
        size_t colon = p.find(':', at);
        if (colon == std::string::npos) colon = p.size();
        const std::string dir = p.substr(at, colon - at);
        const std::string exe = (fs::path(dir.empty() ? "." : dir) / "mpirun").string();
        if (::access(exe.c_str(), X_OK) == 0) return exe;
        at = colon + 1;
    }
    throw InputError("seatmark demo --hosts runs the pool with mpirun (Open MPI), and there is no mpirun on PATH: "
                     "install it (apt-get install openmpi-bin) or put its folder on PATH, or run the one-host demo "
                     "(seatmark demo)");
}

int run_pool_demo(const PoolDemoArgs& a, std::string& db_out) {
    const std::string mpirun = find_mpirun();
    fs::create_directories(a.out);
    const std::string plan = (fs::path(a.out) / "pool-demo.toml").string();
    write_output_file(plan, core::demo_pool_plan_text(a.hosts, a.quick));
    db_out = a.db.empty() ? (fs::path(a.out) / "run.db").string() : a.db;
    if (a.db.empty()) {
        // The demo's own files in its own folder: the last demo's merged file and host files go.
        const fs::path db(db_out);
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(db.parent_path().empty() ? "." : db.parent_path(), ec)) {
            const std::string name = e.path().filename().string();
            if (name.rfind(db.stem().string() + ".", 0) == 0) fs::remove_all(e.path(), ec);
        }
    }
    char self[4096] = {};
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) throw InputError(std::string("cannot find this seatmark's own path (/proc/self/exe): ") + std::strerror(errno));

    std::vector<std::string> argv = {mpirun, "-np", std::to_string(a.hosts), "--oversubscribe"};
    if (::geteuid() == 0) argv.push_back("--allow-run-as-root");  // Open MPI refuses root without it
    argv.insert(argv.end(), {std::string(self, static_cast<size_t>(n)), "run", plan, "--db", db_out, "--host-name",
                             "demo-h{rank}", "--listen", a.listen.empty() ? "off" : a.listen});
    if (!a.token.empty()) argv.insert(argv.end(), {"--token", a.token});
    if (a.quiet) argv.push_back("-q");
    if (a.json) argv.push_back("--json");
    if (!a.quiet) {
        std::string line;
        for (const auto& s : argv) line += (line.empty() ? "" : " ") + s;
        std::fprintf(stderr, "seatmark demo: %s\n", line.c_str());
    }
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) throw InputError(std::string("cannot start mpirun: ") + std::strerror(errno));
    if (pid == 0) {
        // One machine: shared memory between the ranks; the single-copy mechanism (CMA) needs
        // ptrace rights that containers often lack, so it is off unless the user set it.
        ::setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
        std::vector<char*> args;
        for (auto& s : argv) args.push_back(s.data());
        args.push_back(nullptr);
        ::execv(mpirun.c_str(), args.data());
        std::fprintf(stderr, "seatmark demo: cannot run %s: %s\n", mpirun.c_str(), std::strerror(errno));
        ::_exit(127);
    }
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

}  // namespace seatmark::orchestrator
