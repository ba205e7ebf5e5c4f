// The live GPU counters through PDH (pdh.dll), the way Task Manager's per-process GPU columns
// read them. English counter names (PdhAddEnglishCounter) so a German or Japanese Windows works.
#include <windows.h>
#include <pdh.h>
#include <pdhmsg.h>

#include <vector>

#include "common/win_text.h"
#include "orchestrator/gpu_pdh.h"

namespace seatmark::orchestrator::pdh {

namespace {

std::string pdh_text(PDH_STATUS s) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08lX", static_cast<unsigned long>(s));
    return buf;
}

class PdhSampler final : public GpuSampler {
public:
    PdhSampler(PDH_HQUERY q, PDH_HCOUNTER eng, PDH_HCOUNTER ded, PDH_HCOUNTER sha)
        : query_(q), engine_(eng), dedicated_(ded), shared_(sha) {}
    ~PdhSampler() override { PdhCloseQuery(query_); }
    std::string_view source() const override { return "pdh"; }

    GpuSnapshot sample(int64_t t_ns, const std::vector<GpuClient>& clients) override {
        GpuCounters c;
        std::vector<std::string> errors;
        const PDH_STATUS st = PdhCollectQueryData(query_);
        if (st != ERROR_SUCCESS) errors.push_back("PdhCollectQueryData failed: " + pdh_text(st));
        read(engine_, c.engine_utilization, errors);
        read(dedicated_, c.dedicated_bytes, errors);
        read(shared_, c.shared_bytes, errors);
        GpuSnapshot snap = to_snapshot(attribute(c), t_ns, clients);
        snap.errors.insert(snap.errors.end(), errors.begin(), errors.end());
        return snap;
    }

private:
    // Every instance of a wildcard counter. A rate counter has no value before its second
    // collection (PDH_CSTATUS_INVALID_DATA per item): those items are skipped, not zeros.
    static void read(PDH_HCOUNTER counter, std::vector<CounterValue>& out, std::vector<std::string>& errors) {
        DWORD bytes = 0, count = 0;
        PDH_STATUS st = PdhGetFormattedCounterArrayW(counter, PDH_FMT_DOUBLE, &bytes, &count, nullptr);
        if (st == PDH_STATUS(PDH_CSTATUS_INVALID_DATA) || count == 0) return;
        if (st != PDH_STATUS(PDH_MORE_DATA)) {
            errors.push_back("PdhGetFormattedCounterArray failed: " + pdh_text(st));
            return;
        }
        std::vector<unsigned char> buf(bytes);
        auto* items = reinterpret_cast<PDH_FMT_COUNTERVALUE_ITEM_W*>(buf.data());
        st = PdhGetFormattedCounterArrayW(counter, PDH_FMT_DOUBLE, &bytes, &count, items);
        if (st != ERROR_SUCCESS) return;
        for (DWORD i = 0; i < count; ++i)
            if (items[i].FmtValue.CStatus == PDH_CSTATUS_VALID_DATA || items[i].FmtValue.CStatus == PDH_CSTATUS_NEW_DATA)
                out.push_back({utf8(items[i].szName), items[i].FmtValue.doubleValue});
    }

    PDH_HQUERY query_;
    PDH_HCOUNTER engine_, dedicated_, shared_;
};

}  // namespace

PdhOpen open_pdh() {
    PdhOpen o;
    o.status.name = "pdh";
    PDH_HQUERY q = nullptr;
    PDH_STATUS st = PdhOpenQueryW(nullptr, 0, &q);
    if (st != ERROR_SUCCESS) {
        o.status.detail = "not available: PdhOpenQuery failed (" + pdh_text(st) + ")";
        return o;
    }
    PDH_HCOUNTER eng = nullptr, ded = nullptr, sha = nullptr;
    struct {
        const wchar_t* path;
        PDH_HCOUNTER* out;
    } wanted[] = {{L"\\GPU Engine(*)\\Utilization Percentage", &eng},
                  {L"\\GPU Process Memory(*)\\Dedicated Usage", &ded},
                  {L"\\GPU Process Memory(*)\\Shared Usage", &sha}};
    for (auto& w : wanted) {
        st = PdhAddEnglishCounterW(q, w.path, 0, w.out);
        if (st != ERROR_SUCCESS) {
            PdhCloseQuery(q);
            o.status.detail = "not available: no counter " + utf8(w.path) + " (" + pdh_text(st) +
                              "); it needs Windows 10 1709+ with a WDDM 2.x GPU driver";
            return o;
        }
    }
    PdhCollectQueryData(q);  // the first collection: rates have a value from the next one on
    o.sampler = std::make_unique<PdhSampler>(q, eng, ded, sha);
    o.status.available = true;
    o.status.detail = "per-process GPU engine use and memory from the GPU Engine and GPU Process Memory counters";
    return o;
}

}  // namespace seatmark::orchestrator::pdh
