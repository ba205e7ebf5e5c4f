// StoreReader's endpoint tables (store/endpoint_rows.h). They were added to schema 3 after
// the first version-3 files were written, so their absence reads as "nothing launched".
#include "store/store_reader.h"

namespace seatmark::store {

namespace {
double real_or_nan(const Stmt& s, int c) { return s.col_null(c) ? NAN : s.col_real(c); }
}  // namespace

bool StoreReader::has_endpoint_tables() const {
    Stmt s(db_, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN "
                "('endpoint_logons', 'endpoint_arrivals', 'endpoint_ssim')");
    return s.step() && s.col_int(0) == 3;
}

std::vector<EndpointLogonRow> StoreReader::endpoint_logons() const {
    std::vector<EndpointLogonRow> out;
    if (!has_endpoint_tables()) return out;
    Stmt s(db_,
           "SELECT id, launcher, rdp_host, host, user, session_id, connect_ns, logon_ms, ended_ns, fault, fault_detail,"
           " codec, payload_bytes, bytes_per_s, paints, unreadable, rendered, arrivals, fps, delivered_ratio,"
           " interval_p50_ms, interval_p95_ms, interval_p99_ms, latency_p50_ms, latency_p95_ms, ssim_samples, ssim_mean,"
           " ssim_min FROM endpoint_logons ORDER BY id");
    while (s.step()) {
        EndpointLogonRow r;
        r.id = static_cast<int>(s.col_int(0));
        r.launcher = s.col_text(1);
        r.rdp_host = s.col_text(2);
        r.host = s.col_text(3);
        r.user = s.col_text(4);
        if (!s.col_null(5)) r.session_id = static_cast<int>(s.col_int(5));
        r.connect_ns = s.col_int(6);
        if (!s.col_null(7)) r.logon_ms = s.col_real(7);
        r.ended_ns = s.col_opt_int(8);
        r.fault = s.col_text(9);
        r.fault_detail = s.col_text(10);
        r.codec = s.col_text(11);
        r.payload_bytes = static_cast<uint64_t>(s.col_int(12));
        r.bytes_per_s = real_or_nan(s, 13);
        r.paints = static_cast<uint64_t>(s.col_int(14));
        r.unreadable = static_cast<uint64_t>(s.col_int(15));
        auto& f = r.figures;
        f.rendered = static_cast<uint64_t>(s.col_int(16));
        f.arrivals = static_cast<uint64_t>(s.col_int(17));
        f.fps = real_or_nan(s, 18);
        f.delivered_ratio = real_or_nan(s, 19);
        f.interval_p50_ms = real_or_nan(s, 20);
        f.interval_p95_ms = real_or_nan(s, 21);
        f.interval_p99_ms = real_or_nan(s, 22);
        f.latency_p50_ms = real_or_nan(s, 23);
        f.latency_p95_ms = real_or_nan(s, 24);
        f.ssim_samples = static_cast<uint64_t>(s.col_int(25));
        f.ssim_mean = real_or_nan(s, 26);
        f.ssim_min = real_or_nan(s, 27);
        out.push_back(std::move(r));
    }
    return out;
}

std::map<int, core::EndpointSeries> StoreReader::endpoint_series() const {
    std::map<int, core::EndpointSeries> out;
    if (!has_endpoint_tables()) return out;
    // A launched session has a series even before its first arrival: "no frames arrived" is a finding.
    Stmt l(db_, "SELECT DISTINCT session_id FROM endpoint_logons WHERE session_id IS NOT NULL");
    while (l.step()) out[static_cast<int>(l.col_int(0))];
    Stmt a(db_, "SELECT session_id, seq, arrival_ns FROM endpoint_arrivals ORDER BY session_id, seq");
    while (a.step())
        out[static_cast<int>(a.col_int(0))].arrivals.push_back({static_cast<uint64_t>(a.col_int(1)), a.col_int(2)});
    Stmt s(db_, "SELECT session_id, seq, ssim FROM endpoint_ssim ORDER BY session_id, seq, rowid");
    while (s.step()) out[static_cast<int>(s.col_int(0))].ssim.push_back({static_cast<uint64_t>(s.col_int(1)), s.col_real(2)});
    return out;
}

}  // namespace seatmark::store
