#include "common/errors.h"

namespace seatmark {

std::string where(const std::string& file, int line, int col) {
    std::string s = file;
    if (line > 0) {
        s += ":" + std::to_string(line);
        if (col > 0) s += ":" + std::to_string(col);
    }
    return s + ": ";
}

}  // namespace seatmark
