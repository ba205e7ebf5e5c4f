// `seatmark pack` on models nobody here wrote (Debian's assimp-testmodels): counts match what
// the files declare, sessions draw them with the validation layer on, bad files get clear errors.
#include <doctest/doctest.h>

#include <sstream>

#include "model_checks.h"

using namespace seatmark::test;

namespace {

std::string all_output(const ProcessResult& r) { return "stdout:\n" + r.out + "\nstderr:\n" + r.err; }

// Packs, renders with validation, and returns what the screenshot shows.
Shot pack_and_render(const std::string& model, const TempDir& dir, const nlohmann::json& summary_check = nullptr) {
    (void)summary_check;
    auto r = run_process(seatmark_argv({"session", "--model", model, "--validate", "--duration", "1s", "--width", "320",
                                        "--height", "240", "--screenshot", dir.file("shot.png")}),
                         180);
    INFO(all_output(r));
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("validation 0 messages") != std::string::npos);
    CHECK(r.out.find("model open") != std::string::npos);
    return look_at(dir.file("shot.png"));
}

}  // namespace

TEST_CASE("glTF .glb, .gltf with external and with embedded buffers: counts match the file, the session draws them") {
    const std::vector<std::string> files = {models + "glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb",
                                            models + "glTF2/BoxTextured-glTF/BoxTextured.gltf",
                                            models + "glTF2/BoxTextured-glTF-Embedded/BoxTextured.gltf"};
    for (const auto& f : files) {
        TempDir dir;
        CAPTURE(f);
        ProcessResult r;
        auto j = pack_json({f, "--out", dir.file("m.smpack")}, &r);
        INFO(all_output(r));
        REQUIRE(j.is_object());
        const Declared d = gltf_declared(f);
        CHECK(j["triangles"].get<uint64_t>() == d.triangles);
        CHECK(j["parts"].get<uint64_t>() == d.parts);
        Shot s = pack_and_render(dir.file("m.smpack"), dir);
        CHECK(s.object_share > 0.05);
        CHECK(s.object_share < 0.95);
        // BoxTextured's material has a base-colour image: said, not silently dropped.
        const std::string notes = j["notes"].dump();
        const bool textured = f.find("BoxTextured") != std::string::npos;
        CHECK((notes.find("textures are reduced to baseColorFactor") != std::string::npos) == textured);
    }
}

TEST_CASE("the engine keeps its instancing (115 parts share 34 meshes) and its colours (blue and grey are drawn)") {
    TempDir dir;
    auto j = pack_json({models + "glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb", "--out", dir.file("e.smpack")});
    REQUIRE(j.is_object());
    CHECK(j["parts"] == 115);
    CHECK(j["unique_meshes"] == 34);
    CHECK(j["unique_triangles"].get<uint64_t>() < j["triangles"].get<uint64_t>());
    Shot s = pack_and_render(dir.file("e.smpack"), dir);
    CHECK(s.object_share > 0.15);
    CHECK(s.classes[8] > 0.2);  // the grey block and cylinders
    CHECK(s.classes[0] + s.classes[2] > 0.05);  // the blue heads (b > g > r, or g > b > r)
}

TEST_CASE("OBJ with MTL and STL binary and ASCII: triangle and part counts match the files") {
    TempDir dir;
    {
        const std::string f = models + "OBJ/spider.obj";
        auto j = pack_json({f, "--out", dir.file("o.smpack")});
        REQUIRE(j.is_object());
        CHECK(j["triangles"].get<uint64_t>() == obj_triangles(f));
        CHECK(j["parts"].get<uint64_t>() >= 2);
        Shot s = pack_and_render(dir.file("o.smpack"), dir);
        CHECK(s.object_share > 0.05);
    }
    {
        const std::string f = models + "STL/Spider_binary.stl";
        auto j = pack_json({f, "--out", dir.file("b.smpack")});
        REQUIRE(j.is_object());
        CHECK(j["triangles"].get<uint64_t>() == stl_binary_triangles(f));
        CHECK(j["parts"] == 1);
        CHECK(pack_and_render(dir.file("b.smpack"), dir).object_share > 0.05);
    }
    for (const std::string name : {"STL/Spider_ascii.stl", "STL/triangle_with_two_solids.stl"}) {
        const std::string f = models + name;
        auto j = pack_json({f, "--out", dir.file("a.smpack")});
        REQUIRE(j.is_object());
        CHECK(j["triangles"].get<uint64_t>() == count_lines_starting(f, "facet"));
        CHECK(j["parts"].get<uint64_t>() == count_lines_starting(f, "solid"));
    }
}

