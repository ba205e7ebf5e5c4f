#pragma once
// What the remote user saw (`seatmark launch` joined to the run), beside the host's figures:
// one row per RDP logon (logon time, codec, bytes/s, endpoint FPS beside rendered FPS,
// delivered ratio, latency, SSIM, fault) and the endpoint figures of each step. Every figure
// is core/endpoint.h's; the per-step ones come from the same judged spans as the verdict.
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

#include "report/analysis.h"

namespace seatmark::report {

// Per logon: the rendered (host) FPS and the endpoint FPS over the same span, the last step
// the logon's session was judged in; NaN when it was never judged.
struct EndpointBeside {
    double host_fps = NAN, endpoint_fps = NAN;
    uint32_t step = 0;  // 1-based; 0: none
};
EndpointBeside endpoint_beside(const RunAnalysis& a, const store::EndpointLogonRow& l);

std::string endpoint_html(const RunAnalysis& a);      // "" when nothing was launched
std::string endpoint_markdown(const RunAnalysis& a);  // ""  when nothing was launched
nlohmann::json endpoint_json(const RunAnalysis& a);   // {"logons": [...], "steps": [...]}
std::string endpoint_csv(const RunAnalysis& a);       // endpoint.csv: one row per logon

}  // namespace seatmark::report
