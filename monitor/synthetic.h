#pragma once
// A made-up run, for the GUI benchmark and tests: many sessions in every state, an
// hour of history with step bands, events, and a long frame series with spikes.
#include <cstddef>
#include <cstdint>

#include "monitor/data_source.h"

namespace seatmark::monitor {

MonitorData synthetic_data(size_t sessions, double seconds, size_t frames, uint32_t seed = 1);

// Serves one fixed snapshot.
class FixedSource : public DataSource {
public:
    explicit FixedSource(MonitorData d) : d_(std::make_shared<MonitorData>(std::move(d))) {}
    std::shared_ptr<const MonitorData> snapshot() override { return d_; }
    void select_session(std::optional<uint32_t>) override {}

private:
    std::shared_ptr<const MonitorData> d_;
};

}  // namespace seatmark::monitor
