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
 * Two sample sets ("+db", X/Y pairs of at most 64 antennas): the producer
 * warpgroup fills item i + 1's set while the consumers multiply item i's,
 * so no warp stops for a fill: its warp 0 issues the weights, its warp 1
 * copies the fc32 input by TMA into a small ring of raw stages, its warps
 * 2-3 convert them (tensor_beamformer_ws_resident_kernel below). With
 * two sets X/Y pairs may also run in ping-pong ("+rs+pp+db"): a warpgroup's
 * 64-row tile then holds both polarizations' accumulators, and each
 * warpgroup releases the item's set after its own last multiply of it.
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
 *   samples [sets][npol][k_tiles][BN][128]   ring [STAGES][ROWS][128]
 *   ("+db": raw stages)   barriers   power sums, or (TMA voltage) two
 *   buffers per consumer group (tensor_beamformer_ws_voltage_store.cuh)
 *   (one half per consumer warpgroup in ping-pong)
 * Compiled for sm_90a only (the wgmma object library).
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_WS_RESIDENT_KERNEL_CUH
#define INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_WS_RESIDENT_KERNEL_CUH

#include "tensor_beamformer_ws_kernel.cuh"
#include "tensor_beamformer_ws_voltage_store.cuh"

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
                tally.add4(v[i]);
            }
        }
    }

    /*!
     * The same conversion by THREADS threads from ROWS time steps staged by
     * TMA (rows \p row0 ... of the item): box j of \p stage holds antennas
     * 8 j ... 8 j + 7 of each row (128 bytes, 128-byte swizzle), as
     * ws_raw_xy_box cuts them. Thread t keeps one antenna (k tiles <= 2:
     * 32 or 64 per row, padded) and takes every (THREADS / that)-th row.
     */
    template <int ROWS, int THREADS>
    __device__ static void convert_staged(const unsigned char* stage,
                                          int k_tiles,
                                          int row0,
                                          unsigned char* samples,
                                          int tid,
                                          range_tally& tally)
    {
        static_assert(Q == 32 && THREADS % 64 == 0, "32 antennas per k tile");
#ifdef BF_GPU_EMULATION
        if (k_tiles > 2)
            throw std::logic_error("convert_staged: at most 2 k tiles");
#endif
        const int shift = k_tiles == 1 ? 5 : 6; // log2 of the antennas per row
        const int ant = tid & ((1 << shift) - 1);
        const unsigned char* const src = stage + (ant >> 3) * (ROWS * 128);
        unsigned char* const x_half = samples + (ant >> 5) * W::B_STAGE;
        unsigned char* const y_half = x_half + size_t(k_tiles) * W::B_STAGE;
#pragma unroll 4
        for (int r = tid >> shift; r < ROWS; r += THREADS >> shift) {
            const float4 v =
                load_as<float4>(src + swizzle_offset(r, (ant & 7) * 16, 128));
            const int off = swizzle_offset(row0 + r, (ant & 31) * 4, W::BKB);
            store_as(x_half + off, __floats2half2_rn(v.x, v.y));
            store_as(y_half + off, __floats2half2_rn(v.z, v.w));
            tally.add4(v);
        }
    }
};

//! The most k tiles per polarization with two sample sets ("+db"): 2 sets x
//! 2 polarizations x 2 k tiles x 16 KB of X/Y samples at BN = 128 (64
//! antennas, LOFAR's) beside the raw stages and a ring of 2 x 16 KB.
constexpr int ws_resident_double_max_k_tiles = 2;

//! "+db": the fc32 input reaches shared memory by TMA, in stages of
//! ws_raw_rows time steps of an item (k tiles x 8 KB each), ws_raw_stages of
//! them in flight. Why: a fill through registers by the producer's spare
//! warps keeps too few loads in flight (96 threads x 8 x 16 bytes: slower
//! than the fill by every warp that it was to hide, apps/beamform_bench.md).
constexpr int ws_raw_rows = 16;
constexpr int ws_raw_stages = 3;
//! Producer threads that convert the staged rows (its warps 2 and 3).
constexpr int ws_raw_converters = 64;

/*!
 * The fc32 X/Y input [T][C][R] as bytes: boxes of 128 bytes (8 antennas' X
 * and Y) x one channel x ws_raw_rows time steps; TMA fills zeros past the
 * receivers and the times. Its rows (8 R bytes) are 16-byte multiples, R
 * being even for X/Y pairs.
 */
