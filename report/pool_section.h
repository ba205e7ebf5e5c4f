#pragma once
// The report's pool section (a run with more than one host): the sentences every renderer
// shares, and the HTML and Markdown of the section. report.json's "pool" is pool_json.h.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "report/analysis.h"

namespace seatmark::report {

// One sentence each ("" when it does not apply).
std::string first_failure_text(const RunAnalysis& a);  // "h1 failed first: step 2 (2 of 4 sessions): ..."
std::string fairness_text(const RunAnalysis& a);       // "Jain 0.998 over the hosts' median FPS at step 3 (6 sessions)"
std::string skew_text(const RunAnalysis& a);           // "windows opened within 0.02 ms on every host ..."
std::string scaling_text(const RunAnalysis& a);        // "E(2) = 0.95: 19 passing sessions on 2 hosts ..."
std::vector<std::string> lost_texts(const RunAnalysis& a);  // "h1 was lost in step 2: ..."
std::string offset_text(const store::HostRow& h);      // "+45.4 us +- 173.2 us" or "reference clock"
std::string ns_text(int64_t ns);                       // "173.2 us", "10.7 ms"

std::string pool_html(const RunAnalysis& a);      // "" for a single host
// `text` makes run text (host names, reasons) literal Markdown (markdown.cpp's rule).
std::string pool_markdown(const RunAnalysis& a, const std::function<std::string(std::string_view)>& text);  // "" for one host

}  // namespace seatmark::report
