#pragma once
// Helpers for the pack tests: what a source file declares (counted independently of the
// importers), `seatmark pack --json`, and what a session's screenshot shows.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "image/png.h"
#include "tests/support/process.h"

namespace seatmark::test {

inline const std::string models = "/usr/share/assimp/models/";

struct Declared {
    uint64_t triangles = 0, parts = 0;
};

// glTF: every node the default scene reaches, every triangle primitive of its mesh.
inline Declared gltf_declared(const std::string& path) {
    std::string text = read_file(path);
    if (path.ends_with(".glb")) {
        uint32_t len;
        std::memcpy(&len, text.data() + 12, 4);
        text = text.substr(20, len);
    }
    auto j = nlohmann::json::parse(text);
    Declared d;
    std::function<void(int)> visit = [&](int n) {
        const auto& node = j["nodes"][size_t(n)];
        if (node.contains("mesh"))
            for (const auto& p : j["meshes"][node["mesh"].get<size_t>()]["primitives"]) {
                if (p.value("mode", 4) != 4) continue;
                const auto acc = p.contains("indices") ? p["indices"].get<size_t>() : p["attributes"]["POSITION"].get<size_t>();
                d.triangles += j["accessors"][acc]["count"].get<uint64_t>() / 3;
                ++d.parts;
            }
        if (node.contains("children"))
            for (const auto& c : node["children"]) visit(c.get<int>());
    };
    const size_t scene = j.value("scene", 0);
    for (const auto& n : j["scenes"][scene]["nodes"]) visit(n.get<int>());
    return d;
}

// OBJ: a face of n corners is n - 2 triangles.
inline uint64_t obj_triangles(const std::string& path) {
    std::istringstream in(read_file(path));
    std::string line;
    uint64_t t = 0;
    while (std::getline(in, line)) {
        if (line.rfind("f ", 0) != 0) continue;
        std::istringstream ls(line.substr(2));
        std::string c;
        int n = 0;
        while (ls >> c) ++n;
        if (n >= 3) t += uint64_t(n - 2);
    }
    return t;
}

inline uint64_t stl_binary_triangles(const std::string& path) {
    const std::string b = read_file(path);
    uint32_t n;
    std::memcpy(&n, b.data() + 80, 4);
    return n;
}

inline uint64_t count_lines_starting(const std::string& path, const std::string& word) {
    std::istringstream in(read_file(path));
    std::string line;
    uint64_t n = 0;
    while (std::getline(in, line)) {
        line.erase(0, line.find_first_not_of(" \t"));
        n += line.rfind(word, 0) == 0;
    }
    return n;
}

inline nlohmann::json pack_json(const std::vector<std::string>& args, ProcessResult* out = nullptr) {
    std::vector<std::string> a = {"pack"};
    a.insert(a.end(), args.begin(), args.end());
    a.insert(a.end(), {"--json", "-", "--quiet"});
    auto r = run_process(seatmark_argv(a), 300);
    if (out) *out = r;
    if (r.exit_code != 0) return nullptr;
    return nlohmann::json::parse(r.out);
}

// Share of pixels that are not background, and the share of those in each colour class
// (neutral, or the order of the three channels: blue b>g>r is 0, orange r>g>b is 7).
struct Shot {
    double object_share = 0;
    std::map<int, double> classes;
};
inline Shot look_at(const std::string& png) {
    auto img = image::read_png(png);
    Shot s;
    size_t object = 0;
    std::map<int, size_t> n;
    for (uint32_t y = 0; y < img.height; ++y) {
        const uint8_t* row = img.rgba.data() + size_t(y) * img.width * 4;
        for (uint32_t x = 0; x < img.width; ++x) {
            const uint8_t* p = row + x * 4;  // the background gradient is uniform across a row
            if (std::abs(p[0] - row[0]) + std::abs(p[1] - row[1]) + std::abs(p[2] - row[2]) <= 24) continue;
            ++object;
            const int mx = std::max({p[0], p[1], p[2]}), mn = std::min({p[0], p[1], p[2]});
            ++n[mx - mn <= 40 ? 8 : (p[0] > p[1]) * 4 + (p[1] > p[2]) * 2 + (p[0] > p[2])];
        }
    }
    s.object_share = double(object) / (double(img.width) * img.height);
    for (auto& [c, k] : n) s.classes[c] = object ? double(k) / double(object) : 0;
    return s;
}

}  // namespace seatmark::test
