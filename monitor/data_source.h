#pragma once
// Where the monitor's data comes from: the live API (live_source.h) or a finished
// run database (db_source.h). The GUI thread calls these; a source may work on a
// thread of its own and hand over snapshots.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "monitor/monitor_data.h"

namespace seatmark::monitor {

class DataSource {
public:
    virtual ~DataSource() = default;
    // The newest snapshot (never null); its `version` changes when anything in it does.
    virtual std::shared_ptr<const MonitorData> snapshot() = 0;
    // Which session's frames the snapshot should carry (none: no frame series).
    virtual void select_session(std::optional<uint32_t> id) = 0;
    // A finished run can be looked at any moment of; a live one only now.
    virtual bool has_time_slider() const { return false; }
    virtual void set_time(double /*t_s*/) {}
};

}  // namespace seatmark::monitor
