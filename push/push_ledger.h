#pragma once
// Which records each sink has taken, kept beside the run database (RUN.db.push/, one file per
// sink: a '# url' line, then one record key per line, appended and synced after each 2xx answer).
// What a sink has not taken stays in the database itself, so nothing is lost however the run
// ends, and a later `seatmark push` sends exactly what is missing.
#include <set>
#include <string>
#include <vector>

namespace seatmark::push {

class Ledger {
public:
    // Reads RUN.db.push/<name of url>.sent if present. Throws InputError naming the file.
    Ledger(const std::string& db_path, const std::string& url);
    bool has(const std::string& key) const { return sent_.count(key) > 0; }
    size_t size() const { return sent_.size(); }
    // Records keys as taken (creating the folder and file); throws std::runtime_error naming the file.
    void add(const std::vector<std::string>& keys);
    const std::string& path() const { return path_; }

private:
    std::string path_, url_;
    std::set<std::string> sent_;
};

// The folder beside a database, and the sinks it has ledgers for (their URLs, in file order).
std::string ledger_dir(const std::string& db_path);
std::vector<std::string> ledger_urls(const std::string& db_path);

}  // namespace seatmark::push
