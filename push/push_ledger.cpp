#include "push/push_ledger.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <xxhash.h>

#include "common/errors.h"

namespace seatmark::push {

namespace {

constexpr const char* url_prefix = "# url ";

// A file name that says which sink and cannot collide: host and port readable, then a hash.
std::string file_name(const std::string& url) {
    std::string readable;
    for (char c : url.substr(0, 60)) readable += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
    char hash[20];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(XXH3_64bits(url.data(), url.size())));
    return readable + "-" + hash + ".sent";
}

}  // namespace

std::string ledger_dir(const std::string& db_path) { return db_path + ".push"; }

Ledger::Ledger(const std::string& db_path, const std::string& url)
    : path_(ledger_dir(db_path) + "/" + file_name(url)), url_(url) {
    std::ifstream in(path_);
    if (!in) return;  // nothing sent to this sink yet
    std::string line;
    while (std::getline(in, line))
        if (!line.empty() && line[0] != '#') sent_.insert(line);
}

void Ledger::add(const std::vector<std::string>& keys) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path_).parent_path(), ec);
    const bool fresh = !std::filesystem::exists(path_);
    const int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        throw std::runtime_error(path_ + ": cannot record what was delivered: " + std::strerror(errno) +
                                 " (the folder beside the database must be writable)");
    std::string text = fresh ? std::string(url_prefix) + url_ + "\n" : "";
    for (const auto& k : keys) text += k + "\n";
    const bool ok = ::write(fd, text.data(), text.size()) == ssize_t(text.size()) && ::fsync(fd) == 0;
    const int err = errno;
    ::close(fd);
    if (!ok) throw std::runtime_error(path_ + ": cannot record what was delivered: " + std::strerror(err));
    sent_.insert(keys.begin(), keys.end());
}

std::vector<std::string> ledger_urls(const std::string& db_path) {
    std::vector<std::string> out;
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(ledger_dir(db_path), ec))
        if (e.path().extension() == ".sent") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        std::ifstream in(f);
        std::string first;
        if (std::getline(in, first) && first.rfind(url_prefix, 0) == 0) out.push_back(first.substr(std::strlen(url_prefix)));
    }
    return out;
}

}  // namespace seatmark::push
