// `--listen` on arbitrary text: an address and port, or InputError, never a crash.
// What it accepts must read back the same way (the API prints it as its URL).
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/errors.h"
#include "orchestrator/listen_address.h"

using namespace seatmark;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    try {
        auto a = orchestrator::parse_listen(text, "--listen");
        bool v6 = a.host.find(':') != std::string::npos;
        auto again = orchestrator::parse_listen((v6 ? "[" + a.host + "]" : a.host) + ":" + std::to_string(a.port), "--listen");
        if (again.host != a.host || again.port != a.port || again.loopback != a.loopback) __builtin_trap();
    } catch (const InputError&) {
        // refused with a message
    }
    return 0;
}
