/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tiled channelizer (pfb_tiled.cuh) with its FFT in registers, for one
 * compile-time N = A B (A = 2^ceil(log2 N / 2) >= B, both powers of two).
 *
 * Why: the shared-memory in-place FFT of pfb_tiled_kernel runs log4 N stages,
 * each behind a block barrier and each reading and writing every element of
 * every row. Here a row's B threads sit in one warp: thread j (< B) reads the
 * A points x[B n1 + j] of its row, does an A-point DFT in registers, multiplies
 * by exp(2 pi i j c1 / N), writes Y[j][c1] back to its row (the one exchange,
 * behind __syncwarp only), reads the A / B columns c1 = j + B u and does their
 * B-point DFTs: X[c1 + A c2] (the two-factor decomposition of Cooley and
 * Tukey, 1965). A tile therefore has three block barriers instead of
 * log4 N + 2, and the FFT reads and writes each element of a row twice instead
 * of log4 N times.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_PFB_TILED_REGISTER_FFT_CUH
#define INCLUDED_BEAMFORM_KERNELS_PFB_TILED_REGISTER_FFT_CUH

#include <gpu/pfb_tiled.cuh>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

//! Orders the shared-memory accesses of the threads of one row (one warp).
__device__ __forceinline__ void pfb_row_sync()
{
#ifdef BF_BACKEND_HIP
    __syncthreads(); // portable and correct: every thread calls it equally often
#else
    __syncwarp();
#endif
}

/*!
 * In-place FFT of \p n_rows rows (ld apart, natural order in and out) of
 * length N = 2^LOG2_N, B threads per row. Threads \p thread = 0 ..
 * \p threads - 1 (whole warps, a multiple of 32) of the block call it, each
 * the same number of times (warp-synchronous inside, no block barrier).
 */
template <int LOG2_N>
__device__ __forceinline__ void pfb_register_fft_rows(
    float2* rows, const float2* twiddle, int n_rows, int ld, int thread, int threads)
{
    constexpr int n = 1 << LOG2_N;
    constexpr int a = pfb_fft::register_fft_a(LOG2_N);
    constexpr int b = pfb_fft::register_fft_b(LOG2_N);
    static_assert(a * b == n && a % b == 0 && 32 % b == 0, "N = A B, A >= B, B divides 32");
    const int rows_per_pass = threads / b;
    const int j = thread % b;
    for (int first = 0; first < n_rows; first += rows_per_pass) {
        const int row = first + thread / b;
        const bool active = row < n_rows;
        float2* x = rows + (active ? row : 0) * ld;
        float2 v[a];
        if (active) {
#pragma unroll
            for (int n1 = 0; n1 < a; n1++)
                v[n1] = x[b * n1 + j];
            pfb_fft::register_inverse_dft<a>(v, twiddle, n);
#pragma unroll
            for (int c1 = 1; c1 < a; c1++)
                v[c1] = pfb_fft::cmul(v[c1], twiddle[j * c1]);
        }
        pfb_row_sync(); // the row's reads are done before its writes
        if (active) {
#pragma unroll
            for (int c1 = 0; c1 < a; c1++)
                x[pfb_fft::register_fft_mid_slot(j, c1, b)] = v[c1];
        }
        pfb_row_sync();
        if (active) {
#pragma unroll
            for (int u = 0; u < a / b; u++) {
                float2 z[b];
#pragma unroll
                for (int n2 = 0; n2 < b; n2++)
                    z[n2] = x[pfb_fft::register_fft_mid_slot(n2, j + b * u, b)];
                pfb_fft::register_inverse_dft<b>(z, twiddle, n);
#pragma unroll
                for (int c2 = 0; c2 < b; c2++)
                    v[u * b + c2] = z[c2];
            }
        }
        pfb_row_sync();
        if (active) {
#pragma unroll
            for (int u = 0; u < a / b; u++)
#pragma unroll
                for (int c2 = 0; c2 < b; c2++)
                    x[j + b * u + a * c2] = v[u * b + c2];
        }
    }
}

/*!
 * The second half of a register-FFT tile, after the barrier that ends its FIR:
 * transform its steps x RB rows, store the spectra (pfb_tiled_store_n), and
 * the barrier after which the next tile may rewrite the rows. Every thread of
 * the block (THREADS of them) calls it.
 */
template <int RB, int LOG2_N, int THREADS>
__device__ __forceinline__ void pfb_register_fft_and_store(float2* rows,
                                                           const float2* twiddle,
                                                           int ld,
                                                           float2* __restrict__ out,
                                                           const pfb_geometry& g,
                                                           int r_first,
                                                           long long t0,
                                                           int steps)
{
    pfb_register_fft_rows<LOG2_N>(
        rows, twiddle, steps * RB, ld, int(threadIdx.x), THREADS);
    __syncthreads();
    pfb_tiled_store_n<RB, LOG2_N, THREADS>(
        rows, ld, out, g, r_first, t0, steps, int(threadIdx.x));
    __syncthreads(); // the next tile's FIR rewrites the rows
}

/*!
 * pfb_tiled_kernel with the register FFT; N must be 2^LOG2_N (the plan's
 * shape table says which N an entry serves). Grid, work split and dynamic
 * shared memory as pfb_tiled_kernel's; THREADS per block (a multiple of 32
 * and of RB), MIN_BLOCKS per SM in the launch bound (register budget),
 * HALVES the FIR's pairing of branches p and p + N/2 (pfb_tiled_fir).
 */
template <typename Tin,
          int TMAX,
          int O,
          int S,
          int RB,
          int P,
          int LOG2_N,
          int MIN_BLOCKS,
          int THREADS,
          bool HALVES = false>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    pfb_tiled_register_fft_kernel(pfb_stream<Tin> in,
                                  const float* __restrict__ branch_taps, // [N][TMAX]
                                  const float2* __restrict__ twiddle_table,
                                  float2* __restrict__ out,
                                  pfb_geometry g,
                                  long long tiles_per_group)
{
    static_assert(THREADS % 32 == 0 && THREADS % RB == 0, "whole warps and receiver groups");
    extern __shared__ float2 pfb_smem[];
#ifdef BF_GPU_EMULATION
    if (g.log2_n != LOG2_N)
        throw std::logic_error("pfb_tiled_register_fft_kernel: built for another N");
#endif
    constexpr int n = 1 << LOG2_N;
    const int ld = pfb_fft::row_stride(n);
    float2* twiddle = pfb_smem;
    float2* rows = twiddle + n; // row s RB + rr: step s of the tile, receiver rr
    for (int k = threadIdx.x; k < n; k += blockDim.x)
        twiddle[k] = twiddle_table[k];

    const long long groups = pfb_tiled_groups<RB>(g);
    const long long work = groups * tiles_per_group;
    for (long long w = blockIdx.x; w < work; w += gridDim.x) {
        const int r_first = g.first_receiver + int(w % groups) * RB;
        const long long t0 = (w / groups) * S;
        const int steps = int(min((long long)S, g.n_out - t0));
        // FIR outputs in natural order (the register FFT reads strided).
        pfb_tiled_fir<Tin, TMAX, O, S, RB, P, HALVES>(
            in,
            branch_taps,
            rows,
            ld,
            g,
            r_first,
            t0,
            steps,
            [](int pos) { return pos; },
            int(threadIdx.x),
            THREADS);
        __syncthreads(); // and the twiddles, on the first tile
        pfb_register_fft_and_store<RB, LOG2_N, THREADS>(
            rows, twiddle, ld, out, g, r_first, t0, steps);
    }
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
