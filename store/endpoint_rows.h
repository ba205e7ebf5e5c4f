#pragma once
// Endpoint rows (`seatmark launch` joined to a run): one per RDP logon a launcher opened, and
// the arrivals and SSIM samples it reported for the session the logon carries. Tables
// endpoint_logons, endpoint_arrivals, endpoint_ssim (docs/store.md); files written before they
// existed (version 2, early version 3) read as having no logons.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/endpoint.h"

namespace seatmark::store {

struct EndpointLogonRow {
    int id = 0;                    // logon number within the run
    std::string launcher;          // the launcher's name (its host, '#N' when several share one)
    std::string rdp_host;          // HOST:PORT it connected to
    std::string host, user;        // the joined session's host and the test user
    std::optional<int> session_id; // the session it carries; nullopt: none joined (a failed logon)
    int64_t connect_ns = 0;        // connect asked (this file's time base)
    std::optional<double> logon_ms;  // connect -> the session's HELLO
    std::optional<int64_t> ended_ns;
    std::string fault = "none";    // none | refused | tls | logon | protocol | cut | logged-off | timeout | launcher-lost
    std::string fault_detail;
    std::string codec = "none";    // the codec that carried most bytes
    uint64_t payload_bytes = 0;
    double bytes_per_s = NAN;
    uint64_t paints = 0, unreadable = 0;
    core::EndpointFigures figures;  // over the session's whole life, when it ended (core/endpoint.h)
};

struct EndpointBatch {
    int session_id = 0;
    std::vector<core::EndpointArrival> arrivals;
    std::vector<core::SsimSample> ssim;
};

}  // namespace seatmark::store
