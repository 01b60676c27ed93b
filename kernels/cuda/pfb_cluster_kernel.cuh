/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The channelizer for N = 256, 512, 1024 or 2048, O = 1 or 2, T <= 16 (as 16
 * taps, zero past T) on a cluster of B blocks, B = 8 at N = 256 and 1024, 4
 * at N = 512 and 16 at N = 2048 (sm_90; notation of
 * kernels/gpu/pfb_channelizer.cuh). Each input sample crosses L2 -> SM once
 * and stays in a register window for the O T steps that use it. It arrives 4
 * steps early by cp.async into the thread's own slots of a shared-memory ring
 * (sc16, fc32), so the FIR does not wait on DRAM and no register holds it in
 * flight.
 *
 * A cluster owns RX receivers (32 at N = 256, 8 from N = 512 on) and a
 * segment of output steps. Block j of the cluster filters the Q = N / B
 * branches p = B q + j: thread (warp w, lane) the branches
 * q = (32 / RX) w + lane / RX and q + Q / 2 of receiver lane mod RX, the taps
 * from shared memory. At
 * O = 1 each branch has its own 16-sample window and both take a new sample
 * every step. At O = 2 the two branches p and p + M (M = N / 2) read one
 * chain z_m = x[m_t - p - m M], m < 32, branch p the even m and p + M the
 * odd: one new sample a step and one 32-sample window; on odd steps (counted
 * from the stream's start) the two land at each other's FFT position. A
 * warp's load is 32 / RX row pieces of RX receivers.
 * The inverse DFT X[k] = sum_p y_p e^{2 pi i p k / N} splits by Cooley-Tukey
 * as
 *   X[c + Q m] = sum_j e^{2 pi i j c / N} e^{2 pi i j m / B} A_j[c],
 *   A_j[c] = sum_q y_{Bq+j} e^{2 pi i q c / Q},
 * so each step block j
 *   1. forms A_j: the radix-2 split of q and q + Q/2 in registers, then
 *      radix-4 passes (decimation in frequency; two for the 16-point halves
 *      at N = 256, three for the 64-point halves from N = 512 on)
 *      through shared memory, except with 8 receivers the last two, which
 *      one warp's lanes finish with shuffles; then it multiplies by
 *      e^{2 pi i j c / N};
 *   2. sends A_j[c] of its RX receivers to block c mod B (st.async into that
 *      block's inbox, completing on its mbarrier; 8 KB / B to each block);
 *   3. RW warps (4 at B = 8 and 16, 8 at B = 4) take the inbox of a step `lag`
 *      steps back: for each of its Q / B bins c = j + B l and RX receivers
 *      the B-point transform over the senders gives the B channels c + Q m,
 *      stored as row pieces of RX receivers.
 * Steps go in rounds of four (steps_per_round): the four steps' FIRs, one
 * block barrier, their radix-4 passes interleaved, a barrier among warps 0-7
 * only (an mbarrier), their sends. Warps 8-15 go on to the receive and the
 * next round's FIR without waiting for the passes: the step buffers are
 * eight, round r + 1 writes the other four, and round r + 2 writes round r's
 * only after round r + 1's block barrier, which warps 0-7 reach after their
 * last reads of round r. Per block and step the exchange is the same at every
 * N (1024 values out, 1024 in). Inboxes are a ring of `stages`
 * steps: each receiving warp frees a stage by a relaxed arrive on every
 * sender's `empty` barrier (no barrier among the RW warps), and a sender
 * waits on its own `empty` before it writes that stage again.
 *
 * Each segment starts O T - 1 steps early (the window's warm-up, not
 * stored). Its whole rounds (12 steps at O = 1, 28 at O = 2) only load their
 * samples into the window, in a prologue: no FIR, DFT or exchange; the rest
 * of the warm-up runs whole, and rounds past the segment's last step are not
 * run (1.04-1.13x; apps/channelizer_bench.md, version 25). The windows stay
 * in registers because only compile-time indices name their slots. At O = 1
 * the step loop is unrolled over the 16-slot ring, except at N = 2048;
 * there and at O = 2 a round's new samples and FIRs are one case of a switch
 * over the newest sample's slot (step mod O T) and the rest of the round (the
 * DFT, the exchange, the stores) is code once: unrolled over 32 slots the
 * kernel was 190-256 KB of code, more than the SM's instruction cache holds,
 * and ran 1.2-1.6x slower (apps/channelizer_bench.md, version 22); at
 * N = 2048, O = 1, 210 KB unrolled ran 1.6x slower than the switch's 90 KB
 * (version 27).
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_PFB_CLUSTER_KERNEL_CUH
#define INCLUDED_BEAMFORM_KERNELS_PFB_CLUSTER_KERNEL_CUH

#include "cluster_async.cuh"
#include <gpu/async_copy.cuh>
#include <gpu/pfb_channelizer.cuh>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace gr {
namespace beamform {
namespace cuda {

namespace pfb_cluster {
constexpr int threads = 512;   //!< 16 warps, two branches a thread
constexpr int taps = 16;       //!< the register window (T = 16)
constexpr int prefetch = 2; //!< sc8: steps a sample is loaded ahead in registers (more spill)
//! sc16 and fc32: steps a sample is copied ahead (cp.async) into the thread's
//! slots of a shared-memory ring, so that no register holds it in flight.
//! Four, not eight: 32 KiB less shared memory, and 1-2 % faster at O = 1
//! (level at O = 2; apps/channelizer_bench.md version 32).
constexpr int ring_steps = 4;
constexpr int stages = 6;   //!< inbox ring
constexpr int lag = 2;      //!< steps between sending a step and reading it
//! Steps a round: a round's DFT passes interleave, and it pays one block
//! barrier and one `pass_gate` for SR steps (four steps 1.03-1.08x faster than
//! two, two 1.0-1.15x faster than one; apps/channelizer_bench.md versions 23
//! and 24).
constexpr int steps_per_round = 4;

//! The cluster's shape at N = \p N channels: 8 blocks at N = 256 and 1024,
//! 4 at N = 512, 16 at N = 2048 (a cluster size beyond the portable 8), so
//! that each block's half-transforms are 4^passes points.
template <int N>
struct shape {
    static_assert(N == 256 || N == 512 || N == 1024 || N == 2048,
                  "halves of 4^passes points: N = 256, 512, 1024 or 2048");
    static constexpr int blocks = N == 512 ? 4 : N == 2048 ? 16 : 8; //!< B, per cluster
    static constexpr int branches = N / blocks;               //!< Q, per block
    static constexpr int half = branches / 2;                 //!< H = 4^passes
    static constexpr int passes = N == 256 ? 2 : 3;
    static constexpr int receivers = 2 * threads / branches;  //!< RX: 32 or 8 per cluster
    static constexpr int bins = branches / blocks;            //!< bins c a block receives
    //! Threads a (bin, receiver): at B = 16 two, each half of the 16 channels
    //! (one thread's 16-point transform spilled the window's registers).
    static constexpr int receive_split = blocks == 16 ? 2 : 1;
    //! From warp 8 on: 4 warps at B = 8 and 16, 8 at B = 4.
    static constexpr int receive_warps = bins * receivers * receive_split / 32;
    static_assert(bins * receivers * receive_split == 32 * receive_warps && receive_warps <= 8,
                  "the receive on whole warps among warps 8-15");
};

//! The block's shared memory (dynamic: 146 KiB at N = 256, 152 KiB from 512 on).
template <int N>
struct shared {
    using S = shape<N>;
    float2 dft[2 * steps_per_round][2][S::half][S::receivers]; //!< [step mod 2 SR][half][position][receiver]
    float2 inbox[stages][S::blocks][S::bins][S::receivers]; //!< [stage][sender][bin l][receiver]
    float4 taps[S::branches][pfb_cluster::taps / 4];     //!< [q][k / 4]
    float2 ring[ring_steps][2][threads]; //!< [step % ring_steps][branch a, b][thread], raw samples
    unsigned long long full[stages], empty[stages];      //!< mbarriers
    //! The sending warps' barrier after a round's shared radix-4 passes (an
    //! mbarrier of 256 arrivals): warps 8-15 do not wait for it.
    unsigned long long pass_gate;
};
} // namespace pfb_cluster

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
namespace pfb_cluster_detail {
__device__ __forceinline__ float2 add(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float2 sub(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ float2 mul(float2 a, float2 b)
{
    return make_float2(fmaf(a.x, b.x, -a.y * b.y), fmaf(a.x, b.y, a.y * b.x));
}
__device__ __forceinline__ float2 times_i(float2 a) { return make_float2(-a.y, a.x); }

//! In place: x_k <- sum_n x_n i^(n k), the 4-point inverse DFT.
__device__ __forceinline__ void inverse_dft4(float2& x0, float2& x1, float2& x2, float2& x3)
{
    const float2 a0 = add(x0, x2), a1 = sub(x0, x2), a2 = add(x1, x3),
                 a3 = times_i(sub(x1, x3));
    x0 = add(a0, a2);
    x2 = sub(a0, a2);
    x1 = add(a1, a3);
    x3 = sub(a1, a3);
}

//! A loaded sample as it enters the window. For fc32 an addition of zero:
//! with the plain copy ptxas spilled the rotating window (216 bytes).
template <typename Tin>
__device__ __forceinline__ float2 window_sample(typename pfb_raw_sample<Tin>::type v)
{
    const float2 x = pfb_raw_sample<Tin>::value(v);
    if constexpr (std::is_same<Tin, float>::value)
        return make_float2(__fadd_rn(x.x, 0.0f), __fadd_rn(x.y, 0.0f));
    else
        return x;
}

/*!
 * sum_k h_k z[BASE + (u - STRIDE k) mod RING]: one branch's FIR output at the
 * step whose newest sample for it is ring slot \p u (a constant in the
 * unrolled loop, so the window stays in registers). The windows are \p z's
 * rings of RING slots from BASE; at O = 1 two rings of 16 (one a branch),
 * STRIDE 1; at O = 2 one ring of 32, STRIDE 2. The taps from shared memory,
 * 4 at a time.
 */
template <int BASE, int RING, int STRIDE>
__device__ __forceinline__ float2 filter(const float2 (&z)[2 * pfb_cluster::taps],
                                         const float4 (&taps)[pfb_cluster::taps / 4],
                                         int u)
{
    constexpr int W = pfb_cluster::taps;
    float2 y = make_float2(0.0f, 0.0f);
#pragma unroll
    for (int k4 = 0; k4 < W / 4; k4++) {
        const float4 h = taps[k4];
        const float hk[4] = { h.x, h.y, h.z, h.w };
#pragma unroll
        for (int e = 0; e < 4; e++) {
            const float2 x = z[BASE + ((u - STRIDE * (4 * k4 + e)) & (RING - 1))];
            y.x = fmaf(hk[e], x.x, y.x);
            y.y = fmaf(hk[e], x.y, y.y);
        }
    }
    return y;
}

/*!
 * A 4 x 4 transpose across the lanes l, l ^ 8, l ^ 16, l ^ 24: lane group
 * i = (lane / 8) mod 4 holds row i in (v0..v3) and ends with column i (two
 * rounds of exchanging 2 x 2 blocks, then elements).
 */
__device__ __forceinline__ void
transpose_lane_quads(float2& v0, float2& v1, float2& v2, float2& v3, int lane)
{
    const auto swap = [](float2 v, int mask) {
        return make_float2(__shfl_xor_sync(0xffffffffu, v.x, mask),
                           __shfl_xor_sync(0xffffffffu, v.y, mask));
    };
    const bool b = lane & 16, c = lane & 8;
    float2 r0 = swap(b ? v0 : v2, 16), r1 = swap(b ? v1 : v3, 16);
    if (b) {
        v0 = r0;
        v1 = r1;
    } else {
        v2 = r0;
        v3 = r1;
    }
    r0 = swap(c ? v0 : v1, 8);
    r1 = swap(c ? v2 : v3, 8);
    if (c) {
        v0 = r0;
        v2 = r1;
    } else {
        v1 = r0;
        v3 = r1;
    }
}

//! In place: x_m <- sum_s x_s e^{2 pi i s m / B}, the inverse DFT over a
//! cluster's B = 4 or 8 senders (at 8: even and odd halves, then radix 2).
template <int B>
__device__ __forceinline__ void inverse_dft_over_senders(float2 (&x)[B])
{
    static_assert(B == 4 || B == 8, "4 or 8 blocks a cluster");
    if constexpr (B == 4) {
        inverse_dft4(x[0], x[1], x[2], x[3]);
    } else {
        inverse_dft4(x[0], x[2], x[4], x[6]);
        inverse_dft4(x[1], x[3], x[5], x[7]);
        const float h = 0.70710678118654752f;
        const float2 o1 = mul(x[3], make_float2(h, h)), o2 = times_i(x[5]),
                     o3 = mul(x[7], make_float2(-h, h));
        const float2 y[8] = { add(x[0], x[1]), add(x[2], o1), add(x[4], o2), add(x[6], o3),
                              sub(x[0], x[1]), sub(x[2], o1), sub(x[4], o2), sub(x[6], o3) };
#pragma unroll
        for (int m = 0; m < 8; m++)
            x[m] = y[m];
    }
}

//! e^{2 pi i k / 16} for k < 10 (a constant k folds to its value).
__device__ __forceinline__ float2 unit16(int k)
{
    constexpr float c1 = 0.92387953251128674f, s1 = 0.38268343236508977f,
                    h = 0.70710678118654752f;
    const float2 w[10] = { { 1.0f, 0.0f }, { c1, s1 },   { h, h },   { s1, c1 },
                           { 0.0f, 1.0f }, { -s1, c1 },  { -h, h },  { -c1, s1 },
                           { -1.0f, 0.0f }, { -c1, -s1 } };
    return w[k];
}

//! f(std::integral_constant<int, U>) for U = 0, 1, ...: a loop unrolled with
//! its index a compile-time constant.
template <int... U, typename F>
__device__ __forceinline__ void for_each_constant(std::integer_sequence<int, U...>, F&& f)
{
    (f(std::integral_constant<int, U>{}), ...);
}

//! \p g with its \p digits lowest base-4 digits in reverse order.
__device__ __forceinline__ int reverse_base4(int g, int digits)
{
    int r = 0;
    for (int d = 0; d < digits; d++, g >>= 2)
        r = 4 * r + (g & 3);
    return r;
}

/*!
 * The raw sample at index \p idx = s R + r of the call's stream, s < 0 in
 * the history (\p history_end: its end; the engine keeps 16 taps of it, so the
 * window never reaches before it). Indices past the call's last sample are
 * clamped to it: they only fill steps that are not stored. No branch: a
 * branch here splits each step's code and measured 1.3x slower.
 */
template <typename Tin>
__device__ __forceinline__ typename pfb_raw_sample<Tin>::type
load_raw(const typename pfb_raw_sample<Tin>::type* input,
         const typename pfb_raw_sample<Tin>::type* history_end,
         int idx)
{
    return __ldg((idx >= 0 ? input : history_end) + idx);
}
} // namespace pfb_cluster_detail
#endif

/*!
 * Output steps [0, g.n_out) of N channels, oversample O; taps branch-major
 * [N][16] (pfb_branch_taps), twiddle[m] = e^{2 pi i m / N}. Grid: clusters of
 * pfb_cluster::blocks blocks; cluster id = receiver group + receiver_groups x
 * segment, segments of steps_per_segment steps.
 */
template <typename Tin, int N, int O>
__global__ void __launch_bounds__(pfb_cluster::threads, 1)
    pfb_cluster_kernel(pfb_stream<Tin> in,
                       const float* __restrict__ branch_taps,
                       const float2* __restrict__ twiddle,
                       float2* __restrict__ out,
                       pfb_geometry g,
                       int steps_per_segment,
                       int receiver_groups)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace k = pfb_cluster;
    using S = k::shape<N>;
    using namespace pfb_cluster_detail;
    using raw = typename pfb_raw_sample<Tin>::type;
    constexpr int Q = S::branches, H = S::half, P = S::passes, RX = S::receivers;
    static_assert(O == 1 || O == 2, "oversample 1 or 2");
    constexpr int W = k::taps, PF = k::prefetch;
    constexpr int L = O * W; // the window ring: steps a sample stays
    constexpr int M = N / O; // input samples a step
    extern __shared__ __align__(16) unsigned char pfb_cluster_smem[];
    k::shared<N>& sm = *reinterpret_cast<k::shared<N>*>(pfb_cluster_smem);

    const int tid = int(threadIdx.x), warp = tid >> 5, lane = tid & 31;
    const int j = int(cluster::block_rank());
    constexpr int B = S::blocks, RW = S::receive_warps;
    const int id = int(blockIdx.x) / B;
    const int group = id % receiver_groups, segment = id / receiver_groups;
    const int r0 = group * RX, R = g.n_receivers;
    const int t_begin = segment * steps_per_segment;
    const int t_end = min(int(g.n_out), t_begin + steps_per_segment);
    const int t_first = t_begin - (L - 1); // the window's warm-up
    static_assert(L % k::ring_steps == 0, "a window slot names its copy-ring slot");
    static_assert(L <= 32, "the switch over window slots has 32 cases");
    // Steps unrolled a turn: at O = 1 a whole window ring (every slot a
    // constant; 3-11 % faster than the switch), at O = 2 one round (header).
    // At N = 2048 O = 1 takes the switch too (its unrolled code: 210 KB).
    constexpr bool unroll_ring = O == 1 && B <= 8;
    constexpr int TURN = unroll_ring ? L : k::steps_per_round;
    static_assert(L % TURN == 0 && TURN % k::steps_per_round == 0, "whole rounds a turn");
    // Whole rounds of warm-up steps only load their samples (the prologue
    // below): no FIR, DFT or exchange for steps never stored. Nor are rounds
    // past the segment's last step run. Exchanged: steps [SKIP, n_run).
    constexpr int SKIP = (L - 1) / k::steps_per_round * k::steps_per_round;
    const int n_run = (t_end - t_first + k::steps_per_round - 1) / k::steps_per_round *
                      k::steps_per_round;
    const int n_turns = (n_run + TURN - 1) / TURN;

    if (tid == 0) // one thread: racecheck misread the initialisations spread over lanes
        for (int s = 0; s < k::stages; s++) {
            cluster::mbar_init(cluster::smem_u32(&sm.full[s]), 1);
            cluster::mbar_init(cluster::smem_u32(&sm.empty[s]), B * RW);
        }
    if (tid == 0)
        cluster::mbar_init(cluster::smem_u32(&sm.pass_gate), 8 * 32);
    for (int i = tid; i < Q * W; i += k::threads) {
        const int q = i / W, tap = i % W;
        reinterpret_cast<float*>(&sm.taps[q][tap / 4])[tap % 4] = branch_taps[(B * q + j) * W + tap];
    }
    tb_kernels::fence_barrier_init();
    cluster::sync_all();

    // Filter: branches p_a = B q_a + j and p_b = p_a + N / 2, receiver r
    // (at O = 2, p_b = p_a + M).
    // Powers of two throughout: shifts and masks (signed / and % measured 6 %
    // slower at N = 256: their sign fix-ups are recomputed in the step loop).
    constexpr int LOG2_RX = RX == 32 ? 5 : 3;
    const int rx = lane & (RX - 1);
    const int q_a = (32 / RX) * warp + (lane >> LOG2_RX);
    const int p_a = B * q_a + j;
    const int r = min(r0 + rx, R - 1);
    const int step_idx = M * R;
    int idx = ((t_first + 1) * M - 1 - p_a) * R + r; // newest sample of p_a
    const int b_offset = -(N / 2) * R;               // of p_b (O = 1)
    const int last = int(g.n_out) * M * R - 1; // the call's last sample (index)
    const raw* input = reinterpret_cast<const raw*>(in.input);
    const raw* history_end = reinterpret_cast<const raw*>(in.history) + in.history_len * R;
    // The samples of a step ahead (two at O = 1, one at O = 2): sc16 and fc32
    // copy them into this thread's ring slots (cp.async takes 4 bytes or
    // more), sc8 loads them into registers.
    constexpr bool in_ring = sizeof(raw) >= 4;
    constexpr int AHEAD = in_ring ? k::ring_steps : PF;
    raw next_a[PF], next_b[PF];
    const auto load_step = [&](raw& a, raw& b) {
        const int ia = min(idx, last);
        a = load_raw<Tin>(input, history_end, ia);
        if constexpr (O == 1)
            b = load_raw<Tin>(input, history_end, ia + b_offset);
        idx += step_idx;
    };
    const auto copy_step = [&](int slot) {
        if constexpr (in_ring) {
            const int ia = min(idx, last), ib = ia + b_offset;
            async_copy<sizeof(raw)>(&sm.ring[slot][0][tid], (ia >= 0 ? input : history_end) + ia, true);
            if constexpr (O == 1)
                async_copy<sizeof(raw)>(&sm.ring[slot][1][tid], (ib >= 0 ? input : history_end) + ib, true);
            async_copy_commit();
            idx += step_idx;
        }
    };
#pragma unroll
    for (int d = 0; d < AHEAD; d++) {
        if constexpr (in_ring)
            copy_step(d);
        else
            load_step(next_a[d], next_b[d]);
    }
    // The windows: at O = 1 z[0, 16) of p_a and z[16, 32) of p_b; at O = 2
    // the chain of both.
    float2 z[2 * W];
#pragma unroll
    for (int i = 0; i < 2 * W; i++)
        z[i] = make_float2(0.0f, 0.0f);
    const float4(&taps_a)[W / 4] = sm.taps[q_a];
    const float4(&taps_b)[W / 4] = sm.taps[q_a + H];
    // e^{2 pi i q_a / Q}, the radix-2 twiddle of y_{p_a} - y_{p_b}; at O = 2
    // negated on odd steps, where p_a and p_b trade FFT positions.
    const float2 w_q = twiddle[B * q_a];
    const bool odd_first = O == 2 && ((g.first_parity + t_first) & 1);
    const float2 w_even = odd_first ? make_float2(-w_q.x, -w_q.y) : w_q; // steps i even
    const float2 w_odd = O == 2 ? make_float2(-w_even.x, -w_even.y) : w_q;

    // The DFT's roles: warps 0-7 the radix-4 passes and the sends, thread
    // (half, group `part` of 4 positions, receiver rx); warps 8 to 8 + RW - 1
    // the receive.
    const int half = warp >> 2 & 1, part = (tid & 127) >> LOG2_RX;
    // Pass s (stride 4^(P-1-s)) takes positions low + 4 stride high + stride e,
    // (low, high) = (part mod stride, part / stride), twiddle e^{2 pi i low e / (4 stride)}.
    float2 pass_tw[P - 1][3];
#pragma unroll
    for (int s = 0; s < P - 1; s++) {
        const int stride = 1 << (2 * (P - 1 - s)), low = part & (stride - 1);
#pragma unroll
        for (int e = 1; e < 4; e++)
            pass_tw[s][e - 1] = twiddle[(N / (4 * stride)) * low * e];
    }
    // Passes written back to shared memory: all but the last at N = 256; at
    // N >= 512 (8 receivers, so the 4 parts of a 16-point transform in one
    // warp) the one before the last runs in registers and lane shuffles.
    constexpr int shared_passes = RX == 8 ? P - 2 : P - 1;
    // The last pass's output e is bin c' = reverse(part) + (H / 4) e of the
    // half, c = 2 c' + half of A_j: block c mod B, inbox bin l = c / B.
    const int c_first = reverse_base4(part, P - 1);
    float2 send_tw[4];
#pragma unroll
    for (int e = 0; e < 4; e++)
        send_tw[e] = twiddle[(j * (2 * (c_first + (H / 4) * e) + half)) & (N - 1)];
    const int to_block = (2 * c_first + half) & (B - 1);
    constexpr int l_stride = H / (2 * B); // inbox bins between outputs e and e + 1
    const uint32_t inbox_there = cluster::map_to_block(
        cluster::smem_u32(&sm.inbox[0][j][c_first / (B / 2)][rx]), unsigned(to_block));
    const uint32_t full_there =
        cluster::map_to_block(cluster::smem_u32(&sm.full[0]), unsigned(to_block));
    const bool receives = warp >= 8 && warp < 8 + RW;
    const int shift = g.fft_shift ? B / 2 : 0; // of the B channels a lane stores (receive)
    const int l_in = ((tid - 256) & (S::bins * RX - 1)) >> LOG2_RX, rx_in = tid & (RX - 1); // the receive's (bin, receiver)
    const int h_in = (tid - 256) / (S::bins * RX); // its half of the channels (B = 16)

    // B = 16: X[m1 + 4 m2] = sum_b e^{2 pi i b m1 / 16} i^{b m2} sum_a i^{a m1} x_{4a+b}
    // (senders s = 4 a + b); this thread the channels of m1 = 2 h_in and 2 h_in + 1.
    const auto receive_half = [&](int i, int stage) {
        const auto half_of = [&](auto h_constant) {
            constexpr int h = decltype(h_constant)::value;
            float2 y[2][4]; // y[k][b]: the sum over a at m1 = 2 h + k
#pragma unroll
            for (int b = 0; b < 4; b++) {
                float2 v0 = sm.inbox[stage][b][l_in][rx_in], v1 = sm.inbox[stage][b + 4][l_in][rx_in],
                       v2 = sm.inbox[stage][b + 8][l_in][rx_in],
                       v3 = sm.inbox[stage][b + 12][l_in][rx_in];
                inverse_dft4(v0, v1, v2, v3);
                y[0][b] = h ? v2 : v0;
                y[1][b] = h ? v3 : v1;
                if (b > 0) {
                    y[0][b] = mul(y[0][b], unit16(b * 2 * h));
                    y[1][b] = mul(y[1][b], unit16(b * (2 * h + 1)));
                }
            }
            __syncwarp(); // as in receive: the stage is read, free it
            if (lane < B)
                cluster::mbar_arrive_remote_relaxed(
                    cluster::map_to_block(cluster::smem_u32(&sm.empty[stage]), unsigned(lane)));
#pragma unroll
            for (int k2 = 0; k2 < 2; k2++)
                inverse_dft4(y[k2][0], y[k2][1], y[k2][2], y[k2][3]);
            const int t = t_first + i;
            if (t >= t_begin && t < t_end && r0 + rx_in < R) {
                float2* row = out + size_t(t * N + j + B * l_in) * R + r0 + rx_in;
#pragma unroll
                for (int k2 = 0; k2 < 2; k2++)
#pragma unroll
                    for (int m2 = 0; m2 < 4; m2++)
                        row[size_t(((2 * h + k2 + 4 * m2) ^ shift) * Q * R)] = y[k2][m2];
            }
        };
        if (h_in == 0) // warp-uniform
            half_of(std::integral_constant<int, 0>{});
        else
            half_of(std::integral_constant<int, 1>{});
    };
    const auto receive = [&](int i) { // the inbox of step t_first + i
        const int stage = (i - SKIP) % k::stages;
        const unsigned parity = unsigned((i - SKIP) / k::stages) & 1;
        if (tid == 8 * 32)
            cluster::mbar_arrive_expect_tx(cluster::smem_u32(&sm.full[stage]),
                                           B * S::bins * RX * sizeof(float2));
        cluster::mbar_wait(cluster::smem_u32(&sm.full[stage]), parity);
        if constexpr (S::receive_split == 2) {
            receive_half(i, stage);
        } else {
            float2 x[B];
#pragma unroll
            for (int s = 0; s < B; s++)
                x[s] = sm.inbox[stage][s][l_in][rx_in];
            inverse_dft_over_senders(x);
            // This warp has read the stage (its loads fed the sums above): lane s
            // frees it on block s's `empty`, which counts every receiving warp.
            __syncwarp();
            if (lane < B)
                cluster::mbar_arrive_remote_relaxed(
                    cluster::map_to_block(cluster::smem_u32(&sm.empty[stage]), unsigned(lane)));
            const int t = t_first + i;
            if (t >= t_begin && t < t_end && r0 + rx_in < R) {
                // Channel c + Q m; with fft_shift at (c + Q m + N/2) mod N = c + Q (m ^ 4).
                float2* row = out + size_t(t * N + j + B * l_in) * R + r0 + rx_in;
#pragma unroll
                for (int m = 0; m < B; m++)
                    row[size_t((m ^ shift) * Q * R)] = x[m];
            }
        }
    };

    // One step's new samples into window slot U (a constant), then (filter_step)
    // its FIR and radix-2 split: the only code that names window slots, so
    // that the rest of the step appears once in the code.
    constexpr int SR = k::steps_per_round;
    const auto next_samples = [&](auto slot_constant) {
        constexpr int u = decltype(slot_constant)::value;
        static_assert(u < L, "a slot of the window ring");
        if constexpr (in_ring) {
            const int slot = u % k::ring_steps;
            async_copy_wait<k::ring_steps - 1>(); // this step's copies have landed
            z[u] = window_sample<Tin>(*reinterpret_cast<const raw*>(&sm.ring[slot][0][tid]));
            if constexpr (O == 1)
                z[W + u] =
                    window_sample<Tin>(*reinterpret_cast<const raw*>(&sm.ring[slot][1][tid]));
            asm volatile("" ::: "memory"); // the slot's reads stay before its refill
            copy_step(slot); // the step ring_steps ahead, into the slot just read
        } else {
            z[u] = window_sample<Tin>(next_a[u % PF]);
            if constexpr (O == 1)
                z[W + u] = window_sample<Tin>(next_b[u % PF]);
            load_step(next_a[u % PF], next_b[u % PF]);
        }
    };
    const auto filter_step = [&](int i, auto slot_constant) {
        constexpr int u = decltype(slot_constant)::value;
        next_samples(slot_constant);
        float2 ya, yb;
        if constexpr (O == 1) {
            ya = filter<0, W, 1>(z, taps_a, u);
            yb = filter<W, W, 1>(z, taps_b, u);
        } else {
            ya = filter<0, L, 2>(z, taps_a, u);
            yb = filter<0, L, 2>(z, taps_b, u - 1);
        }
        // Radix 2 over q and q + Q/2: the even bins' half, the odd bins' half.
        const int buf = i & (2 * SR - 1);
        sm.dft[buf][0][q_a][rx] = add(ya, yb);
        sm.dft[buf][1][q_a][rx] = mul(sub(ya, yb), i & 1 ? w_odd : w_even);
    };
    // The SR steps of a round from window slot U0 (a constant).
    const auto filter_round = [&](int i0, auto first_slot) {
        constexpr int u0 = decltype(first_slot)::value;
        if constexpr (u0 % SR == 0 && u0 < L) // slots that start no round are never reached
            for_each_constant(std::make_integer_sequence<int, SR>{}, [&](auto e) {
                filter_step(i0 + e, std::integral_constant<int, u0 + decltype(e)::value>{});
            });
    };
    // Radix-4 pass s of step i in place (warps 0-7).
    const auto shared_pass = [&](int i, int s) {
        float2* col = &sm.dft[i & (2 * SR - 1)][half][0][rx];
        const int stride = 1 << (2 * (P - 1 - s));
        const int pos = (part & (stride - 1)) + 4 * stride * (part >> (2 * (P - 1 - s)));
        float2 x0 = col[pos * RX], x1 = col[(pos + stride) * RX],
               x2 = col[(pos + 2 * stride) * RX], x3 = col[(pos + 3 * stride) * RX];
        inverse_dft4(x0, x1, x2, x3);
        col[pos * RX] = x0;
        col[(pos + stride) * RX] = mul(x1, pass_tw[s][0]);
        col[(pos + 2 * stride) * RX] = mul(x2, pass_tw[s][1]);
        col[(pos + 3 * stride) * RX] = mul(x3, pass_tw[s][2]);
    };
    // The last radix-4 pass of step i (stride 1), then its send (warps 0-7).
    const auto finish_and_send = [&](int i) {
        const float2* col = &sm.dft[i & (2 * SR - 1)][half][0][rx];
        float2 y0, y1, y2, y3;
        if constexpr (P == shared_passes + 2) {
            // The pass of stride 4 in registers: this thread's outputs
            // are positions part mod 4 + 4 e + 16 (part / 4); the last
            // pass needs part mod 4 as e and e as part mod 4, which the
            // four lanes rx + 8 i (i = part mod 4) swap among themselves.
            const int pos = (part & 3) + 16 * (part >> 2);
            y0 = col[pos * RX];
            y1 = col[(pos + 4) * RX];
            y2 = col[(pos + 8) * RX];
            y3 = col[(pos + 12) * RX];
            inverse_dft4(y0, y1, y2, y3);
            y1 = mul(y1, pass_tw[P - 2][0]);
            y2 = mul(y2, pass_tw[P - 2][1]);
            y3 = mul(y3, pass_tw[P - 2][2]);
            transpose_lane_quads(y0, y1, y2, y3, lane);
        } else {
            const int pos = 4 * part;
            y0 = col[pos * RX];
            y1 = col[(pos + 1) * RX];
            y2 = col[(pos + 2) * RX];
            y3 = col[(pos + 3) * RX];
        }
        inverse_dft4(y0, y1, y2, y3);
        const int x = i - SKIP; // the step's exchange index
        const int stage = x % k::stages;
        if (x >= k::stages) // the receivers have freed this stage
            cluster::mbar_wait(cluster::smem_u32(&sm.empty[stage]),
                               unsigned(x / k::stages - 1) & 1);
        const uint32_t to = inbox_there + stage * uint32_t(sizeof(sm.inbox[0]));
        const uint32_t bar = full_there + stage * uint32_t(sizeof(sm.full[0]));
        constexpr uint32_t next = l_stride * RX * sizeof(float2);
        cluster::store_async(to, mul(y0, send_tw[0]), bar);
        cluster::store_async(to + next, mul(y1, send_tw[1]), bar);
        cluster::store_async(to + 2 * next, mul(y2, send_tw[2]), bar);
        cluster::store_async(to + 3 * next, mul(y3, send_tw[3]), bar);
    };

    for_each_constant(std::make_integer_sequence<int, SKIP>{}, next_samples);
#pragma unroll 1
    for (int turn = SKIP / TURN; turn < n_turns; turn++) {
        // Rounds of SR steps from i0 = turn TURN + v SR, v a compile-time constant.
        for_each_constant(std::make_integer_sequence<int, TURN / SR>{}, [&](auto v) {
            constexpr int u0 = decltype(v)::value * SR;
            const int i0 = turn * TURN + u0;
            if (i0 < SKIP || i0 >= n_run) // loaded by the prologue, or past the segment
                return;
            // The round's first window slot, i0 mod L: at O = 1 the constant u0,
            // at O = 2 chosen at run time.
            if constexpr (TURN == L) {
                filter_round(i0, std::integral_constant<int, u0>{});
            } else {
                switch (i0 & (L - 1)) {
#define BF_PFB_WINDOW_SLOT(U)                                                                 \
    case U:                                                                                   \
        filter_round(i0, std::integral_constant<int, U>{});                                   \
        break;
                BF_PFB_WINDOW_SLOT(0) BF_PFB_WINDOW_SLOT(1) BF_PFB_WINDOW_SLOT(2)
                BF_PFB_WINDOW_SLOT(3) BF_PFB_WINDOW_SLOT(4) BF_PFB_WINDOW_SLOT(5)
                BF_PFB_WINDOW_SLOT(6) BF_PFB_WINDOW_SLOT(7) BF_PFB_WINDOW_SLOT(8)
                BF_PFB_WINDOW_SLOT(9) BF_PFB_WINDOW_SLOT(10) BF_PFB_WINDOW_SLOT(11)
                BF_PFB_WINDOW_SLOT(12) BF_PFB_WINDOW_SLOT(13) BF_PFB_WINDOW_SLOT(14)
                BF_PFB_WINDOW_SLOT(15) BF_PFB_WINDOW_SLOT(16) BF_PFB_WINDOW_SLOT(17)
                BF_PFB_WINDOW_SLOT(18) BF_PFB_WINDOW_SLOT(19) BF_PFB_WINDOW_SLOT(20)
                BF_PFB_WINDOW_SLOT(21) BF_PFB_WINDOW_SLOT(22) BF_PFB_WINDOW_SLOT(23)
                BF_PFB_WINDOW_SLOT(24) BF_PFB_WINDOW_SLOT(25) BF_PFB_WINDOW_SLOT(26)
                BF_PFB_WINDOW_SLOT(27) BF_PFB_WINDOW_SLOT(28) BF_PFB_WINDOW_SLOT(29)
                BF_PFB_WINDOW_SLOT(30) BF_PFB_WINDOW_SLOT(31)
#undef BF_PFB_WINDOW_SLOT
                }
            }
            __syncthreads();
            // The passes read and write only warps 0-7's data, so only they
            // wait for each other: an mbarrier, not a named barrier (`bar.sync
            // 1, 256` was as fast, but racecheck reported hazards beside it).
            if (warp < 8) {
#pragma unroll
                for (int s = 0; s < shared_passes; s++) {
#pragma unroll
                    for (int e = 0; e < SR; e++)
                        shared_pass(i0 + e, s);
                    const uint32_t gate = cluster::smem_u32(&sm.pass_gate);
                    cluster::mbar_arrive(gate);
                    cluster::mbar_wait(gate,
                                       unsigned((i0 - SKIP) / SR * shared_passes + s) & 1);
                }
#pragma unroll
                for (int e = 0; e < SR; e++)
                    finish_and_send(i0 + e);
            } else if (receives) {
#pragma unroll
                for (int e = 0; e < SR; e++)
                    if (i0 + e - SKIP >= k::lag)
                        receive(i0 + e - k::lag);
            }
        });
    }
    if constexpr (in_ring)
        async_copy_wait<0>(); // no copy lands in a block that has left
    if (receives)
        for (int i = n_run - k::lag; i < n_run; i++)
            receive(i);
    cluster::sync_all(); // no block leaves while another may still write to it
#endif
}

} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
