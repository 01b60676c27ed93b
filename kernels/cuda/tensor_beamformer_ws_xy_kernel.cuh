/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The warp-specialised Hopper (sm_90a) kernel for float16 X/Y pairs whose
 * samples stream through the ring: the X/Y counterpart of
 * tensor_beamformer_ws_kernel.cuh, for more antennas than the resident-samples
 * kernel holds in shared memory (tensor_beamformer_ws_resident_kernel.cuh).
 *
 * A ring stage carries one k tile of both polarizations: the X and the Y
 * rows of the expanded weights (two TMA copies, rows m0 and rows + m0 of
 * [C][2 rows][row_bytes]) and the X and the Y samples (two more, from the
 * fp16 planes [T][C][2][row_bytes] that the engine's pass wrote: "+pass").
 * Why a pass and not the producer converting fc32 as the single-polarization
 * kernel can: the samples are read again for every row tile, and converted
 * by the producer's warps each time they were the kernel's bound (H200,
 * session 35: 1.35 ms against 0.66 with the pass at 256 antennas x 155
 * beams, Stokes IQUV over 16; apps/beamform_bench.md).
 *
 * Each consumer warpgroup keeps two accumulator sets, multiplies X into one
 * and Y into the other from the same stage, and the epilogue forms voltage
 * pairs or Stokes from them (tensor_beamformer_epilogue.cuh, NPA = 2). Ring
 * protocol, phase parity and persistent blocks as in the single-polarization
 * kernel.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_WS_XY_KERNEL_CUH
#define INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_WS_XY_KERNEL_CUH

#include "tensor_beamformer_ws_kernel.cuh"

namespace gr {
namespace beamform {
namespace cuda {
namespace tb_kernels {

//! A stage of the X/Y ring holds both polarizations: twice W's stage.
template <class W>
struct ws_xy_ring {
    static constexpr int STAGES = W::STAGES;
    static constexpr int A_STAGE = 2 * W::A_STAGE, B_STAGE = 2 * W::B_STAGE;
    static constexpr int RING = W::STAGES * (A_STAGE + B_STAGE);
    static constexpr int BARRIERS = 2 * W::STAGES * 8;
};

//! Dynamic shared memory of the X/Y ring and its barriers (power sums on top).
template <class W>
constexpr int ws_xy_pipeline_smem_bytes()
{
    return ws_xy_ring<W>::RING + ws_xy_ring<W>::BARRIERS + 1024;
}

/*!
 * The samples' TMA tensor: rows [T][C] of both fp16 planes, X then Y, of
 * row_bytes each (the engine's "+pass", launch_fc32_xy_to_fp16_planes, sets
 * n_receivers to the two planes' complex values).
 */
inline int ws_xy_planes_row_bytes(const kernel_args& a) { return a.n_receivers * 4; }

/*!
 * The kernel: BM rows per polarization (BM / 64 consumer warpgroups), BN = 128
 * (two accumulator sets per consumer thread), W::SHORT_WINDOWS as in the
 * epilogue. The engine's pass counts the float16 range.
 */
template <class W, class Op>
__global__ void __launch_bounds__(W::threads, 1)
    tensor_beamformer_ws_xy_kernel(const kernel_args args,
                                   const BF_GRID_CONSTANT ws_maps maps,
                                   const long long tiles)
{
#ifdef BF_TB_HAVE_WGMMA
    static_assert(W::BN == 128 && !W::PINGPONG, "two accumulator sets of 64 columns");
    using R = ws_xy_ring<W>;
    using acc_t = typename Op::acc_t;
    const ws_ring_smem<R> ring;
    const uint32_t smem_a = ring.a, smem_b = ring.b;
    const ws_barrier_row full = ring.full, empty = ring.empty;

    const int warp = threadIdx.x >> 5;
    const int wg = warp >> 2;
    const int k_tiles = args.k_tiles; // per polarization

    ws_init_ring<W>(full, empty, 1u); // "full": the copies' issuer
    auto coord = [&](long long t) { return ws_tile_coord(args, t); };

    if (wg == W::consumers) {
        // Producer: one thread copies both polarizations' weights and samples
        // of every (tile, k tile).
        setmaxnreg_dec<W::PRODUCER_REGS>();
        if (threadIdx.x != W::consumer_threads)
            return;
        int it = 0;
        for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
            const tb::tile_coord tc = coord(t);
            const int m0 = tc.m_tile * W::BM;
            const int n0 = tc.n_tile * W::BN;
            for (int kt = 0; kt < k_tiles; kt++, it++) {
                const int s = it % W::STAGES;
                mbar_wait(empty(s), uint32_t((it / W::STAGES) & 1) ^ 1u);
                mbar_arrive_expect_tx(full(s), R::A_STAGE + R::B_STAGE);
                for (int pol = 0; pol < 2; pol++) {
                    tma_load_3d(smem_a + s * R::A_STAGE + pol * W::A_STAGE,
                                &maps.a,
                                kt * W::BKB,
                                pol * args.rows + m0,
                                tc.channel,
                                full(s));
                    tma_load_3d(smem_b + s * R::B_STAGE + pol * W::B_STAGE,
                                &maps.b,
                                pol * args.row_bytes + kt * W::BKB,
                                tc.channel,
                                n0,
                                full(s));
                }
            }
        }
        return;
    }

    // Consumers: X into acc[0], Y into acc[1], from the same stage.
    setmaxnreg_inc<W::CONSUMER_REGS>();
    acc_t acc[2][1][W::NT][4];
    const uint32_t a_rows = uint32_t(wg * (64 * W::BKB));
    int it = 0;
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        const tb::tile_coord tc = coord(t);
        const int m0 = tc.m_tile * W::BM;
        const int n0 = tc.n_tile * W::BN;
        BF_UNROLL
        for (int pol = 0; pol < 2; pol++)
            BF_UNROLL
        for (int j = 0; j < W::NT; j++)
            BF_UNROLL
        for (int r = 0; r < 4; r++)
            acc[pol][0][j][r] = acc_t(0);
        for (int kt = 0; kt < k_tiles; kt++, it++) {
            const int s = it % W::STAGES;
            mbar_wait(full(s), uint32_t((it / W::STAGES) & 1));
            const uint32_t a = smem_a + s * R::A_STAGE + a_rows;
            const uint32_t b = smem_b + s * R::B_STAGE;
            fence_accumulators(acc[0][0]);
            fence_accumulators(acc[1][0]);
            wgmma_fence();
            wgmma_k_tile<Op, W::BN, W::KSTEPS>(
                acc[0][0], smem_descriptor(a), smem_descriptor(b));
            wgmma_k_tile<Op, W::BN, W::KSTEPS>(acc[1][0],
                                               smem_descriptor(a + W::A_STAGE),
                                               smem_descriptor(b + W::B_STAGE));
            wgmma_commit();
            wgmma_wait<1>();
            fence_accumulators(acc[0][0]);
            fence_accumulators(acc[1][0]);
            if (kt > 0) // the previous k tile's multiplies have completed
                mbar_arrive(empty((it - 1) % W::STAGES));
        }
        wgmma_wait<0>();
        fence_accumulators(acc[0][0]);
        fence_accumulators(acc[1][0]);
        mbar_arrive(empty((it - 1) % W::STAGES));

        // Warp w of warpgroup wg holds rows 16 w .. 16 w + 15 of the warpgroup's 64.
        epilogue<Op,
                 2,
                 1,
                 W::NT,
                 W::BM,
                 W::BN,
                 W::consumer_threads,
                 consumer_sync<W::consumer_threads>,
                 W::SHORT_WINDOWS>(
            args, acc, ring.sums, tc.channel, m0, n0, m0 + wg * 64 + (warp & 3) * 16, n0);
    }
#endif
}

} // namespace tb_kernels
} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
