#pragma once
// A workload profile: what one synthetic CAD user renders and how they drive it.
// Profiles are TOML files; the built-in ones (workloads/profiles/*.toml) are
// compiled into the binary and found by name.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace seatmark::workloads {

enum class DisplayMode : uint16_t {
    shaded = 0,
    shaded_edges = 1,  // the default: the most weighted mode in SPECviewperf's NX viewset
    wireframe = 2,     // feature edges only
    hidden_line = 3,   // feature edges, hidden ones removed by a depth-only fill
    section = 4,       // shaded with edges, clipped by a moving section plane
    selection = 5,     // shaded with edges, one part highlighted
};
inline constexpr int display_mode_count = 6;
std::string_view to_string(DisplayMode m);                 // "shaded-edges", ...
bool parse_display_mode(std::string_view s, DisplayMode& out);  // accepts the to_string names

enum class SegmentKind : uint16_t {
    orbit,          // active: camera turns about the assembly, rate in deg/s
    pan,            // active: camera slides, rate in view heights per second
    zoom,           // active: rate = distance factor per second (>1 zooms in, <1 out)
    section_sweep,  // active: section plane crosses the bounding box, rate in sweeps per second
    mode,           // instant: switch display mode to `to`
    select,         // instant: highlight the next part (deterministic by seed)
    think,          // pause: nothing is rendered (render on demand, as CAD applications do)
};
std::string_view to_string(SegmentKind k);
bool parse_segment_kind(std::string_view s, SegmentKind& out);  // accepts the to_string names
bool is_active(SegmentKind k);   // orbit, pan, zoom, section_sweep
bool is_instant(SegmentKind k);  // mode, select

struct Segment {
    SegmentKind kind = SegmentKind::orbit;
    double duration_s = 0;      // 0 for instant segments
    double rate = 0;            // unit per kind, above
    double jitter = 0;          // think only: duration varies by +-jitter fraction, deterministic by seed
    DisplayMode to = DisplayMode::shaded_edges;  // mode only
    int line = 0;               // line in the profile file, for messages
};

struct SceneSpec {
    uint64_t seed = 1;
    uint64_t triangles = 20000;  // triangle budget drawn per frame, 10k .. tens of millions
    std::string model;           // a .smpack or a source model (packed on first use); empty: procedural
};

// What a profile may ask; whether a device can render it is checked before a run starts
// (core/preflight.h) and by the session on its device. 32768 is the largest maxImageDimension2D
// Vulkan devices report; sample counts are Vulkan's (VkSampleCountFlagBits).
inline constexpr uint32_t min_render_side = 16, max_render_side = 32768;
inline constexpr bool valid_msaa(uint32_t n) { return n >= 1 && n <= 64 && (n & (n - 1)) == 0; }

// A frame cap (profile frame_cap_hz, --synthetic-fps) and the scripted input rate: 0 (none) or at
// least 1 Hz. A cap of 0.01 Hz waited 100 s for its second frame, past any --duration (at 1e-9 Hz
// about 31 years); below 1 Hz no viewport is interactive anyway.
inline constexpr double min_rate_hz = 1.0;

struct RenderSpec {
    uint32_t width = 640, height = 480;
    uint32_t msaa = 4;              // 1, 2, 4, 8, 16, 32 or 64
    DisplayMode mode = DisplayMode::shaded_edges;  // starting mode
    double frame_cap_hz = 0;        // 0 = uncapped
};

struct Script {
    std::vector<Segment> segments;
    bool loop = true;               // repeat the segments until the session's duration ends
    double input_rate_hz = 125;     // scripted input events during active segments (mouse polling rate)
};

struct Profile {
    std::string name;
    std::string description;
    std::string source;  // file path, or "built-in workloads/profiles/NAME.toml"
    SceneSpec scene;
    RenderSpec render;
    Script script;
    double default_duration_s = 30;
};

// Loads a built-in profile by name, or a file when name_or_path names one
// (contains '/' or ends in .toml). Throws InputError naming file:line and what was expected;
// an unknown name lists the built-in names.
Profile load_profile(const std::string& name_or_path);

// Parses profile text; `source` names it in messages. Unknown keys and
// out-of-range values are errors. Throws InputError.
Profile parse_profile(std::string_view text, const std::string& source);

std::vector<std::string> builtin_profile_names();
std::string_view builtin_profile_text(std::string_view name);  // empty if unknown

}  // namespace seatmark::workloads
