// Strict TOML reading: every error names file:line:col and what was expected.
#include <doctest/doctest.h>

#include "tests/support/input_error.h"

#include <string>

#include "common/errors.h"
#include "common/toml_util.h"

using namespace seatmark;
using namespace seatmark::toml_util;

namespace {

using test::contains;
using test::error_of;

}  // namespace

TEST_CASE("toml_util: syntax errors name file:line:col") {
    std::string e = error_of([] { (void)parse("a = 1\nb = \n", "f.toml"); });
    INFO(e);
    CHECK(contains(e, "f.toml:2:5: TOML syntax error"));

    e = error_of([] { (void)parse("a = 1\na = 2\n", "f.toml"); });
    INFO(e);
    CHECK(contains(e, "f.toml:2:"));
    CHECK(contains(e, "TOML syntax error"));

    e = error_of([] { (void)parse_file("/nonexistent/dir/plan.toml"); });
    INFO(e);
    CHECK(contains(e, "/nonexistent/dir/plan.toml: cannot read the TOML file: "));
}

TEST_CASE("toml_util: typed getters read present keys and skip absent ones") {
    toml::table doc = parse(R"(
s = "text"
b = true
i = 42
f = 2.5
d1 = "1m30s"
d2 = 3
d3 = 0.5
e = "wireframe"
[t]
x = 1
[[arr]]
k = 1
[[arr]]
k = 2
)",
                            "f.toml");
    TableReader r(doc, "f.toml");
    CHECK(r.string("s") == "text");
    CHECK(r.boolean("b") == true);
    CHECK(r.integer("i", IntRange{0, 100}) == 42);
    CHECK(r.integer_one_of("i", {1, 42}) == 42);
    CHECK(r.number("i") == 42.0);  // integers are numbers
    CHECK(r.number("f", Range::half_open(0, 3)) == 2.5);
    CHECK(r.duration("d1") == 90.0);
    CHECK(r.duration("d2") == 3.0);
    CHECK(r.duration("d3") == 0.5);
    enum class Mode { shaded, wireframe };
    CHECK(r.enumeration<Mode>("e", {{"shaded", Mode::shaded}, {"wireframe", Mode::wireframe}}) == Mode::wireframe);
    CHECK(r.choice("e", {"shaded", "wireframe"}) == size_t{1});

    CHECK_FALSE(r.string("absent").has_value());
    CHECK(r.integer("absent2").value_or(7) == 7);
    CHECK_FALSE(r.table("absent3").has_value());
    CHECK(r.tables("absent4").empty());

    auto t = r.table("t");
    REQUIRE(t.has_value());
    CHECK(t->path() == "t");
    CHECK(t->line() == 10);
    CHECK(t->key_path("x") == "t.x");
    CHECK(t->integer("x") == 1);
    t->finish();

    auto arr = r.tables("arr");
    REQUIRE(arr.size() == 2);
    CHECK(arr[1].path() == "arr[1]");
    CHECK(arr[1].line() == 14);
    CHECK(arr[1].integer("k") == 2);
    CHECK(arr[0].integer("k") == 1);
    for (auto& a : arr) a.finish();
    r.finish();  // every key was read
}

TEST_CASE("toml_util: wrong values name the key, the expectation and the value") {
    toml::table doc = parse("name = \"x\"\n[render]\nmsaa = 3\nwidth = 0\nheight = 4.0\nloop = 1\nj = 1.0\n"
                            "d = \"5x\"\nneg = -1\nmode = \"xray\"\nlabel = 5\n",
                            "plan.toml");
    TableReader root(doc, "plan.toml");
    auto render = root.table("render");
    REQUIRE(render.has_value());

    std::string e = error_of([&] { render->integer_one_of("msaa", {1, 4, 8}); });
    CHECK(e == "plan.toml:3:8: key 'render.msaa': expected one of 1, 4, 8, got 3");

    e = error_of([&] { render->integer("width", IntRange{16, 8192}); });
    CHECK(e == "plan.toml:4:9: key 'render.width': expected an integer from 16 to 8192, got 0");

    e = error_of([&] { render->integer("height", IntRange{16, 8192}); });
    CHECK(e == "plan.toml:5:10: key 'render.height': expected an integer from 16 to 8192, got 4.0");

    e = error_of([&] { render->boolean("loop"); });
    CHECK(e == "plan.toml:6:8: key 'render.loop': expected true or false, got 1");

    e = error_of([&] { render->number("j", Range::half_open(0, 1)); });
    CHECK(e == "plan.toml:7:5: key 'render.j': expected a number in [0, 1), got 1.0");

    e = error_of([&] { render->duration("d", Range::above(0)); });
    INFO(e);
    CHECK(contains(e, "plan.toml:8:5: key 'render.d': expected a duration > 0 ("));
    CHECK(contains(e, "got \"5x\""));

    e = error_of([&] { render->duration("neg"); });
    CHECK(contains(e, "plan.toml:9:7: key 'render.neg': expected a duration >= 0"));
    CHECK(contains(e, "got -1"));

    e = error_of([&] { render->choice("mode", {"shaded", "wireframe"}); });
    CHECK(e == "plan.toml:10:8: key 'render.mode': expected one of \"shaded\", \"wireframe\", got \"xray\"");

    e = error_of([&] { render->string("label"); });
    CHECK(e == "plan.toml:11:9: key 'render.label': expected a string, got 5");

    e = error_of([&] { render->number_if("j", "a non-zero rate", [](double v) { return v != 1; }); });
    CHECK(e == "plan.toml:7:5: key 'render.j': expected a non-zero rate, got 1.0");

    e = error_of([&] { root.table("name"); });
    CHECK(contains(e, "plan.toml:1:8: key 'name': expected a table"));

    e = error_of([&] { root.tables("render"); });
    CHECK(contains(e, "plan.toml:2:1: key 'render': expected an array of tables ([[render]])"));

    e = error_of([&] { render->fail_with("msaa", "my own words"); });
    CHECK(e == "plan.toml:3:8: key 'render.msaa': my own words");

    e = error_of([&] { render->fail_table("needs a width"); });
    CHECK(e == "plan.toml:2:1: [render]: needs a width");
}

