// common/shell_word.h: a word a real shell reads back as it was.
#include <doctest/doctest.h>

#include <string>

#include "common/shell_word.h"
#include "tests/support/process.h"

using namespace seatmark;
using namespace seatmark::test;

TEST_CASE("a shell word: plain paths stay as they are, others are quoted so /bin/sh reads them back") {
    CHECK(shell_word("/tmp/run.h0.db") == "/tmp/run.h0.db");
    for (const std::string w : {std::string("/tmp/a b/run.db"), std::string("it's $HOME;`x`"), std::string(""),
                                std::string("*"), std::string("a\nb")}) {
        CAPTURE(w);
        auto r = run_process({"/bin/sh", "-c", "printf %s " + shell_word(w)}, 10);
        CHECK(r.exit_code == 0);
        CHECK(r.out == w);
    }
}
