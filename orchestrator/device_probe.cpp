#include "orchestrator/device_probe.h"

#include <boost/asio/steady_timer.hpp>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "orchestrator/session_process.h"

namespace seatmark::orchestrator {

namespace {

// The answer is the output's last line that is a JSON object (a loader may chatter before it).
std::optional<nlohmann::json> answer_in(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::optional<nlohmann::json> last;
    while (std::getline(in, line))
        if (line.rfind("{\"", 0) == 0) {
            auto j = nlohmann::json::parse(line, nullptr, false);
            if (j.is_object() && j.contains("renders")) last = std::move(j);
        }
    return last;
}

std::string output_tail(const std::string& path) {
    std::ifstream in(path);
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!all.empty() && (all.back() == '\n' || all.back() == '\r')) all.pop_back();
    return all.size() > 300 ? "..." + all.substr(all.size() - 300) : all;
}

}  // namespace

core::PreflightFacts probe_devices(const std::string& exe, const std::vector<std::string>& args, double timeout_s) {
    core::PreflightFacts f;
    const auto log = (std::filesystem::temp_directory_path() /
                      ("seatmark-preflight-" + std::to_string(::getpid()) + ".log")).string();
    struct Remove {
        const std::string& p;
        ~Remove() { std::error_code ec; std::filesystem::remove(p, ec); }
    } remove{log};
    std::vector<std::string> argv = args;
    argv.push_back("--preflight");
    boost::asio::io_context io;
    std::optional<ExitStatus> status;
    bool timed_out = false;
    try {
        SessionProcess proc(io, exe, argv, log);
        boost::asio::steady_timer deadline(io, std::chrono::milliseconds(int64_t(timeout_s * 1000)));
        proc.on_exit([&](ExitStatus s) {
            status = s;
            deadline.cancel();
        });
        deadline.async_wait([&](boost::system::error_code ec) {
            if (ec || status) return;
            timed_out = true;
            proc.signal_group(SIGKILL);  // its exit then ends io.run()
        });
        io.run();
    } catch (const std::exception& e) {
        f.probe_note = e.what();
        return f;
    }
    const std::string who = "`" + std::filesystem::path(exe).filename().string() + " --preflight`";
    if (timed_out) {
        f.probe_note = who + " gave no answer within " + std::to_string(int(timeout_s)) + " s";
        return f;
    }
    auto j = answer_in(log);
    if (!j) {
        f.probe_note = who + " answered nothing readable (" + (status ? describe(*status) : "no exit status") +
                       "): " + output_tail(log);
        return f;
    }
    f.renders = j->value("renders", true);
    if (!f.renders) return f;
    if (j->contains("error")) f.device_error = j->value("error", "");
    for (const auto& d : j->value("devices", nlohmann::json::array()))
        if (!d.value("software", false)) f.hardware.push_back(d.value("name", ""));
    if (j->contains("device")) {
        const auto& d = (*j)["device"];
        core::PreflightDevice dev;
        dev.name = d.value("name", "");
        dev.driver = d.value("driver_name", "");
        dev.software = d.value("software", false);
        dev.max_image_dimension_2d = d.value("max_image_dimension_2d", 0u);
        dev.max_msaa = d.value("max_msaa", 1u);
        f.device = dev;
    }
    return f;
}

}  // namespace seatmark::orchestrator
