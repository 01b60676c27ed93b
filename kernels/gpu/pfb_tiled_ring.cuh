/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The register-FFT tiled channelizer (pfb_tiled_register_fft.cuh) with its
 * input staged in a shared-memory ring (notation of pfb_channelizer.cuh: N
 * channels, T taps per branch, O oversample, M = N/O).
 *
 * Why: the tiled kernels load each tile's S + O (T_MAX - 1) steps of samples
 * from L2 with plain loads, so every sample crosses L2 -> SM (S + 15) / S
 * times and the FIR waits on those loads (apps/channelizer_bench.md, version
 * 9: the FIR's cost is its L2 sectors). Here a block walks a range of
 * consecutive tiles of one receiver group in time. Its ring holds the raw
 * samples of the current tile's window; the next tile's S new blocks of M
 * samples are copied asynchronously (cp.async) into the slots that only the
 * current tile read, while it transforms and stores. Each sample then
 * crosses L2 -> SM about once (plus one window per range), and the FIR reads
 * shared memory. Measured (apps/channelizer_bench.md, version 14): faster
 * than the tiled default at sc16 in calls of up to about a thousand steps,
 * level at 1365, slower at 2730; the engine runs it for short calls only.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_PFB_TILED_RING_CUH
#define INCLUDED_BEAMFORM_KERNELS_PFB_TILED_RING_CUH

#include <gpu/async_copy.cuh>
#include <gpu/pfb_tiled_register_fft.cuh>
#include <cstdint>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

//! Ring slot of block \p b (b may be negative: blocks of the history).
template <int RING>
__device__ __forceinline__ int pfb_ring_slot(long long b)
{
    const int r = int(b % RING);
    return r < 0 ? r + RING : r;
}

//! Bytes of one asynchronous copy of the ring fill: the RB receivers of a
//! sample, in pieces of at most 16 (input and history must be aligned to it).
template <typename Tin, int RB>
BF_HOST_DEVICE constexpr int pfb_ring_copy_bytes()
{
    constexpr int run = RB * int(sizeof(typename pfb_raw_sample<Tin>::type));
    return run < 16 ? run : 16;
}

/*!
 * Copies blocks \p first ... first + count - 1 (of M samples, receivers
 * r_first ... r_first + RB - 1) into their ring slots, zeros before the
 * history, after the call's \p n_in samples and past the last receiver.
 * WIDE: the RB receivers of a sample are one aligned run (asynchronous
 * copies of up to 16 bytes); otherwise each sample is loaded and stored.
 */
template <typename Tin, int RB, int RING, int LOG2_M, int THREADS>
__device__ __forceinline__ void pfb_ring_fill(typename pfb_raw_sample<Tin>::type* ring,
                                              const pfb_stream<Tin>& in,
                                              long long n_in,
                                              int r_first,
                                              long long first,
                                              int count,
                                              bool wide)
{
    using raw_t = typename pfb_raw_sample<Tin>::type;
    constexpr int m = 1 << LOG2_M;
    const long long receivers = in.n_receivers;
    const auto source = [&](long long s, int r) {
        return s >= 0 ? in.input + 2 * (s * receivers + r)
                      : in.history + 2 * ((in.history_len + s) * receivers + r);
    };
    if (wide) {
        constexpr int bytes = RB * int(sizeof(raw_t));
        constexpr int piece = pfb_ring_copy_bytes<Tin, RB>();
        static_assert(bytes % piece == 0, "whole copies");
        for (int e = int(threadIdx.x); e < count * m; e += THREADS) {
            const long long b = first + (e >> LOG2_M);
            const int i = e & (m - 1);
            const long long s = b * m + i;
            const bool valid = s >= -in.history_len && s < n_in;
            auto* dst = reinterpret_cast<unsigned char*>(
                ring + ((pfb_ring_slot<RING>(b) << LOG2_M) + i) * RB);
            const auto* src = reinterpret_cast<const unsigned char*>(
                valid ? source(s, r_first) : in.input);
#pragma unroll
            for (int k = 0; k < bytes / piece; k++)
                async_copy<piece>(dst + k * piece, src + k * piece, valid);
        }
    } else {
        for (int e = int(threadIdx.x); e < count * m * RB; e += THREADS) {
            const int rr = e % RB;
            const long long b = first + ((e / RB) >> LOG2_M);
            const int i = (e / RB) & (m - 1);
            const long long s = b * m + i;
            const bool valid =
                s >= -in.history_len && s < n_in && r_first + rr < in.n_receivers;
            ring[((pfb_ring_slot<RING>(b) << LOG2_M) + i) * RB + rr] =
                valid ? pfb_raw_sample<Tin>::load(source(s, r_first + rr)) : raw_t{};
        }
    }
}

/*!
 * Grid: any number of blocks. Each receiver group's tiles are cut into
 * max(1, gridDim / groups) ranges of consecutive tiles, and block b takes the
 * (group, range) units b, b + gridDim, ... (group fastest): one unit per block
 * where the grid holds them all, so that each range pays for one window of
 * copies. (Ranges of 64 steps, more units than blocks, measured slower:
 * apps/channelizer_bench.md, version 14.) Dynamic shared memory: N twiddles,
 * S RB rows of N + 1, then the ring (pfb_fft::ring_blocks(S, TMAX, O) M RB
 * raw samples). THREADS per block (whole warps, a multiple of RB), one block
 * per SM; N must be 2^LOG2_N. It computes every receiver (g.first_receiver
 * 0): reading it from the geometry made ptxas spill 12 bytes and short calls
 * 3-6 % slower (apps/channelizer_bench.md, version 36), so the rest of a call
 * split with the cluster kernel runs the whole-call entries
 * (pfb_plan::tiled_shape_for_call).
 */
template <typename Tin, int TMAX, int O, int S, int RB, int P, int LOG2_N, int THREADS>
__global__ void __launch_bounds__(THREADS, 1)
    pfb_tiled_ring_kernel(pfb_stream<Tin> in,
                          const float* __restrict__ branch_taps, // [N][TMAX]
                          const float2* __restrict__ twiddle_table,
                          float2* __restrict__ out,
                          pfb_geometry g,
                          long long tiles_per_group)
{
    static_assert(THREADS % 32 == 0 && THREADS % RB == 0,
                  "whole warps and receiver groups");
    static_assert(O == 1 || O == 2, "oversample 1 or 2");
    using raw_t = typename pfb_raw_sample<Tin>::type;
    extern __shared__ float2 pfb_smem[];
#ifdef BF_GPU_EMULATION
    if (g.log2_n != LOG2_N)
        throw std::logic_error("pfb_tiled_ring_kernel: built for another N");
    if (g.first_receiver != 0) // the rest of a split call runs the whole-call entries
        throw std::logic_error("pfb_tiled_ring_kernel: computes every receiver");
#endif
    constexpr int n = 1 << LOG2_N;
    constexpr int log2_m = O == 2 ? LOG2_N - 1 : LOG2_N;
    constexpr int m = 1 << log2_m;
    constexpr int reach = TMAX * O - 1; // blocks before a tile's first that its FIR reads
    constexpr int ring_blocks = pfb_fft::ring_blocks(S, TMAX, O);
    const int ld = pfb_fft::row_stride(n);
    float2* twiddle = pfb_smem;
    float2* rows = twiddle + n; // row s RB + rr: step s of the tile, receiver rr
    raw_t* ring = reinterpret_cast<raw_t*>(rows + S * RB * ld);
    for (int k = threadIdx.x; k < n; k += blockDim.x)
        twiddle[k] = twiddle_table[k];

    const long long n_in = g.n_out * m;
    constexpr int copy_bytes = pfb_ring_copy_bytes<Tin, RB>();
    const bool wide = g.n_receivers % RB == 0 &&
                      reinterpret_cast<uintptr_t>(in.input) % copy_bytes == 0 &&
                      reinterpret_cast<uintptr_t>(in.history) % copy_bytes == 0;
    const auto fill = [&](int r_first, long long first_block, int count) {
        pfb_ring_fill<Tin, RB, ring_blocks, log2_m, THREADS>(
            ring, in, n_in, r_first, first_block, count, wide);
        async_copy_commit();
    };
    const int groups = (g.n_receivers + RB - 1) / RB;
    const long long ranges = max(1, int(gridDim.x) / groups);
    const long long range_tiles = (tiles_per_group + ranges - 1) / ranges;
    for (long long unit = blockIdx.x; unit < groups * ranges; unit += gridDim.x) {
        const int r_first = int(unit % groups) * RB;
        const long long tile_begin = (unit / groups) * range_tiles;
        const long long tile_end = min(tiles_per_group, tile_begin + range_tiles);
        for (long long tile = tile_begin; tile < tile_end; tile++) {
            const long long t0 = tile * S;
            const int steps = int(min((long long)S, g.n_out - t0));
            // Blocks t0 - reach ... t0 + S - 1 feed this tile: a range's first
            // tile copies them all, a later tile finds all but its last S
            // there and those copied or in flight.
            if (tile == tile_begin)
                fill(r_first, t0 - reach, S + reach);
            async_copy_wait<0>();
            __syncthreads(); // the tile's blocks (and the twiddles, on the first tile)

            // The FIR (pfb_tiled_fir's sums), reading the ring: pair (p, rr)'s
            // newest sample of step t0 is t0 M + M - 1 - p, in block
            // t0 - floor(p / M) at offset M - 1 - p mod M.
            for (int first = int(threadIdx.x); first < n * RB; first += P * THREADS) {
                const int rr = first % RB;
                int p[P], slot0[P], offset[P];
                float tap[P][TMAX];
                float2 acc[P][S];
#pragma unroll
                for (int i = 0; i < P; i++) {
                    const int pair = min(first + i * THREADS, n * RB - 1);
                    p[i] = pair / RB;
                    slot0[i] = pfb_ring_slot<ring_blocks>(t0 - (p[i] >> log2_m) -
                                                          (TMAX - 1) * O);
                    offset[i] = (m - 1) - (p[i] & (m - 1));
                    pfb_branch_taps<TMAX>(branch_taps, p[i], tap[i]);
#pragma unroll
                    for (int s = 0; s < S; s++)
                        acc[i][s] = make_float2(0.f, 0.f);
                }
                pfb_tiled_accumulate<TMAX, O, S, P, false>(tap, acc, [&](int i, int j) {
                    int slot = slot0[i] + j + (TMAX - 1) * O;
                    slot = slot >= ring_blocks ? slot - ring_blocks : slot;
                    return pfb_raw_sample<Tin>::value(
                        ring[((slot << log2_m) + offset[i]) * RB + rr]);
                });
#pragma unroll
                for (int i = 0; i < P; i++)
#pragma unroll
                    for (int s = 0; s < S; s++)
                        if (first + i * THREADS < n * RB && s < steps)
                            rows[(s * RB + rr) * ld +
                                 pfb_fft_position<O>(p[i], t0 + s, g)] = acc[i][s];
            }
            __syncthreads();
            // The next tile's blocks, into the slots of blocks that only this
            // tile read; they land while it transforms and stores.
            if (tile + 1 < tile_end)
                fill(r_first, t0 + S, S);
            pfb_register_fft_and_store<RB, LOG2_N, THREADS>(
                rows, twiddle, ld, out, g, r_first, t0, steps);
        }
    }
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
