/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The float16 range check of a GPU tensor beamformer's fc32 input
 * (kernels/gpu/float16_range.cuh), shared by the CUDA and HIP engines. Each
 * execute() counts into one of `slots` device counter pairs in turn and copies
 * that pair to pinned host memory on a stream of its own, behind an event of
 * the caller's stream (in stream order there it sat between one call's kernel
 * and the next: 3-10 us a call, apps/beamform_bench.md). The host takes each
 * copy in once it has completed, in call order, without waiting.
 *
 * Why slots: a call's kernel may add to a pair only after the copy that last
 * read it. With one pair that was the previous call's copy, and device ->
 * host copies share the copy engine in order: behind a block's large copies of
 * its output to the host, it held every beamformer kernel back until the
 * previous output had left (apps/station_bench.md, version 31). With `slots`
 * pairs the kernel waits for the copy of `slots` calls ago, long done.
 * A pair's counts are cumulative over the calls that use it, so a call's own
 * counts are its copy minus the slot's copy before it.
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_INPUT_RANGE_H
#define INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_INPUT_RANGE_H

#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gpu/float16_range.cuh>
#include <algorithm>
#include <array>
#include <memory>
#include <mutex>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

class tb_input_range
{
public:
    explicit tb_input_range(const device_spec& dev)
        : d_counts(dev, 2 * slots * sizeof(unsigned long long)),
          d_host(dev.kind, 2 * slots * sizeof(unsigned long long)),
          d_copy_stream(dev),
          d_counted(dev, gpu_event::use::ordering)
    {
        auto* host = d_host.as<unsigned long long>();
        std::fill(host, host + 2 * slots, 0ull);
        for (auto& e : d_copied)
            e = std::make_unique<gpu_event>(dev, gpu_event::use::ordering);
        BF_GPU_CHECK(gpuMemsetAsync(d_counts.get(), 0, d_counts.size(), nullptr));
        BF_GPU_CHECK(gpuStreamSynchronize(nullptr));
    }
    ~tb_input_range()
    {
        try { // a copy may still write into d_host
            d_copy_stream.synchronize();
        } catch (...) {
        }
    }
    tb_input_range(const tb_input_range&) = delete;
    tb_input_range& operator=(const tb_input_range&) = delete;

    //! Count \p n_complex fc32 values at \p in, on \p s.
    void count(const void* in, size_t n_complex, gpuStream_t s)
    {
        const int threads = 256;
        const size_t blocks = std::min<size_t>((n_complex + threads - 1) / threads, 1024);
        float16_range_kernel<<<unsigned(blocks), threads, 0, s>>>(
            static_cast<const float2*>(in), n_complex, device_counts(s));
        BF_GPU_CHECK_LAUNCH("float16_range_kernel");
        publish(s);
    }

    //! This call's device counters ([0] overflows, [1] underflows), for a
    //! kernel about to be enqueued on \p s that counts while it reads the
    //! input for another purpose; publish() after it. \p s first waits for
    //! the copy that last read them, `slots` calls ago (no stall).
    unsigned long long* device_counts(gpuStream_t s)
    {
        const uint64_t slot = d_calls % slots;
        if (d_calls >= slots)
            d_copied[slot]->make_wait(s);
        return d_counts.as<unsigned long long>() + 2 * slot;
    }

    //! Copy this call's counters to the host once the work enqueued on \p s
    //! so far (one execute()) has run, without holding \p s up.
    void publish(gpuStream_t s)
    {
        const uint64_t slot = d_calls % slots;
        std::lock_guard<std::mutex> lock(d_mutex);
        // The host slot still holds the copy of `slots` calls ago: take it in
        // first (waits only where the copies lag that far behind).
        if (d_calls >= slots && d_taken <= d_calls - slots) {
            d_copied[slot]->synchronize();
            take_until(d_calls - slots + 1);
        }
        d_counted.record(s);
        d_counted.make_wait(d_copy_stream.get());
        BF_GPU_CHECK(gpuMemcpyAsync(d_host.as<unsigned long long>() + 2 * slot,
                                    d_counts.as<unsigned long long>() + 2 * slot,
                                    2 * sizeof(unsigned long long),
                                    gpuMemcpyDeviceToHost,
                                    static_cast<gpuStream_t>(d_copy_stream.get())));
        d_copied[slot]->record(d_copy_stream.get());
        d_calls++;
    }

    /*!
     * Totals over the calls whose copies have completed, in call order (the
     * host does not wait); with \p include_latest over every call (the
     * caller has synchronized its stream; this waits for the latest copy,
     * microseconds behind).
     */
    float16_range_counts totals(bool include_latest) const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        if (include_latest && d_calls > 0) {
            d_copied[(d_calls - 1) % slots]->synchronize();
            take_until(d_calls);
        }
        // Copies complete in call order (one stream).
        while (d_taken < d_calls && d_copied[d_taken % slots]->completed())
            take_until(d_taken + 1);
        return d_total;
    }

private:
    //! Adds the counts of calls [d_taken, \p end), whose copies have completed.
    void take_until(uint64_t end) const
    {
        const auto* host = d_host.as<const unsigned long long>();
        for (; d_taken < end; d_taken++) {
            const uint64_t slot = d_taken % slots;
            d_total.overflow += host[2 * slot] - d_last[slot].overflow;
            d_total.underflow += host[2 * slot + 1] - d_last[slot].underflow;
            d_last[slot].overflow = host[2 * slot];
            d_last[slot].underflow = host[2 * slot + 1];
        }
    }

    //! Calls between a pair's copy and the next kernel that adds to it.
    static constexpr uint64_t slots = 8;
    device_memory d_counts; //!< slots x (overflows, underflows), cumulative per slot
    pinned_memory d_host;   //!< each slot's latest copy
    gpu_stream d_copy_stream;
    gpu_event d_counted; //!< recorded on the caller's stream
    std::array<std::unique_ptr<gpu_event>, slots> d_copied; //!< one per slot
    uint64_t d_calls = 0;
    mutable std::mutex d_mutex;
    mutable uint64_t d_taken = 0; //!< calls whose counts are in d_total
    mutable float16_range_counts d_total;
    mutable std::array<float16_range_counts, slots> d_last{}; //!< per slot, as taken
};

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
