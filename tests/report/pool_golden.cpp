#include "tests/report/pool_golden.h"

#include "store/merge.h"
#include "tests/report/golden.h"

namespace seatmark::test {

namespace golden = seatmark::test::golden;

namespace {

std::string plan() {
    std::string p = golden::plan_text();
    p.replace(p.find("list = [1, 2, 3, 4, 5, 6, 7, 8]"), 31, "list = [2, 4, 6, 8]");
    return p + "\n[pool]\nplacement = \"breadth-first\"\n\n[cost]\nhost_per_hour = 3.2\ncurrency = \"EUR\"\n";
}

golden::Spec host(const std::string& name, int rank, std::vector<double> p95_ms) {
    golden::Spec s;
    s.plan_text = plan();
    s.host = name;
    s.rank = rank;
    s.pool_id = "pool-golden";
    for (size_t k = 0; k < p95_ms.size(); ++k)
        s.steps.push_back({uint32_t(k + 1), {p95_ms[k]}, p95_ms[k] <= 33.3 ? "pass" : "fail"});
    return s;
}

}  // namespace

std::string make_golden_pool(const TempDir& dir, bool lose_h1) {
    golden::Spec h0 = host("h0", 0, {16, 18, 22, 40});
    store::HostInfo h1row;
    h1row.hostname = "h1";
    h1row.rank = 1;
    h1row.role = std::string(store::role_rank);
    h1row.clock_uncertainty_ns = 250'000;
    if (lose_h1) {
        h1row.lost = true;
        h1row.lost_step = 2;
        h1row.lost_detail = "missed the window close of step 3 (deadline 3 s)";
        h0.end_status = store::RunStatus::degraded;
    }
    h0.others = {h1row};
    golden::Spec h1 = host("h1", 1, lose_h1 ? std::vector<double>{16, 20, 22} : std::vector<double>{16, 20, 35, 45});
    h1.host_cpu_per_session_pct = 20;  // so that a mix of the hosts' samples shows
    h1.finish = !lose_h1;  // a lost host's writer never finished
    // Each pool its own host files: the merge notes them as this process's inputs, which no
    // later write may replace (common/input_file.h).
    const std::string prefix = lose_h1 ? "lost-" : "";
    golden::write(dir.file(prefix + "h0.db"), h0);
    golden::write(dir.file(prefix + "h1.db"), h1);
    const std::string out = dir.file(lose_h1 ? "lost.db" : "pool.db");
    store::merge_databases(out, {dir.file(prefix + "h0.db"), dir.file(prefix + "h1.db")});
    return out;
}


}  // namespace seatmark::test
