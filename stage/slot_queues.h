#pragma once
// Chunk buffers ("slots") move between the reader, the MPI thread and the writer through FIFO
// queues; FIFO everywhere keeps every stage seeing the chunks in file order.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>

namespace seatmark::stage {

class SlotQueues {
public:
    enum Queue { to_read, to_mpi, to_write, free_slots, kQueues };

    void push(Queue q, int slot) {
        {
            std::lock_guard lk(m_);
            q_[q].push_back(slot);
        }
        cv_.notify_all();
    }
    // Blocks until a slot is there (reader and writer threads).
    int pop_wait(Queue q) {
        std::unique_lock lk(m_);
        cv_.wait(lk, [&] { return !q_[q].empty(); });
        return take(q);
    }
    // For the MPI thread, which must keep polling its requests: -1 when empty after waiting up to `wait`.
    int try_pop(Queue q, std::chrono::microseconds wait = std::chrono::microseconds(0)) {
        std::unique_lock lk(m_);
        if (q_[q].empty() && wait.count()) cv_.wait_for(lk, wait, [&] { return !q_[q].empty(); });
        return q_[q].empty() ? -1 : take(q);
    }

private:
    int take(Queue q) {
        int s = q_[q].front();
        q_[q].pop_front();
        return s;
    }
    std::mutex m_;
    std::condition_variable cv_;
    std::deque<int> q_[kQueues];
};

}  // namespace seatmark::stage
