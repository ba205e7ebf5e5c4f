#include "orchestrator/gpu_pdh.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <tuple>
#include <sstream>

#include "common/errors.h"

namespace seatmark::orchestrator::pdh {

namespace {

std::vector<std::string_view> split(std::string_view s) {
    // PDH tells apart instances of one name (two contexts of a process on one engine) with a
    // "#N" suffix: the same engine, so the suffix goes.
    if (const size_t hash = s.rfind('#'); hash != std::string_view::npos && hash + 1 < s.size() &&
                                          std::all_of(s.begin() + hash + 1, s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        s = s.substr(0, hash);
    std::vector<std::string_view> t;
    for (size_t at = 0;;) {
        const size_t u = s.find('_', at);
        t.push_back(s.substr(at, u == std::string_view::npos ? std::string_view::npos : u - at));
        if (u == std::string_view::npos) return t;
        at = u + 1;
    }
}

bool number(std::string_view f, uint32_t& out) {
    auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), out);
    return !f.empty() && ec == std::errc() && p == f.data() + f.size();
}

bool hex32(std::string_view f) {
    if (f.size() != 10 || f.substr(0, 2) != "0x") return false;
    return std::all_of(f.begin() + 2, f.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// Tokens 0..6: pid P luid 0xHI 0xLO phys N.
bool parse_prefix(const std::vector<std::string_view>& t, uint32_t& pid, std::string& adapter) {
    uint32_t phys = 0;
    if (t.size() < 7 || t[0] != "pid" || !number(t[1], pid) || t[2] != "luid" || !hex32(t[3]) || !hex32(t[4]) ||
        t[5] != "phys" || !number(t[6], phys))
        return false;
    adapter = "luid_" + std::string(t[3]) + "_" + std::string(t[4]) + "_phys_" + std::string(t[6]);
    return true;
}

}  // namespace

std::optional<EngineInstance> parse_engine_instance(std::string_view s) {
    const auto t = split(s);
    EngineInstance e;
    if (!parse_prefix(t, e.pid, e.adapter)) return std::nullopt;
    if (t.size() < 11 || t[7] != "eng" || !number(t[8], e.engine) || t[9] != "engtype") return std::nullopt;
    // The type is the rest, underscores and all ("Compute_0" on some drivers).
    for (size_t i = 10; i < t.size(); ++i) {
        if (i > 10) e.engine_type += '_';
        e.engine_type += t[i];
    }
    if (e.engine_type.empty()) return std::nullopt;
    return e;
}

std::optional<MemoryInstance> parse_memory_instance(std::string_view s) {
    const auto t = split(s);
    MemoryInstance m;
    if (t.size() != 7 || !parse_prefix(t, m.pid, m.adapter)) return std::nullopt;
    return m;
}

Attribution attribute(const GpuCounters& c) {
    Attribution out;
    // (pid, adapter, engine) -> summed use over the process's contexts on that engine
    std::map<std::tuple<uint32_t, std::string, uint32_t>, std::pair<double, std::string>> per_engine;
    std::map<std::pair<std::string, uint32_t>, double> engine_total;  // (adapter, engine)
    for (const auto& v : c.engine_utilization) {
        auto e = parse_engine_instance(v.instance);
        if (!e) {
            out.problems.push_back("GPU Engine instance not understood: " + v.instance);
            continue;
        }
        if (!(v.value >= 0)) continue;  // a negative or NaN reading is no reading
        auto& slot = per_engine[{e->pid, e->adapter, e->engine}];
        slot.first += v.value;
        slot.second = e->engine_type;
        engine_total[{e->adapter, e->engine}] += v.value;
    }
    std::map<uint32_t, ProcessUse> procs;
    for (auto& [key, use] : per_engine) {
        const uint32_t pid = std::get<0>(key);
        double pct = use.first;
        if (pct > 100) {
            out.problems.push_back("pid " + std::to_string(pid) + " engine " + use.second + " read " +
                                   std::to_string(pct) + " %; capped at 100");
            pct = 100;
        }
        ProcessUse& p = procs[pid];
        p.pid = pid;
        double& by_type = p.by_type_pct[use.second];
        by_type = std::max(by_type, pct);
        if (pct > p.share_pct || p.busiest_engine.empty()) {
            p.share_pct = pct;
            p.busiest_engine = use.second;
        }
    }
    std::map<std::string, AdapterUse> adapters;
    for (auto& [key, total] : engine_total) {
        AdapterUse& a = adapters[key.first];
        a.adapter = key.first;
        a.util_pct = std::max(a.util_pct, std::min(total, 100.0));
    }
    auto memory = [&](const std::vector<CounterValue>& values, bool dedicated) {
        for (const auto& v : values) {
            auto m = parse_memory_instance(v.instance);
            if (!m) {
                out.problems.push_back("GPU Process Memory instance not understood: " + v.instance);
                continue;
            }
            if (!(v.value >= 0)) continue;
            ProcessUse& p = procs[m->pid];
            p.pid = m->pid;
            auto& slot = dedicated ? p.dedicated_bytes : p.shared_bytes;
            slot = slot.value_or(0) + v.value;  // a process on two adapters: its memory on both
            if (dedicated) {
                AdapterUse& a = adapters[m->adapter];
                a.adapter = m->adapter;
                a.dedicated_bytes = a.dedicated_bytes.value_or(0) + v.value;
            }
        }
    };
    memory(c.dedicated_bytes, true);
    memory(c.shared_bytes, false);
    for (auto& [pid, p] : procs) out.processes.push_back(std::move(p));
    for (auto& [name, a] : adapters) out.adapters.push_back(std::move(a));
    return out;
}

GpuSnapshot to_snapshot(const Attribution& a, int64_t t_ns, const std::vector<GpuClient>& clients) {
    GpuSnapshot snap;
    snap.t_ns = t_ns;
    snap.source = "pdh";
    uint32_t index = 0;
    for (const auto& ad : a.adapters) {
        GpuDeviceSample d;
        d.index = index++;
        d.name = ad.adapter;
        d.util_pct = ad.util_pct;
        d.mem_used_bytes = ad.dedicated_bytes;
        snap.devices.push_back(d);
    }
    std::map<uint32_t, int> session_of;
    for (const auto& c : clients) session_of[uint32_t(c.pid)] = c.session_id;
    for (const auto& p : a.processes) {
        GpuProcessSample s;
        s.pid = pid_t(p.pid);
        auto it = session_of.find(p.pid);
        s.session_id = it == session_of.end() ? -1 : it->second;
        s.source = "pdh";
        s.share_pct = p.share_pct;
        s.mem_bytes = p.dedicated_bytes;
        if (auto e = p.by_type_pct.find("VideoEncode"); e != p.by_type_pct.end()) s.enc_pct = e->second;
        if (auto d = p.by_type_pct.find("VideoDecode"); d != p.by_type_pct.end()) s.dec_pct = d->second;
        snap.processes.push_back(s);
    }
    snap.errors = a.problems;
    return snap;
}

namespace {

// One CSV row of quoted fields ("a","b"); typeperf quotes every field.
std::vector<std::string> csv_fields(const std::string& line, const std::string& where_) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < line.size()) {
        if (line[i] != '"') throw InputError(where_ + "expected a quoted field at column " + std::to_string(i + 1));
        std::string f;
        for (++i; i < line.size() && line[i] != '"'; ++i) f += line[i];
        if (i >= line.size()) throw InputError(where_ + "a quoted field is not closed");
        out.push_back(std::move(f));
        ++i;
        if (i < line.size() && line[i] == ',') ++i;
        else if (i < line.size() && line[i] != '\r') throw InputError(where_ + "expected ',' after a field");
        else break;
    }
    return out;
}

}  // namespace

GpuCounters read_typeperf_csv(const std::string& text, const std::string& name) {
    std::istringstream in(text);
    std::string line, header_line, last_line;
    int n = 0, last_n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.empty() || line == "\r") continue;
        if (header_line.empty()) header_line = line;
        else last_line = line, last_n = n;
    }
    if (header_line.empty()) throw InputError(name + ": empty; expected typeperf's CSV (PDH-CSV 4.0)");
    const auto header = csv_fields(header_line, where(name, 1));
    if (header.empty() || header[0].rfind("(PDH-CSV", 0) != 0)
        throw InputError(where(name, 1) + "expected typeperf's header starting \"(PDH-CSV 4.0)\"");
    if (last_line.empty()) throw InputError(name + ": no sample row after the header; record with -sc 1 or more");
    const auto values = csv_fields(last_line, where(name, last_n));
    if (values.size() != header.size())
        throw InputError(where(name, last_n) + std::to_string(values.size()) + " fields, the header has " +
                         std::to_string(header.size()));
    GpuCounters c;
    for (size_t i = 1; i < header.size(); ++i) {
        // "\\HOST\GPU Engine(INSTANCE)\Utilization Percentage"
        const std::string& path = header[i];
        const size_t open = path.find('('), close = path.rfind(')');
        if (open == std::string::npos || close == std::string::npos || close < open) continue;
        const std::string object = path.substr(path.rfind('\\', open) + 1, open - path.rfind('\\', open) - 1);
        const std::string counter = path.substr(close + 2);
        const std::string instance = path.substr(open + 1, close - open - 1);
        if (values[i].empty() || values[i] == " ") continue;  // typeperf leaves a gone instance blank
        double v = 0;
        try {
            v = std::stod(values[i]);
        } catch (const std::exception&) {
            throw InputError(where(name, last_n) + "field " + std::to_string(i + 1) + ": expected a number, got \"" +
                             values[i] + "\"");
        }
        if (object == "GPU Engine" && counter == "Utilization Percentage") c.engine_utilization.push_back({instance, v});
        else if (object == "GPU Process Memory" && counter == "Dedicated Usage") c.dedicated_bytes.push_back({instance, v});
        else if (object == "GPU Process Memory" && counter == "Shared Usage") c.shared_bytes.push_back({instance, v});
    }
    return c;
}

}  // namespace seatmark::orchestrator::pdh
