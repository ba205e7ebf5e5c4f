#include "client/device_preflight.h"

#include <nlohmann/json.hpp>

#include "client/vk_device.h"
#include "client/vk_instance.h"

namespace seatmark::client {

std::string preflight_json(const SessionOptions& opts) {
    nlohmann::json j;
    j["renders"] = !(opts.synthetic_fps > 0 || opts.synthetic_cpu_ms > 0);
    if (!j["renders"].get<bool>()) return j.dump();
    try {
        Instance instance(InstanceOptions{});
        j["devices"] = nlohmann::json::array();
        for (const auto& d : list_devices(instance.handle()))
            j["devices"].push_back({{"index", d.index}, {"name", d.name}, {"software", d.software}});
        const DeviceInfo d = choose_device(instance.handle(), opts.device);
        j["device"] = {{"index", d.index},
                       {"name", d.name},
                       {"type", d.type},
                       {"driver_name", d.driver_name},
                       {"software", d.software},
                       {"max_image_dimension_2d", d.max_image_dimension_2d},
                       {"max_msaa", d.max_msaa}};
    } catch (const std::exception& e) {
        j["error"] = e.what();
    }
    return j.dump();
}

}  // namespace seatmark::client
