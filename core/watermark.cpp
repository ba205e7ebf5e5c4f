#include "core/watermark.h"

namespace seatmark::watermark {

uint8_t crc8(uint32_t seq) {
    uint8_t crc = 0;
    for (int b = 0; b < 4; ++b) {
        crc ^= static_cast<uint8_t>(seq >> (8 * b));
        for (int i = 0; i < 8; ++i) crc = static_cast<uint8_t>((crc & 0x80) ? (crc << 1) ^ 0x07 : crc << 1);
    }
    return crc;
}

namespace {

constexpr bool calibration_white[calibration_cells] = {true, false, false, true};

// Bit i of the grid after the calibration cells: 28 number bits (LSB first), then 8 CRC bits.
std::vector<bool> cell_values(uint32_t seq) {
    std::vector<bool> v(cols * rows);
    for (int i = 0; i < calibration_cells; ++i) v[i] = calibration_white[i];
    const uint8_t crc = crc8(seq);
    for (int i = 0; i < seq_bits; ++i) v[calibration_cells + i] = (seq >> i) & 1u;
    for (int i = 0; i < crc_bits; ++i) v[calibration_cells + seq_bits + i] = (crc >> i) & 1u;
    return v;
}

// Mean luma (BT.601 weights, integer) of the inner half of cell (c, r).
double cell_luma(const FrameView& f, const Layout& l, int c, int r) {
    const int q = l.cell / 4;
    const int x0 = l.x0 + c * l.cell + q, y0 = l.y0 + r * l.cell + q;
    const int x1 = x0 + l.cell - 2 * q, y1 = y0 + l.cell - 2 * q;
    uint64_t sum = 0, n = 0;
    for (int y = y0; y < y1; ++y) {
        const uint8_t* p = f.pixels + static_cast<size_t>(y) * static_cast<size_t>(f.stride) + static_cast<size_t>(x0) * 4;
        for (int x = x0; x < x1; ++x, p += 4) {
            sum += (static_cast<uint32_t>(p[2]) * 77 + static_cast<uint32_t>(p[1]) * 150 + static_cast<uint32_t>(p[0]) * 29) >> 8;
            ++n;
        }
    }
    return n ? static_cast<double>(sum) / static_cast<double>(n) : 0.0;
}

}  // namespace

std::vector<Block> blocks(uint64_t seq, const Layout& l) {
    const auto v = cell_values(static_cast<uint32_t>(seq % seq_modulus));
    std::vector<Block> out;
    out.reserve(v.size());
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            out.push_back({l.x0 + c * l.cell, l.y0 + r * l.cell, l.cell, l.cell, v[r * cols + c]});
    return out;
}

std::optional<Decoded> decode(const FrameView& f, const Layout& l) {
    if (l.cell < 4 || l.x0 < 0 || l.y0 < 0 || l.x0 + l.width() > f.width || l.y0 + l.height() > f.height ||
        f.stride < f.width * 4)
        return std::nullopt;
    double luma[cols * rows];
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) luma[r * cols + c] = cell_luma(f, l, c, r);
    double white = 0, black = 0;
    for (int i = 0; i < calibration_cells; ++i) (calibration_white[i] ? white : black) += luma[i] / 2.0;
    const double contrast = white - black;
    if (contrast < 64.0) return std::nullopt;
    const double threshold = (white + black) / 2.0;
    uint32_t seq = 0;
    uint8_t crc = 0;
    for (int i = 0; i < seq_bits; ++i)
        if (luma[calibration_cells + i] > threshold) seq |= 1u << i;
    for (int i = 0; i < crc_bits; ++i)
        if (luma[calibration_cells + seq_bits + i] > threshold) crc = static_cast<uint8_t>(crc | (1u << i));
    if (crc != crc8(seq)) return std::nullopt;
    return Decoded{seq, contrast};
}

std::optional<Layout> locate(const FrameView& f, int cell) {
    if (cell < 4) return std::nullopt;
    auto luma = [&](int x, int y) {
        const uint8_t* p = f.pixels + static_cast<size_t>(y) * static_cast<size_t>(f.stride) + static_cast<size_t>(x) * 4;
        return (static_cast<uint32_t>(p[2]) * 77 + static_cast<uint32_t>(p[1]) * 150 + static_cast<uint32_t>(p[0]) * 29) >> 8;
    };
    auto near = [&](int len, int want) { return len >= want - cell / 4 && len <= want + cell / 4; };
    const int grid_w = cols * cell, grid_h = rows * cell;
    for (int y = cell / 4; y + grid_h - cell / 4 <= f.height; y += std::max(1, cell / 4)) {
        // Runs of white (> 160), black (< 96) or neither along the row.
        struct Run { int x, len; int kind; };  // kind 1 white, 0 black, -1 neither
        std::vector<Run> runs;
        for (int x = 0; x < f.width; ++x) {
            const uint32_t v = luma(x, y);
            const int k = v > 160 ? 1 : v < 96 ? 0 : -1;
            if (!runs.empty() && runs.back().kind == k) ++runs.back().len;
            else runs.push_back({x, 1, k});
        }
        for (size_t i = 0; i + 2 < runs.size(); ++i) {
            // W, K K (one run of two cells), then W (bit 0 may extend it): blurred edges may add a
            // short "neither" run between, so allow one.
            const Run& w = runs[i];
            if (w.kind != 1 || !near(w.len, cell)) continue;
            size_t j = i + 1;
            if (runs[j].kind == -1 && runs[j].len <= cell / 4 && j + 1 < runs.size()) ++j;
            if (runs[j].kind != 0 || !near(runs[j].len, 2 * cell)) continue;
            if (w.x + grid_w > f.width) continue;
            // The grid's top lies up to a cell above this row; of the offsets that decode, the
            // middle one of the first stretch is the best aligned.
            int first = -1, last = -1;
            for (int dy = 0; dy <= cell && y - dy >= 0; ++dy) {
                const bool ok = decode(f, Layout{w.x, y - dy, cell}).has_value();
                if (ok && first < 0) first = dy;
                if (ok) last = dy;
                if (!ok && first >= 0) break;
            }
            if (first >= 0) return Layout{w.x, y - (first + last) / 2, cell};
        }
    }
    return std::nullopt;
}

uint64_t unwrap(uint32_t low, uint64_t last) {
    const uint64_t base = last - (last % seq_modulus);
    uint64_t best = base + low;
    for (int64_t d : {-1, 1}) {
        if (d < 0 && base < seq_modulus) continue;
        const uint64_t cand = base + static_cast<uint64_t>(static_cast<int64_t>(seq_modulus) * d) + low;
        auto dist = [&](uint64_t a) { return a > last ? a - last : last - a; };
        if (dist(cand) < dist(best)) best = cand;
    }
    return best;
}

}  // namespace seatmark::watermark
