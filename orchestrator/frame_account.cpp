// A session's frame accounting (orchestrator/frame_account.h).
#include "orchestrator/frame_account.h"

namespace seatmark::orchestrator {

std::string FrameAccount::bye(uint64_t frames_sent) {
    if (frames_sent < received)
        return "BYE says " + std::to_string(frames_sent) + " frames were sent, but " + std::to_string(received) +
               " arrived: a count that cannot be true";
    if (frames_sent > next_seq)
        return "BYE says " + std::to_string(frames_sent) + " frames were sent, but the frames received are numbered below " +
               std::to_string(next_seq) +
               " and frames travel before BYE on the same connection: a count that cannot be true";
    bye_sent = frames_sent;
    return {};
}

uint64_t FrameAccount::lost() const {
    const uint64_t known = sent();
    const uint64_t missing = known > received + gaps ? known - received - gaps : 0;
    return gaps + missing;
}

std::string FrameAccount::detail() const {
    std::string d;
    if (const uint64_t n = lost())
        d = std::to_string(n) + " frames lost (" + (bye_sent ? "counted by BYE" : "no BYE; counted by the last heartbeat") +
            ")";
    if (out_of_sequence)
        d += (d.empty() ? "" : "; ") + std::to_string(out_of_sequence) +
             " frames out of sequence (duplicated or reordered) not counted";
    return d;
}

}  // namespace seatmark::orchestrator
