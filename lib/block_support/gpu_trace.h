/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_BLOCK_SUPPORT_GPU_TRACE_H
#define INCLUDED_BEAMFORM_BLOCK_SUPPORT_GPU_TRACE_H

#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gr {
namespace beamform {

/*!
 * \brief Where a GPU flowgraph's GPU time goes: with BEAMFORM_GPU_TRACE=1 in the
 * environment, every span of work a block or buffer enqueues (kernels, copies)
 * is bracketed by timing events, and at the end of the flowgraph each block
 * prints to stderr its GPU busy time and the busy time of all spans of
 * the process so far (their union) over the time from the first start to the
 * last end. The idle remainder is time the GPU waited for the host.
 * Off (the default), a trace costs one branch per span.
 */
class gpu_trace
{
public:
    explicit gpu_trace(const device_spec& dev);
    ~gpu_trace();
    static bool enabled();

    //! Enqueue the start / end of one span on \p s (start, then end, in turn).
    void start(stream_handle s);
    void end(stream_handle s);
    //! The summary line for \p name (waits for the recorded events).
    std::string report(const std::string& name);

private:
    struct span {
        std::unique_ptr<gpu_event> start, end;
    };
    device_spec d_device;
    std::vector<span> d_spans;
    std::mutex d_mutex;
};

} // namespace beamform
} // namespace gr

#endif
