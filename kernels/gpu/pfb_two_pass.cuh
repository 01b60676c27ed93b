/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The channelizer in two coalesced passes (CUDA and HIP; notation of
 * pfb_channelizer.cuh: N channels, T taps per branch, O oversample, M = N/O).
 *
 * Why: the fused kernel gives each block all N branches of very few receivers,
 * so its loads and stores touch 4-16 bytes of each 32-byte sector and little
 * memory is in flight (apps/channelizer_bench.md). Here every warp reads and
 * writes runs of consecutive receivers, at the price of one round trip of the
 * FFT inputs through a workspace (which stays in L2 for chunks of a few MB).
 *
 * Pass 1, pfb_fir_columns_kernel: one thread per (branch p, receiver r),
 * receivers fastest, for a run of consecutive steps. It keeps the window
 * z_j = x[m_t - p - j M], j < O T_MAX, in a register ring (one new sample per
 * step, as the fused kernel does) and writes y_p at its FFT input position
 * pos into columns[pos][t][r]: the FFT input of (step t, receiver r) is the
 * column t R + r, read with stride S R (S steps in the chunk).
 *
 * Pass 2, pfb_columns_fft_kernel: one block per C consecutive columns loads
 * them (C consecutive elements of each row), runs the shared-memory Stockham
 * FFT of pfb_channelizer.cuh on them and writes out[t][k][r], again C
 * consecutive elements per output channel.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_PFB_TWO_PASS_CUH
#define INCLUDED_BEAMFORM_KERNELS_PFB_TWO_PASS_CUH

#include <gpu/pfb_channelizer.cuh>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

/*!
 * Pass 1 over the chunk of \p n_steps steps that starts at local step
 * \p t_first. Grid: x covers N R threads, y = runs of \p steps_per_run steps.
 * Taps beyond T are zero, so one T_MAX serves every T <= T_MAX.
 */
template <typename Tin, int TMAX, int O>
__global__ void pfb_fir_columns_kernel(pfb_stream<Tin> in,
                                       const float* __restrict__ taps, // N * T
                                       float2* __restrict__ columns,
                                       pfb_geometry g,
                                       long long t_first,
                                       long long n_steps,
                                       long long steps_per_run)
{
    constexpr int W = O * TMAX; // ring length
    const int n = g.n_channels;
    const int m = g.step;
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)n * g.n_receivers)
        return; // no barrier in this kernel
    const int r = int(idx % g.n_receivers);
    const int p = int(idx / g.n_receivers);
    const long long u_begin = (long long)blockIdx.y * steps_per_run; // chunk-local
    long long u_end = u_begin + steps_per_run;
    if (u_end > n_steps)
        u_end = n_steps;
    if (u_begin >= u_end)
        return;

    float tap[TMAX];
#pragma unroll
    for (int k = 0; k < TMAX; k++)
        tap[k] = k < g.taps_per_branch ? taps[p + k * n] : 0.0f;

    // Ring: at ring step u (mod W) z_j sits in slot (u - j) mod W; slot 0 is
    // filled by the first step.
    float2 window[W];
    const long long newest_first = (t_first + u_begin + 1) * m - 1 - p;
#pragma unroll
    for (int j = 1; j < W; j++)
        window[W - j] = in.load(newest_first - (long long)j * m, r);
    window[0] = make_float2(0.f, 0.f);
    float2 next = in.load(newest_first, r);

    const long long column_stride = n_steps * g.n_receivers;
    for (long long u0 = u_begin; u0 < u_end; u0 += W) {
#pragma unroll
        for (int s = 0; s < W; s++) {
            const long long u = u0 + s;
            if (u < u_end) {
                window[s] = next;
                if (u + 1 < u_end)
                    next = in.load((t_first + u + 2) * m - 1 - p, r);
                float2 acc = make_float2(0.f, 0.f);
#pragma unroll
                for (int k = 0; k < TMAX; k++) {
                    const float2 z = window[(s - k * O + 2 * W) % W];
                    acc.x = fmaf(tap[k], z.x, acc.x);
                    acc.y = fmaf(tap[k], z.y, acc.y);
                }
                const int pos = pfb_fft_position<O>(p, t_first + u, g);
                columns[pos * column_stride + u * g.n_receivers + r] = acc;
            }
        }
    }
}

/*!
 * Pass 2: block b transforms columns [b C, b C + C) of the chunk (C =
 * \p cols_per_block) and writes their spectra to out (the call's output,
 * [t][channel][receiver]). Dynamic shared memory: N twiddles + 2 C rows.
 */
__global__ void pfb_columns_fft_kernel(const float2* __restrict__ columns,
                                       const float2* __restrict__ twiddle_table,
                                       float2* __restrict__ out,
                                       pfb_geometry g,
                                       long long t_first,
                                       long long n_steps,
                                       int cols_per_block)
{
    extern __shared__ float2 pfb_smem[];
    const int n = g.n_channels;
    const int c_count = cols_per_block;
    const int ld = pfb_fft::row_stride(n);
    float2* twiddle = pfb_smem;
    float2* buf_a = twiddle + n;
    float2* buf_b = buf_a + c_count * ld;
    const long long n_columns = n_steps * g.n_receivers;
    const long long j0 = (long long)blockIdx.x * c_count;

    for (int k = threadIdx.x; k < n; k += blockDim.x)
        twiddle[k] = twiddle_table[k];
    for (int idx = threadIdx.x; idx < n * c_count; idx += blockDim.x) {
        const int pos = idx / c_count;
        const int c = idx - pos * c_count;
        const long long j = j0 + c;
        buf_a[c * ld + pos] =
            j < n_columns ? columns[pos * n_columns + j] : make_float2(0.f, 0.f);
    }
    __syncthreads();
    const float2* spectrum = pfb_block_fft(buf_a, buf_b, twiddle, g.log2_n, c_count, ld);
    for (int idx = threadIdx.x; idx < n * c_count; idx += blockDim.x) {
        const int k = idx / c_count;
        const int c = idx - k * c_count;
        const long long j = j0 + c;
        if (j < n_columns) {
            const long long t = t_first + j / g.n_receivers;
            const int r = int(j % g.n_receivers);
            out[(t * n + k) * g.n_receivers + r] =
                spectrum[c * ld + pfb_natural_channel(k, g)];
        }
    }
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