inline tma_box_3d ws_raw_xy_box(const kernel_args& a)
{
    return ws_time_channel_box(
        a.input, (unsigned long long)a.n_receivers * 8ull, a, ws_raw_rows);
}

//! "+db": bytes of one raw stage for sample_tiles (npol x k tiles) of fp16
//! samples: ws_raw_rows time steps of fc32, twice a set's bytes per step.
constexpr size_t ws_raw_stage_bytes(int sample_tiles)
{
    return size_t(ws_raw_rows) * 2 * 128 * size_t(sample_tiles);
}

/*!
 * The mbarriers, in this order (indices of 8-byte barriers): the ring's full
 * and empty; per sample set its "full", then per set, with one set, the
 * block's gate, with two, the set's "empty"; with two sets the raw stages'
 * full and empty; in ping-pong the two consumer warpgroups' turns.
 */
template <class W, int BUFFERS>
struct ws_resident_barrier_layout {
    static constexpr int raw_stages = BUFFERS == 2 ? ws_raw_stages : 0;
    static constexpr int full = 0;
    static constexpr int empty = full + W::STAGES;
    static constexpr int samples_full = empty + W::STAGES;
    static constexpr int gate = samples_full + BUFFERS;
    static constexpr int raw_full = gate + BUFFERS;
    static constexpr int raw_empty = raw_full + raw_stages;
    static constexpr int turn = raw_empty + raw_stages;
    static constexpr int count = turn + (W::PINGPONG ? 2 : 0);
};

