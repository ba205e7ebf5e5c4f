#include "app/push_cli.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/errors.h"
#include "common/exit_codes.h"
#include "push/push_ledger.h"
#include "push/push_run.h"
#include "store/store_reader.h"

namespace seatmark::app {

namespace {

struct PushArgs {
    std::string db;
    push::PushRequest request{.url_option = "URL", .header_option = "--header"};
};

int push_command(PushArgs a) {
    const bool from_ledger = a.request.urls.empty();
    if (from_ledger) {
        a.request.urls = push::ledger_urls(a.db);
        a.request.url_option = push::ledger_dir(a.db) + "/";
        if (a.request.urls.empty()) {
            store::StoreReader check(a.db);  // a path that is no run database is named as such first
            throw InputError(a.db + ": no sink has been pushed to (no " + push::ledger_dir(a.db) +
                             "/): give one, e.g. seatmark push " + a.db + " influx://HOST:8086/DATABASE");
        }
    }
    const push::PushSetup setup = push::push_setup(a.request);  // every URL and header, before anything is sent
    const auto deliveries = push::push_database(a.db, setup);
    const bool headers = !setup.options.headers.empty();
    for (const push::Delivery& d : deliveries) std::printf("%s\n", push::describe(d, a.db, headers).c_str());
    return push::all_taken(deliveries) ? exit_code::ok : exit_code::failure;
}

}  // namespace

void add_push_command(CLI::App& app, std::function<int()>& run) {
    auto a = std::make_shared<PushArgs>();
    auto* cmd = app.add_subcommand(
        "push", "Send a run's step verdicts, per-step figures and session summaries to InfluxDB or a JSON-lines endpoint");
    cmd->add_option("db", a->db, "Run database (as `seatmark run` wrote it, or merged)")->required();
    cmd->add_option("urls", a->request.urls,
                    "Sinks: influx://HOST[:8086]/DATABASE[?rp=&u=&p=] (InfluxDB 1.x /write; influxs:// over TLS), "
                    "http(s)://HOST[:PORT]/PATH (JSON lines shaped like ReFrame's httpjson perflog). "
                    "None: every sink DB.push/ names, sent what it has not taken yet");
    cmd->add_option("--header", a->request.headers,
                    "Add 'Name: value' to every request (repeat for more), e.g. 'Authorization: Bearer TOKEN'")
        ->allow_extra_args(false);  // one header per --header: the positionals after it stay positionals
    cmd->add_option("--header-file", a->request.header_file,
                    "Headers from a file, one 'Name: value' per line ('#' comments): keeps a secret off the command line");
    cmd->add_option("--timeout", a->request.wait_s,
                    "Seconds to keep trying each sink (retries with backoff); what is not taken by then stays pending")
        ->capture_default_str()
        ->check(CLI::Range(0.1, 3600.0));
    cmd->footer(
        "Sends one record per step verdict (the step and each window), per ended session and for the ended run,\n"
        "never frames. Each sink's ledger beside the database (DB.push/) says which records it took, so every\n"
        "record reaches each sink once, and whatever a sink did not take is sent by the next `seatmark push DB`.\n"
        "Headers are never stored: give them again when pushing later.\n"
        "Examples:\n"
        "  seatmark push run.db influx://metrics.example:8086/seatmark\n"
        "  seatmark push run.db https://ingest.example/seatmark --header-file /etc/seatmark/push-headers\n"
        "  seatmark push run.db          (again, to the sinks a run --push or an earlier push could not reach)\n"
        "Exit 0: every sink took every record; 1: some are still pending (the message says which); 2: bad input.\n" +
        exit_code::help_text());
    cmd->callback([&run, a] { run = [a] { return push_command(*a); }; });
}

}  // namespace seatmark::app
