#pragma once
// A joined session's latest sampled references (image/reference_frame.h), kept in memory so the
// run can ask for the one of a given frame number on behalf of an RDP launcher (REF_ASK; the
// launcher computes SSIM against what arrived). The renderer's watcher thread puts, the join
// connection's responder gets. Bounded: the newest `keep` only.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

#include "image/reference_frame.h"

namespace seatmark::client {

class ReferenceKeep {
public:
    static constexpr size_t keep = 16;
    void put(image::ReferenceFrame r) {
        std::lock_guard<std::mutex> l(mu_);
        if (ring_.size() == keep) ring_.pop_front();
        ring_.push_back(std::move(r));
    }
    std::optional<image::ReferenceFrame> get(uint64_t seq) const {
        std::lock_guard<std::mutex> l(mu_);
        for (const auto& r : ring_)
            if (r.seq == seq) return r;
        return std::nullopt;
    }

private:
    mutable std::mutex mu_;
    std::deque<image::ReferenceFrame> ring_;
};

}  // namespace seatmark::client
