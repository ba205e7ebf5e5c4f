#include "stage/stage_run.h"

#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include "common/errors.h"
#include "common/exit_codes.h"
#include "common/output_file.h"
#include "stage/dest_file.h"
#include "stage/file_check.h"
#include "stage/mpi_env.h"
#include "stage/source_list.h"
#include "stage/transfer.h"

namespace seatmark::stage {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Progress {
    uint64_t total = 0, before = 0;  // bytes of all files to send; bytes of finished files
    Clock::time_point start = Clock::now(), last = Clock::now();
    bool enabled = false;
    void update(uint64_t in_file) {
        if (!enabled || since(last) < 1.0) return;
        last = Clock::now();
        double done = static_cast<double>(before + in_file), el = since(start);
        double rate = el > 0 ? done / el : 0;
        double eta = rate > 0 ? (static_cast<double>(total) - done) / rate : 0;
        std::fprintf(stderr, "stage: %.1f / %.1f MiB, %.0f MB/s, ETA %.0f s\n", done / 1048576.0,
                     static_cast<double>(total) / 1048576.0, rate / 1e6, eta);
    }
};

}  // namespace

int run_stage(const StageOptions& opt) {
    if (opt.sources.empty() && opt.manifests.empty()) throw InputError("stage: give at least one --source or --manifest");
    TransferOptions topt;
    topt.chunk = parse_bytes(opt.chunk);
    if (topt.chunk < 4096 || topt.chunk > (1u << 30) || topt.chunk % 4096)
        throw InputError("--chunk must be a multiple of 4K between 4K and 1G (got " + opt.chunk + ")");
    topt.direct = !opt.buffered;
    topt.buffers = opt.buffers;
    topt.post_verify = opt.post_verify;
    const bool checksum = opt.verify == "checksum";
    const auto t0 = Clock::now();

    MpiEnv mpi(nullptr, nullptr);

    // 1. List on the reading rank; everyone learns the list or the same input error.
    if (opt.dest.empty()) throw InputError("--dest is empty; give the destination folder, e.g. --dest /scratch/seatmark");
    std::string listing;
    if (mpi.rank == 0) {
        try {
            if (!opt.json_path.empty()) {
                std::vector<std::string> inputs = opt.sources;
                inputs.insert(inputs.end(), opt.manifests.begin(), opt.manifests.end());
                check_output_path(opt.json_path, "--json", inputs);
            }
            std::vector<std::string> skipped;
            listing = "L" + to_json(list_sources(opt.sources, opt.manifests, &skipped));
            if (!skipped.empty()) {
                std::fprintf(stderr, "seatmark stage: left out %zu entr%s that %s not regular files:\n", skipped.size(),
                             skipped.size() == 1 ? "y" : "ies", skipped.size() == 1 ? "is" : "are");
                for (size_t i = 0; i < skipped.size() && i < 10; ++i) std::fprintf(stderr, "  %s\n", skipped[i].c_str());
                if (skipped.size() > 10) std::fprintf(stderr, "  ... and %zu more\n", skipped.size() - 10);
            }
        } catch (const InputError& e) {
            listing = std::string("E") + e.what();
        }
    }
    listing = mpi.bcast_string(listing);
    if (listing[0] == 'E') throw InputError(listing.substr(1));
    const auto files = from_json(listing.substr(1));
    const size_t nf = files.size();
    const std::string root_host = mpi.bcast_string(mpi.host);

    // 2. Who writes where.
    const bool per_rank = opt.dest.find("{rank}") != std::string::npos;
    const bool writer = per_rank || mpi.local_rank == 0;
    const std::string dest_dir = expand_dest(opt.dest, mpi.host, mpi.rank);
    auto dest_of = [&](const SourceFile& f) { return (std::filesystem::path(dest_dir) / f.rel).string(); };

    // 3. Pre-check, in parallel on every writer (the root hashes its sources meanwhile).
    auto tp = Clock::now();
    std::string error;
    std::vector<unsigned char> need(nf, 0);
    std::vector<unsigned long long> src_hash(nf, 0), dst_hash(nf, 0);
    std::vector<unsigned char> size_ok(nf, 0);
    // The root hashes its sources on a second thread while it checks its own destination.
    std::string src_hash_error;
    std::thread src_hasher;
    if (checksum && mpi.rank == 0)
        src_hasher = std::thread([&] {
            try {
                for (size_t i = 0; i < nf; ++i) src_hash[i] = file_xxh3(files[i].path);
            } catch (const std::exception& e) {
                src_hash_error = e.what();
            }
        });
    if (writer) {
        try {
            for (size_t i = 0; i < nf; ++i) {
                auto d = dest_state(dest_of(files[i]), files[i].size, files[i].dev, files[i].ino, mpi.host == root_host);
                if (d.is_source) continue;  // the destination is the source itself: left alone
                size_ok[i] = d.same_size;
                need[i] = !d.same_size;
                if (checksum && d.same_size) dst_hash[i] = file_xxh3(dest_of(files[i]));
            }
        } catch (const std::exception& e) {
            error = e.what();
        }
    }
    if (src_hasher.joinable()) src_hasher.join();
    // Reported below; the transfer then fails on the reading rank too.
    if (error.empty() && !src_hash_error.empty()) error = src_hash_error;
    if (checksum) {
        if (nf) MPI_Bcast(src_hash.data(), static_cast<int>(nf), MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
        for (size_t i = 0; i < nf; ++i)
            if (writer && size_ok[i] && dst_hash[i] != src_hash[i]) need[i] = 1;
    }
    // Directories and free space, only where something is missing; first the temporary files a
    // killed run left behind (they hold space and are never under a final name).
    int stale = 0;
    if (writer && error.empty()) {
        try {
            std::set<std::string> dirs;
            for (auto& f : files) dirs.insert(std::filesystem::path(dest_of(f)).parent_path().string());
            for (auto& d : dirs) stale += remove_stale_temps(d);
            uint64_t bytes = 0;
            for (size_t i = 0; i < nf; ++i) {
                if (!need[i]) continue;
                bytes += files[i].size;
                std::error_code ec;
                auto parent = std::filesystem::path(dest_of(files[i])).parent_path();
                std::filesystem::create_directories(parent, ec);
                if (ec) throw std::runtime_error("cannot create directory " + parent.string() + ": " + ec.message());
            }
            if (bytes) {
                uint64_t avail = free_bytes(dest_dir);
                if (avail < bytes)
                    throw std::runtime_error("not enough space in " + dest_dir + ": need " + std::to_string(bytes) +
                                             " bytes, " + std::to_string(avail) + " available");
            }
        } catch (const std::exception& e) {
            error = e.what();
        }
    }
    if (!error.empty()) std::fill(need.begin(), need.end(), 0);
    std::vector<unsigned char> all_need(nf * static_cast<size_t>(mpi.size));
    if (nf) MPI_Allgather(need.data(), static_cast<int>(nf), MPI_UNSIGNED_CHAR, all_need.data(), static_cast<int>(nf), MPI_UNSIGNED_CHAR, MPI_COMM_WORLD);
    const double precheck_s = since(tp);

    // 4. Transfer what any host lacks, only to those hosts.
    Progress progress;
    progress.enabled = mpi.rank == 0 && !opt.quiet;
    uint64_t sent_bytes = 0, sent_files = 0, copies = 0;  // copies: needed by some writer
    unsigned long long written = 0;                        // by this rank, committed under the final name
    std::vector<unsigned char> any_need(nf, 0);
    for (size_t i = 0; i < nf; ++i) {
        for (int r = 0; r < mpi.size; ++r) {
            if (all_need[static_cast<size_t>(r) * nf + i]) {
                any_need[i] = 1;
                ++copies;
            }
        }
        if (any_need[i]) progress.total += files[i].size;
    }
    if (progress.enabled) {
        size_t missing = 0;
        for (auto n : any_need) missing += n;
        std::fprintf(stderr, "stage: pre-check (%s) %.2f s: %zu of %zu files missing somewhere, %llu copies to write, %.1f MiB to send\n",
                     opt.verify.c_str(), precheck_s, missing, nf, static_cast<unsigned long long>(copies),
                     static_cast<double>(progress.total) / 1048576.0);
    }
    auto tt = Clock::now();
    progress.start = tt;
    double fsync_s = 0, verify_s = 0;
    // XXH3 of each source where this run computed it (checksum pre-check, or read whole while sent),
    // listed in the JSON summary: it is what run.assets takes to have `seatmark run` check a copy.
    std::vector<std::optional<uint64_t>> known_hash(nf);
    if (checksum && mpi.rank == 0 && src_hash_error.empty())
        for (size_t i = 0; i < nf; ++i) known_hash[i] = src_hash[i];
    for (size_t i = 0; i < nf; ++i) {
        if (!any_need[i]) continue;
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, (mpi.rank == 0 || need[i]) ? 0 : MPI_UNDEFINED, mpi.rank, &comm);
        if (comm != MPI_COMM_NULL) {
            auto r = transfer_file(comm, files[i], need[i] ? dest_of(files[i]) : std::string(), topt,
                                   [&](uint64_t b) { progress.update(b); });
            MPI_Comm_free(&comm);
            if (r.source_xxh3) known_hash[i] = *r.source_xxh3;
            fsync_s += r.fsync_s;
            verify_s += r.verify_s;
            if (!r.ok && error.empty()) error = files[i].rel + ": " + r.error;
            if (r.ok && need[i]) ++written;
        }
        progress.before += files[i].size;
        sent_bytes += files[i].size;
        ++sent_files;
    }
    const double transfer_s = since(tt);

    // 5. Report: every failure, with its host, and the same exit status everywhere.
    const std::string mine = error.empty() ? "" : "host " + mpi.host + " rank " + std::to_string(mpi.rank) + ": " + error;
    auto failures = mpi.gather_strings(mine);
    const bool failed = mpi.any(!error.empty());
    const double t_pre = mpi.max(precheck_s), t_xfer = mpi.max(transfer_s), t_fsync = mpi.max(fsync_s),
                 t_verify = mpi.max(verify_s), t_total = mpi.max(since(t0));
    // Totals over all ranks in one reduction: hosts (local rank 0s), writers, copies written, stale
    // temporary files removed.
    unsigned long long mine_counts[4] = {mpi.local_rank == 0 ? 1ull : 0ull, writer ? 1ull : 0ull, written,
                                         static_cast<unsigned long long>(stale)},
                       totals[4] = {};
    MPI_Allreduce(mine_counts, totals, 4, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    const int hosts = static_cast<int>(totals[0]), writers = static_cast<int>(totals[1]);
    const unsigned long long written_all = totals[2], stale_all = totals[3];

    std::string json_error;
    if (mpi.rank == 0) {
        uint64_t total_bytes = 0;
        for (auto& f : files) total_bytes += f.size;
        double mbps = t_xfer > 0 ? static_cast<double>(sent_bytes) / t_xfer / 1e6 : 0;
        nlohmann::json j = {{"ok", !failed},         {"ranks", mpi.size},       {"hosts", hosts},
                            {"writers", writers},    {"files", nf},             {"bytes", total_bytes},
                            {"verify", opt.verify},  {"post_verify", opt.post_verify},
                            {"transferred_files", sent_files}, {"transferred_bytes", sent_bytes},
                            {"copies_needed", copies}, {"copies_written", written_all}, {"mb_per_s", mbps},
                            {"stale_temps_removed", stale_all},
                            {"timings_s", {{"precheck", t_pre}, {"transfer", t_xfer}, {"fsync", t_fsync},
                                           {"post_verify", t_verify}, {"total", t_total}}},
                            {"failures", nlohmann::json::array()}};
        for (auto& s : failures)
            if (!s.empty()) j["failures"].push_back(s);
        j["files"] = nlohmann::json::array();
        for (size_t i = 0; i < nf; ++i) {
            nlohmann::json fj = {{"path", files[i].rel}, {"size", files[i].size}};
            if (known_hash[i]) fj["xxh3"] = xxh3_hex(*known_hash[i]);
            j["files"].push_back(fj);
        }
        if (!opt.quiet) {
            std::printf("%s %zu files (%.1f MiB) to %d writers on %d hosts: %llu files (%.1f MiB) sent, %llu of %llu copies written\n",
                        failed ? "FAILED staging" : "staged",
                        nf, static_cast<double>(total_bytes) / 1048576.0, writers, hosts,
                        static_cast<unsigned long long>(sent_files), static_cast<double>(sent_bytes) / 1048576.0,
                        written_all, static_cast<unsigned long long>(copies));
            if (stale_all)
                std::printf("removed %llu temporary file(s) left by an earlier, interrupted stage\n", stale_all);
            std::printf("%-12s %10s\n", "phase", "seconds");
            std::printf("%-12s %10.3f\n%-12s %10.3f  (%.0f MB/s)\n%-12s %10.3f\n%-12s %10.3f\n%-12s %10.3f\n", "pre-check", t_pre,
                        "transfer", t_xfer, mbps, "fsync", t_fsync, "post-verify", t_verify, "total", t_total);
            std::fflush(stdout);
        }
        if (!opt.json_path.empty()) {
            try {
                write_output_file(opt.json_path, j.dump(2) + "\n", "--json");
            } catch (const ExitError& e) {
                json_error = e.what();  // after the staging outcome, which matters more
            }
        }
        for (auto& s : failures)
            if (!s.empty()) std::fprintf(stderr, "seatmark stage: failed on %s\n", s.c_str());
        if (failed && !json_error.empty()) std::fprintf(stderr, "seatmark stage: %s\n", json_error.c_str());
    }
    if (failed) {
        int n = 0;
        for (auto& s : failures) n += !s.empty();
        throw ExitError(exit_code::failure, mpi.rank == 0 ? "staging failed on " + std::to_string(n) + " rank(s); hosts that succeeded keep their copies"
                                            : !mine.empty() ? "staging failed on " + mine
                                                            : "staging failed on another rank (see rank 0)");
    }
    if (!json_error.empty()) throw ExitError(exit_code::output_error, json_error);
    return exit_code::ok;
}

}  // namespace seatmark::stage
