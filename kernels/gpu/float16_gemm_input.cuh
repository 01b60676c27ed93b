/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The input pass of the tensor beamformer's library voltage path: fc32
 * complex rows ([time][channel] rows of n_receivers samples) -> fp16 rows of
 * ld_cols complex values (interleaved re, im halves, round to nearest even;
 * the columns past n_cols are 0), the GEMM's B operand. It counts what
 * float16 rounds to inf or 0 as it reads (float16_range.cuh), so the library
 * path reads its input once. Memory-bound streaming, coalesced. X/Y pairs
 * become two planes per row (X, then Y) for the streamed X/Y kernel's "+pass".
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_FLOAT16_GEMM_INPUT_CUH
#define INCLUDED_BEAMFORM_KERNELS_FLOAT16_GEMM_INPUT_CUH

#include <common/gpu_portable.h>
#include <gpu/float16_range.cuh>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

//! Two complex fp16 values: one 8-byte store.
struct alignas(8) half2_pair {
    __half2 a, b;
};

__device__ inline void float16_range_flush(unsigned long long over,
                                           unsigned long long under,
                                           unsigned long long* counts)
{
    if (over)
        atomicAdd(&counts[0], over);
    if (under)
        atomicAdd(&counts[1], under);
}

//! Rows with padding (ld_cols > n_cols): one complex value per thread.
static __global__ void fc32_to_fp16_rows_kernel(const float2* __restrict__ in,
                                                __half2* __restrict__ out,
                                                size_t n_rows,
                                                unsigned n_cols,
                                                unsigned ld_cols,
                                                unsigned long long* counts)
{
    unsigned long long over = 0, under = 0;
    const size_t n = n_rows * ld_cols;
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const size_t row = i / ld_cols;
        const unsigned col = unsigned(i - row * ld_cols);
        float2 v = make_float2(0.0f, 0.0f);
        if (col < n_cols) {
            v = in[row * n_cols + col];
            float16_range_count(v.x, over, under);
            float16_range_count(v.y, over, under);
        }
        out[i] = __floats2half2_rn(v.x, v.y);
    }
    float16_range_flush(over, under, counts);
}

//! No padding (ld_cols == n_cols, an even number of values): two complex
//! values per thread (16-byte loads, 8-byte stores).
static __global__ void fc32_to_fp16_flat_kernel(const float4* __restrict__ in,
                                                half2_pair* __restrict__ out,
                                                size_t n_pairs,
                                                unsigned long long* counts)
{
    unsigned long long over = 0, under = 0;
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n_pairs;
         i += stride) {
        const float4 v = in[i];
        float16_range_count(v.x, over, under);
        float16_range_count(v.y, over, under);
        float16_range_count(v.z, over, under);
        float16_range_count(v.w, over, under);
        half2_pair h;
        h.a = __floats2half2_rn(v.x, v.y);
        h.b = __floats2half2_rn(v.z, v.w);
        out[i] = h;
    }
    float16_range_flush(over, under, counts);
}

/*!
 * X/Y pairs: fc32 rows of n_ant antennas (X, Y interleaved) -> fp16 rows of
 * two planes, X then Y, of ld_ant complex values each (zeros past n_ant), so
 * that TMA reads one polarization's k tile as a box. One antenna per thread
 * (a 16-byte load, two 4-byte stores).
 */
static __global__ void fc32_xy_to_fp16_planes_kernel(const float4* __restrict__ in,
                                                     __half2* __restrict__ out,
                                                     size_t n_rows,
                                                     unsigned n_ant,
                                                     unsigned ld_ant,
                                                     unsigned long long* counts)
{
    unsigned long long over = 0, under = 0;
    const size_t n = n_rows * ld_ant;
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const size_t row = i / ld_ant;
        const unsigned a = unsigned(i - row * ld_ant);
        float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (a < n_ant) {
            v = in[row * n_ant + a];
            float16_range_count(v.x, over, under);
            float16_range_count(v.y, over, under);
            float16_range_count(v.z, over, under);
            float16_range_count(v.w, over, under);
        }
        __half2* const x = out + 2 * row * ld_ant + a;
        x[0] = __floats2half2_rn(v.x, v.y);
        x[ld_ant] = __floats2half2_rn(v.z, v.w);
    }
    float16_range_flush(over, under, counts);
}

