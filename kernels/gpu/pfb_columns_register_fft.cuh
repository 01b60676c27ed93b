/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pass 2 of the two-pass channelizer (pfb_two_pass.cuh) with the FFT in
 * registers (pfb_register_fft_rows of pfb_tiled_register_fft.cuh), for one
 * compile-time N = 2^LOG2_N.
 *
 * Why: the tiled kernels read every input sample (S + T - 1) / S times from
 * L2 because one SM's shared memory holds only S RB rows of N; at N = 1024
 * that is 3.5 reads per sample and the FIR phase alone takes longer than the
 * whole call may (apps/channelizer_bench.md, versions 9 and 10). Pass 1 reads
 * each sample once, in whole sectors; this pass then needs no FIR state at
 * all, so its tile is one FFT pass of rows (S steps x RB receivers, loaded as
 * runs of RB consecutive receivers from columns[pos][t][r]) and two blocks
 * share an SM: one block's loads run beside the other's FFT and store.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_PFB_COLUMNS_REGISTER_FFT_CUH
#define INCLUDED_BEAMFORM_KERNELS_PFB_COLUMNS_REGISTER_FFT_CUH

#include <gpu/async_copy.cuh>
#include <gpu/pfb_tiled_register_fft.cuh>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

constexpr int pfb_columns_register_fft_threads = 256;

//! Rows of one tile: one pass of pfb_register_fft_rows over the block.
constexpr int pfb_columns_register_fft_rows(int log2_n)
{
    return pfb_columns_register_fft_threads / pfb_fft::register_fft_b(log2_n);
}

/*!
 * Grid: any number of blocks; block b takes tiles b, b + gridDim.x, ... of
 * (S = rows / RB steps) x (RB receivers) of the chunk of \p n_steps steps
 * that starts at local step \p t_first. Dynamic shared memory: N twiddles +
 * rows x (N + 1) values.
 */
template <int LOG2_N, int RB>
__global__ void __launch_bounds__(pfb_columns_register_fft_threads, 2)
    pfb_columns_register_fft_kernel(const float2* __restrict__ columns,
                                    const float2* __restrict__ twiddle_table,
                                    float2* __restrict__ out,
                                    pfb_geometry g,
                                    long long t_first,
                                    long long n_steps)
{
    constexpr int threads = pfb_columns_register_fft_threads;
    constexpr int n = 1 << LOG2_N;
    constexpr int rows_per_tile = pfb_columns_register_fft_rows(LOG2_N);
    constexpr int S = rows_per_tile / RB;
    static_assert(S >= 1 && S * RB == rows_per_tile, "RB divides the tile's rows");
    static_assert((RB & (RB - 1)) == 0 && threads % RB == 0, "RB a power of two");
    constexpr int per_thread = n * rows_per_tile / threads; // loads per thread and tile
    static_assert(per_thread * threads == n * rows_per_tile, "whole loads per thread");
    extern __shared__ float2 pfb_smem[];
#ifdef BF_GPU_EMULATION
    if (g.log2_n != LOG2_N)
        throw std::logic_error("pfb_columns_register_fft_kernel: built for another N");
#endif
    const int ld = pfb_fft::row_stride(n);
    float2* twiddle = pfb_smem;
    float2* rows = twiddle + n; // row s RB + rr: step s of the tile, receiver rr
    for (int k = threadIdx.x; k < n; k += threads)
        twiddle[k] = twiddle_table[k];

    const int n_receivers = g.n_receivers;
    const long long groups = (n_receivers + RB - 1) / RB;
    const long long work = groups * ((n_steps + S - 1) / S);
    const long long column_stride = n_steps * n_receivers;
    for (long long w = blockIdx.x; w < work; w += gridDim.x) {
        const int r_first = int(w % groups) * RB;
        const long long u0 = (w / groups) * S; // chunk-local step of row 0
        const int steps = int(min((long long)S, n_steps - u0));
        // Element e = (pos, s, rr), rr fastest: a warp reads runs of RB
        // consecutive receivers. All of a tile's copies are in flight at
        // once: batches of 8 loads through registers were 3 % slower at N =
        // 1024 (apps/channelizer_bench.md, version 13).
#pragma unroll 8
        for (int i = 0; i < per_thread; i++) {
            const int e = int(threadIdx.x) + i * threads;
            const int rr = e % RB;
            const int s = (e / RB) % S;
            const int pos = e / rows_per_tile;
            const bool live = s < steps && r_first + rr < n_receivers;
            const float2* src = live ? columns + pos * column_stride +
                                           (u0 + s) * n_receivers + r_first + rr
                                     : columns;
            async_copy<8>(rows + (e % rows_per_tile) * ld + pos, src, live);
        }
        async_copy_wait_all();
        __syncthreads(); // and the twiddles, on the first tile
        pfb_register_fft_rows<LOG2_N>(rows, twiddle, rows_per_tile, ld, int(threadIdx.x), threads);
        __syncthreads();
        pfb_tiled_store_n<RB, LOG2_N, threads>(
            rows, ld, out, g, r_first, t_first + u0, steps, int(threadIdx.x));
        __syncthreads(); // the next tile's loads rewrite the rows
    }
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
