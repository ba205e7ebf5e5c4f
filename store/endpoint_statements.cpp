#include "store/endpoint_statements.h"

namespace seatmark::store {

EndpointStatements::EndpointStatements(const Db& db)
    : logon_(db,
             "INSERT OR REPLACE INTO endpoint_logons(id, launcher, rdp_host, host, user, session_id, connect_ns, logon_ms,"
             " ended_ns, fault, fault_detail, codec, payload_bytes, bytes_per_s, paints, unreadable, rendered, arrivals,"
             " fps, delivered_ratio, interval_p50_ms, interval_p95_ms, interval_p99_ms, latency_p50_ms, latency_p95_ms,"
             " ssim_samples, ssim_mean, ssim_min)"
             " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21,"
             " ?22, ?23, ?24, ?25, ?26, ?27, ?28)",
             "storing an endpoint logon"),
      arrival_(db, "INSERT OR IGNORE INTO endpoint_arrivals(session_id, seq, arrival_ns) VALUES(?1, ?2, ?3)",
               "storing endpoint arrivals"),
      ssim_(db, "INSERT INTO endpoint_ssim(session_id, seq, ssim) VALUES(?1, ?2, ?3)", "storing SSIM samples") {}

void EndpointStatements::logon(const EndpointLogonRow& r) {
    const auto& f = r.figures;
    logon_.bind_int(1, r.id).bind_text(2, r.launcher).bind_text(3, r.rdp_host).bind_text(4, r.host).bind_text(5, r.user);
    logon_.bind_opt_int(6, r.session_id ? std::optional<int64_t>(*r.session_id) : std::nullopt).bind_int(7, r.connect_ns);
    if (r.logon_ms) logon_.bind_real(8, *r.logon_ms);
    else logon_.bind_null(8);
    logon_.bind_opt_int(9, r.ended_ns).bind_text(10, r.fault).bind_text(11, r.fault_detail).bind_text(12, r.codec);
    logon_.bind_int(13, static_cast<int64_t>(r.payload_bytes)).bind_real(14, r.bytes_per_s);
    logon_.bind_int(15, static_cast<int64_t>(r.paints)).bind_int(16, static_cast<int64_t>(r.unreadable));
    logon_.bind_int(17, static_cast<int64_t>(f.rendered)).bind_int(18, static_cast<int64_t>(f.arrivals));
    // NaN binds as NULL (nothing measured).
    logon_.bind_real(19, f.fps).bind_real(20, f.delivered_ratio).bind_real(21, f.interval_p50_ms);
    logon_.bind_real(22, f.interval_p95_ms).bind_real(23, f.interval_p99_ms).bind_real(24, f.latency_p50_ms);
    logon_.bind_real(25, f.latency_p95_ms).bind_int(26, static_cast<int64_t>(f.ssim_samples)).bind_real(27, f.ssim_mean);
    logon_.bind_real(28, f.ssim_min).run();
}

void EndpointStatements::batch(const EndpointBatch& b) {
    for (const auto& a : b.arrivals)
        arrival_.bind_int(1, b.session_id).bind_int(2, static_cast<int64_t>(a.seq)).bind_int(3, a.arrival_ns).run();
    for (const auto& s : b.ssim) ssim_.bind_int(1, b.session_id).bind_int(2, static_cast<int64_t>(s.seq)).bind_real(3, s.ssim).run();
}

}  // namespace seatmark::store