//! How the pass is launched: the flat kernel where rows carry no padding, the
//! input is 16-byte aligned and the number of values even; else the row kernel.
struct fc32_to_fp16_plan {
    static constexpr unsigned threads = 256;
    bool flat = false;
    size_t work = 0; //!< flat: pairs of complex values; rows: complex values
    unsigned blocks = 0;
};

inline fc32_to_fp16_plan
plan_fc32_to_fp16(const void* in, size_t n_rows, unsigned n_cols, unsigned ld_cols)
{
    fc32_to_fp16_plan p;
    const size_t n_complex = n_rows * ld_cols;
    p.flat = ld_cols == n_cols && n_complex % 2 == 0 &&
             reinterpret_cast<uintptr_t>(in) % 16 == 0;
    p.work = p.flat ? n_complex / 2 : n_complex;
    const size_t wanted = (p.work + p.threads - 1) / p.threads;
    p.blocks = unsigned(wanted < 65536 ? wanted : 65536);
    return p;
}

#ifndef BF_GPU_EMULATION
/*!
 * fc32 [n_rows][n_cols] complex at \p in (8-byte aligned)
 * -> fp16 [n_rows][ld_cols] complex at \p out (8-byte aligned), on \p stream;
 * counts[0] += values rounded to inf, counts[1] += nonzero values rounded to 0.
 */
inline void launch_fc32_to_fp16_rows(const void* in,
                                     void* out,
                                     size_t n_rows,
                                     unsigned n_cols,
                                     unsigned ld_cols,
                                     unsigned long long* counts,
                                     gpuStream_t stream)
{
    const auto p = plan_fc32_to_fp16(in, n_rows, n_cols, ld_cols);
    if (p.work == 0)
        return;
    if (p.flat)
        fc32_to_fp16_flat_kernel<<<p.blocks, p.threads, 0, stream>>>(
            static_cast<const float4*>(in),
            static_cast<half2_pair*>(out),
            p.work,
            counts);
    else
        fc32_to_fp16_rows_kernel<<<p.blocks, p.threads, 0, stream>>>(
            static_cast<const float2*>(in),
            static_cast<__half2*>(out),
            n_rows,
            n_cols,
            ld_cols,
            counts);
    BF_GPU_CHECK_LAUNCH("fc32_to_fp16_rows");
}

/*!
 * X/Y pairs: fc32 [n_rows][n_ant][2] complex at \p in (16-byte aligned) ->
 * fp16 [n_rows][2][ld_ant] complex at \p out (fc32_xy_to_fp16_planes_kernel);
 * counts as launch_fc32_to_fp16_rows.
 */
inline void launch_fc32_xy_to_fp16_planes(const void* in,
                                          void* out,
                                          size_t n_rows,
                                          unsigned n_ant,
                                          unsigned ld_ant,
                                          unsigned long long* counts,
                                          gpuStream_t stream)
{
    const size_t work = n_rows * ld_ant;
    if (work == 0)
        return;
    constexpr unsigned threads = fc32_to_fp16_plan::threads;
    const size_t wanted = (work + threads - 1) / threads;
    fc32_xy_to_fp16_planes_kernel<<<unsigned(wanted < 65536 ? wanted : 65536),
                                    threads,
                                    0,
                                    stream>>>(static_cast<const float4*>(in),
                                              static_cast<__half2*>(out),
                                              n_rows,
                                              n_ant,
                                              ld_ant,
                                              counts);
    BF_GPU_CHECK_LAUNCH("fc32_xy_to_fp16_planes");
}
#endif

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
