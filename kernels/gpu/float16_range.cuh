/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Counts, over float values in device memory, those that float16 rounds to
 * inf (finite, |x| >= 65520) and to 0 (0 < |x| <= 2^-25): the device side of
 * count_float16_range (lib/engines/tensor_beamformer/tensor_beamformer_range.cc,
 * same thresholds). Included by the tensor beamformer's GPU engines.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_FLOAT16_RANGE_CUH
#define INCLUDED_BEAMFORM_KERNELS_FLOAT16_RANGE_CUH

#include <common/gpu_portable.h>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

//! The smallest magnitude float16 rounds to inf, the largest it rounds to 0.
constexpr float float16_overflow_from = 65520.0f;
constexpr float float16_underflow_to = 2.98023223876953125e-8f; // 2^-25

__device__ inline void float16_range_count(float x,
                                           unsigned long long& over,
                                           unsigned long long& under)
{
    const float m = fabsf(x);
    // inf and NaN stay what they are
    over += (m >= float16_overflow_from && m <= 3.402823466e38f) ? 1 : 0;
    under += (m > 0.0f && m <= float16_underflow_to) ? 1 : 0;
}

//! counts[0] += values rounded to inf, counts[1] += values rounded to 0, over
//! n_pairs float2 (8-byte aligned). Atomics only where something was found.
//! (A template: several translation units include it.)
template <typename Pair = float2>
__global__ void
float16_range_kernel(const Pair* x, size_t n_pairs, unsigned long long* counts)
{
    unsigned long long over = 0, under = 0;
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n_pairs; i += stride) {
        const Pair v = x[i];
        float16_range_count(v.x, over, under);
        float16_range_count(v.y, over, under);
    }
    if (over)
        atomicAdd(&counts[0], over);
    if (under)
        atomicAdd(&counts[1], under);
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
