/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The channelizer's general path: any N, any T (the engine takes it where
 * N is not a power of two or above 4096, the two-pass kernels' limit).
 * Notation in pfb_channelizer.cuh.
 *
 *   pfb_general_fir_kernel   branch outputs into a workspace [t][receiver][N]
 *                            in FFT input order;
 *   then an FFT library on the workspace rows and
 *   pfb_general_transpose_kernel, or (HIP, no FFT library here)
 *   pfb_direct_dft_kernel, or, only where forced (the path fir_smem_fft),
 *   pfb_general_fft_kernel (power-of-two N: rows transformed in shared
 *   memory, spectra out as [t][channel][receiver]).
 *
 * Why tiles (apps/channelizer_bench.md, version 16): with one thread per
 * output, receivers fastest, each thread read its T samples alone and wrote
 * 8 bytes at a stride of N complex values, so 256 channels x 24 taps ran at
 * 4 % of the copy rate. Here a thread filters 8 consecutive steps of one
 * (branch, receiver) from a window in registers (8 + (T - 1) O loads for
 * 8 outputs; each tap loaded once for the 8), issues the loads of 4 taps
 * and their samples at once (one wait for memory per 4 taps, not per tap;
 * away from the history and the chunk's end by a pointer and a constant
 * stride), and a block stores whole 128-byte pieces of workspace rows
 * through shared memory.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_PFB_GENERAL_CUH
#define INCLUDED_BEAMFORM_KERNELS_PFB_GENERAL_CUH

#include <gpu/pfb_channelizer.cuh>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

//! FIR tiles: 32 receivers (one per lane) x 16 branches x 8 steps; blocks of
//! 32 x 8 threads, each thread two branches (ty and ty + 8) of one receiver.
constexpr int pfb_general_receivers = 32;
constexpr int pfb_general_branches = 16;
constexpr int pfb_general_steps = 8;
constexpr int pfb_general_rows = 8; //!< blockDim.y
//! Dynamic shared memory of pfb_general_fir_kernel: the tile, padded.
constexpr size_t pfb_general_fir_smem_bytes =
    size_t(pfb_general_steps) * pfb_general_receivers * (pfb_general_branches + 1) * 8;

//! Tiles of a call of \p n_steps steps (grid-stride: any grid covers them).
__host__ __device__ inline long long
pfb_general_fir_tiles(long long n_steps, int n, int receivers)
{
    return (n_steps + pfb_general_steps - 1) / pfb_general_steps *
           ((n + pfb_general_branches - 1) / pfb_general_branches) *
           ((receivers + pfb_general_receivers - 1) / pfb_general_receivers);
}

/*!
 * Branch outputs of local steps [0, n_steps) (global step t_first + local)
 * into workspace[local step][receiver][N] at their FFT input positions.
 * Block (32, 8), dynamic shared memory pfb_general_fir_smem_bytes.
 *
 * For steps t0 + s, s < 8, branch p, tap k reads x[m_(t0+s) - p - kN] =
 * x[base + M (s - k O)] with base = m_t0 - p: the window z_s = x[base +
 * M (s - k O)] of tap k is that of tap k - 1 moved by O, plus O new samples.
 */
