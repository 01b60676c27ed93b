/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The warp-specialised Hopper (sm_90a) kernel of the tensor-core beamformer:
 * the wgmma kernel's product and epilogue (tensor_beamformer_wgmma_kernel.cuh)
 * fed by a producer warpgroup through a ring of STAGES shared-memory stages
 * guarded by mbarriers, in persistent thread blocks.
 *
 *   producer warpgroup (the last one; few registers, setmaxnreg.dec):
 *     for every (tile, k tile) of this block, in order: wait until the stage
 *     is empty, then fill it: the expanded weights (A) by one TMA tensor copy;
 *     the samples (B) by a second TMA copy (fp16, packed bits) or converted
 *     fc32 -> fp16 by the warpgroup's 128 threads (st.shared, then
 *     fence.proxy.async so that the tensor cores see them); the stage's "full"
 *     mbarrier completes when all its bytes and arrivals are in. With the
 *     in-kernel pass (tensor_beamformer_ws_inline_pass.cuh) warps 1-3 convert
 *     fc32 samples into the fp16 rows that TMA reads, for every block, and
 *     thread 0 waits for a tile's rows before its copies.
 *   consumer warpgroups (64 rows each, setmaxnreg.inc):
 *     wait "full", issue the k tile's wgmma (one group in flight), and once
 *     the previous k tile's group has completed, arrive on its stage's
 *     "empty" mbarrier; after the last k tile of a tile, the epilogue (named
 *     barrier among the consumers only), while the producer already loads the
 *     next tile's operands.
 *
 * The ring's phase parity comes from a counter of k tiles that runs on across
 * tiles (stage = it % STAGES, parity = (it / STAGES) & 1), identical in the
 * producer and the consumers. TMA writes the 128-byte swizzle that the wgmma
 * descriptors read (stages on 1024-byte boundaries), and fills zeros outside
 * the tensor: rows past the weights' padded rows, time steps past n_times and
 * bytes past a sample row.
 *
 * Compiled for sm_90a only (tensor_beamformer_ws.cu, the wgmma object
 * library); the plain sm_90 image holds an empty kernel.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_WS_KERNEL_CUH
#define INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_WS_KERNEL_CUH

#include "hopper_async.cuh"
#include "tensor_beamformer_wgmma_kernel.cuh"
#include "tensor_beamformer_ws_inline_pass.cuh"
#include <gpu/float16_range.cuh>

#ifdef BF_GPU_EMULATION
#define BF_GRID_CONSTANT
#else
#define BF_GRID_CONSTANT __grid_constant__
#endif

