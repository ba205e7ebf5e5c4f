#include "store/merge.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "common/errors.h"
#include "common/output_file.h"
#include "store/merge_copy.h"
#include "store/schema.h"
#include "store/store_reader.h"
#include "store/writer_lock.h"

namespace seatmark::store {

namespace {

std::string canonical(const std::string& p) {
    std::error_code ec;
    auto c = std::filesystem::weakly_canonical(p, ec);
    return ec ? p : c.string();
}

// Checks that every input belongs to the same run as the first, one database per host.
void check_one_run(const std::vector<MergeSource>& src) {
    const MergeSource& a = src.front();
    std::map<std::string, std::string> host_file;
    std::set<std::string> files;
    for (const MergeSource& s : src) {
        if (!files.insert(canonical(s.path)).second)
            throw InputError(s.path + ": given twice; name each host's database once");
        if (s.run.plan_text != a.run.plan_text)
            throw InputError(s.path + ": its run plan differs from " + a.path +
                             "'s: these are not the host databases of one run (merge the files of one pool run)");
        if (s.run.pool_id != a.run.pool_id)
            throw InputError(s.path + ": belongs to pool run '" + s.run.pool_id + "', " + a.path + " to '" +
                             a.run.pool_id + "': merge the host databases of one pool run");
        auto [it, fresh] = host_file.emplace(s.run.host, s.path);
        if (!fresh)
            throw InputError(s.path + " and " + it->second + " both record host '" + s.run.host +
                             "' (two ranks with one host name?): merge one database per host");
    }
}

// The reference: the lowest rank present (rank 0 when its database is there), else the first.
size_t reference_of(const std::vector<MergeSource>& src) {
    size_t best = 0;
    for (size_t i = 0; i < src.size(); ++i) {
        auto r = src[i].own.rank, b = src[best].own.rank;
        if (r && (!b || *r < *b)) best = i;
    }
    return best;
}

const HostRow* host_in(const MergeSource& s, const std::string& name) {
    for (const HostRow& h : s.hosts)
        if (h.hostname == name) return &h;
    return nullptr;
}

}  // namespace

MergeResult merge_databases(const std::string& out, const std::vector<std::string>& inputs,
                            const MergeOptions& options) {
    auto say = [&](const std::string& line) {
        if (options.progress) options.progress(line);
    };
    if (inputs.empty()) throw InputError("merge: no input databases (give OUT.db A.db B.db ...)");
    std::vector<MergeSource> src;
    for (const std::string& in : inputs) {
        if (canonical(in) == canonical(out))
            throw InputError(out + ": is also an input; write the merged run to a new file");
        src.push_back(load_source(in));
    }
    check_one_run(src);
    const size_t ref = reference_of(src);
    std::rotate(src.begin(), src.begin() + static_cast<std::ptrdiff_t>(ref), src.begin() + static_cast<std::ptrdiff_t>(ref) + 1);
    const MergeSource& r = src.front();  // the reference is copied first: its steps and run row win

    MergeResult result;
    result.reference = r.run.host;
    // Offsets into the reference's time base: recorded by the reference for the host, or by the
    // host for the reference (negated); neither: separate runs, stamps left as they are.
    for (MergeSource& s : src) {
        if (&s == &r) {
            s.offset_known = true;
        } else if (const HostRow* h = host_in(r, s.run.host)) {
            s.offset_ns = h->clock_offset_ns;
            s.offset_known = true;
        } else if (const HostRow* h2 = host_in(s, r.run.host)) {
            s.offset_ns = -h2->clock_offset_ns;
            s.offset_known = true;
        }
    }
    // Session numbers: kept when unique over the inputs, else each file's shifted past the last.
    std::set<int> seen;
    bool unique = true;
    for (const MergeSource& s : src)
        for (int id : s.session_ids) unique = seen.insert(id).second && unique;
    int64_t next = 0;
    for (MergeSource& s : src) {
        s.session_shift = unique ? 0 : next;
        int max_id = -1;
        for (int id : s.session_ids) max_id = std::max(max_id, id);
        next = s.session_shift + max_id + 1;
    }
    // Hosts: each file's own row, plus hosts that only others recorded (a lost host without its
    // database); 'lost' from whichever input says so.
    std::map<std::string, HostRow> lost_from_others;
    for (const MergeSource& s : src)
        for (const HostRow& h : s.hosts)
            if (h.lost && !lost_from_others.count(h.hostname)) lost_from_others[h.hostname] = h;
    // A pool member whose own file is given but whose run crashed (its writer died: a killed
    // rank) while another input's run ended: lost at the end of its file, in the step it was in.
    const bool any_ended = std::any_of(src.begin(), src.end(), [](const MergeSource& s) { return s.status != RunStatus::crashed; });
    for (const MergeSource& s : src) {
        if (!any_ended || s.status != RunStatus::crashed || !s.own.rank || lost_from_others.count(s.run.host)) continue;
        HostRow row = s.own;
        row.lost = true;
        row.lost_step = s.last_step;
        // Killed after it judged its last step but before the next began: lost in the next.
        if (s.last_step && std::any_of(s.verdicts.begin(), s.verdicts.end(), [&](const VerdictRow& v) {
                return v.step_idx == *s.last_step && v.repeat == pooled_repeat;
            }))
            row.lost_step = *s.last_step + 1;
        char took[48] = "";
        if (s.first_stamp_ns && s.last_stamp_ns)
            std::snprintf(took, sizeof took, " %.1f s after it began", double(*s.last_stamp_ns - *s.first_stamp_ns) * 1e-9);
        row.lost_detail = "crashed: its database (" + s.path + ") ends" + took +
                          (row.lost_step ? ", in step " + std::to_string(*row.lost_step + 1) : std::string()) +
                          ", its run unfinished (the process was killed or died while the others ran on)";
        lost_from_others[s.run.host] = row;
    }
    // A pool member (a host with a rank) that an input lists but no input is: its run did not end
    // where its file could be taken (killed with the job, or the file not copied): lost too, in
    // the step the inputs that list it were in at their end (the earliest: the survivors of a
    // killed rank are stopped by the launcher at once).
    for (const MergeSource& s : src)
        for (const HostRow& h : s.hosts) {
            const std::string& name = h.hostname;
            if (!h.rank) continue;
            if (std::any_of(src.begin(), src.end(), [&](const MergeSource& x) { return x.run.host == name; })) continue;
            if (auto it = lost_from_others.find(name); it != lost_from_others.end()) {
                if (it->second.lost_detail && it->second.lost_detail->starts_with("no database of it") && s.last_step &&
                    (!it->second.lost_step || *s.last_step < *it->second.lost_step))
                    it->second.lost_step = s.last_step;
                continue;
            }
            HostRow row = h;
            row.lost = true;
            row.lost_step = s.last_step;
            if (auto why = options.missing_detail.find(name); why != options.missing_detail.end())
                row.lost_detail = "no database of it among the merge's inputs: " + why->second;
            else
                row.lost_detail = "no database of it among the merge's inputs (its run did not end with the others', "
                                  "e.g. killed with the MPI job, or its file was not copied)";
            lost_from_others[name] = row;
        }

    // The inputs were opened above (noted as inputs): `merge a.db a.db b.db --force` would remove one.
    check_output_target(out, "the merged database");
    if (!options.overwrite && ::access(out.c_str(), F_OK) == 0)
        throw InputError(out + " exists; choose another output or pass --force");
    if (options.overwrite) {
        if (::access(out.c_str(), F_OK) == 0) {
            FileHandle probe = open_for_probe(out);
            if (writer_alive(probe)) throw InputError(out + " is being written by a running seatmark; choose another output");
        }
        for (const char* suffix : {"", "-wal", "-shm"}) ::unlink((out + suffix).c_str());
    }
    MergeWriter w(out);  // refuses an existing file; removes its partial output unless committed
    for (MergeSource& s : src) {
        MergedHost m;
        m.hostname = s.run.host;
        m.file = s.path;
        m.rank = s.own.rank;
        m.clock_offset_ns = s.offset_ns;
        m.offset_known = s.offset_known;
        m.session_id_shift = s.session_shift;
        HostRow row = s.own;
        row.clock_offset_ns = s.offset_ns;
        row.clock_uncertainty_ns = std::nullopt;
        if (&s != &r) {
            if (const HostRow* h = host_in(r, s.run.host)) row.clock_uncertainty_ns = h->clock_uncertainty_ns;
            if (row.role == role_orchestrator) row.role = std::string(role_rank);
        }
        if (auto it = lost_from_others.find(s.run.host); it != lost_from_others.end()) {
            row.lost = true;
            row.lost_step = it->second.lost_step;
            row.lost_detail = it->second.lost_detail;
        }
        m.lost = row.lost;
        m.lost_step = row.lost_step;
        say("merging " + s.path + " (host " + s.run.host +
            (s.offset_known ? ", clock offset " + std::to_string(s.offset_ns) + " ns" : ", no clock offset recorded") + ")");
        w.add_host(row);
        w.copy_rows(s, m);
        result.hosts.push_back(m);
    }
    for (const auto& [lost_name, h] : lost_from_others) {
        const std::string& name = lost_name;  // clang 14 cannot capture a structured binding
        if (std::any_of(src.begin(), src.end(), [&](const MergeSource& s) { return s.run.host == name; })) continue;
        HostRow row = h;
        if (const HostRow* hr = host_in(r, name)) {
            row = *hr;
            row.lost = true;  // as found above, also where the reference's row says ok
            if (!row.lost_step) row.lost_step = h.lost_step;
            if (!row.lost_detail) row.lost_detail = h.lost_detail;
        }
        w.add_host(row);
        MergedHost m;
        m.hostname = name;
        m.rank = row.rank;
        m.lost = true;
        m.lost_step = row.lost_step;
        result.hosts.push_back(m);
        say("host " + name + " was lost" + (row.lost_detail ? ": " + *row.lost_detail : "") + " (no database of it given)");
    }
    std::sort(result.hosts.begin(), result.hosts.end(), [](const MergedHost& a, const MergedHost& b) {
        if (a.rank.has_value() != b.rank.has_value()) return a.rank.has_value();
        if (a.rank && *a.rank != *b.rank) return *a.rank < *b.rank;
        return a.hostname < b.hostname;
    });

    uint32_t ranks = 0;
    for (const MergedHost& h : result.hosts) ranks += h.rank ? 1 : 0;
    w.apply_planned_shares(r.run.plan_text, "plan stored in " + r.path, ranks);
    result.pool_verdicts_combined = w.write_pool_verdicts(src, result.hosts);
    const std::optional<int64_t> on_largest = w.write_scaling(result.hosts);
    bool any_lost = std::any_of(result.hosts.begin(), result.hosts.end(), [](const MergedHost& h) { return h.lost; });
    result.status = RunStatus::finished;
    for (const MergeSource& s : src)
        if (s.status != RunStatus::finished && s.status != RunStatus::degraded) result.status = s.status;
    if (any_lost) result.status = RunStatus::degraded;
    if (result.status == RunStatus::finished || result.status == RunStatus::degraded) 
        result.max_density = on_largest ? on_largest : w.pool_max_density();
    std::optional<int64_t> ended;
    for (const MergeSource& s : src)
        if (s.run.ended_unix_ns) ended = std::max(ended.value_or(0), *s.run.ended_unix_ns);
    w.write_run(r.run, result.status, ended, result.max_density);
    say("building indexes and writing " + out);
    w.commit();
    return result;
}

}  // namespace seatmark::store