template <typename Tin, int O>
__global__ void __launch_bounds__(pfb_general_receivers* pfb_general_rows, 3)
    pfb_general_fir_kernel(pfb_stream<Tin> in,
                           const float* __restrict__ taps,
                           float2* __restrict__ workspace,
                           pfb_geometry g,
                           long long t_first,
                           long long n_steps)
{
    constexpr int S = pfb_general_steps, PB = pfb_general_branches;
    constexpr int RT = pfb_general_receivers, ROWS = pfb_general_rows;
    constexpr int U = 4;               // taps per group (8 measured the same)
    constexpr int W = S + O * (U - 1); // the group's samples
    extern __shared__ float2 pfb_smem[];
    float2* const tile = pfb_smem; // [S][RT][PB + 1]
    const int n = g.n_channels, n_rx = g.n_receivers, n_taps = g.taps_per_branch;
    const int r_tiles = (n_rx + RT - 1) / RT, p_tiles = (n + PB - 1) / PB;
    const long long tiles = pfb_general_fir_tiles(n_steps, n, n_rx);
    const int tx = int(threadIdx.x), ty = int(threadIdx.y);
    const long long step = g.step;
    for (long long i = blockIdx.x; i < tiles; i += gridDim.x) {
        const int rt = int(i % r_tiles);
        const long long rest = i / r_tiles;
        const int pt = int(rest % p_tiles);
        const long long s0 = rest / p_tiles * S; // local step of s = 0
        const int r = rt * RT + tx;
        // The newest sample this chunk may read: step n_steps - 1's.
        const long long last = (t_first + n_steps) * step - 1;
#pragma unroll
        for (int half = 0; half < PB / ROWS; half++) {
            const int pl = ty + ROWS * half;
            const int p = pt * PB + pl;
            float2 acc[S];
#pragma unroll
            for (int s = 0; s < S; s++)
                acc[s] = make_float2(0.f, 0.f);
            if (p < n && r < n_rx) {
                const long long base = (t_first + s0 + 1) * step - 1 - p;
                // Tap k of step s reads x_j = x[base + M j], j = s - O k. Group
                // k0 (taps k0 .. k0 + U - 1) holds w[i] = x_(i - O (U - 1) - O k0),
                // i < W: tap k0 + u of step s is w[s - O u + O (U - 1)], and the
                // next group's w is this one's moved by O U plus O U new samples.
                const int groups = (n_taps + U - 1) / U;
                const long long oldest = base - step * O * (U - 1 + (groups - 1) * U);
                // Away from the history and the chunk's end (almost every
                // tile): samples by a pointer and a constant stride.
                const bool direct = oldest >= 0 && base + (S - 1) * step <= last;
                const long long stride = 2 * step * n_rx; // Tin elements per x_j
                const Tin* const x0 =
                    direct ? in.input + 2 * (base * n_rx + r) : in.input;
                const auto sample = [&](long long j) {
                    if (direct)
                        return pfb_stream<Tin>::load_sample(x0 + j * stride);
                    const long long at = base + j * step;
                    return at <= last ? in.load(at, r) : make_float2(0.f, 0.f);
                };
                float2 w[W];
#pragma unroll
                for (int i = O * U; i < W; i++)
                    w[i] = sample(i - O * (U - 1));
                for (int k0 = 0; k0 < n_taps; k0 += U) {
                    float h[U];
#pragma unroll
                    for (int u = 0; u < U; u++)
                        h[u] = k0 + u < n_taps ? taps[p + (k0 + u) * n] : 0.f;
#pragma unroll
                    for (int i = 0; i < O * U; i++)
                        w[i] = sample(i - O * (U - 1) - O * k0);
#pragma unroll
                    for (int u = 0; u < U; u++)
#pragma unroll
                        for (int s = 0; s < S; s++) {
                            const float2 x = w[s - O * u + O * (U - 1)];
                            acc[s].x = fmaf(h[u], x.x, acc[s].x);
                            acc[s].y = fmaf(h[u], x.y, acc[s].y);
                        }
#pragma unroll
                    for (int i = W - 1; i >= O * U; i--)
                        w[i] = w[i - O * U];
                }
            }
#pragma unroll
            for (int s = 0; s < S; s++)
                tile[(s * RT + tx) * (PB + 1) + pl] = acc[s];
        }
        __syncthreads();
        // Rows (step, receiver) of PB consecutive branches: 128-byte pieces.
        for (int q = ty * RT + tx; q < S * RT * PB; q += RT * ROWS) {
            const int pl = q % PB;
            const int row = q / PB; // s * RT + receiver in the tile
            const long long local = s0 + row / RT;
            const int rr = rt * RT + row % RT;
            const int p = pt * PB + pl;
            if (local < n_steps && rr < n_rx && p < n)
                workspace[(local * n_rx + rr) * n +
                          pfb_fft_position_any_n<O>(p, t_first + local, g)] =
                    tile[row * (PB + 1) + pl];
        }
        __syncthreads();
    }
}

//! Dynamic shared memory of pfb_general_fft_kernel: N twiddles and two
//! buffers of \p rows rows of N + 1 (the pad: the receivers of a channel,
//! read side by side, fall in different banks).
inline size_t pfb_general_fft_smem_bytes(int n, int rows)
{
    return (size_t(n) + 2 * size_t(rows) * size_t(n + 1)) * 8;
}

//! Rows per block of pfb_general_fft_kernel: as many as fit in \p smem_bytes,
//! at most 32, at least 1.
inline int pfb_general_fft_rows(int n, size_t smem_bytes)
{
    int rows = 1;
    while (rows < 32 && pfb_general_fft_smem_bytes(n, rows + 1) <= smem_bytes)
        rows++;
    return rows;
}

/*!
 * Power-of-two N: block b transforms the workspace rows of \p rows
 * consecutive receivers of one step (receiver tiles of step t: blocks
 * t * ceil(R / rows) ...) in shared memory and writes their spectra to
 * out[t][channel][receiver], the receivers of a channel side by side.
 */