namespace gr {
namespace beamform {
namespace cuda {
namespace tb_kernels {

/*!
 * A warp-specialised tile: BM rows (BM / 64 consumer warpgroups) x BN time
 * steps, 128-byte k tiles, STAGES ring stages, one producer warpgroup.
 * PRODUCER_REGS / CONSUMER_REGS: the setmaxnreg split of the block's
 * registers (one block per SM). PINGPONG (resident-samples kernel only): the
 * consumer warpgroups take 64-row tiles in turn instead of 64 rows each of
 * one BM-row tile, so a ring stage holds ROWS = 64 rows of weights.
 * SHORT_WINDOWS (X/Y pairs of the resident-samples kernel, "+sw"): the
 * epilogue sums power windows of 1, 2 and 4 steps in registers, as it always
 * does for single polarization (epilogue's XY_SHORT_WINDOWS).
 */
template <int BM_,
          int BN_,
          int STAGES_,
          int PRODUCER_REGS_ = 40,
          bool PINGPONG_ = false,
          bool SHORT_WINDOWS_ = false>
struct ws_shape {
    static constexpr int BM = BM_, BN = BN_, BKB = 128, STAGES = STAGES_;
    static constexpr bool PINGPONG = PINGPONG_;
    static constexpr bool SHORT_WINDOWS = SHORT_WINDOWS_;
    static constexpr int ROWS = PINGPONG ? 64 : BM; // weight rows per ring stage
    static constexpr int consumers = BM / 64;
    static constexpr int consumer_threads = consumers * 128;
    static constexpr int threads = consumer_threads + 128;
    static constexpr int NT = BN / 8;
    static constexpr int KSTEPS = BKB / 32;
    static constexpr int A_STAGE = ROWS * BKB, B_STAGE = BN * BKB;
    static constexpr int RING = STAGES * (A_STAGE + B_STAGE);
    static constexpr int BARRIERS = 2 * STAGES * 8;
    static constexpr int PRODUCER_REGS = PRODUCER_REGS_;
    /*!
     * setmaxnreg.inc takes only what the block's own setmaxnreg.dec released
     * (else it waits for ever): the consumers get their launch allocation
     * (__launch_bounds__(threads, 1): 64 K / threads, a multiple of 8) plus
     * the producer's released share, rounded down to a multiple of 8.
     */
    static constexpr int LAUNCH_REGS = (65536 / threads) / 8 * 8;
    static constexpr int CONSUMER_REGS_RAW =
        LAUNCH_REGS + 128 * (LAUNCH_REGS - PRODUCER_REGS) / consumer_threads;
    static constexpr int CONSUMER_REGS =
        (CONSUMER_REGS_RAW > 256 ? 256 : CONSUMER_REGS_RAW) / 8 * 8;
    static_assert(PRODUCER_REGS <= LAUNCH_REGS, "the producer gives registers away");
    static_assert(BM % 64 == 0 && BM <= 256,
                  "consumer warpgroups of 64 rows; TMA box <= 256");
    static_assert(BN == 128 || BN == 256, "wgmma N of 128 or 256 here");
    static_assert(STAGES >= 2, "a ring of at least two stages");
};

//! Dynamic shared memory of the ring and its barriers (the power sums come on top).
template <class W>
constexpr int ws_pipeline_smem_bytes()
{
    return W::RING + W::BARRIERS + 1024;
}

/*!
 * A 3-D TMA box as the host encodes it: dimensions in bytes (0 innermost),
 * byte strides of dimensions 1 and 2, a box of 128 bytes x box[1] x box[2].
 */
struct tma_box_3d {
    const void* base;
    unsigned long long dim[3];
    unsigned long long stride[2];
    unsigned box[3];
};

/*!
 * The expanded weights [C][npol][rows][row_bytes], seen as [C][npol x rows]
 * [row_bytes] (polarization p's row r is row p x rows + r): boxes of BM rows
 * x one k tile. rows is a multiple of every tile's BM, so that no box
 * reaches into the other polarization's rows.
 */
inline tma_box_3d ws_weights_box(const kernel_args& a, int bm, int npol = 1)
{
    const auto rb = (unsigned long long)a.row_bytes;
    const auto rows = (unsigned long long)a.rows * (unsigned long long)npol;
    return tma_box_3d{ a.weights,
                       { rb, rows, (unsigned long long)a.n_channels },
                       { rb, rb * rows },
                       { 128u, unsigned(bm), 1u } };
}

/*!
 * A tensor [T][C][row_bytes] at \p base (the samples, the voltage) as bytes:
 * boxes of 128 bytes of a row x one channel x \p steps time steps. TMA needs
 * row_bytes % 16 == 0.
 */
inline tma_box_3d ws_time_channel_box(const void* base,
                                      unsigned long long row_bytes,
                                      const kernel_args& a,
                                      int steps)
{
    return tma_box_3d{
        base,
        { row_bytes, (unsigned long long)a.n_channels, (unsigned long long)a.n_times },
        { row_bytes, row_bytes * (unsigned long long)a.n_channels },
        { 128u, 1u, unsigned(steps) }
    };
}

/*!
 * Samples [T][C][row_bytes] (fp16 complex or packed bits): boxes of one k
 * tile x one channel x BN time steps.
 */
inline tma_box_3d ws_samples_box(const kernel_args& a, int row_bytes, int bn)
{
    return ws_time_channel_box(a.input, (unsigned long long)row_bytes, a, bn);
}

/*!
 * Single-polarization voltage [T][C][B] complex float, seen as the tensor
 * [T][C x B / 16 groups of 16 beams][128 bytes]: boxes of 128 bytes x 2
 * groups x voltage_stage_steps time steps at (0, c B / 16 + first beam / 16,
 * t), rows (step, group) in shared memory. A channel's groups run on into
 * the next channel's, so the kernel issues no box past the beams
 * (ws_voltage_by_tma: B a multiple of tb::voltage_box_beams = 32); TMA
 * writes nothing past the times.
 */
inline tma_box_3d ws_voltage_box(const kernel_args& a)
{
    const auto groups =
        (unsigned long long)a.n_channels * (unsigned long long)(a.n_beams / 16);
    return tma_box_3d{
        a.out,
        { 128ull, groups, (unsigned long long)a.n_times },
        { 128ull, groups * 128ull },
        { 128u, unsigned(tb::voltage_box_beams / 16), unsigned(tb::voltage_stage_steps) }
    };
}

//! Whether TMA can store that voltage: whole boxes of beams (a multiple of
//! 32) from a 16-byte aligned output.
inline bool ws_voltage_by_tma(const kernel_args& a)
{
    return !a.power && a.n_beams % tb::voltage_box_beams == 0 &&
           reinterpret_cast<unsigned long long>(a.out) % 16 == 0;
}

/*!
 * The kernel's tensor maps: A, B (unused where the producer converts fc32)
 * and, where voltage_by_tma, the voltage output (ws_voltage_box).
 */
struct ws_maps {
    tensor_map a;
    tensor_map b;
    tensor_map out;
    int voltage_by_tma;
};

/*!
 * Samples that TMA copies as they are: interleaved fp16 (BITS false, rows of
 * n_receivers x 4 bytes) or packed bits (rows of in_row_words words).
 */
template <bool BITS>
struct ws_samples_tma {
    static constexpr bool by_tma = true;
    static constexpr bool inline_pass = false;
    static constexpr int npol = 1;
    static int row_bytes(const kernel_args& a)
    {
        return BITS ? a.in_row_words * 4 : a.n_receivers * 4;
    }
};

/*!
 * The float16 range of the fc32 values one thread converts (values rounded
 * to inf and to 0, kernels/gpu/float16_range.cuh), added to the launch's
 * counters once at the end.
 */
struct range_tally {
    unsigned long long over = 0, under = 0;
    __device__ void add(float a, float b)
    {
        ::gr::beamform::BF_GPU_NS::float16_range_count(a, over, under);
        ::gr::beamform::BF_GPU_NS::float16_range_count(b, over, under);
    }
    //! The same for four values, counted one by one only where one of them
    //! may be out of range (never, in data scaled for float16).
    __device__ void add4(float4 v)
    {
        const float hi =
            fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fmaxf(fabsf(v.z), fabsf(v.w)));
        const float lo =
            fminf(fminf(fabsf(v.x), fabsf(v.y)), fminf(fabsf(v.z), fabsf(v.w)));
        if (hi >= ::gr::beamform::BF_GPU_NS::float16_overflow_from ||
            lo <= ::gr::beamform::BF_GPU_NS::float16_underflow_to) {
            add(v.x, v.y);
            add(v.z, v.w);
        }
    }
    __device__ void flush(unsigned long long* counts) const
    {
        if (counts && over)
            atomicAdd(counts, over);
        if (counts && under)
            atomicAdd(counts + 1, under);
    }
};

//! No count: where a value may be converted more than once.
struct no_tally {
    __device__ void add(float, float) {}
    __device__ void add4(float4) {}
};

/*!
 * fc32 samples [T][C][R], converted to fp16 by the producer warpgroup: VEC
 * complex per load (2 when R is even: 16-byte loads), in chunks of at most
 * 16 loads per thread held in registers at once.
 */
template <class W, int VEC>
struct ws_samples_fc32 {
    static constexpr bool by_tma = false;
    static constexpr bool inline_pass = false;
    static constexpr int npol = 1;
    static constexpr int Q = W::BKB / 4; // complex samples per row per k tile
    static constexpr int VPR = Q / VEC;  // loads per row per k tile
    static constexpr int LOADS = W::BN * VPR / 128;
    static constexpr int CHUNK = LOADS < 16 ? LOADS : 16;
    static_assert(LOADS % CHUNK == 0, "even chunks");
    using vec_t = typename std::conditional<VEC == 2, float4, float2>::type;

