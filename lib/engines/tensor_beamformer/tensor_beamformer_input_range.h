/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The float16 range check of a GPU tensor beamformer's fc32 input
 * (kernels/gpu/float16_range.cuh), shared by the CUDA and HIP engines: counts
 * accumulate on the device, and each execute() copies them to pinned host
 * memory, into one of three slots in turn, so that the caller reads them
 * without waiting for the GPU. The copy runs on a stream of its own, behind an
 * event of the caller's stream: in stream order on the caller's stream it sat
 * between one call's kernel and the next (3-10 us a call,
 * apps/beamform_bench.md).
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_INPUT_RANGE_H
#define INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_INPUT_RANGE_H

#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gpu/float16_range.cuh>
#include <algorithm>
#include <array>
#include <memory>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

class tb_input_range
{
public:
    explicit tb_input_range(const device_spec& dev)
        : d_counts(dev, 2 * sizeof(unsigned long long)),
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

    //! The device counters ([0] overflows, [1] underflows), for a kernel about
    //! to be enqueued on \p s that counts while it reads the input for another
    //! purpose; publish() after it. \p s first waits for the previous call's
    //! copy of them (done long since: no stall).
    unsigned long long* device_counts(gpuStream_t s)
    {
        if (d_calls > 0)
            d_copied[(d_calls - 1) % slots]->make_wait(s);
        return d_counts.as<unsigned long long>();
    }

    //! Copy the counts to the host once the work enqueued on \p s so far (one
    //! execute()) has run, without holding \p s up.
    void publish(gpuStream_t s)
    {
        d_counted.record(s);
        d_counted.make_wait(d_copy_stream.get());
        BF_GPU_CHECK(
            gpuMemcpyAsync(d_host.as<unsigned long long>() + 2 * (d_calls % slots),
                           d_counts.get(),
                           d_counts.size(),
                           gpuMemcpyDeviceToHost,
                           static_cast<gpuStream_t>(d_copy_stream.get())));
        d_copied[d_calls % slots]->record(d_copy_stream.get());
        d_calls++;
    }

    /*!
     * Totals as of the call two before the latest, whose copy is known complete
     * once the caller has waited for the call before the latest (that call's
     * stream waited for it); or of the latest (\p include_latest: the caller
     * has synchronized, and this waits for the latest copy, microseconds behind).
     */
    float16_range_counts totals(bool include_latest) const
    {
        uint64_t known = d_calls > 2 ? d_calls - 2 : 0;
        if (include_latest && d_calls > 0) {
            known = d_calls;
            d_copied[(known - 1) % slots]->synchronize();
        }
        if (known == 0)
            return {};
        const auto* slot =
            d_host.as<const unsigned long long>() + 2 * ((known - 1) % slots);
        float16_range_counts t;
        t.overflow = slot[0];
        t.underflow = slot[1];
        return t;
    }

private:
    //! The latest copy may run, and so may the one before it (above).
    static constexpr uint64_t slots = 3;
    device_memory d_counts;
    pinned_memory d_host;
    gpu_stream d_copy_stream;
    gpu_event d_counted; //!< recorded on the caller's stream
    std::array<std::unique_ptr<gpu_event>, slots> d_copied; //!< one per slot
    uint64_t d_calls = 0;
};

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
