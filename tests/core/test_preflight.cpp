// The one rule for what a run refuses before starting (core/preflight.h), on facts made up here.
#include <doctest/doctest.h>

#include "core/preflight.h"

using namespace seatmark::core;

namespace {
Plan plan_of(const std::string& run_keys, uint32_t max_step = 4) {
    return parse_plan("name = \"p\"\n[run]\n" + run_keys + "\n[steps]\nlist = [1, " + std::to_string(max_step) +
                          "]\n[[mix]]\nprofile = \"ci-tiny\"\n",
                      "p.toml");
}
PreflightFacts on(bool software, uint32_t side = 16384, uint32_t msaa = 4) {
    PreflightFacts f;
    f.device = PreflightDevice{"llvmpipe", "llvmpipe", software, side, msaa};
    f.profiles = {{"ci-tiny", 480, 360, 1}};
    return f;
}
}  // namespace

TEST_CASE("preflight: allow_software = false refuses a CPU renderer, and only that") {
    auto r = preflight(plan_of("allow_software = false"), on(true));
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].find("p.toml: run.allow_software = false") == 0);
    CHECK(preflight(plan_of("allow_software = true"), on(true)).ok());
    CHECK(preflight(plan_of("allow_software = false"), on(false)).ok());
    auto f = on(true);
    f.hardware = {"NVIDIA L4"};
    CHECK(preflight(plan_of("allow_software = false"), f).problems[0].find("hardware devices here: 'NVIDIA L4'") !=
          std::string::npos);
}

TEST_CASE("preflight: a plan that does not set allow_software refuses a CPU renderer and says how to allow it") {
    const Plan unset = plan_of("");
    CHECK_FALSE(unset.allow_software);
    CHECK_FALSE(unset.allow_software_given);
    auto r = preflight(unset, on(true));
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].find("p.toml: [run] does not set allow_software (false unless set)") == 0);
    CHECK(r.problems[0].find("'llvmpipe' (llvmpipe), a software renderer") != std::string::npos);
    CHECK(r.problems[0].find("set allow_software = true in [run]") != std::string::npos);
    CHECK(preflight(unset, on(false)).ok());  // a GPU: nothing to refuse
}

TEST_CASE("preflight: profiles against the device's limits, the open-file limit, and facts it could not get") {
    auto f = on(false, 4096, 4);
    f.profiles.push_back({"huge", 8192, 64, 8});
    auto r = preflight(plan_of(""), f);
    REQUIRE(r.problems.size() == 2);
    CHECK(r.problems[0].find("profile 'huge' renders 8192x64") != std::string::npos);
    CHECK(r.problems[1].find("asks 8x MSAA") != std::string::npos);
    f = on(false);
    f.open_file_limit = 1024;
    CHECK(preflight(plan_of("", 200), f).ok());  // 928 needed
    CHECK(preflight(plan_of("", 300), f).problems[0].find("needs about 1328 open files, and this process may open 1024") !=
          std::string::npos);
    PreflightFacts unknown;
    unknown.probe_note = "no answer within 20 s";
    r = preflight(plan_of("allow_software = false"), unknown);
    CHECK(r.ok());
    CHECK(r.notes.size() == 1);
    PreflightFacts none;
    none.device_error = "no Vulkan device matches '99'";
    CHECK(preflight(plan_of("device = \"99\""), none).problems[0] == "p.toml: run.device = \"99\": no Vulkan device matches '99'");
    PreflightFacts synthetic;
    synthetic.renders = false;
    CHECK(preflight(plan_of("allow_software = false"), synthetic).ok());
}
