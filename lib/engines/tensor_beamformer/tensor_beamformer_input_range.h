/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The float16 range check of a GPU tensor beamformer's fc32 input
 * (kernels/gpu/float16_range.cuh), shared by the CUDA and HIP engines: counts
 * accumulate on the device, and each execute() copies them to pinned host
 * memory in stream order, into one of two slots in turn, so that the caller
 * reads them without waiting for the GPU.
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_INPUT_RANGE_H
#define INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_INPUT_RANGE_H

#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gpu/float16_range.cuh>
#include <algorithm>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

class tb_input_range
{
public:
    explicit tb_input_range(const device_spec& dev)
        : d_counts(dev, 2 * sizeof(unsigned long long)),
          d_host(dev.kind, 4 * sizeof(unsigned long long))
    {
        auto* host = d_host.as<unsigned long long>();
        std::fill(host, host + 4, 0ull);
        BF_GPU_CHECK(gpuMemsetAsync(d_counts.get(), 0, d_counts.size(), nullptr));
        BF_GPU_CHECK(gpuStreamSynchronize(nullptr));
    }

    //! Count \p n_complex fc32 values at \p in, on \p s.
    void count(const void* in, size_t n_complex, gpuStream_t s)
    {
        const int threads = 256;
        const size_t blocks = std::min<size_t>((n_complex + threads - 1) / threads, 1024);
        auto* counts = d_counts.as<unsigned long long>();
        float16_range_kernel<<<unsigned(blocks), threads, 0, s>>>(
            static_cast<const float2*>(in), n_complex, counts);
        BF_GPU_CHECK_LAUNCH("float16_range_kernel");
        publish(s);
    }

    //! The device counters ([0] overflows, [1] underflows), for a kernel that
    //! counts while it reads the input for another purpose; publish() after it.
    unsigned long long* device_counts() { return d_counts.as<unsigned long long>(); }

    //! Copy the counts to the host in stream order on \p s (one execute()).
    void publish(gpuStream_t s)
    {
        BF_GPU_CHECK(gpuMemcpyAsync(d_host.as<unsigned long long>() + 2 * (d_calls % 2),
                                    d_counts.get(),
                                    d_counts.size(),
                                    gpuMemcpyDeviceToHost,
                                    s));
        d_calls++;
    }

    //! Totals as of the call before the latest (the caller has waited for it),
    //! or of the latest (\p include_latest: the caller has synchronized).
    float16_range_counts totals(bool include_latest) const
    {
        const uint64_t known = include_latest ? d_calls : (d_calls > 0 ? d_calls - 1 : 0);
        if (known == 0)
            return {};
        const auto* slot = d_host.as<const unsigned long long>() + 2 * ((known - 1) % 2);
        float16_range_counts t;
        t.overflow = slot[0];
        t.underflow = slot[1];
        return t;
    }

private:
    device_memory d_counts;
    pinned_memory d_host;
    uint64_t d_calls = 0;
};

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
