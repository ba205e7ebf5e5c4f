#include "report/endpoint_view.h"
#include "report/write_report.h"

#include <filesystem>
#include <stdexcept>

#include "common/output_file.h"
#include "report/data_export.h"
#include "report/html.h"
#include "report/markdown.h"

namespace seatmark::report {

std::string default_report_dir(const std::string& db_path) {
    std::filesystem::path p(db_path);
    std::string stem = p.extension() == ".db" ? p.stem().string() : p.filename().string();
    return (p.parent_path() / (stem + "-report")).string();
}

std::vector<std::string> write_report(const RunAnalysis& a, const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw std::runtime_error(dir + ": cannot create the report folder: " + ec.message());
    auto path = [&](const char* name) { return (std::filesystem::path(dir) / name).string(); };
    std::vector<std::string> out = {path("index.html"), path("summary.md"), path("steps.csv"), path("sessions.csv"),
                                    path("report.json")};
    write_output_file(out[0], render_html(a));
    write_output_file(out[1], render_markdown(a));
    write_output_file(out[2], steps_csv(a));
    write_output_file(out[3], sessions_csv(a));
    write_output_file(out[4], report_json(a).dump(2) + "\n");
    if (!a.endpoint_logons.empty()) {  // launched runs only: what the RDP clients saw
        out.push_back(path("endpoint.csv"));
        write_output_file(out.back(), endpoint_csv(a));
    }
    return out;
}

}  // namespace seatmark::report
