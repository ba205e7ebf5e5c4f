#include "push/push_run.h"

#include <algorithm>
#include <cmath>
#include <exception>

#include "common/errors.h"
#include "common/shell_word.h"
#include "push/push_ledger.h"
#include "push/push_record.h"
#include "store/store_reader.h"

namespace seatmark::push {

PushSetup push_setup(const PushRequest& request) {
    PushSetup s;
    if (!(request.wait_s > 0) || !std::isfinite(request.wait_s))
        throw InputError("the time to keep trying a sink must be a positive number of seconds");
    for (const std::string& url : request.urls) s.targets.push_back(parse_push_url(url, request.url_option));
    for (const std::string& h : request.headers) s.options.headers.push_back(parse_header(h, request.header_option));
    if (!request.header_file.empty())
        for (Header& h : read_header_file(request.header_file)) s.options.headers.push_back(std::move(h));
    s.options.wait_s = request.wait_s;
    // One request never outlasts the whole wait, and a slow sink gets several tries within it.
    s.options.timeout = std::chrono::milliseconds(std::clamp<long long>(std::llround(request.wait_s * 1000 / 2), 200, 10000));
    return s;
}

std::vector<Delivery> push_database(const std::string& db_path, const PushSetup& setup) {
    std::vector<PushRecord> records;
    {
        const store::StoreReader reader(db_path);  // throws InputError for a file that is not a run database
        records = collect_records(reader);
    }
    std::vector<Delivery> out;
    for (const PushTarget& t : setup.targets) {
        Ledger ledger(db_path, t.url);
        try {
            out.push_back(deliver(records, t, ledger, setup.options));
        } catch (const std::exception& e) {
            // The ledger could not be written (a read-only folder): nothing more is sent to this
            // sink, since what it took could not be remembered.
            Delivery d;
            d.url = t.url;
            d.records = records.size();
            for (const PushRecord& r : records) d.pending += ledger.has(r.key) ? 0 : 1;
            d.error = e.what();
            out.push_back(std::move(d));
        }
    }
    return out;
}

std::string describe(const Delivery& d, const std::string& db_path, bool with_headers) {
    const std::string before = std::to_string(d.records - d.sent_now - d.pending);
    if (d.pending == 0) {
        if (d.sent_now == 0) return d.url + " already has all " + std::to_string(d.records) + " records of " + db_path;
        return "sent " + std::to_string(d.sent_now) + " records to " + d.url +
               (before == "0" ? "" : " (it had the other " + before + ")");
    }
    return d.url + ": " + std::to_string(d.pending) + " of " + std::to_string(d.records) + " records not sent (" +
           d.error + ")" + (d.sent_now ? "; " + std::to_string(d.sent_now) + " sent" : "") +
           "; they stay pending (" + ledger_dir(db_path) + "/ says what each sink took): send them later with `seatmark push " +
           shell_word(db_path) + "`" + (with_headers ? " and the same headers" : "");
}

bool all_taken(const std::vector<Delivery>& deliveries) {
    return std::all_of(deliveries.begin(), deliveries.end(), [](const Delivery& d) { return d.pending == 0; });
}

}  // namespace seatmark::push
