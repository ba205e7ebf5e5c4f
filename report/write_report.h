#pragma once
// Writes every report file into one folder: index.html, summary.md, steps.csv, sessions.csv,
// report.json. Throws std::runtime_error naming a file that cannot be written.
#include <string>
#include <vector>

#include "report/analysis.h"

namespace seatmark::report {

// The default output folder for a database: "runs/x.db" -> "runs/x-report".
std::string default_report_dir(const std::string& db_path);

// Returns the paths written, index.html first.
std::vector<std::string> write_report(const RunAnalysis& a, const std::string& dir);

}  // namespace seatmark::report