TEST_CASE("toml_util: missing required keys") {
    toml::table doc = parse("a = 1\n\n[sec]\nb = 2\n", "m.toml");
    TableReader root(doc, "m.toml");
    auto sec = root.table("sec");
    std::string e = error_of([&] { sec->required_integer("count", IntRange{1, 9}); });
    CHECK(e == "m.toml:3:1: missing key 'sec.count' (expected an integer from 1 to 9)");
    e = error_of([&] { root.required_string("name"); });
    CHECK(contains(e, "m.toml:1:1: missing key 'name' (expected a string)"));
    enum class K { a, b };
    e = error_of([&] { sec->required_enumeration<K>("kind", {{"a", K::a}, {"b", K::b}}); });
    CHECK(e == "m.toml:3:1: missing key 'sec.kind' (expected one of \"a\", \"b\")");
}

TEST_CASE("toml_util: unknown keys are errors with file:line and the accepted keys") {
    toml::table doc = parse("name = \"x\"\nzzz = 1\naaa = 2\n[render]\nwidth = 1\nmssa = 4\n"
                            "[[seg]]\nkind = \"orbit\"\nrat = 4\n",
                            "u.toml");
    TableReader root(doc, "u.toml");
    root.string("name");

    auto render = root.table("render");
    render->integer("width");
    render->accept({"height", "msaa"});
    std::string e = error_of([&] { render->finish(); });
    CHECK(e == "u.toml:6:1: unknown key 'render.mssa' (did you mean 'msaa'?); [render] accepts: width, height, msaa");

    auto segs = root.tables("seg");
    REQUIRE(segs.size() == 1);
    segs[0].accept({"kind", "duration", "rate"});
    e = error_of([&] { segs[0].finish(); });
    CHECK(e == "u.toml:9:1: unknown key 'seg[0].rat' (did you mean 'rate'?); seg[0] accepts: kind, duration, rate");

    // Two unknown keys: the first in the file is reported (zzz, line 2), not the first by name.
    e = error_of([&] { root.finish(); });
    CHECK(e == "u.toml:2:1: unknown key 'zzz'; the top level accepts: name, render, seg");

    // has() does not accept a key; accept() and any getter do.
    CHECK(root.has("zzz"));
    CHECK(contains(error_of([&] { root.finish(); }), "'zzz'"));
    root.accept({"zzz"});
    root.integer("aaa");
    CHECK(error_of([&] { root.finish(); }) == "(no error)");

    toml::table empty_ok = parse("[x]\ny = 1\n", "e.toml");
    TableReader r(empty_ok, "e.toml");
    auto x = r.table("x");
    CHECK(error_of([&] { x->finish(); }) == "e.toml:2:1: unknown key 'x.y'; [x] accepts no keys");
}

TEST_CASE("toml_util: range descriptions") {
    CHECK(Range::closed(0.1, 10).describe() == "in [0.1, 10]");
    CHECK(Range::half_open(0, 1).describe() == "in [0, 1)");
    CHECK(Range::above(0).describe() == "> 0");
    CHECK(Range::at_least(0).describe() == ">= 0");
    CHECK(Range::any().describe().empty());
    CHECK(Range::half_open(0, 1).contains(0));
    CHECK_FALSE(Range::half_open(0, 1).contains(1));
    CHECK_FALSE(Range::above(0).contains(0));
    CHECK(IntRange{16, 8192}.describe() == "from 16 to 8192");
    CHECK(IntRange{0}.describe() == ">= 0");
    CHECK(IntRange{}.describe().empty());
    CHECK(format_number(100000000) == "100000000");
    CHECK(format_number(0.1) == "0.1");
}
