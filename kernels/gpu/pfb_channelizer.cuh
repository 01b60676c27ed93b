/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Polyphase filter-bank channelizer kernels (CUDA and HIP).
 *
 * Notation (include/gnuradio/beamform/engines/pfb_channelizer_engine.h): N
 * channels, T taps per branch, oversample O (1 or 2), M = N/O input samples
 * per output step. For output step t the newest input sample is
 * m_t = (t+1) M - 1, branch p's FIR output is y_p = sum_k h[p + kN]
 * x[m_t - p - kN], it lands at FFT input index (p - t M) mod N, and the
 * spectrum is the unnormalized inverse DFT.
 *
 * The input of a call is seen as one stream per receiver: the engine's
 * history (the last H = N T' - M samples of the previous calls, T' = T or
 * 16 where the cluster kernel serves T < 16 (pfb_plan::history_taps), raw
 * format, [H][receivers]) followed by this call's samples ([n_in][receivers]).
 *
 * pfb_fused_kernel (power-of-two N <= 1024, T <= 16): the whole channelizer
 * in one pass. A block owns RB receivers and all N branches for a run of
 * consecutive output steps. Each thread owns BQ "base branches" q < M of RBT
 * receivers and keeps, in registers, the window z_j = x[m_t - q - j M],
 * j < O T_MAX, of each: per step it loads ONE new sample per (q, receiver)
 * (converted from sc8/sc16/fc32 on load), computes the O branch outputs
 * p = q + i M (taps h[p + kN] in registers, windows z_(i + kO)), writes them
 * to shared memory at their FFT positions, and the block runs a radix-4
 * Stockham FFT in shared memory and writes the spectra out. The register
 * window is a ring indexed with compile-time indices: the time loop is
 * unrolled over the ring length O T_MAX. Device memory sees the input once
 * (plus T-1 steps of warm-up per run of steps) and the output once.
 *
 * The general path (any N, any T) is in pfb_general.cuh.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_PFB_CHANNELIZER_CUH
#define INCLUDED_BEAMFORM_KERNELS_PFB_CHANNELIZER_CUH

#include <common/gpu_portable.h>
#include <gpu/pfb_fft.cuh>
#include <cstdint>
#include <type_traits>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

//! A sample as loaded, before its conversion to fc32 (sc16: one 32-bit word).
template <typename Tin>
struct pfb_raw_sample {
    using type = typename std::conditional<
        std::is_same<Tin, float>::value,
        float2,
        typename std::conditional<std::is_same<Tin, int16_t>::value, short2, char2>::type>::type;

    __device__ __forceinline__ static type load(const Tin* p)
    {
        return *reinterpret_cast<const type*>(p);
    }
    __device__ __forceinline__ static float2 value(type v)
    {
        return make_float2(float(v.x), float(v.y));
    }
};

//! What the kernels need to read one input sample (history, then input).
template <typename Tin>
struct pfb_stream {
    const Tin* input;   //!< [n_in][n_receivers] interleaved I/Q
    const Tin* history; //!< [history_len][n_receivers] interleaved I/Q
    long long history_len;
    int n_receivers;

    //! Sample s (s < 0: history) of receiver r as fc32; zero before the history.
    __device__ __forceinline__ float2 load(long long s, int r) const
    {
        const Tin* base;
        long long index;
        if (s >= 0) {
            base = input;
            index = s * n_receivers + r;
        } else if (s >= -history_len) {
            base = history;
            index = (history_len + s) * n_receivers + r;
        } else {
            return make_float2(0.0f, 0.0f);
        }
        return load_sample(base + 2 * index);
    }

    __device__ __forceinline__ static float2 load_sample(const Tin* p)
    {
        return pfb_raw_sample<Tin>::value(pfb_raw_sample<Tin>::load(p));
    }
};

struct pfb_geometry {
    int n_channels; //!< N, a power of two for the fused and FFT kernels
    int log2_n;
    int taps_per_branch; //!< T
    int step;            //!< M = N / O
    int n_receivers;     //!< R: the receivers of a row (its stride)
    int fft_shift;
    int first_parity; //!< (output steps before this call) mod O
    //! The tiled kernels compute receivers [first_receiver, R) (pfb_tiled_groups):
    //! above 0 (a multiple of 32, so of every tile's receivers) where the
    //! cluster kernel took the whole groups below it in the same call. The
    //! other kernels (the tiled ring kernel too) compute every receiver and
    //! need 0.
    int first_receiver;
    long long n_out;  //!< output steps of this call
};

