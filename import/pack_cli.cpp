#include "import/pack_cli.h"

#include <memory>

#include "import/pack_run.h"
#include "common/exit_codes.h"

namespace seatmark::import {

void add_pack_command(CLI::App& app, std::function<int()>& run) {
    auto o = std::make_shared<PackOptions>();
    auto* cmd = app.add_subcommand("pack", "pack CAD models (glTF, OBJ, STL, STEP, IGES) into one .smpack a session maps and draws");
    cmd->add_option("INPUT", o->inputs, "model files: .gltf .glb .obj .stl .step .stp .iges .igs (several are merged)")->required();
    cmd->add_option("--out,-o", o->out, "the pack to write (.smpack)")->required();
    cmd->add_option("--deflection", o->cad.deflection, "STEP/IGES: absolute linear deflection in model units (usually mm)")
        ->check(CLI::PositiveNumber)->capture_default_str();
    cmd->add_option("--angle", o->cad.angle_deg, "STEP/IGES: angular deflection in degrees")->check(CLI::Range(0.1, 90.0))->capture_default_str();
    cmd->add_option("--mesh-timeout", o->cad.timeout_s, "STEP/IGES: seconds one part may take to mesh before packing stops and names it")
        ->check(CLI::PositiveNumber)->capture_default_str();
    cmd->add_option("--crease", o->cad.crease_deg, "feature edge / normal split angle in degrees (as the procedural parts)")
        ->check(CLI::Range(1.0, 179.0))->capture_default_str();
    cmd->add_option("--up", o->up, "the source's up axis: auto (glTF/OBJ y, STL/STEP/IGES z), y or z")
        ->check(CLI::IsMember({"auto", "y", "z"}))->capture_default_str();
    cmd->add_option("--json", o->json_path, "also write the summary as JSON to this file ('-': stdout instead of text)");
    cmd->add_flag("--quiet,-q", o->quiet, "no progress lines");
    cmd->footer("Example: seatmark pack gearbox.step --deflection 0.05 --out gearbox.smpack\n"
                "         seatmark session --model gearbox.smpack --duration 20s\n"
                "A profile draws it with [scene] model = \"gearbox.smpack\".\n" + exit_code::help_text());
    cmd->callback([&run, o] { run = [o] { return run_pack(*o); }; });
}

}  // namespace seatmark::import
