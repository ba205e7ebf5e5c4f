#include "common/duration.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace seatmark {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A plain decimal number "12" or "1.5" (no sign, no exponent, digits on both
// sides of a point): strict, so "1e999", "-1" and ".5" are not durations.
size_t scan_number(std::string_view s, size_t i) {
    size_t j = i;
    while (j < s.size() && is_digit(s[j])) ++j;
    if (j == i) return i;
    if (j < s.size() && s[j] == '.') {
        size_t k = j + 1;
        while (k < s.size() && is_digit(s[k])) ++k;
        if (k == j + 1) return i;  // "5." is not a number
        j = k;
    }
    return j;
}

}  // namespace

std::optional<double> parse_duration(std::string_view text) {
    if (text.empty()) return std::nullopt;
    // Units in the order they must appear ("1h30m", not "30m1h"), each at most once.
    struct Unit {
        std::string_view name;
        double seconds;
    };
    static constexpr Unit units[] = {{"h", 3600}, {"ms", 1e-3}, {"m", 60}, {"s", 1}};
    // Rank by size so "1m500ms" is fine but "500ms1m" is not; "ms" is checked before "m".
    auto rank = [](double seconds) { return -seconds; };

    double total = 0;
    double last_rank = -1e300;
    size_t i = 0;
    bool any_unit = false;
    while (i < text.size()) {
        size_t end = scan_number(text, i);
        if (end == i) return std::nullopt;
        double value = 0;
        auto [ptr, ec] = std::from_chars(text.data() + i, text.data() + end, value);
        if (ec != std::errc() || ptr != text.data() + end) return std::nullopt;
        i = end;
        if (i == text.size()) {
            // A bare number is seconds, but only on its own ("1m30" is ambiguous).
            if (any_unit) return std::nullopt;
            total = value;
            break;
        }
        const Unit* unit = nullptr;
        for (const Unit& u : units) {
            if (text.substr(i, u.name.size()) == u.name) {
                unit = &u;
                break;
            }
        }
        if (!unit) return std::nullopt;
        double r = rank(unit->seconds);
        if (r <= last_rank) return std::nullopt;  // repeated or out of order
        last_rank = r;
        any_unit = true;
        i += unit->name.size();
        total += value * unit->seconds;
    }
    if (!std::isfinite(total)) return std::nullopt;
    return total;
}

std::string format_duration(double seconds) {
    char buf[64];
    if (!std::isfinite(seconds)) {
        std::snprintf(buf, sizeof buf, "%g s", seconds);
        return buf;
    }
    std::string sign = seconds < 0 ? "-" : "";
    double s = std::fabs(seconds);
    if (s == 0) return "0 s";
    if (s < 1) {
        // Three significant digits are enough for messages: "250 ms", "12.5 ms".
        std::snprintf(buf, sizeof buf, "%.3g ms", s * 1e3);
        return sign + buf;
    }
    if (s < 60) {
        std::snprintf(buf, sizeof buf, "%.3g s", s);
        // %.3g prints 59.99 as "60"; that is fine for a message.
        return sign + buf;
    }
    // Minutes and above: whole seconds, zero parts left out ("2 min 5 s", "1 h", "1 h 30 min").
    auto whole = static_cast<long long>(std::llround(s));
    long long h = whole / 3600, m = whole / 60 % 60, sec = whole % 60;
    std::string out = sign;
    auto part = [&](long long v, const char* unit) {
        if (v == 0) return;
        if (out.size() > sign.size()) out += ' ';
        out += std::to_string(v) + ' ' + unit;
    };
    part(h, "h");
    part(m, "min");
    part(sec, "s");
    return out;
}

}  // namespace seatmark