//! FFT input position of branch p at local step t: (p - t M) mod N.
template <int O>
__device__ __forceinline__ int pfb_fft_position(int p, long long t, const pfb_geometry& g)
{
    if (O == 1)
        return p;
    const int rotation = int((g.first_parity + t) & 1) * g.step;
    return (p - rotation) & (g.n_channels - 1);
}

//! pfb_fft_position for any N (the mask above needs a power of two); the
//! general path's FIR and the two-pass path's pass 1, which serve any N.
template <int O>
__device__ __forceinline__ int pfb_fft_position_any_n(int p, long long t, const pfb_geometry& g)
{
    if (O == 1)
        return p;
    const int rotation = int((g.first_parity + t) & 1) * g.step;
    const int pos = p - rotation;
    return pos < 0 ? pos + g.n_channels : pos;
}

//! Natural channel (FFT output index) written to output channel k.
__device__ __forceinline__ int pfb_natural_channel(int k, const pfb_geometry& g)
{
    return g.fft_shift ? (k + g.n_channels - g.n_channels / 2) % g.n_channels : k;
}

/*!
 * In-place-looking radix-4 Stockham FFT of \p rows rows of length N in shared
 * memory, rows \p ld apart; ping-pongs between a and b. Returns the buffer
 * that holds the result. Every thread of the block must call it.
 */
__device__ __forceinline__ float2*
pfb_block_fft(float2* a, float2* b, const float2* twiddle, int log2_n, int rows, int ld)
{
    const int n = 1 << log2_n;
    const int passes = pfb_fft::stockham_pass_count(log2_n);
    float2* src = a;
    float2* dst = b;
    for (int pass = 0; pass < passes; pass++) {
        const int radix = pfb_fft::stockham_radix(log2_n, pass);
        const int log2_ns = pfb_fft::stockham_log2_ns(pass);
        // Rows of N/4 (N/2) butterflies: shifts, not integer divisions.
        if (radix == 4) {
            const int per_row = n / 4;
            const int log2_per_row = log2_n - 2;
            for (int idx = threadIdx.x; idx < rows * per_row; idx += blockDim.x) {
                const int row = idx >> log2_per_row;
                const int j = idx & (per_row - 1);
                pfb_fft::stockham_butterfly<4>(
                    src + row * ld, dst + row * ld, twiddle, n, log2_ns, j);
            }
        } else {
            const int per_row = n / 2;
            const int log2_per_row = log2_n - 1;
            for (int idx = threadIdx.x; idx < rows * per_row; idx += blockDim.x) {
                const int row = idx >> log2_per_row;
                const int j = idx & (per_row - 1);
                pfb_fft::stockham_butterfly<2>(
                    src + row * ld, dst + row * ld, twiddle, n, log2_ns, j);
            }
        }
        __syncthreads();
        float2* t = src;
        src = dst;
        dst = t;
    }
    return src;
}

/*!
 * The fused channelizer; see the file comment. Grid: x = receiver groups of
 * RB = RBT * (blockDim.x / (M / BQ)) receivers, y = runs of \p steps_per_block
 * output steps. Dynamic shared memory: N twiddles + 2 * RB rows.
 */
