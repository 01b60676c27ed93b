/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * convert: complex integer/float samples -> scaled fc32. Pure streaming: each
 * thread converts one complex sample, so loads and stores are coalesced and the
 * kernel runs at memory bandwidth.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_CONVERT_CUH
#define INCLUDED_BEAMFORM_KERNELS_CONVERT_CUH

#include <common/gpu_portable.h>
#include <cstdint>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

template <typename T>
__global__ void convert_kernel(const T* __restrict__ in,
                               float2* __restrict__ out,
                               const float* __restrict__ scale,
                               unsigned n_receivers,
                               size_t n_samples)
{
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n_samples;
         i += stride) {
        const float s = scale[i % n_receivers];
        out[i] = make_float2(s * float(in[2 * i]), s * float(in[2 * i + 1]));
    }
}

template <typename T>
void launch_convert(const T* in,
                    float2* out,
                    const float* scale,
                    unsigned n_receivers,
                    size_t n_samples,
                    gpuStream_t stream)
{
    if (n_samples == 0)
        return;
    const unsigned threads = 256;
    const size_t wanted = (n_samples + threads - 1) / threads;
    const unsigned blocks = unsigned(wanted < 65536 ? wanted : 65536);
    convert_kernel<T><<<blocks, threads, 0, stream>>>(in, out, scale, n_receivers, n_samples);
    BF_GPU_CHECK_LAUNCH("convert_kernel");
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
