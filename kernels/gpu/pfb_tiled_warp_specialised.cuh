/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The register-FFT tiled channelizer (pfb_tiled_register_fft.cuh) with its
 * FIR and its FFT on different warps of one block (CUDA only: it needs a
 * barrier of part of a block, bar.sync with a thread count).
 *
 * Why: pfb_tiled_register_fft_kernel runs FIR, FFT and store one after the
 * other, every warp in the same phase between block barriers. While the FIR
 * waits on its L2 loads the FP and shared-memory pipes idle, and while the
 * FFT and the store run no input load is in flight (apps/channelizer_bench.md,
 * version 7: 46-49 % of the issue slots busy at N = 256, 27 % at N = 1024).
 * Here PRODUCER_WARPS filter tile k + 1 into one of two row buffers while the
 * other warps transform and store tile k from the other buffer. One block
 * barrier per tile hands the buffers over:
 *
 *     round k:  producers: FIR of tile k      -> rows[k % 2]
 *               consumers: FFT, store tile k-1 <- rows[(k - 1) % 2]
 *               __syncthreads()
 *
 * so in round k + 1 the producers overwrite the buffer whose tile the
 * consumers finished in round k, and the consumers read the buffer the
 * producers finished in round k. The consumers' FFT and store meet at a
 * barrier of the consumer warps only (bar.sync 1): the store reads rows that
 * other consumer warps transformed.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_PFB_TILED_WARP_SPECIALISED_CUH
#define INCLUDED_BEAMFORM_KERNELS_PFB_TILED_WARP_SPECIALISED_CUH

#include <gpu/pfb_tiled_register_fft.cuh>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

#ifndef BF_BACKEND_HIP

//! bar.sync 1, \p threads: the consumer warps (whole warps) meet without the producers.
__device__ __forceinline__ void pfb_consumer_barrier(int threads)
{
#ifdef BF_GPU_EMULATION
    emu::named_barrier_sync(1, unsigned(threads));
#else
    asm volatile("bar.sync 1, %0;\n" ::"r"(threads) : "memory");
#endif
}

/*!
 * Grid and work split as pfb_tiled_kernel's (block b takes the (receiver
 * group, tile) pairs b, b + gridDim.x, ...); THREADS per block, the first
 * 32 PRODUCER_WARPS of them filter, the rest transform and store. Dynamic
 * shared memory: N twiddles + 2 buffers of S RB rows of N + 1.
 */
template <typename Tin,
          int TMAX,
          int O,
          int S,
          int RB,
          int P,
          int LOG2_N,
          int THREADS,
          int PRODUCER_WARPS,
          bool HALVES = false>
__global__ void __launch_bounds__(THREADS, 1)
    pfb_tiled_warp_specialised_kernel(pfb_stream<Tin> in,
                                      const float* __restrict__ taps, // prototype, N * T
                                      const float2* __restrict__ twiddle_table,
                                      float2* __restrict__ out,
                                      pfb_geometry g,
                                      long long tiles_per_group)
{
    constexpr int producers = 32 * PRODUCER_WARPS;
    constexpr int consumers = THREADS - producers;
    static_assert(THREADS % 32 == 0 && producers > 0 && consumers > 0, "whole warps, both roles");
    static_assert(producers % RB == 0 && consumers % RB == 0, "whole receiver groups");
    extern __shared__ float2 pfb_smem[];
#ifdef BF_GPU_EMULATION
    if (g.log2_n != LOG2_N)
        throw std::logic_error("pfb_tiled_warp_specialised_kernel: built for another N");
#endif
    constexpr int n = 1 << LOG2_N;
    const int ld = pfb_fft::row_stride(n);
    float2* twiddle = pfb_smem;
    float2* const buffers = twiddle + n; // buffer b: rows b S RB ... (b + 1) S RB - 1
    for (int k = threadIdx.x; k < n; k += blockDim.x)
        twiddle[k] = twiddle_table[k];

    const long long groups = (g.n_receivers + RB - 1) / RB;
    const long long work = groups * tiles_per_group;
    const long long tiles = blockIdx.x < work ? (work - 1 - blockIdx.x) / gridDim.x + 1 : 0;
    const bool producer = int(threadIdx.x) < producers;
    for (long long k = 0; k <= tiles; k++) {
        // This thread's tile of the round: k (producers) or k - 1 (consumers).
        const long long tile = producer ? k : k - 1;
        if (tile >= 0 && tile < tiles) {
            const long long w = blockIdx.x + tile * gridDim.x;
            const int r_first = int(w % groups) * RB;
            const long long t0 = (w / groups) * S;
            const int steps = int(min((long long)S, g.n_out - t0));
            float2* rows = buffers + (tile & 1) * S * RB * ld;
            // The pipelined FIR where the tile is whole and reads no history.
            const bool whole = steps == S && r_first + RB <= g.n_receivers &&
                               (t0 + 1) * g.step - n - (long long)(TMAX - 1) * O * g.step >= 0;
            if (producer && whole) {
                pfb_pipelined_fir<Tin, TMAX, O, S, RB, n, producers>(
                    in, taps, rows, ld, g, r_first, t0, int(threadIdx.x));
            } else if (producer) {
                pfb_tiled_fir<Tin, TMAX, O, S, RB, P, HALVES>(
                    in, taps, rows, ld, g, r_first, t0, steps, [](int pos) { return pos; },
                    int(threadIdx.x), producers);
            } else {
                const int c = int(threadIdx.x) - producers;
                pfb_register_fft_rows<LOG2_N>(rows, twiddle, steps * RB, ld, c, consumers);
                pfb_consumer_barrier(consumers);
                pfb_tiled_store<RB>(rows, ld, out, g, r_first, t0, steps, c, consumers);
            }
        }
        __syncthreads(); // hands both buffers over (and the twiddles, in round 0)
    }
}

#endif // BF_BACKEND_HIP

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
