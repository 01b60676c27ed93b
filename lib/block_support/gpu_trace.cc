/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "gpu_trace.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>

namespace gr {
namespace beamform {

namespace {
using interval = std::pair<double, double>; // ms after the reference event

// The spans of the traces alive (one flowgraph's blocks), for the union.
std::mutex g_mutex;
std::map<const gpu_trace*, std::vector<interval>> g_spans;

//! A timing event recorded once per process: the zero of every span.
const gpu_event& reference(const device_spec& dev)
{
    static gpu_event ref(dev);
    static std::once_flag once;
    std::call_once(once, [&] { ref.record(nullptr); });
    return ref;
}

double busy_ms(std::vector<interval> spans)
{
    std::sort(spans.begin(), spans.end());
    double busy = 0, open = -1, close = -1;
    for (const auto& [a, b] : spans) {
        if (a > close) {
            busy += close - open;
            open = a;
        }
        close = std::max(close, b);
    }
    return busy + (close - open);
}
} // namespace

gpu_trace::gpu_trace(const device_spec& dev) : d_device(dev)
{
    if (enabled())
        reference(dev);
}

gpu_trace::~gpu_trace()
{
    std::lock_guard<std::mutex> lock(g_mutex);
    g_spans.erase(this);
}

bool gpu_trace::enabled()
{
    static const bool on = [] {
        const char* v = std::getenv("BEAMFORM_GPU_TRACE");
        return v && *v && std::string(v) != "0";
    }();
    return on;
}

void gpu_trace::start(stream_handle s)
{
    if (!enabled())
        return;
    std::lock_guard<std::mutex> lock(d_mutex);
    d_spans.push_back({ std::make_unique<gpu_event>(d_device), std::make_unique<gpu_event>(d_device) });
    d_spans.back().start->record(s);
}

void gpu_trace::end(stream_handle s)
{
    if (!enabled())
        return;
    std::lock_guard<std::mutex> lock(d_mutex);
    d_spans.back().end->record(s);
}

std::string gpu_trace::report(const std::string& name)
{
    if (!enabled())
        return "";
    std::vector<interval> mine;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        const gpu_event& ref = reference(d_device);
        for (const auto& sp : d_spans)
            mine.emplace_back(sp.start->ms_since(ref), sp.end->ms_since(ref));
    }
    std::lock_guard<std::mutex> lock(g_mutex);
    g_spans[this] = mine;
    std::vector<interval> all;
    for (const auto& [trace, spans] : g_spans)
        all.insert(all.end(), spans.begin(), spans.end());
    double first = 1e300, last = -1e300;
    for (const auto& [a, b] : all) {
        first = std::min(first, a);
        last = std::max(last, b);
    }
    char line[320];
    std::snprintf(line,
                  sizeof line,
                  "GPU trace %s: %zu spans, busy %.3f ms; all traced spans so far: busy %.3f "
                  "ms of %.3f ms from first start to last end (%.0f %%)",
                  name.c_str(),
                  mine.size(),
                  mine.empty() ? 0.0 : busy_ms(mine),
                  all.empty() ? 0.0 : busy_ms(all),
                  all.empty() ? 0.0 : last - first,
                  all.empty() ? 0.0 : 100.0 * busy_ms(all) / (last - first));
    return line;
}

} // namespace beamform
} // namespace gr