__global__ void pfb_general_fft_kernel(const float2* __restrict__ workspace,
                                       const float2* __restrict__ twiddle_table,
                                       float2* __restrict__ out,
                                       pfb_geometry g,
                                       long long t_first,
                                       int rows)
{
    extern __shared__ float2 pfb_smem[];
    const int n = g.n_channels;
    float2* twiddle = pfb_smem;
    float2* buf_a = twiddle + n;
    float2* buf_b = buf_a + size_t(rows) * (n + 1);
    const int r_tiles = (g.n_receivers + rows - 1) / rows;
    const long long local = blockIdx.x / r_tiles;
    const int r0 = int(blockIdx.x % r_tiles) * rows;
    const int count = min(rows, g.n_receivers - r0);
    const int ld = n + 1;
    const float2* src = workspace + (local * g.n_receivers + r0) * n;
    for (int k = threadIdx.x; k < n; k += blockDim.x)
        twiddle[k] = twiddle_table[k];
    for (int idx = threadIdx.x; idx < count * n; idx += blockDim.x)
        buf_a[(idx >> g.log2_n) * ld + (idx & (n - 1))] = src[idx];
    __syncthreads();
    const float2* spectrum = pfb_block_fft(buf_a, buf_b, twiddle, g.log2_n, count, ld);
    float2* item = out + (t_first + local) * (long long)n * g.n_receivers + r0;
    for (int idx = threadIdx.x; idx < n * count; idx += blockDim.x) {
        const int k = idx / count;
        const int rb = idx - k * count;
        item[(long long)k * g.n_receivers + rb] =
            spectrum[rb * ld + pfb_natural_channel(k, g)];
    }
}

//! Transpose tiles: 32 channels x 32 receivers of one step; blocks of 32 x 8.
__host__ __device__ inline long long
pfb_general_transpose_tiles(long long n_steps, int n, int receivers)
{
    return n_steps * ((n + 31) / 32) * ((receivers + 31) / 32);
}
constexpr size_t pfb_general_transpose_smem_bytes = 32 * 33 * 8;

/*!
 * After an FFT library transformed the workspace rows in place: out[t][k][r]
 * = spectrum row (t, r) at natural channel of k, read and written in 256-byte
 * pieces through a shared-memory tile. Block (32, 8).
 */
__global__ void pfb_general_transpose_kernel(const float2* __restrict__ workspace,
                                             float2* __restrict__ out,
                                             pfb_geometry g,
                                             long long t_first,
                                             long long n_steps)
{
    extern __shared__ float2 pfb_smem[];
    float2* const tile = pfb_smem; // [receiver][channel], padded
    const int n = g.n_channels, n_rx = g.n_receivers;
    const int r_tiles = (n_rx + 31) / 32, k_tiles = (n + 31) / 32;
    const long long tiles = pfb_general_transpose_tiles(n_steps, n, n_rx);
    const int tx = int(threadIdx.x), ty = int(threadIdx.y);
    for (long long i = blockIdx.x; i < tiles; i += gridDim.x) {
        const int rt = int(i % r_tiles);
        const long long rest = i / r_tiles;
        const int kt = int(rest % k_tiles);
        const long long local = rest / k_tiles;
        const int k = kt * 32 + tx;
        for (int j = ty; j < 32; j += int(blockDim.y)) {
            const int r = rt * 32 + j;
            if (r < n_rx && k < n)
                tile[j * 33 + tx] =
                    workspace[(local * n_rx + r) * n + pfb_natural_channel(k, g)];
        }
        __syncthreads();
        float2* item = out + (t_first + local) * (long long)n * n_rx;
        const int r = rt * 32 + tx;
        for (int j = ty; j < 32; j += int(blockDim.y)) {
            const int kk = kt * 32 + j;
            if (r < n_rx && kk < n)
                item[(long long)kk * n_rx + r] = tile[tx * 33 + j];
        }
        __syncthreads();
    }
}

/*!
 * Without an FFT library (HIP): out[t][k][r] by a direct DFT of the
 * workspace row (t, r), O(N) per output; the phase index kept exact in
 * integers.
 */
__global__ void pfb_direct_dft_kernel(const float2* __restrict__ workspace,
                                      const float2* __restrict__ twiddle_table,
                                      float2* __restrict__ out,
                                      pfb_geometry g,
                                      long long t_first,
                                      long long n_steps)
{
    const int n = g.n_channels;
    const long long total = n_steps * n * g.n_receivers;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
         idx += stride) {
        const int r = int(idx % g.n_receivers);
        const long long rest = idx / g.n_receivers;
        const int k = int(rest % n);
        const long long local = rest / n;
        const int c = pfb_natural_channel(k, g);
        const float2* row = workspace + (local * g.n_receivers + r) * n;
        float2 value = make_float2(0.f, 0.f);
        long long phase = 0; // i * c mod N
        for (int i = 0; i < n; i++) {
            value = pfb_fft::cadd(value, pfb_fft::cmul(row[i], twiddle_table[phase]));
            phase += c;
            if (phase >= n)
                phase -= n;
        }
        out[((t_first + local) * n + k) * (long long)g.n_receivers + r] = value;
    }
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
