// The run's private socket folder: created 0700 with its owner's pid; folders of runs that were
// killed (owner pid dead, or reused by a later process) are removed by the next run; a live
// run's folder, other users' and foreign ones are kept.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "orchestrator/run_dir.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;
namespace fs = std::filesystem;

namespace {
pid_t dead_pid() {
    pid_t p = fork();
    if (p == 0) _exit(0);
    int st = 0;
    waitpid(p, &st, 0);
    return p;
}
void fake_run_dir(const std::string& path, const std::string& owner) {
    fs::create_directories(path);
    if (!owner.empty()) write_file(path + "/owner", owner);
    write_file(path + "/telemetry.sock", "");
}
}  // namespace

TEST_CASE("a new run removes the socket folders of killed runs and keeps live and foreign ones") {
    TempDir t;
    const std::string killed = t.file("seatmark-run-killed"), reused = t.file("seatmark-run-reused"),
                      live = t.file("seatmark-run-live"), foreign = t.file("seatmark-run-old"),
                      other = t.file("not-seatmark");
    fake_run_dir(killed, std::to_string(dead_pid()) + " 12345\n");
    fake_run_dir(reused, std::to_string(getppid()) + " 1\n");  // the pid runs, but started later
    BackgroundProcess sleeper({"/bin/sleep", "30"});
    // The live owner's real start time, as the orchestrator writes it.
    std::string line = read_file("/proc/" + std::to_string(sleeper.pid()) + "/stat");
    std::string rest = line.substr(line.rfind(')') + 2);
    std::string field;
    {
        size_t pos = 0;
        for (int i = 3; i <= 22; ++i) {
            size_t end = rest.find(' ', pos);
            field = rest.substr(pos, end - pos);
            pos = end + 1;
        }
    }
    fake_run_dir(live, std::to_string(sleeper.pid()) + " " + field + "\n");
    fake_run_dir(foreign, "");
    fake_run_dir(other, std::to_string(dead_pid()) + " 1\n");

    std::string mine = orchestrator::make_private_run_dir(t.path);
    CHECK(orchestrator::stale_run_dirs_removed() == 2);
    CHECK_FALSE(fs::exists(killed));
    CHECK_FALSE(fs::exists(reused));
    CHECK(fs::exists(live));
    CHECK(fs::exists(foreign));
    CHECK(fs::exists(other));
    REQUIRE(fs::is_directory(mine));
    struct stat st {};
    REQUIRE(stat(mine.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    CHECK(read_file(mine + "/owner").rfind(std::to_string(getpid()) + " ", 0) == 0);

    // A second run keeps the first one's folder: its owner (this process) is alive.
    std::string second = orchestrator::make_private_run_dir(t.path);
    CHECK(fs::exists(mine));
    CHECK(orchestrator::stale_run_dirs_removed() == 0);
    fs::remove_all(second);
}

TEST_CASE("run folders live in TMPDIR when it is a usable folder, else in /tmp") {
    TempDir t;
    const char* was = std::getenv("TMPDIR");
    const std::string saved = was ? was : "";
    auto parent_with = [](const char* v) {
        if (v) ::setenv("TMPDIR", v, 1);
        else ::unsetenv("TMPDIR");
        return orchestrator::run_dir_parent();
    };
    CHECK(parent_with(nullptr) == "/tmp");
    CHECK(parent_with(t.path.c_str()) == t.path);
    CHECK(parent_with((t.path + "/").c_str()) == t.path);             // a trailing slash is the same folder
    CHECK(parent_with("relative/dir") == "/tmp");                       // not absolute: not ours to guess
    CHECK(parent_with(t.file("missing").c_str()) == "/tmp");            // no such folder
    const std::string deep = t.path + "/" + std::string(80, 'd');       // the socket path would not fit
    fs::create_directories(deep);
    CHECK(parent_with(deep.c_str()) == "/tmp");
    // A run started with TMPDIR set makes its folder there.
    parent_with(t.path.c_str());
    const std::string mine = orchestrator::make_private_run_dir();
    CHECK(fs::path(mine).parent_path() == fs::path(t.path));
    fs::remove_all(mine);
    parent_with(was ? saved.c_str() : nullptr);
}