template <typename Tin, int TMAX, int O, int BQ, int RBT, int NT>
__global__ void __launch_bounds__(NT, 1)
    pfb_fused_kernel(pfb_stream<Tin> in,
                     const float* __restrict__ taps, // prototype, N * T
                     const float2* __restrict__ twiddle_table,
                     float2* __restrict__ out,
                     pfb_geometry g,
                     long long steps_per_block)
{
    constexpr int W = O * TMAX; // ring length of the register window
    extern __shared__ float2 pfb_smem[];
    const int n = g.n_channels;
    const int m = g.step;
    const int q_threads = m / BQ;
    const int groups = blockDim.x / q_threads;
    const int rb_count = groups * RBT;
    const int ld = pfb_fft::row_stride(n);
    float2* twiddle = pfb_smem;
    float2* buf_a = twiddle + n;
    float2* buf_b = buf_a + rb_count * ld;

    const int group = threadIdx.x % groups;
    const int q0 = threadIdx.x / groups;
    const int r_first = blockIdx.x * rb_count;

    const long long t_begin = (long long)blockIdx.y * steps_per_block;
    long long t_end = t_begin + steps_per_block;
    if (t_end > g.n_out)
        t_end = g.n_out;

    for (int k = threadIdx.x; k < n; k += blockDim.x)
        twiddle[k] = twiddle_table[k];

    // Taps of this thread's branches p = q + i M: h[p + kN], zero beyond T.
    float tap[BQ][O][TMAX];
#pragma unroll
    for (int b = 0; b < BQ; b++)
#pragma unroll
        for (int i = 0; i < O; i++)
#pragma unroll
            for (int k = 0; k < TMAX; k++) {
                const int p = q0 + b * q_threads + i * m;
                tap[b][i][k] = k < g.taps_per_branch ? taps[p + k * n] : 0.0f;
            }

    int rx[RBT];
#pragma unroll
    for (int rr = 0; rr < RBT; rr++)
        rx[rr] = r_first + group * RBT + rr;

    // Window ring: at local step u (mod W), z_j sits in slot (u - j) mod W.
    float2 window[BQ][RBT][W];
    float2 next[BQ][RBT];
#pragma unroll
    for (int b = 0; b < BQ; b++) {
        const int q = q0 + b * q_threads;
#pragma unroll
        for (int rr = 0; rr < RBT; rr++) {
            const bool live = rx[rr] < g.n_receivers;
            const long long newest = (t_begin + 1) * m - 1 - q;
#pragma unroll
            for (int j = 1; j < W; j++)
                window[b][rr][W - j] = live ? in.load(newest - (long long)j * m, rx[rr])
                                            : make_float2(0.f, 0.f);
            window[b][rr][0] = make_float2(0.f, 0.f);
            next[b][rr] = live ? in.load(newest, rx[rr]) : make_float2(0.f, 0.f);
        }
    }
    __syncthreads();

    const int passes = pfb_fft::stockham_pass_count(g.log2_n);
    for (long long t0 = t_begin; t0 < t_end; t0 += W) {
#pragma unroll
        for (int u = 0; u < W; u++) {
            const long long t = t0 + u;
            if (t < t_end) { // uniform over the block: __syncthreads inside is safe
                // The newest sample enters the ring; fetch the one for step t+1.
#pragma unroll
                for (int b = 0; b < BQ; b++) {
                    const int q = q0 + b * q_threads;
#pragma unroll
                    for (int rr = 0; rr < RBT; rr++) {
                        window[b][rr][u] = next[b][rr];
                        if (t + 1 < t_end && rx[rr] < g.n_receivers)
                            next[b][rr] = in.load((t + 2) * m - 1 - q, rx[rr]);
                    }
                }
                // Branch outputs y_p = sum_k h[p + kN] z_(i + kO), p = q + i M.
#pragma unroll
                for (int b = 0; b < BQ; b++) {
                    const int q = q0 + b * q_threads;
#pragma unroll
                    for (int i = 0; i < O; i++) {
                        const int pos = pfb_fft_position<O>(q + i * m, t, g);
#pragma unroll
                        for (int rr = 0; rr < RBT; rr++) {
                            float2 acc = make_float2(0.f, 0.f);
#pragma unroll
                            for (int k = 0; k < TMAX; k++) {
                                const float2 z =
                                    window[b][rr][(u - (i + k * O) + 2 * W) % W];
                                acc.x = fmaf(tap[b][i][k], z.x, acc.x);
                                acc.y = fmaf(tap[b][i][k], z.y, acc.y);
                            }
                            buf_a[(group * RBT + rr) * ld + pos] = acc;
                        }
                    }
                }
                __syncthreads();
                const float2* spectrum =
                    pfb_block_fft(buf_a, buf_b, twiddle, g.log2_n, rb_count, ld);
                // Spectra out: [t][channel][receiver], receivers of a channel contiguous.
                float2* item = out + t * (long long)n * g.n_receivers;
                const int r_count = min(rb_count, g.n_receivers - r_first);
                for (int idx = threadIdx.x; idx < n * rb_count; idx += blockDim.x) {
                    const int k = idx / rb_count;
                    const int rb = idx - k * rb_count;
                    if (rb < r_count)
                        item[(long long)k * g.n_receivers + r_first + rb] =
                            spectrum[rb * ld + pfb_natural_channel(k, g)];
                }
                // The next step's branch outputs go to buf_a: wait if the result is
                // there.
                if ((passes & 1) == 0)
                    __syncthreads();
            }
        }
    }
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
