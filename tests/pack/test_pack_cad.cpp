// STEP and IGES through the OpenCASCADE child, on files OpenCASCADE itself wrote (tools/make_step).
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "model_checks.h"
#include "pack/pack_reader.h"

using namespace seatmark::test;

namespace {
std::string all_output(const ProcessResult& r) { return "stdout:\n" + r.out + "\nstderr:\n" + r.err; }
void make(const std::string& what, const std::string& out) {
    auto r = run_process({SEATMARK_MAKE_STEP, what, out}, 60);
    INFO(all_output(r));
    REQUIRE(r.exit_code == 0);
}
}  // namespace

TEST_CASE("a STEP assembly keeps its instances once, its names and colours, and is drawn") {
    TempDir dir;
    make("assembly", dir.file("gearbox.step"));
    ProcessResult r;
    auto j = pack_json({dir.file("gearbox.step"), "--deflection", "0.2", "--out", dir.file("g.smpack")}, &r);
    INFO(all_output(r));
    REQUIRE(j.is_object());
    CHECK(j["parts"] == 10);          // plate, 8 bolts, bracket
    CHECK(j["unique_meshes"] == 3);   // the bolt stored once
    CHECK(j["triangles"].get<uint64_t>() > 8 * 40);  // cylinders meshed at 0.2 mm
    auto s = run_process(seatmark_argv({"session", "--model", dir.file("g.smpack"), "--validate", "--duration", "1s",
                                        "--width", "320", "--height", "240", "--screenshot", dir.file("g.png")}),
                         180);
    INFO(all_output(s));
    REQUIRE(s.exit_code == 0);
    CHECK(s.out.find("validation 0 messages") != std::string::npos);
    Shot shot = look_at(dir.file("g.png"));
    CHECK(shot.object_share > 0.1);
    CHECK(shot.classes[0] + shot.classes[2] > 0.2);  // the blue plate
    CHECK(shot.classes[7] > 0.01);                   // orange bolts
    CHECK(shot.classes[3] + shot.classes[1] + shot.classes[2] > 0.01);  // the green bracket (g largest)
}

TEST_CASE("a face coloured apart from its part is drawn in its own colour, and the part stays one part, stored once") {
    // CAD systems write a coloured face as a colour on the face's sub-shape: the block is blue,
    // its top face orange. It used to be drawn in one colour for the whole part.
    TempDir dir;
    make("faces", dir.file("blocks.step"));
    ProcessResult r;
    auto j = pack_json({dir.file("blocks.step"), "--deflection", "0.5", "--out", dir.file("b.smpack")}, &r);
    INFO(all_output(r));
    REQUIRE(j.is_object());
    CHECK(j["parts"] == 2);          // two instances of the block
    CHECK(j["pieces"] == 4);         // each drawn as its body and its top face
    CHECK(j["unique_meshes"] == 2);  // the block's two colour pieces, stored once for both instances
    {
        seatmark::pack::PackFile p(dir.file("b.smpack"));
        std::map<uint32_t, std::set<uint32_t>> colours_of_id;
        for (const auto& inst : p.instances()) colours_of_id[inst.id].insert(inst.rgba);
        CHECK(colours_of_id.size() == 2);  // pieces share their part's id: selected as one
        for (const auto& idc : colours_of_id) CHECK(idc.second.size() == 2);
    }
    auto s = run_process(seatmark_argv({"session", "--model", dir.file("b.smpack"), "--validate", "--duration", "1s",
                                        "--width", "320", "--height", "240", "--screenshot", dir.file("b.png")}),
                         180);
    INFO(all_output(s));
    REQUIRE(s.exit_code == 0);
    CHECK(s.out.find("validation 0 messages") != std::string::npos);
    Shot shot = look_at(dir.file("b.png"));
    CAPTURE(shot.classes[0]);
    CAPTURE(shot.classes[7]);
    CHECK(shot.object_share > 0.1);
    CHECK(shot.classes[0] + shot.classes[2] > 0.1);  // the blue body
    CHECK(shot.classes[7] > 0.05);                   // the orange top faces
    // IGES carries face colours too (it has no assembly: one part of two pieces).
    make("faces", dir.file("blocks.igs"));
    auto iges = pack_json({dir.file("blocks.igs"), "--out", dir.file("i.smpack")}, &r);
    INFO(all_output(r));
    REQUIRE(iges.is_object());
    CHECK(iges["pieces"].get<uint64_t>() == 2 * iges["parts"].get<uint64_t>());
}

TEST_CASE("finer deflection makes more triangles, and IGES of the same assembly packs too") {
    TempDir dir;
    make("assembly", dir.file("a.step"));
    auto coarse = pack_json({dir.file("a.step"), "--deflection", "1", "--out", dir.file("c.smpack")});
    auto fine = pack_json({dir.file("a.step"), "--deflection", "0.01", "--out", dir.file("f.smpack")});
    REQUIRE(coarse.is_object());
    REQUIRE(fine.is_object());
    CHECK(fine["triangles"].get<uint64_t>() > 2 * coarse["triangles"].get<uint64_t>());
    make("assembly", dir.file("a.igs"));
    ProcessResult r;
    auto iges = pack_json({dir.file("a.igs"), "--out", dir.file("i.smpack")}, &r);
    INFO(all_output(r));
    REQUIRE(iges.is_object());
    CHECK(iges["triangles"].get<uint64_t>() > 0);
}

TEST_CASE("a STEP file with no solids, and a part that does not mesh in time, are clear errors") {
    TempDir dir;
    make("curves", dir.file("curves.step"));
    auto r = run_process(seatmark_argv({"pack", dir.file("curves.step"), "--out", dir.file("x.smpack"), "--quiet"}), 60);
    INFO(all_output(r));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(dir.file("curves.step")) != std::string::npos);
    CHECK(r.err.find("no solids") != std::string::npos);

    make("assembly", dir.file("a.step"));
    r = run_process(seatmark_argv({"pack", dir.file("a.step"), "--deflection", "0.0001", "--mesh-timeout", "0.001",
                                   "--out", dir.file("x.smpack"), "--quiet"}),
                    120);
    INFO(all_output(r));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("meshing part 'plate' did not finish") != std::string::npos);
    write_file(dir.file("junk.step"), "ISO-10303-21;\nnot really\n");
    r = run_process(seatmark_argv({"pack", dir.file("junk.step"), "--out", dir.file("x.smpack"), "--quiet"}), 60);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(dir.file("junk.step")) != std::string::npos);
}