    //! Producer thread \p p (0..127) converts k tile kt of (c, n0) into \p stage.
    template <class Tally>
    __device__ static void fill(
        const kernel_args& a, int c, int n0, int kt, unsigned char* stage, int p, Tally& tally)
    {
        const float2* base =
            static_cast<const float2*>(a.input) + size_t(c) * a.n_receivers;
        const size_t row_stride = size_t(a.n_channels) * a.n_receivers;
        BF_NO_UNROLL
        for (int ch = 0; ch < LOADS / CHUNK; ch++) {
            vec_t v[CHUNK];
            BF_UNROLL
            for (int i = 0; i < CHUNK; i++) {
                const int q = p + (ch * CHUNK + i) * 128;
                const int row = q / VPR;
                const int rx = kt * Q + (q % VPR) * VEC;
                // VEC == 2 implies R even, so rx < R covers both samples.
                if (n0 + row < a.n_times && rx < a.n_receivers)
                    v[i] = load_as<vec_t>(base + size_t(n0 + row) * row_stride + rx);
                else
                    v[i] = vec_t{};
            }
            BF_UNROLL
            for (int i = 0; i < CHUNK; i++) {
                const int q = p + (ch * CHUNK + i) * 128;
                const int row = q / VPR;
                const int byte = (q % VPR) * VEC * 4; // one half2 per complex sample
                if constexpr (VEC == 2) {
                    uint2 u;
                    u.x = bits_of(__floats2half2_rn(v[i].x, v[i].y));
                    u.y = bits_of(__floats2half2_rn(v[i].z, v[i].w));
                    store_as(stage + swizzle_offset(row, byte, W::BKB), u);
                    tally.add4(v[i]);
                } else {
                    store_as(stage + swizzle_offset(row, byte, W::BKB),
                             __floats2half2_rn(v[i].x, v[i].y));
                    tally.add(v[i].x, v[i].y);
                }
            }
        }
    }
};

//! The epilogue's barrier: the consumer warpgroups only (named barrier 1).
template <int COUNT>
struct consumer_sync {
    __device__ static void sync() { named_barrier_sync(1, COUNT); }
};

//! The epilogue's barrier of one consumer warpgroup alone (named barriers 2, 3).
struct warpgroup_sync {
    __device__ static void sync()
    {
#ifdef BF_TB_HAVE_WGMMA
        named_barrier_sync(2u + (threadIdx.x >> 7), 128u);
#endif
    }
};

//! Nothing to do once a tile's multiplies are issued.
struct no_signal {
    __device__ void operator()() const {}
};

/*!
 * A consumer warpgroup's product of one tile from the ring: the accumulators
 * zeroed, then per k tile: wait for its stage's "full", issue its wgmma (A
 * from the stage: the warpgroup's 64 rows of it, or all of a ping-pong stage;
 * B at \p b_addr(kt, stage)), keep one group in flight and free the previous
 * k tile's stage once that multiply has completed; \p issued() once the last
 * k tile is issued; the last stage after the final wait. \p it, the ring's
 * k-tile counter, runs on.
 */
template <class W,
          class Op,
          class Acc,
          class Full,
          class Empty,
          class BAddr,
          class Issued = no_signal>
__device__ __forceinline__ void ws_consume_tile(Acc (&acc)[W::NT][4],
                                                int k_tiles,
                                                int& it,
                                                uint32_t smem_a,
                                                int wg,
                                                Full full,
                                                Empty empty,
                                                BAddr b_addr,
                                                Issued issued = Issued{})
{
#ifdef BF_TB_HAVE_WGMMA
    const uint32_t a_rows = W::PINGPONG ? 0u : uint32_t(wg * (64 * W::BKB));
    BF_UNROLL
    for (int j = 0; j < W::NT; j++)
        BF_UNROLL
    for (int r = 0; r < 4; r++)
        acc[j][r] = Acc(0);
    for (int kt = 0; kt < k_tiles; kt++, it++) {
        const int s = it % W::STAGES;
        mbar_wait(full(s), uint32_t((it / W::STAGES) & 1));
        const uint64_t desc_a = smem_descriptor(smem_a + s * W::A_STAGE + a_rows);
        const uint64_t desc_b = smem_descriptor(b_addr(kt, s));
        fence_accumulators(acc);
        wgmma_fence();
        wgmma_k_tile<Op, W::BN, W::KSTEPS>(acc, desc_a, desc_b);
        wgmma_commit();
        wgmma_wait<1>();
        fence_accumulators(acc);
        if (kt > 0) // the previous k tile's multiply has completed: its stage is free
            mbar_arrive(empty((it - 1) % W::STAGES));
    }
    issued();
    wgmma_wait<0>();
    fence_accumulators(acc);
    mbar_arrive(empty((it - 1) % W::STAGES));
#endif
}

/*!
 * The ring's mbarriers, initialised by thread 0 (\p full_arrivals per
 * "full", the consumers' threads per "empty"), then a block barrier: every
 * thread of the block calls it.
 */
//! Barrier s of a row of mbarriers (8 bytes each) from \p base.
struct ws_barrier_row {
    uint32_t base;
    __device__ __forceinline__ uint32_t operator()(int s) const
    {
        return base + 8u * unsigned(s);
    }
};

/*!
 * Where a streamed kernel's ring lies in dynamic shared memory, from a
 * 1024-byte boundary (the 128-byte swizzle's period): R::STAGES A stages,
 * R::STAGES B stages, a "full" and an "empty" barrier per stage, then the
 * epilogue's power sums. R: W for one polarization, ws_xy_ring<W> for X/Y.
 */
template <class R>
struct ws_ring_smem {
    unsigned char* base; //!< the aligned start (stage 0 of A)
    uint32_t a, b;       //!< stage 0 of A and of B, as shared addresses
    ws_barrier_row full, empty;
    unsigned char* sums; //!< past the ring and its barriers

