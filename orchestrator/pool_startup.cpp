#include "orchestrator/pool_startup.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "common/clock.h"
#include "common/errors.h"
#include "core/clock_offset.h"
#include "orchestrator/asset_check.h"
#include "store/writer_lock.h"

namespace seatmark::orchestrator {

namespace {

int64_t deadline_in(double s) { return now_ns() + static_cast<int64_t>(s * 1e9); }

// Lines of "key\tvalue" (host names and messages hold no tabs or newlines we rely on).
std::string field(const std::string& msg, const std::string& key) {
    std::istringstream in(msg);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(key + "\t", 0) == 0) return line.substr(key.size() + 1);
    return "";
}

std::string random_id() {
    std::random_device rd;
    char b[17];
    std::snprintf(b, sizeof b, "%08x%08x", rd(), rd());
    return b;
}

}  // namespace

PoolView pool_startup(PoolComm& comm, const core::Plan& plan, const std::string& host, const std::string& db,
                      const std::string& rank0_problem) {
    const int rank = comm.rank(), size = comm.size();
    const double timeout = std::max(60.0, plan.pool.sync_timeout_s);
    // What would stop this host, checked here first (the same on every rank for the plan itself).
    std::string problem = core::pool_plan_problem(plan, static_cast<uint32_t>(size));
    for (uint32_t h : plan.pool.series(static_cast<uint32_t>(size)))
        for (size_t i = 0; i < plan.steps.size() && problem.empty(); ++i) {
            auto shares = core::place_sessions(plan.steps[i], h, plan.pool.placement, plan.pool.max_sessions_per_host);
            for (size_t k = 0; k < shares.size(); ++k)
                if (shares[k] == 0) {
                    problem = plan.source + ": step " + std::to_string(i + 1) + " (" + std::to_string(plan.steps[i]) +
                              " sessions) leaves rank " + std::to_string(k) + " without a session under " +
                              std::string(core::to_string(plan.pool.placement)) + " placement on " + std::to_string(h) +
                              " hosts: start the ramp at one session per host or more, or use placement = \"per-host\"";
                    break;
                }
        }
    if (problem.empty() && rank == 0) problem = rank0_problem;
    if (problem.empty() && rank == 0) try {
            store::refuse_existing_db(db, " (rank 0 merges the hosts' databases into it)");
        } catch (const InputError& e) {
            problem = e.what();
        }
    std::string asset_error;
    try {
        verify_assets(plan);
    } catch (const InputError& e) {
        asset_error = e.what();
    }
    PoolView view;
    view.self = rank;
    view.members.resize(static_cast<size_t>(size));
    std::string verdict;
    if (rank != 0) {
        std::string hello = "host\t" + host + "\nasset\t" + asset_error + "\n";
        if (!comm.send(0, tag_hello, hello, deadline_in(timeout)))
            throw InputError("pool: rank 0 took no start-up message within " + std::to_string(int(timeout)) + " s");
        auto v = comm.recv(0, tag_verdict, deadline_in(timeout));
        if (!v) throw InputError("pool: no start-up answer from rank 0 within " + std::to_string(int(timeout)) + " s");
        verdict = *v;
    } else {
        std::vector<std::string> names = {host}, assets = {asset_error};
        for (int k = 1; k < size; ++k) {
            auto m = comm.recv(k, tag_hello, deadline_in(timeout));
            names.push_back(m ? field(*m, "host") : "");
            assets.push_back(m ? field(*m, "asset") : "");
            if (!m && problem.empty())
                problem = "pool: rank " + std::to_string(k) + " sent no start-up message within " +
                          std::to_string(int(timeout)) + " s";
        }
        for (int a = 0; a < size && problem.empty(); ++a)
            for (int b = a + 1; b < size && problem.empty(); ++b)
                if (names[size_t(a)] == names[size_t(b)])
                    problem = "pool: ranks " + std::to_string(a) + " and " + std::to_string(b) + " are both host '" +
                              names[size_t(a)] +
                              "': run one rank per host (mpirun --map-by ppr:1:node, srun --ntasks-per-node=1) "
                              "or give each rank its own name (--host-name 'node{rank}')";
        for (int k = 0; k < size && problem.empty(); ++k)
            if (!assets[size_t(k)].empty())
                problem = "pool: host " + names[size_t(k)] + " (rank " + std::to_string(k) + "): " + assets[size_t(k)] +
                          "; nothing was started on any host";
        std::string id = random_id();
        verdict = "problem\t" + problem + "\nid\t" + id + "\n";
        for (int k = 0; k < size; ++k) verdict += "name" + std::to_string(k) + "\t" + names[size_t(k)] + "\n";
        for (int k = 1; k < size; ++k) comm.send(k, tag_verdict, verdict, deadline_in(timeout));
    }
    if (!field(verdict, "problem").empty()) throw InputError(field(verdict, "problem"));
    view.pool_id = field(verdict, "id");
    for (int k = 0; k < size; ++k) view.members[size_t(k)].host = field(verdict, "name" + std::to_string(k));

    // Clock offsets: rank 0 pings each rank; each answers with its own clock at once.
    if (rank == 0) {
        std::string table;
        for (int k = 1; k < size; ++k) {
            std::vector<core::ClockSample> samples;
            for (int i = 0; i < clock_rounds; ++i) {
                core::ClockSample s;
                s.t_send_ns = now_ns();
                if (!comm.send(k, tag_ping, &s.t_send_ns, sizeof s.t_send_ns, deadline_in(timeout))) break;
                auto pong = comm.recv(k, tag_pong, deadline_in(timeout));
                s.t_recv_ns = now_ns();
                if (!pong || pong->size() != sizeof(int64_t)) break;
                std::memcpy(&s.t_peer_ns, pong->data(), sizeof(int64_t));
                samples.push_back(s);
            }
            const int64_t stop = -1;
            comm.send(k, tag_ping, &stop, sizeof stop, deadline_in(timeout));
            auto est = core::estimate_offset(samples);
            if (!est) throw InputError("pool: no clock round trip with rank " + std::to_string(k) + " within the deadline");
            view.members[size_t(k)].offset_ns = est->offset_ns;
            view.members[size_t(k)].uncertainty_ns = est->uncertainty_ns;
        }
        for (int k = 0; k < size; ++k)
            table += "off" + std::to_string(k) + "\t" + std::to_string(view.members[size_t(k)].offset_ns) + "\nunc" +
                     std::to_string(k) + "\t" + std::to_string(view.members[size_t(k)].uncertainty_ns) + "\n";
        for (int k = 1; k < size; ++k) comm.send(k, tag_verdict, table, deadline_in(timeout));
    } else {
        for (;;) {
            auto ping = comm.recv(0, tag_ping, deadline_in(timeout));
            if (!ping) throw InputError("pool: rank 0 stopped measuring clocks (no message within the deadline)");
            int64_t t;
            std::memcpy(&t, ping->data(), sizeof t);
            if (t < 0) break;
            const int64_t mine = now_ns();
            comm.send(0, tag_pong, &mine, sizeof mine, deadline_in(timeout));
        }
        auto table = comm.recv(0, tag_verdict, deadline_in(timeout));
        if (!table) throw InputError("pool: no clock table from rank 0 within the deadline");
        for (int k = 0; k < size; ++k) {
            view.members[size_t(k)].offset_ns = std::stoll(field(*table, "off" + std::to_string(k)));
            view.members[size_t(k)].uncertainty_ns = std::stoll(field(*table, "unc" + std::to_string(k)));
        }
    }
    return view;
}

std::vector<store::HostInfo> other_host_rows(const PoolView& view, int self) {
    std::vector<store::HostInfo> rows;
    const PoolMember& me = view.members[size_t(self)];
    for (size_t k = 0; k < view.members.size(); ++k) {
        if (int(k) == self) continue;
        const PoolMember& m = view.members[k];
        store::HostInfo h;
        h.hostname = m.host;
        h.rank = int(k);
        h.role = std::string(k == 0 ? store::role_orchestrator : store::role_rank);
        // m's stamp + m.offset = rank 0's; minus me.offset = mine.
        h.clock_offset_ns = m.offset_ns - me.offset_ns;
        h.clock_uncertainty_ns = m.uncertainty_ns + me.uncertainty_ns;
        h.lost = m.lost;
        h.lost_step = m.lost_step;
        if (m.lost) h.lost_detail = m.lost_detail;
        h.agent = "none: recorded by rank " + std::to_string(k) + " in its own database";
        rows.push_back(std::move(h));
    }
    return rows;
}

}  // namespace seatmark::orchestrator
