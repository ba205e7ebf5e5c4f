#pragma once
// The one path `seatmark push` and `seatmark run --push` share: every sink URL and header checked
// before anything starts (push_setup), then each sink sent what its ledger lacks from one read of
// the run database (push_database), and one line per sink for the user (describe).
#include <string>
#include <vector>

#include "push/deliver.h"
#include "push/push_target.h"

namespace seatmark::push {

struct PushSetup {
    std::vector<PushTarget> targets;
    PushOptions options;
};

// What the command line gave; the option names are the ones errors name.
struct PushRequest {
    std::vector<std::string> urls;
    std::vector<std::string> headers;  // "Name: value"
    std::string header_file;           // "" : none
    double wait_s = 30;                // how long to keep trying each sink
    std::string url_option = "--push", header_option = "--push-header";
};

// Parses every URL and header (and reads the header file) now, so a typo is refused before a run
// starts. Throws InputError naming the option, the URL or the file:line.
PushSetup push_setup(const PushRequest& request);

// Opens the database once, collects its records (push/push_record.h) and delivers them to each
// sink in turn with that sink's ledger beside the database. A sink that fails gives a Delivery
// with its error and pending count; only a database that cannot be read throws (InputError).
std::vector<Delivery> push_database(const std::string& db_path, const PushSetup& setup);

// One line for the user: what the sink took, or what is still pending and the command that
// sends it later (`with_headers`: the sinks were sent headers, which are never stored, so the
// later command needs them again).
std::string describe(const Delivery& d, const std::string& db_path, bool with_headers = false);

// True when every sink has every record.
bool all_taken(const std::vector<Delivery>& deliveries);

}  // namespace seatmark::push
