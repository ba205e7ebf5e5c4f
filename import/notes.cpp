// The importers' notes: one rule for splitting and de-duplicating them, and one wording for a
// texture that is not drawn (import/model.h).
#include <algorithm>
#include <cstdio>

#include "import/model.h"

namespace seatmark::import {

void add_note(std::vector<std::string>& notes, std::string_view text) {
    while (!text.empty()) {
        const size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
        if (line.empty() || std::find(notes.begin(), notes.end(), line) != notes.end()) continue;
        notes.emplace_back(line);
    }
}

std::string texture_note(std::string_view material, std::string_view texture, std::string_view factor, double r, double g,
                         double b, double a) {
    char rgba[96];
    std::snprintf(rgba, sizeof rgba, "(%.2f, %.2f, %.2f, %.2f)", r, g, b, a);
    return "WARNING: material '" + std::string(material) + "' has a " + std::string(texture) +
           ", which is not drawn: textures are reduced to " + std::string(factor) + " " + rgba + ", one colour per part";
}

}  // namespace seatmark::import
