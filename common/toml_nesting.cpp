// How deep the table tree of a TOML text would be, measured before toml++ parses it
// (toml_util::parse). toml++ builds and frees nested tables recursively: a key nested about
// 40,000 levels (an 80 KB file of "a.a.a...") overflowed the stack of every command that read it.
// toml++ bounds nested inline values itself (256), not dotted keys or table headers.
//
// This is no TOML parser: it only skips strings and comments and counts, for every key, the levels
// above it (the [table] header's segments, the containers around it, its own dotted segments).
// Anything it misreads, toml++ rejects afterwards; it can only count too many, never too few.
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.h"
#include "common/toml_util.h"

namespace seatmark::toml_util {

namespace {

class Scanner {
public:
    Scanner(std::string_view text, const std::string& source) : t_(text), source_(source) {}

    void run() {
        while (i_ < t_.size()) {
            const char c = t_[i_];
            if (c == '\n') {
                ++line_;
                ++i_;
                if (open_.empty()) expect_key_ = true;  // a new line at the top level starts a key or header
                continue;
            }
            if (c == ' ' || c == '\t' || c == '\r') {
                ++i_;
                continue;
            }
            if (c == '#') {
                while (i_ < t_.size() && t_[i_] != '\n') ++i_;
                continue;
            }
            if (expect_key_ && c != '}') {
                if (open_.empty() && c == '[') header();
                else key();
                continue;
            }
            value_char(c);
        }
    }

private:
    // A string from i_ (at its quote) to past its end: "...", '...', """...""", '''...'''.
    // A single-line string ends at the line's end, closed or not (toml++ says what is wrong).
    void skip_string() {
        const char q = t_[i_];
        const bool triple = t_.substr(i_, 3) == std::string_view(q == '"' ? "\"\"\"" : "'''");
        i_ += triple ? 3 : 1;
        while (i_ < t_.size()) {
            const char c = t_[i_];
            if (c == '\\' && q == '"') {
                if (i_ + 1 < t_.size() && t_[i_ + 1] == '\n') ++line_;
                i_ += 2;
                continue;
            }
            if (c == '\n') {
                if (!triple) return;
                ++line_;
            }
            if (c == q && (!triple || t_.substr(i_, 3) == std::string_view(q == '"' ? "\"\"\"" : "'''"))) {
                i_ += triple ? 3 : 1;
                return;
            }
            ++i_;
        }
    }

    // Key segments up to `stop` (or the line's end): 1 + its dots outside quotes.
    size_t segments(char stop) {
        size_t n = 1;
        while (i_ < t_.size() && t_[i_] != stop && t_[i_] != '\n') {
            const char c = t_[i_];
            if (c == '"' || c == '\'') {
                skip_string();
                continue;
            }
            if (c == '.') ++n;
            ++i_;
        }
        return n;
    }

    void header() {  // [a.b] or [[a.b]]: the tables below it start at its depth
        const bool array = i_ + 1 < t_.size() && t_[i_ + 1] == '[';
        i_ += array ? 2 : 1;
        header_ = segments(']') + (array ? 1 : 0);
        check(header_);
        expect_key_ = false;  // the rest of the line: "]", "]]", a comment
    }

    void key() {
        const size_t depth = (open_.empty() ? header_ : open_.back().depth) + segments('=');
        check(depth);
        if (i_ < t_.size() && t_[i_] == '=') ++i_;
        expect_key_ = false;
        value_depth_ = depth;
    }

    void value_char(char c) {
        if (c == '"' || c == '\'') {
            skip_string();
            return;
        }
        ++i_;
        if (c == '[') {  // an array: its elements one level below it
            open_.push_back({']', value_depth_ + 1});
            check(value_depth_ + 1);
            value_depth_ = value_depth_ + 1;
        } else if (c == '{') {  // an inline table: its keys below it
            open_.push_back({'}', value_depth_});
            expect_key_ = true;
        } else if (c == ']' || c == '}') {
            if (!open_.empty()) open_.pop_back();
            expect_key_ = false;
        } else if (c == ',' && !open_.empty()) {
            if (open_.back().close == '}') expect_key_ = true;
            else value_depth_ = open_.back().depth;
        }
    }

    void check(size_t depth) const {
        if (depth > max_nesting)
            throw InputError(seatmark::where(source_, line_) + "TOML nested deeper than " + std::to_string(max_nesting) +
                             " levels (table headers, dotted keys, arrays and inline tables together); seatmark's files "
                             "need a few: is it the right file?");
    }

    struct Open {
        char close;    // ']' an array, '}' an inline table
        size_t depth;  // the depth of what is inside
    };
    std::string_view t_;
    const std::string& source_;
    size_t i_ = 0;
    int line_ = 1;
    size_t header_ = 0, value_depth_ = 0;
    bool expect_key_ = true;
    std::vector<Open> open_;
};

}  // namespace

void check_nesting(std::string_view text, const std::string& source) { Scanner(text, source).run(); }

}  // namespace seatmark::toml_util