    __device__ __forceinline__ ws_ring_smem()
    {
        unsigned char* const raw = dynamic_smem();
        base = raw + ((1024u - (smem_u32(raw) & 1023u)) & 1023u);
        a = smem_u32(base);
        b = a + R::STAGES * R::A_STAGE;
        full = ws_barrier_row{ a + R::RING };
        empty = ws_barrier_row{ a + R::RING + 8u * R::STAGES };
        sums = base + R::RING + R::BARRIERS;
    }
};

template <class W, class Full, class Empty>
__device__ __forceinline__ void ws_init_ring(Full full, Empty empty, unsigned full_arrivals)
{
#ifdef BF_TB_HAVE_WGMMA
    if (threadIdx.x == 0) {
        for (int s = 0; s < W::STAGES; s++) {
            mbar_init(full(s), full_arrivals);
            mbar_init(empty(s), unsigned(W::consumer_threads));
        }
        fence_barrier_init();
    }
    __syncthreads();
#endif
}

//! Channel and tiles of a persistent block's tile t, in the launch's order.
__device__ __forceinline__ tb::tile_coord ws_tile_coord(const kernel_args& a, long long t)
{
    return tb::map_block(t, a.n_channels, a.m_tiles, a.n_tiles, a.channel_group, a.m_group);
}

template <class W, class Op, class Samples>
__global__ void __launch_bounds__(W::threads, 1)
    tensor_beamformer_ws_kernel(const kernel_args args,
                                const BF_GRID_CONSTANT ws_maps maps,
                                const long long tiles)
{
#ifdef BF_TB_HAVE_WGMMA
    using acc_t = typename Op::acc_t;
    const ws_ring_smem<W> ring;
    const uint32_t smem_a = ring.a, smem_b = ring.b;
    const ws_barrier_row full = ring.full, empty = ring.empty;

    const int warp = threadIdx.x >> 5;
    const int wg = warp >> 2;
    const int k_tiles = args.k_tiles;
    // "full": the copies' issuer, + 128 converters where the producer converts.
    ws_init_ring<W>(full, empty, Samples::by_tma ? 1u : 129u);
    auto coord = [&](long long t) { return ws_tile_coord(args, t); };

    if (wg == W::consumers) {
        // Producer.
        setmaxnreg_dec<W::PRODUCER_REGS>();
        const int p = threadIdx.x - W::consumer_threads;
        if constexpr (Samples::inline_pass) {
            if (p >= 32) { // the spare warps: the pass
                range_tally range;
                Samples::convert(args,
                                 (p / 32 - 1) * int(gridDim.x) + int(blockIdx.x),
                                 Samples::spare_warps * int(gridDim.x),
                                 range);
                range.flush(args.range_counts);
                return;
            }
        }
        int it = 0;
        for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
            const tb::tile_coord tc = coord(t);
            const int m0 = tc.m_tile * W::BM;
            const int n0 = tc.n_tile * W::BN;
            if constexpr (Samples::inline_pass) {
                if (p == 0)
                    Samples::wait_slab(args, t, tc.channel, tc.n_tile);
            }
            for (int kt = 0; kt < k_tiles; kt++, it++) {
                const int s = it % W::STAGES;
                const uint32_t parity = uint32_t((it / W::STAGES) & 1) ^ 1u;
                // The stage's weights (k tile kt of rows m0..), one TMA copy.
                auto load_weights = [&] {
                    tma_load_3d(
                        smem_a + s * W::A_STAGE, &maps.a, kt * W::BKB, m0, tc.channel, full(s));
                };
                if constexpr (Samples::by_tma) {
                    if (p == 0) {
                        mbar_wait(empty(s), parity);
                        mbar_arrive_expect_tx(full(s), W::A_STAGE + W::B_STAGE);
                        load_weights();
                        tma_load_3d(smem_b + s * W::B_STAGE,
                                    &maps.b,
                                    kt * W::BKB,
                                    tc.channel,
                                    n0,
                                    full(s));
                    }
                } else {
                    mbar_wait(empty(s), parity);
                    if (p == 0) {
                        mbar_arrive_expect_tx(full(s), W::A_STAGE);
                        load_weights();
                    }
                    no_tally once_per_row_tile; // converted again for every row tile
                    Samples::fill(args,
                                  tc.channel,
                                  n0,
                                  kt,
                                  ring.base + W::STAGES * W::A_STAGE + s * W::B_STAGE,
                                  p,
                                  once_per_row_tile);
                    fence_proxy_async(); // st.shared -> the tensor cores
                    mbar_arrive(full(s));
                }
            }
        }
        return;
    }

    // Consumers.
    setmaxnreg_inc<W::CONSUMER_REGS>();
    acc_t acc[1][1][W::NT][4];
    int it = 0;
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        const tb::tile_coord tc = coord(t);
        const int m0 = tc.m_tile * W::BM;
        const int n0 = tc.n_tile * W::BN;
        ws_consume_tile<W, Op>(
            acc[0][0], k_tiles, it, smem_a, wg, full, empty, [&](int, int s) {
                return smem_b + s * W::B_STAGE;
            });

        // Warp w of warpgroup wg holds rows 16 w .. 16 w + 15 of the warpgroup's 64.
        epilogue<Op,
                 1,
                 1,
                 W::NT,
                 W::BM,
                 W::BN,
                 W::consumer_threads,
                 consumer_sync<W::consumer_threads>>(
            args, acc, ring.sums, tc.channel, m0, n0, m0 + wg * 64 + (warp & 3) * 16, n0);
    }
#endif
}

} // namespace tb_kernels
} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