//! Dynamic shared memory of BUFFERS sets of resident samples (sample_tiles
//! = npol x k tiles each), with two sets the raw stages (each ws_raw_rows x
//! 2 x the fp16 bytes of a set's row), the ring and the barriers.
template <class W, int BUFFERS = 1>
constexpr size_t ws_resident_smem_bytes(int sample_tiles)
{
    return size_t(BUFFERS) * size_t(sample_tiles) * W::B_STAGE +
           (BUFFERS == 2 ? size_t(ws_raw_stages) * ws_raw_stage_bytes(sample_tiles) : 0) +
           size_t(W::STAGES) * W::A_STAGE +
           size_t(ws_resident_barrier_layout<W, BUFFERS>::count) * 8 + 1024;
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

/*!
 * BUFFERS = 2 ("+db", X/Y pairs of at most ws_resident_double_max_k_tiles k
 * tiles): two sets of samples, filled by the producer warpgroup while the
 * consumers multiply the other: its warp 1 copies the fc32 input by TMA into
 * ws_raw_stages stages, its warps 2-3 convert each stage into item i's set
 * i % 2 once the consumers are done with item i - 2's. Why: with one set
 * every warp stops for each item's fill; on LOFAR's shape (H200) the kernel
 * took 0.30 ms with its fills and 0.23 ms with them left out
 * (apps/beamform_bench.md, "Two sample sets").
 */
template <class W, class Op, class Samples, int BUFFERS = 1>
__global__ void __launch_bounds__(W::threads, 1)
    tensor_beamformer_ws_resident_kernel(const kernel_args args,
                                         const BF_GRID_CONSTANT ws_maps maps)
{
#ifdef BF_TB_HAVE_WGMMA
    static_assert(W::consumers == 2, "three warpgroups share the conversion");
    constexpr int NPOL = Samples::npol;
    constexpr bool PREFETCH = BUFFERS == 2;
    static_assert(NPOL == 1 || !W::PINGPONG || PREFETCH,
                  "X/Y pairs in ping-pong with two sample sets only");
    static_assert(BUFFERS == 1 || (PREFETCH && NPOL == 2 && !Samples::by_tma),
                  "two sample sets: X/Y pairs from fc32");
    using acc_t = typename Op::acc_t;
    // float16 single-polarization voltage goes out by TMA where
    // maps.voltage_by_tma (ws_store_voltage; ws_voltage_stage_smem_bytes, in
    // the engine, reserves its buffers).
    constexpr bool TMA_VOLTAGE = NPOL == 1 && std::is_same<Op, op_fp16>::value;
    const int k_tiles = args.k_tiles; // per polarization
    const uint32_t sample_set = uint32_t(NPOL * k_tiles * W::B_STAGE); // one item's
    unsigned char* const raw = dynamic_smem();
    unsigned char* const smem = raw + ((1024u - (smem_u32(raw) & 1023u)) & 1023u);
    unsigned char* const samples = smem;
    const uint32_t smem_b = smem_u32(samples);
    const uint32_t smem_a = smem_b + uint32_t(BUFFERS) * sample_set;
    // "+db": the raw stages after the ring.
    const uint32_t raw_stage =
        PREFETCH ? uint32_t(ws_raw_stage_bytes(NPOL * k_tiles)) : 0u;
    const uint32_t smem_raw = smem_a + W::STAGES * W::A_STAGE;
    const uint32_t bars = smem_raw + (PREFETCH ? ws_raw_stages : 0) * raw_stage;
    using bar = ws_resident_barrier_layout<W, BUFFERS>;
    auto full = [&](int s) { return bars + 8u * unsigned(bar::full + s); };
    auto empty = [&](int s) { return bars + 8u * unsigned(bar::empty + s); };
    // Sample set b's "full" barrier: samples_full + 8 b. One set: the block's
    // gate; two: set b's "empty" barrier, gate + 8 b.
    const uint32_t samples_full = bars + 8u * unsigned(bar::samples_full);
    // The later barriers are addressed from the gate, not from bars: from
    // bars, nvcc compiles the "+db" kernels to other machine code than the
    // code they were measured with.
    const uint32_t gate = samples_full + 8u * unsigned(bar::gate - bar::samples_full);
    // "+db": raw stage s's full and empty barriers.
    auto raw_full = [&](int s) {
        return gate + 8u * unsigned(bar::raw_full - bar::gate + s);
    };
    auto raw_empty = [&](int s) {
        return gate + 8u * unsigned(bar::raw_empty - bar::gate + s);
    };
    // Ping-pong: warpgroup w waits on turn + 8 w.
    const uint32_t turn = gate + 8u * unsigned(bar::turn - bar::gate);
    unsigned char* const red = smem + (bars - smem_b) + bar::count * 8;
    // TMA voltage: its buffers where the power sums would be, 1024-byte
    // aligned (the 128-byte swizzle).
    unsigned char* const stage = red + ((1024u - (smem_u32(red) & 1023u)) & 1023u);

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
        for (int b = 0; b < BUFFERS; b++) {
            mbar_init(samples_full + 8u * unsigned(b),
                      PREFETCH ? unsigned(ws_raw_converters) : 1u);
            mbar_init(gate + 8u * unsigned(b),
                      unsigned(PREFETCH ? W::consumer_threads : W::threads));
        }
        if constexpr (PREFETCH)
            for (int s = 0; s < ws_raw_stages; s++) {
                mbar_init(raw_full(s), 1u);
                mbar_init(raw_empty(s), unsigned(ws_raw_converters));
            }
        if constexpr (W::PINGPONG) {
            mbar_init(turn, 128u);
            mbar_init(turn + 8u, 128u);
        }
        fence_barrier_init();
    }
    __syncthreads();

    // The block's items: blockIdx.x, + gridDim.x, ...; their channel and time
    // tile by tb::map_item (args.item_channel_group).
    const int my_items =
        int(blockIdx.x) < items ? (items - 1 - int(blockIdx.x)) / int(gridDim.x) + 1 : 0;
    auto item_of = [&](int i) {
        return tb::map_item(int(blockIdx.x) + i * int(gridDim.x),
                            args.n_channels,
                            args.n_tiles,
                            args.item_channel_group);
    };

    // Every value is converted once (fc32): its float16 range is counted here.
    range_tally tally;
    auto load = [&](int i) {
        const tb::item_coord item = item_of(i);
        ws_resident_load_samples<W, Samples>(args,
                                             maps,
                                             item.channel,
                                             item.n_tile * W::BN,
                                             samples,
                                             samples_full,
                                             gate,
                                             wg,
                                             tally);
    };

    const int total = my_items * per_item;
    // Weight load it of this block: row tile q / (NPOL k_tiles) of its item,
    // polarization (q / k_tiles) % NPOL, k tile q % k_tiles (q = it % per_item).
    // Loads are issued in order, so each item is mapped once: map_item's 64-bit
    // divisions for every load made the producer thread the bottleneck of
    // voltage at 128 receivers (5 % slower; apps/beamform_bench.md, session 35).
    int mapped_item = -1, mapped_channel = 0;
    auto issue_weights = [&](int it) {
        const int q = it % per_item;
        if (it / per_item != mapped_item) {
            mapped_item = it / per_item;
            mapped_channel = item_of(mapped_item).channel;
        }
        const int c = mapped_channel;
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
        if constexpr (PREFETCH) {
            // Warp 0's first thread issues the weights, warp 1's the raw
            // stages (g of item i: u = i G + g, stage u % ws_raw_stages);
            // warps 2-3 convert them into item i's set i % 2 once the
            // consumers are done with item i - 2's. A fresh mbarrier passes a
            // wait for parity 1 (the phase "before" its first).
            constexpr int G = W::BN / ws_raw_rows; // raw stages per item
            const int p = int(threadIdx.x) - W::consumer_threads;
            if (p == 0) {
                for (int it = 0; it < total; it++)
                    issue_weights(it);
            } else if (p == 32) {
                const int boxes = int(raw_stage / (ws_raw_rows * 128));
                for (int i = 0; i < my_items; i++) {
                    const tb::item_coord item = item_of(i);
                    for (int g = 0; g < G; g++) {
                        const int u = i * G + g;
                        const int s = u % ws_raw_stages;
                        mbar_wait(raw_empty(s), uint32_t((u / ws_raw_stages) & 1) ^ 1u);
                        mbar_arrive_expect_tx(raw_full(s), raw_stage);
                        for (int j = 0; j < boxes; j++)
                            tma_load_3d(smem_raw + s * raw_stage + j * (ws_raw_rows * 128),
                                        &maps.b,
                                        j * 128,
                                        item.channel,
                                        item.n_tile * W::BN + g * ws_raw_rows,
                                        raw_full(s));
                    }
                }
            } else if (p >= 64) {
                for (int i = 0; i < my_items; i++) {
                    const uint32_t b = uint32_t(i & 1);
                    mbar_wait(gate + 8u * b, uint32_t((i >> 1) & 1) ^ 1u);
                    for (int g = 0; g < G; g++) {
                        const int u = i * G + g;
                        const int s = u % ws_raw_stages;
                        mbar_wait(raw_full(s), uint32_t((u / ws_raw_stages) & 1));
                        Samples::template convert_staged<ws_raw_rows, ws_raw_converters>(
                            smem + (smem_raw - smem_b) + s * raw_stage,
                            k_tiles,
                            g * ws_raw_rows,
                            samples + b * sample_set,
                            p - 64,
                            tally);
                        mbar_arrive(raw_empty(s));
                    }
                    fence_proxy_async(); // st.shared -> the tensor cores
                    mbar_arrive(samples_full + 8u * b);
                }
            }
            tally.flush(args.range_counts);
            return;
        }
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
    // Item i's samples, and ("+db") the consumers' release of its set.
    auto set_of = [&](int i) {
        return smem_b + (PREFETCH ? uint32_t(i & 1) * sample_set : 0u);
    };
    auto release_set = [&](int i) { mbar_arrive(gate + 8u * uint32_t(i & 1)); };
    auto start_item = [&](int i, int& c, int& n0) {
        if constexpr (PREFETCH) {
            mbar_wait(samples_full + 8u * uint32_t(i & 1), uint32_t((i >> 1) & 1));
        } else {
            load(i);
            if constexpr (Samples::by_tma)
                mbar_wait(samples_full, uint32_t(i & 1));
        }
        const tb::item_coord item = item_of(i);
        c = item.channel;
        n0 = item.n_tile * W::BN;
    };
    if constexpr (W::PINGPONG) {
        // The power sums: one half of the block's per consumer warpgroup
        // ([Stokes][beams of a 64-row tile][windows] each).
        const int n_stokes = NPOL == 2 && args.iquv ? 4 : 1;
        unsigned char* const my_red = red + size_t(wg) * n_stokes * (W::ROWS / 2) *
                                                size_t(args.windows) * sizeof(float);
        unsigned char* const my_stage = stage + size_t(wg) * tb::voltage_stage_buffers *
                                                    tb::voltage_stage_bytes(W::ROWS / 2);
        int g = 0; // the block's row tiles so far, over all its items
        for (int i = 0; i < my_items; i++) {
            int c, n0;
            start_item(i, c, n0);
            const uint32_t set_b = set_of(i);
            // "+db": each warpgroup releases the item's set after its last
            // multiply of the item (at once if the item has no tile of its).
            const int g_end = g + m_tiles;
            const int my_last = ((g_end - 1) & 1) == wg ? g_end - 1 : g_end - 2;
            if (PREFETCH && my_last < g)
                release_set(i);
            for (int mt = 0; mt < m_tiles; mt++, g++) {
                if ((g & 1) != wg)
                    continue;
                // Tile g waits until tile g - 1 (the other warpgroup's) is
                // issued: the j-th arrival on this warpgroup's turn barrier.
                const int j = g >> 1;
                if (g > 0)
                    mbar_wait(turn + 8u * unsigned(wg), uint32_t((j - 1 + wg) & 1));
                int it = g * NPOL * k_tiles; // the ring's counter, as the producer's
                BF_UNROLL
                for (int p = 0; p < NPOL; p++)
                    // The other warpgroup's turn once the last polarization is issued.
                    ws_consume_tile<W, Op>(
                        acc[p][0],
                        k_tiles,
                        it,
                        smem_a,
                        wg,
                        full,
                        empty,
                        [&](int kt, int) {
                            return set_b + (p * k_tiles + kt) * W::B_STAGE;
                        },
                        [&] {
                            if (p == NPOL - 1)
                                mbar_arrive(turn + 8u * unsigned(1 - wg));
                        });
                if (PREFETCH && g == my_last)
                    release_set(i);
                const int m0 = mt * W::ROWS;
                int cc = c, nn = n0; // opaque, as below
                asm volatile("" : "+r"(cc), "+r"(nn));
                if constexpr (TMA_VOLTAGE)
                    if (maps.voltage_by_tma) {
                        ws_store_voltage<W::NT, W::ROWS, 128, warpgroup_sync>(
                            &maps.out,
                            args.n_beams,
                            acc[0][0],
                            my_stage,
                            cc,
                            m0,
                            nn,
                            m0 + (warp & 3) * 16);
                        continue;
                    }
                epilogue<Op,
                         NPOL,
                         1,
                         W::NT,
                         W::ROWS,
                         W::BN,
                         128,
                         warpgroup_sync,
                         W::SHORT_WINDOWS>(
                    args, acc, my_red, cc, m0, nn, m0 + (warp & 3) * 16, nn);
            }
        }
        ws_voltage_drain();
        tally.flush(args.range_counts);
        return;
    }
    int it = 0;
    for (int i = 0; i < my_items; i++) {
        int c, n0;
        start_item(i, c, n0);
        const uint32_t set_b = set_of(i);
        for (int mt = 0; mt < m_tiles; mt++) {
            const int m0 = mt * W::BM;
            // The weights from the ring, the samples resident (polarization
            // p's k tile kt).
            BF_UNROLL
            for (int p = 0; p < NPOL; p++)
                ws_consume_tile<W, Op>(
                    acc[p][0], k_tiles, it, smem_a, wg, full, empty, [&](int kt, int) {
                        return set_b + (p * k_tiles + kt) * W::B_STAGE;
                    });
            // The item's last multiplies have completed: its set may be refilled.
            if (PREFETCH && mt == m_tiles - 1)
                release_set(i);
            // (c, n0) made opaque per row tile: hoisted out of this loop, the
            // epilogue's per-window output addresses would not fit beside the
            // accumulators in the launch's 168 registers (ptxas spilled 1 KB).
            int cc = c, nn = n0;
            asm volatile("" : "+r"(cc), "+r"(nn));
            if constexpr (TMA_VOLTAGE)
                if (maps.voltage_by_tma) {
                    ws_store_voltage<W::NT,
                                     W::BM,
                                     W::consumer_threads,
                                     consumer_sync<W::consumer_threads>>(
                        &maps.out,
                        args.n_beams,
                        acc[0][0],
                        stage,
                        cc,
                        m0,
                        nn,
                        m0 + wg * 64 + (warp & 3) * 16);
                    continue;
                }
            epilogue<Op,
                     NPOL,
                     1,
                     W::NT,
                     W::BM,
                     W::BN,
                     W::consumer_threads,
                     consumer_sync<W::consumer_threads>,
                     W::SHORT_WINDOWS>(
                args, acc, red, cc, m0, nn, m0 + wg * 64 + (warp & 3) * 16, nn);
        }
    }
    ws_voltage_drain();
    tally.flush(args.range_counts);
#endif
}

} // namespace tb_kernels
} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
