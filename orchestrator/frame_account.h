#pragma once
// A session's frame accounting (orchestrator/session_table.h holds one per session): every
// frame a session sends is received, or counted as lost with how it was counted: sequence gaps,
// plus frames the session says it sent (BYE, or its last heartbeat when it died without one)
// that never arrived. Frames arrive in sequence order (common/wire_protocol.h); one numbered at
// or below a frame already received (a duplicated FRAMES block, or frames out of order) is not
// taken: it is counted apart and never stored, so no frame is counted twice. Every received
// frame is handed to the store (a store failure aborts the run), so received is also what the
// session has stored. Counts are bounded by core::max_count where they arrive
// (core/peer_stamps.h), so none of these sums can overflow.
#include <cstdint>
#include <optional>
#include <string>

#include "common/frame_record.h"

namespace seatmark::orchestrator {

struct FrameAccount {
    uint64_t received = 0;
    uint64_t gaps = 0;          // missing sequence numbers between received frames
    uint64_t next_seq = 0;      // one past the highest sequence number received
    uint64_t out_of_sequence = 0;  // frames not taken: numbered at or below one received before
    uint64_t heartbeat_count = 0;      // frames the newest HEARTBEAT said were emitted
    std::optional<uint64_t> bye_sent;  // frames BYE said were sent

    // True when `r` is taken (numbered past every frame received; a gap before it is lost
    // frames); false for a frame out of sequence (a duplicate or a late one): counted in
    // out_of_sequence, not to be stored or shown.
    bool add(const FrameRecord& r) {
        if (r.seq < next_seq) {
            ++out_of_sequence;
            return false;
        }
        gaps += r.seq - next_seq;
        next_seq = r.seq + 1;
        ++received;
        return true;
    }
    // BYE's count of the frames sent: "" when taken, else why it cannot be true. The frames
    // travel before BYE on the same connection, so when BYE arrives every frame sent has: the
    // count lies between the frames received and the next sequence number (gaps being frames
    // the session numbered and never sent).
    std::string bye(uint64_t frames_sent);
    // What the session itself counted as sent: BYE's figure, or its last heartbeat's.
    uint64_t sent() const { return bye_sent ? *bye_sent : heartbeat_count; }
    uint64_t lost() const;
    // "" when nothing was lost and all came in sequence, else "N frames lost (counted by BYE |
    // no BYE; ...)" and "M frames out of sequence (duplicated or reordered) not counted".
    std::string detail() const;
    // Every frame the last heartbeat counted has arrived.
    bool caught_up() const { return next_seq >= heartbeat_count; }
};

}  // namespace seatmark::orchestrator
