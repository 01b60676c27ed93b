/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * phase_shift: out[t][j] = g_j exp(-2 pi i phase_j(n)) in[t][j], j = (channel,
 * receiver), n = first_item + t the absolute item index.
 *
 * Memory-bound: each element is read once and written once (16 bytes); the
 * per-(channel, receiver) coefficients (32 bytes) are read once per thread and
 * reused for ITEMS_PER_THREAD items, and stay in L2 (0.8 MB for 256 x 96).
 *
 * Precision: the phase in cycles is evaluated per element from the absolute
 * item index in double (offset + step * n, with step * n - rint(step * n)
 * taken from the exact product by one fma), never accumulated across items; only the reduced
 * fraction in [-0.5, 0.5] goes to float for sincospif, so the phase error is
 * that of one float rounding of a number <= 0.5 (< 2e-7 rad) at any n < 2^53.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_PHASE_SHIFT_CUH
#define INCLUDED_BEAMFORM_KERNELS_PHASE_SHIFT_CUH

#include <common/gpu_portable.h>
#include <cstdint>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

//! Coefficients of one (channel, receiver), struct-of-arrays in device memory.
struct phase_shift_tables {
    const double* offset;  //!< cycles at n = 0, in [-0.5, 0.5]
    const double* step_hi; //!< cycles per item, reduced mod 1
    const double* step_lo; //!< residue of step_hi
    const float2* gain;
};

constexpr int phase_shift_threads = 256;
constexpr int phase_shift_items_per_thread = 8;

__device__ inline float2
phase_shift_phasor(double offset, double step_hi, double step_lo, float2 gain, uint64_t n)
{
    const double nd = double(n); // exact for n < 2^53
    // step_hi * n - rint(step_hi * n) from the exact product, one rounding.
    const double whole = rint(step_hi * nd);
    double x = fma(step_hi, nd, -whole) + fma(step_lo, nd, offset);
    x -= rint(x); // fractional cycles in [-0.5, 0.5]
    float s, c;
    sincospif(2.0f * float(x), &s, &c);
    // g exp(-2 pi i x) = g (c - i s)
    return make_float2(gain.x * c + gain.y * s, gain.y * c - gain.x * s);
}

__device__ inline float2 complex_multiply(float2 a, float2 b)
{
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/*!
 * Grid: x over (channel, receiver) elements of an item (coalesced: consecutive
 * threads, consecutive elements), y over chunks of ITEMS_PER_THREAD items
 * (grid-stride). Loads of a full chunk are issued before any store so that
 * several are in flight per thread.
 */
__global__ void __launch_bounds__(phase_shift_threads)
    phase_shift_kernel(const float2* in,
                       float2* out,
                       phase_shift_tables tables,
                       unsigned n_elements,
                       size_t n_items,
                       uint64_t first_item)
{
    const unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n_elements)
        return;
    const double offset = tables.offset[j];
    const double step_hi = tables.step_hi[j];
    const double step_lo = tables.step_lo[j];
    const float2 gain = tables.gain[j];
    constexpr int K = phase_shift_items_per_thread;
    const size_t n_chunks = (n_items + K - 1) / K;
    for (size_t chunk = blockIdx.y; chunk < n_chunks; chunk += gridDim.y) {
        const size_t t0 = chunk * K;
        if (t0 + K <= n_items) {
            float2 v[K];
#pragma unroll
            for (int k = 0; k < K; k++)
                v[k] = in[(t0 + k) * n_elements + j];
#pragma unroll
            for (int k = 0; k < K; k++) {
                const float2 w = phase_shift_phasor(
                    offset, step_hi, step_lo, gain, first_item + t0 + k);
                out[(t0 + k) * n_elements + j] = complex_multiply(w, v[k]);
            }
        } else {
            for (size_t t = t0; t < n_items; t++) {
                const float2 w =
                    phase_shift_phasor(offset, step_hi, step_lo, gain, first_item + t);
                out[t * n_elements + j] = complex_multiply(w, in[t * n_elements + j]);
            }
        }
    }
}

inline void launch_phase_shift(const float2* in,
                               float2* out,
                               const phase_shift_tables& tables,
                               unsigned n_elements,
                               size_t n_items,
                               uint64_t first_item,
                               gpuStream_t stream)
{
    if (n_items == 0)
        return;
    const unsigned blocks_x =
        (n_elements + phase_shift_threads - 1) / phase_shift_threads;
    const size_t chunks =
        (n_items + phase_shift_items_per_thread - 1) / phase_shift_items_per_thread;
    const unsigned blocks_y = unsigned(chunks < 65535 ? chunks : 65535);
    phase_shift_kernel<<<dim3(blocks_x, blocks_y), phase_shift_threads, 0, stream>>>(
        in, out, tables, n_elements, n_items, first_item);
    BF_GPU_CHECK_LAUNCH("phase_shift_kernel");
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
