/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The warp-specialised Hopper kernel with its samples resident ("+rs"), for
 * short k (a station's 64-160 receivers): the block's work item is one
 * channel x one BN-wide time tile, and it keeps that item's WHOLE k of
 * samples in shared memory while it runs every BM-row tile of the weights
 * over them.
 *
 * Why: at 96 receivers a 128x256 tile of tensor_beamformer_ws_kernel.cuh has
 * 3 k tiles; it reads 48 KB of weights and 96 KB of samples from L2 for
 * 3 x 4 wgmma, and the samples of one time tile are read again by each of the
 * 2 B / BM row tiles (16 at 1024 beams); fc32 samples must even be converted
 * again each time, or once by a separate pass. Here the samples are read and
 * converted once per item, and only the weights (48 KB per row tile) stream
 * through the ring.
 *
 *   every item (all threads): a barrier of all threads (every consumer is
 *     done with the previous item's samples), the samples loaded: fc32
 *     converted by all three warpgroups (k tile kt by warpgroup kt % 3), or
 *     one TMA copy per k tile (fp16) completing the "samples" mbarrier; a
 *     second barrier of all threads.
 *   producer warpgroup: the weights of (item, row tile, k tile), in order,
 *     into the ring of STAGES stages (as in tensor_beamformer_ws_kernel.cuh),
 *     running up to STAGES loads into the next item before its barrier;
 *   consumer warpgroups: per row tile, the k tiles' wgmma with A from the
 *     ring and B from the resident samples, then the shared epilogue.
 *     Ping-pong shapes (W::PINGPONG): the row tiles are 64 rows, taken by the
 *     two consumer warpgroups in turn (the block's g-th row tile by warpgroup
 *     g % 2), and a warpgroup issues its tile's multiplies only once the other
 *     has issued its previous tile's ("turn" mbarriers): while one warpgroup
 *     runs its epilogue, the other keeps the tensor cores busy. Without it
 *     the two drift only as far as the ring allows (H100, the station: 0.675
 *     ms against 0.727, apps/beamform_bench.md).
 *
 * X/Y pairs (Samples::npol == 2, fc32 receivers 2a, 2a + 1 = X, Y of
 * antenna a): the samples are split at load time into X k tiles then Y k
 * tiles; a row tile's weights come as polarization 0's k tiles then
 * polarization 1's; each consumer warpgroup keeps both accumulator sets, so
 * that the shared epilogue writes (X, Y) of a beam and time step as one
 * 16-byte value. Why: LOFAR's survey shape (155 beams, 64 antennas) is
 * memory-bound on its 0.49 GB of voltages, and the mma.sync tiles re-read and
 * re-convert every time tile's samples once per row tile and reload the
 * pipeline per tile (apps/beamform_bench.md, "X/Y pairs on the resident
 * samples").
 *
 * Shared memory (k_tiles = row_bytes / 128 per polarization, at most
 * MAX_K_TILES):
 *   samples [npol][k_tiles][BN][128]   ring [STAGES][ROWS][128]   barriers   power sums
 *   (one half per consumer warpgroup in ping-pong)
 * Compiled for sm_90a only (the wgmma object library).
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_WS_RESIDENT_KERNEL_CUH
#define INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_WS_RESIDENT_KERNEL_CUH

#include "tensor_beamformer_ws_kernel.cuh"

namespace gr {
namespace beamform {
namespace cuda {
namespace tb_kernels {

//! The most k tiles of resident samples per polarization (5 x 32 KB at BN =
//! 256: 160 receivers; X/Y pairs at BN = 128: 2 x 5 x 16 KB, 160 antennas).
constexpr int ws_resident_max_k_tiles = 5;

/*!
 * fc32 X/Y pairs [T][C][R] (receivers 2a, 2a + 1 = X, Y of antenna a),
 * converted to fp16 by every thread of the block: one 16-byte load per
 * antenna and time step, X into the first k_tiles tiles of the resident
 * samples, Y into the next k_tiles. Spread over all threads (not k tiles
 * over warpgroups: LOFAR's two k tiles would leave one warpgroup idle), in
 * chunks of CHUNK loads in flight per thread.
 */
template <class W>
struct ws_samples_fc32_xy {
    static constexpr bool by_tma = false;
    static constexpr int npol = 2;
    static constexpr int Q = W::BKB / 4; // antennas per row per k tile
    static constexpr int CHUNK = 8;

    __device__ static void fill(const kernel_args& a,
                                int c,
                                int n0,
                                unsigned char* samples,
                                int tid,
                                int threads,
                                range_tally& tally)
    {
        const float2* base =
            static_cast<const float2*>(a.input) + size_t(c) * a.n_receivers;
        const size_t row_stride = size_t(a.n_channels) * a.n_receivers;
        const int n_ant = a.n_receivers / 2;
        const int total = a.k_tiles * W::BN * Q; // (k tile, row, antenna)
        unsigned char* const y_half = samples + size_t(a.k_tiles) * W::B_STAGE;
        BF_NO_UNROLL
        for (int first = tid; first < total; first += CHUNK * threads) {
            float4 v[CHUNK];
            BF_UNROLL
            for (int i = 0; i < CHUNK; i++) {
                const int q = first + i * threads;
                const int kt = q / (W::BN * Q);
                const int row = (q / Q) % W::BN;
                const int ant = kt * Q + q % Q;
                if (q < total && n0 + row < a.n_times && ant < n_ant)
                    v[i] = load_as<float4>(base + size_t(n0 + row) * row_stride + 2 * ant);
                else
                    v[i] = float4{};
            }
            BF_UNROLL
            for (int i = 0; i < CHUNK; i++) {
                const int q = first + i * threads;
                if (q >= total)
                    break;
                const int kt = q / (W::BN * Q);
                const int row = (q / Q) % W::BN;
                const int off = kt * W::B_STAGE + swizzle_offset(row, (q % Q) * 4, W::BKB);
                store_as(samples + off, __floats2half2_rn(v[i].x, v[i].y));
                store_as(y_half + off, __floats2half2_rn(v[i].z, v[i].w));
                tally.add(v[i].x, v[i].y);
                tally.add(v[i].z, v[i].w);
            }
        }
    }
};

//! mbarriers: the ring's full and empty, the samples' full, the block's gate,
//! and in ping-pong the two consumer warpgroups' turns.
template <class W>
constexpr int ws_resident_barriers()
{
    return 2 * W::STAGES + 2 + (W::PINGPONG ? 2 : 0);
}

//! Dynamic shared memory of the resident samples (sample_tiles = npol x k
//! tiles), the ring and the barriers.
template <class W>
constexpr size_t ws_resident_smem_bytes(int sample_tiles)
{
    return size_t(sample_tiles) * W::B_STAGE + size_t(W::STAGES) * W::A_STAGE +
           size_t(ws_resident_barriers<W>()) * 8 + 1024;
}

/*!
 * Every thread of the block, at each item: wait until the consumers are done
 * with the previous item's samples, then load (c, n0)'s: one TMA copy per k
 * tile completing \p samples_full, or fc32 converted by the three
 * warpgroups (k tile kt by warpgroup kt % 3); a barrier of all threads after.
 */
template <class W, class Samples>
__device__ __forceinline__ void ws_resident_load_samples(const kernel_args& args,
                                                         const ws_maps& maps,
                                                         int c,
                                                         int n0,
                                                         unsigned char* samples,
                                                         uint32_t samples_full,
                                                         uint32_t gate,
                                                         int wg,
                                                         range_tally& tally)
{
#ifdef BF_TB_HAVE_WGMMA
    // The barriers of all the block's threads are an mbarrier ("gate", one
    // arrival per thread, two phases per item, so parities 0 then 1): the
    // producer and the consumers reach them from their own branches, where a
    // bar.sync would be a barrier in divergent code (compute-sanitizer
    // synccheck reports it).
    mbar_arrive(gate);
    mbar_wait(gate, 0u);
    if constexpr (Samples::by_tma) {
        if (threadIdx.x == 0) {
            mbar_arrive_expect_tx(samples_full, unsigned(args.k_tiles * W::B_STAGE));
            for (int kt = 0; kt < args.k_tiles; kt++)
                tma_load_3d(smem_u32(samples) + kt * W::B_STAGE,
                            &maps.b,
                            kt * W::BKB,
                            c,
                            n0,
                            samples_full);
        }
        __syncwarp(); // warp 0 reaches the next barrier together
    } else {
        if constexpr (Samples::npol == 2)
            Samples::fill(args, c, n0, samples, int(threadIdx.x), W::threads, tally);
        else
            for (int kt = wg; kt < args.k_tiles; kt += 3)
                Samples::fill(args,
                              c,
                              n0,
                              kt,
                              samples + kt * W::B_STAGE,
                              threadIdx.x & 127,
                              tally);
        fence_proxy_async(); // st.shared -> the tensor cores
    }
    mbar_arrive(gate);
    mbar_wait(gate, 1u);
#endif
}

template <class W, class Op, class Samples>
__global__ void __launch_bounds__(W::threads, 1)
    tensor_beamformer_ws_resident_kernel(const kernel_args args,
                                         const BF_GRID_CONSTANT ws_maps maps)
{
#ifdef BF_TB_HAVE_WGMMA
    static_assert(W::consumers == 2, "three warpgroups share the conversion");
    constexpr int NPOL = Samples::npol;
    static_assert(NPOL == 1 || !W::PINGPONG, "X/Y pairs without ping-pong");
    using acc_t = typename Op::acc_t;
    const int k_tiles = args.k_tiles; // per polarization
    unsigned char* const raw = dynamic_smem();
    unsigned char* const smem = raw + ((1024u - (smem_u32(raw) & 1023u)) & 1023u);
    unsigned char* const samples = smem;
    const uint32_t smem_b = smem_u32(samples);
    const uint32_t smem_a = smem_b + uint32_t(NPOL * k_tiles * W::B_STAGE);
    const uint32_t bars = smem_a + W::STAGES * W::A_STAGE;
    auto full = [&](int s) { return bars + 8u * unsigned(s); };
    auto empty = [&](int s) { return bars + 8u * unsigned(W::STAGES + s); };
    const uint32_t samples_full = bars + 8u * unsigned(2 * W::STAGES);
    const uint32_t gate = samples_full + 8u;
    const uint32_t turn = gate + 8u; // ping-pong: warpgroup w waits on turn + 8 w
    unsigned char* const red = smem + size_t(NPOL * k_tiles) * W::B_STAGE +
                               W::STAGES * W::A_STAGE + ws_resident_barriers<W>() * 8;

    const int warp = threadIdx.x >> 5;
    const int wg = warp >> 2;
    // Row tiles of W::ROWS rows: the engine's BM-row tiles, or in ping-pong the
    // 64-row tiles that hold beams (2 rows each).
    const int m_tiles = W::PINGPONG ? (2 * args.n_beams + 63) / 64 : args.m_tiles;
    // int: the engine keeps every launch below 2^31 tiles (>= items x m_tiles).
    const int items = args.n_channels * args.n_tiles;
    const int per_item = m_tiles * NPOL * k_tiles; // weight loads

    if (threadIdx.x == 0) {
        for (int s = 0; s < W::STAGES; s++) {
            mbar_init(full(s), 1u);
            // a stage is consumed by both warpgroups, or in ping-pong by one
            mbar_init(empty(s), unsigned(W::PINGPONG ? 128 : W::consumer_threads));
        }
        mbar_init(samples_full, 1u);
        mbar_init(gate, unsigned(W::threads));
        if constexpr (W::PINGPONG) {
            mbar_init(turn, 128u);
            mbar_init(turn + 8u, 128u);
        }
        fence_barrier_init();
    }
    __syncthreads();

    // The block's items: blockIdx.x, + gridDim.x, ...; consecutive blocks take
    // the time tiles of one channel together (its weights shared in L2).
    const int my_items =
        int(blockIdx.x) < items ? (items - 1 - int(blockIdx.x)) / int(gridDim.x) + 1 : 0;
    auto item_of = [&](int i) { return int(blockIdx.x) + i * int(gridDim.x); };

    // Every value is converted once (fc32): its float16 range is counted here.
    range_tally tally;
    auto load = [&](int i) {
        const int item = item_of(i);
        ws_resident_load_samples<W, Samples>(args,
                                             maps,
                                             int(item / args.n_tiles),
                                             int(item % args.n_tiles) * W::BN,
                                             samples,
                                             samples_full,
                                             gate,
                                             wg,
                                             tally);
    };

    const int total = my_items * per_item;
    // Weight load it of this block: row tile q / (NPOL k_tiles) of its item,
    // polarization (q / k_tiles) % NPOL, k tile q % k_tiles (q = it % per_item).
    auto issue_weights = [&](int it) {
        const int q = it % per_item;
        const int c = item_of(it / per_item) / args.n_tiles;
        const int s = it % W::STAGES;
        const int row =
            ((q / k_tiles) % NPOL) * args.rows + (q / (NPOL * k_tiles)) * W::ROWS;
        mbar_wait(empty(s), uint32_t((it / W::STAGES) & 1) ^ 1u);
        mbar_arrive_expect_tx(full(s), W::A_STAGE);
        tma_load_3d(smem_a + s * W::A_STAGE, &maps.a, (q % k_tiles) * W::BKB, row, c, full(s));
    };
    if (wg == W::consumers) {
        // Producer: the weights of every (item, row tile, k tile) in order.
        setmaxnreg_dec<W::PRODUCER_REGS>();
        int it = 0; // weight loads issued (the consumers count the same)
        for (int i = 0; i < my_items; i++) {
            load(i);
            // This item's weights, and up to STAGES loads of the next item:
            // the ring frees them as the consumers finish this one, before
            // they reach the next item's barrier. One thread issues; its warp
            // keeps together for the gate.
            const int stop = min((i + 1) * per_item + W::STAGES, total);
            for (; it < stop; it++) {
                if (threadIdx.x == W::consumer_threads)
                    issue_weights(it);
                __syncwarp(); // the warp reaches the next barrier together
            }
        }
        tally.flush(args.range_counts);
        return;
    }

    // Consumers. Each item: its samples loaded (all threads), then its
    // (channel, first time step).
    setmaxnreg_inc<W::CONSUMER_REGS>();
    acc_t acc[NPOL][1][W::NT][4];
    auto start_item = [&](int i, int& c, int& n0) {
        load(i);
        if constexpr (Samples::by_tma)
            mbar_wait(samples_full, uint32_t(i & 1));
        const int item = item_of(i);
        c = item / args.n_tiles;
        n0 = item % args.n_tiles * W::BN;
    };
    if constexpr (W::PINGPONG) {
        // The power sums: one half of the block's per consumer warpgroup.
        unsigned char* const my_red =
            red + size_t(wg) * (W::ROWS / 2) * size_t(args.windows) * sizeof(float);
        int g = 0; // the block's row tiles so far, over all its items
        for (int i = 0; i < my_items; i++) {
            int c, n0;
            start_item(i, c, n0);
            for (int mt = 0; mt < m_tiles; mt++, g++) {
                if ((g & 1) != wg)
                    continue;
                // Tile g waits until tile g - 1 (the other warpgroup's) is
                // issued: the j-th arrival on this warpgroup's turn barrier.
                const int j = g >> 1;
                if (g > 0)
                    mbar_wait(turn + 8u * unsigned(wg), uint32_t((j - 1 + wg) & 1));
                int it = g * k_tiles; // the ring's counter, as the producer's
                ws_consume_tile<W, Op>(
                    acc[0][0],
                    k_tiles,
                    it,
                    smem_a,
                    wg,
                    full,
                    empty,
                    [&](int kt, int) { return smem_b + kt * W::B_STAGE; },
                    [&] { mbar_arrive(turn + 8u * unsigned(1 - wg)); });
                const int m0 = mt * W::ROWS;
                int cc = c, nn = n0; // opaque, as below
                asm volatile("" : "+r"(cc), "+r"(nn));
                epilogue<Op, 1, 1, W::NT, W::ROWS, W::BN, 128, warpgroup_sync>(
                    args, acc, my_red, cc, m0, nn, m0 + (warp & 3) * 16, nn);
            }
        }
        tally.flush(args.range_counts);
        return;
    }
    int it = 0;
    for (int i = 0; i < my_items; i++) {
        int c, n0;
        start_item(i, c, n0);
        for (int mt = 0; mt < m_tiles; mt++) {
            const int m0 = mt * W::BM;
            // The weights from the ring, the samples resident (polarization
            // p's k tile kt).
            BF_UNROLL
            for (int p = 0; p < NPOL; p++)
                ws_consume_tile<W, Op>(
                    acc[p][0], k_tiles, it, smem_a, wg, full, empty, [&](int kt, int) {
                        return smem_b + (p * k_tiles + kt) * W::B_STAGE;
                    });
            // (c, n0) made opaque per row tile: hoisted out of this loop, the
            // epilogue's per-window output addresses would not fit beside the
            // accumulators in the launch's 168 registers (ptxas spilled 1 KB).
            int cc = c, nn = n0;
            asm volatile("" : "+r"(cc), "+r"(nn));
            epilogue<Op,
                     NPOL,
                     1,
                     W::NT,
                     W::BM,
                     W::BN,
                     W::consumer_threads,
                     consumer_sync<W::consumer_threads>>(
                args, acc, red, cc, m0, nn, m0 + wg * 64 + (warp & 3) * 16, nn);
        }
    }
    tally.flush(args.range_counts);
#endif
}

} // namespace tb_kernels
} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