TEST_CASE("bad models get one clear error naming the file and the fault, exit 2") {
    TempDir dir;
    write_file(dir.file("quantized.gltf"),
                     R"({"asset":{"version":"2.0"},"extensionsUsed":["KHR_mesh_quantization"],"extensionsRequired":["KHR_mesh_quantization"]})");
    write_file(dir.file("meshopt.gltf"), R"({"asset":{"version":"2.0"},"extensionsUsed":["EXT_meshopt_compression"]})");
    write_file(dir.file("both.gltf"), R"({"asset":{"version":"2.0"},"extensionsUsed":["KHR_mesh_quantization","EXT_meshopt_compression"],)"
                                      R"("extensionsRequired":["KHR_mesh_quantization","EXT_meshopt_compression","EXT_made_up","EXT_also_made_up"]})");
    write_file(dir.file("utf16le.obj"), std::string("v\0 \0\x30\0 \0\x30\0 \0\x30\0\n\0", 16));  // no byte-order mark
    std::string stl(84, '\0');
    const uint32_t huge = 4'000'000'000u;  // 200 GB of facets claimed by an 84-byte file
    std::memcpy(stl.data() + 80, &huge, 4);
    write_file(dir.file("huge.stl"), stl);
    write_file(dir.file("cut.stl"), "solid a\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1 0 0\n");
    write_file(dir.file("bad.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n");
    write_file(dir.file("model.xyz"), "x");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {models + "glTF2/MissingBin/BoxTextured.gltf", "BoxTextured0.bin"},
        {models + "glTF2/IndexOutOfRange/IndexOutOfRange.gltf", "out of range"},
        {models + "glTF2/BoxWithInfinites-glTF-Binary/BoxWithInfinites.glb", "NaN or infinite"},
        {models + "glTF2/draco/2CylinderEngine.gltf", "KHR_draco_mesh_compression, which is not supported"},
        {dir.file("quantized.gltf"), "KHR_mesh_quantization, which is not supported"},
        {dir.file("meshopt.gltf"), "EXT_meshopt_compression, which is not supported"},
        // Every extension that stops the file, named at once.
        {dir.file("both.gltf"), "uses KHR_mesh_quantization and EXT_meshopt_compression, which are not supported"},
        {dir.file("both.gltf"), "requires the unknown glTF extensions EXT_made_up and EXT_also_made_up"},
        // glTF 1.0, binary and JSON (version as a string and as a number): named, with what converts it.
        {models + "glTF/BoxTextured-glTF-Binary/BoxTextured.glb", "is glTF 1.0 (a version 1 binary container), which is not supported"},
        {models + "glTF/BoxTextured-glTF-Binary/BoxTextured.glb", "gltf-pipeline -i"},
        {models + "glTF/BoxTextured-glTF/BoxTextured.gltf", "is glTF 1.0 (asset.version \"1.0\"), which is not supported"},
        {models + "glTF/CesiumMilkTruck/CesiumMilkTruck.gltf", "is glTF 1.0 (asset.version 1)"},
        // A UTF-16 OBJ read as bytes has no faces: the encoding is named instead of "zero triangles".
        {models + "OBJ/box_UTF16BE.obj", "is UTF-16 big-endian text (byte-order mark FE FF), an encoding that is not supported"},
        {models + "OBJ/box_UTF16BE.obj", "iconv -f UTF-16 -t UTF-8"},
        {dir.file("utf16le.obj"), "holds 0 bytes: UTF-16 without a byte-order mark"},
        {models + "OBJ/testpoints.obj", "zero triangles"},
        {models + "invalid/empty.obj", "zero triangles"},
        {dir.file("bad.obj"), "out of range"},
        {dir.file("huge.stl"), "4000000000 triangles"},
        {dir.file("cut.stl"), "truncated"},
        {dir.file("model.xyz"), "unknown model format"},
        {dir.file("absent.glb"), "cannot read"},
    };
    for (const auto& [file, what] : cases) {
        auto r = run_process(seatmark_argv({"pack", file, "--out", dir.file("x.smpack"), "--quiet"}), 60);
        const auto& input = file;  // doctest's INFO is a lambda: clang 14 cannot capture a binding
        INFO(input << "\n" << all_output(r));
        CHECK(r.exit_code == 2);
        CHECK(r.err.find(file) != std::string::npos);
        CHECK(r.err.find(what) != std::string::npos);
        CHECK(r.err.find("Segmentation") == std::string::npos);
    }
}

TEST_CASE("an OBJ's reader warnings are notes of one line each, said once, and its textures are said as glTF's are") {
    TempDir dir;
    // cube_usemtl.obj says `usemtl mtl3` twice and its .mtl has no mtl3: tinyobjloader warns twice in one string.
    ProcessResult r;
    auto j = pack_json({models + "OBJ/cube_usemtl.obj", "--out", dir.file("c.smpack")}, &r);
    INFO(all_output(r));
    REQUIRE(j.is_object());
    int mtl3 = 0;
    for (const auto& n : j["notes"]) {
        const std::string note = n.get<std::string>();
        CHECK(note.find('\n') == std::string::npos);
        if (note.find("'mtl3'") != std::string::npos) ++mtl3;
    }
    CHECK(mtl3 == 1);
    // The text summary: every line that names mtl3 is a note line.
    auto t = run_process(seatmark_argv({"pack", models + "OBJ/cube_usemtl.obj", "--out", dir.file("c2.smpack"), "--quiet"}), 60);
    REQUIRE(t.exit_code == 0);
    std::istringstream lines(t.out);
    int said = 0;
    for (std::string line; std::getline(lines, line);)
        if (line.find("'mtl3'") != std::string::npos) {
            ++said;
            CHECK(line.rfind("note       OBJ reader: ", 0) == 0);
        }
    CHECK(said == 1);

    // spider.mtl's materials name map_Kd images: each used one is said, with the colour drawn instead.
    auto s = pack_json({models + "OBJ/spider.obj", "--out", dir.file("s.smpack")});
    REQUIRE(s.is_object());
    const std::string notes = s["notes"].dump();
    CHECK(notes.find("WARNING: material 'Skin' has a diffuse texture (map_Kd .\\\\wal67ar_small.jpg), which is not drawn: "
                     "textures are reduced to Kd (0.83, 0.79, 0.77, 1.00), one colour per part") != std::string::npos);
}

TEST_CASE("a damaged pack stops the session before it starts, naming the file") {
    TempDir dir;
    REQUIRE(pack_json({models + "STL/Spider_binary.stl", "--out", dir.file("s.smpack")}).is_object());
    auto b = read_file(dir.file("s.smpack"));
    b[b.size() / 2] ^= 1;
    write_file(dir.file("s.smpack"), b);
    auto r = run_process(seatmark_argv({"session", "--model", dir.file("s.smpack"), "--duration", "1s"}), 60);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(dir.file("s.smpack") + ": payload checksum mismatch") != std::string::npos);
}

TEST_CASE("a profile's [scene] model that is a source file is packed once into the cache and drawn") {
    TempDir dir;
    write_file(dir.file("p.toml"), "name = \"own-model\"\nduration = \"1s\"\n[scene]\nmodel = \"" + models +
                                       "glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb\"\n[[script.segment]]\nkind = \"orbit\"\nduration = \"1s\"\n");
    for (int i = 0; i < 2; ++i) {
        auto r = run_process(seatmark_argv({"session", "--workload", dir.file("p.toml"), "--width", "160", "--height", "120"}), 180,
                             {"SEATMARK_PACK_CACHE=" + dir.file("cache")});
        INFO(all_output(r));
        REQUIRE(r.exit_code == 0);
        CHECK(r.out.find("115 parts") != std::string::npos);
        CHECK(r.out.find(dir.file("cache") + "/") != std::string::npos);
    }
}
