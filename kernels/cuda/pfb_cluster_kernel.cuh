/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The channelizer for N = 256, O = 1, T = 16 on a cluster of 8 blocks
 * (sm_90; notation of kernels/gpu/pfb_channelizer.cuh). Each input sample
 * crosses L2 -> SM once, in whole rows of 32 receivers, and stays in a
 * register window for the 16 steps that use it. It arrives 8 steps early by
 * cp.async into the thread's own slots of a shared-memory ring (sc16, fc32),
 * so the FIR does not wait on DRAM and no register holds it in flight.
 *
 * A cluster owns 32 receivers (one per lane) and a segment of output steps.
 * Block j of the cluster filters branches p = 8 q + j, q < 32: warp w the
 * branches q = w and q = w + 16, each thread the 16-sample window of its two
 * branches for one receiver, the taps from shared memory. The inverse DFT
 * X[k] = sum_p y_p e^{2 pi i p k / 256} splits by Cooley-Tukey as
 *   X[c + 32 m] = sum_j e^{2 pi i j c / 256} e^{2 pi i j m / 8} A_j[c],
 *   A_j[c] = sum_q y_{8q+j} e^{2 pi i q c / 32},
 * so each step block j
 *   1. forms A_j: the radix-2 split of q and q + 16 in registers, then two
 *      radix-4 passes through shared memory (16-point transforms of the even
 *      and the odd half), and multiplies by e^{2 pi i j c / 256};
 *   2. sends A_j[c] of its 32 receivers to block c mod 8 (st.async into that
 *      block's inbox, completing on its mbarrier; 1 KB to each block);
 *   3. four warps take the inbox of a step `lag` steps back: for each of
 *      its 4 bins c = j + 8 l and 32 receivers the 8-point transform over
 *      the senders gives the 8 channels c + 32 m, stored as 256-byte rows.
 * Inboxes are a ring of `stages` steps: each receiving warp frees a stage by
 * a relaxed arrive on every sender's `empty` barrier (no barrier among the
 * four warps), and a sender waits on its own `empty` before it writes that
 * stage again.
 *
 * Each segment starts `taps - 1` steps early (the window's warm-up, loaded
 * and filtered but not stored); steps are run in whole turns of the window
 * ring (16), the ones past the segment not stored, so the ring is indexed
 * with compile-time indices only.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_PFB_CLUSTER_KERNEL_CUH
#define INCLUDED_BEAMFORM_KERNELS_PFB_CLUSTER_KERNEL_CUH

#include "cluster_async.cuh"
#include <gpu/async_copy.cuh>
#include <gpu/pfb_channelizer.cuh>
#include <cstdint>
#include <type_traits>

namespace gr {
namespace beamform {
namespace cuda {

namespace pfb_cluster {
constexpr int channels = 256;              //!< N
constexpr int blocks = 8;                  //!< blocks per cluster
constexpr int branches = channels / blocks; //!< per block (q < 32)
constexpr int receivers = 32;              //!< per cluster, one per lane
constexpr int threads = 512;               //!< 16 warps, two branches each
constexpr int taps = 16;                   //!< the register window (T = 16)
constexpr int prefetch = 2; //!< sc8: steps a sample is loaded ahead in registers (more spill)
//! sc16 and fc32: steps a sample is copied ahead (cp.async) into the thread's
//! slots of a shared-memory ring, so that no register holds it in flight
constexpr int ring_steps = 8;
constexpr int stages = 6;   //!< inbox ring
constexpr int lag = 2;      //!< steps between sending a step and reading it
constexpr int bins = branches / blocks; //!< bins c a block receives (4)
constexpr int receive_warps = bins;      //!< warps 8-11, one bin group each

//! The block's shared memory (dynamic: 131 KB).
struct shared {
    float2 dft[2][2][16][receivers];                 //!< [step & 1][half][position][receiver]
    float2 inbox[stages][blocks][bins][receivers];   //!< [stage][sender][bin group][receiver]
    float4 taps[branches][pfb_cluster::taps / 4];    //!< [q][k / 4]
    float2 ring[ring_steps][2][threads]; //!< [step % ring_steps][branch a, b][thread], raw samples
    unsigned long long full[stages], empty[stages];  //!< mbarriers
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
 * sum_k h_k z[(u - k) mod 16]: one branch's FIR output at the step whose
 * newest sample is window slot \p u (a constant in the unrolled loop, so the
 * window stays in registers); the taps from shared memory, 4 at a time.
 */
__device__ __forceinline__ float2 filter(const float2 (&z)[pfb_cluster::taps],
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
            const float2 x = z[(u - 4 * k4 - e) & (W - 1)];
            y.x = fmaf(hk[e], x.x, y.x);
            y.y = fmaf(hk[e], x.y, y.y);
        }
    }
    return y;
}

/*!
 * The raw sample at index \p idx = s R + r of the call's stream, s < 0 in
 * the history (\p history_end: its end; with T = 16 the window never reaches
 * before it). Indices past the call's last sample are clamped to it: they
 * only fill the padding steps, which are not stored. No branch: a branch here
 * splits each step's code and measured 1.3x slower.
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
 * Output steps [0, g.n_out) of N = 256 channels, O = 1; taps branch-major
 * [N][16] (pfb_branch_taps), twiddle[m] = e^{2 pi i m / N}. Grid: clusters of
 * pfb_cluster::blocks blocks; cluster id = receiver group + receiver_groups x
 * segment, segments of steps_per_segment steps.
 */
template <typename Tin>
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
    using namespace pfb_cluster_detail;
    using raw = typename pfb_raw_sample<Tin>::type;
    constexpr int N = k::channels, RX = k::receivers, W = k::taps, PF = k::prefetch;
    extern __shared__ __align__(16) unsigned char pfb_cluster_smem[];
    k::shared& sm = *reinterpret_cast<k::shared*>(pfb_cluster_smem);

    const int tid = int(threadIdx.x), warp = tid >> 5, lane = tid & 31;
    const int j = int(cluster::block_rank());
    const int id = int(blockIdx.x) / k::blocks;
    const int group = id % receiver_groups, segment = id / receiver_groups;
    const int r0 = group * RX, R = g.n_receivers;
    const int t_begin = segment * steps_per_segment;
    const int t_end = min(int(g.n_out), t_begin + steps_per_segment);
    const int t_first = t_begin - (W - 1); // the window's warm-up
    const int n_steps = (t_end - t_first + 15) & ~15;

    if (tid == 0) // one thread: racecheck misread the initialisations spread over lanes
        for (int s = 0; s < k::stages; s++) {
            cluster::mbar_init(cluster::smem_u32(&sm.full[s]), 1);
            cluster::mbar_init(cluster::smem_u32(&sm.empty[s]), k::blocks * k::receive_warps);
        }
    {
        const int q = tid / W, tap = tid % W;
        reinterpret_cast<float*>(&sm.taps[q][0])[tap] = branch_taps[(8 * q + j) * W + tap];
    }
    tb_kernels::fence_barrier_init();
    cluster::sync_all();

    // Filter: branches p_a = 8 warp + j and p_b = p_a + 128, receiver r.
    const int p_a = 8 * warp + j;
    const int r = min(r0 + lane, R - 1);
    const int step_idx = N * R;
    int idx = ((t_first + 1) * N - 1 - p_a) * R + r; // newest sample of p_a
    const int b_offset = -128 * R;
    const int last = int(g.n_out) * N * R - 1; // the call's last sample (index)
    const raw* input = reinterpret_cast<const raw*>(in.input);
    const raw* history_end = reinterpret_cast<const raw*>(in.history) + in.history_len * R;
    // The samples of a step ahead (p_b = p_a + 128): sc16 and fc32 copy them
    // into this thread's ring slots (cp.async takes 4 bytes or more), sc8
    // loads them into registers.
    constexpr bool in_ring = sizeof(raw) >= 4;
    constexpr int AHEAD = in_ring ? k::ring_steps : PF;
    raw next_a[PF], next_b[PF];
    const auto load_step = [&](raw& a, raw& b) {
        const int ia = min(idx, last);
        a = load_raw<Tin>(input, history_end, ia);
        b = load_raw<Tin>(input, history_end, ia + b_offset);
        idx += step_idx;
    };
    const auto copy_step = [&](int slot) {
        if constexpr (in_ring) {
            const int ia = min(idx, last), ib = ia + b_offset;
            async_copy<sizeof(raw)>(&sm.ring[slot][0][tid], (ia >= 0 ? input : history_end) + ia, true);
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
    float2 za[W], zb[W];
#pragma unroll
    for (int i = 0; i < W; i++)
        za[i] = zb[i] = make_float2(0.0f, 0.0f);

    // The DFT's roles: warps 0-7 the radix-4 passes (half, sub) and the
    // sends, warps 8-11 the receive of inbox bin group `group_in`.
    const float2 w32 = twiddle[8 * warp]; // e^{2 pi i q / 32}, q = warp
    const int half = (warp >> 2) & 1, part = warp & 3;
    float2 pass1_tw[4], send_tw[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        pass1_tw[i] = twiddle[(16 * part * i) & (N - 1)]; // e^{2 pi i part i / 16}
        const int c = 2 * (part + 4 * i) + half;        // the bin of output i
        send_tw[i] = twiddle[(j * c) & (N - 1)];
    }
    const int to_block = 2 * part + half; // c mod 8 for all four outputs
    const uint32_t inbox_there =
        cluster::map_to_block(cluster::smem_u32(&sm.inbox[0][j][0][lane]), to_block);
    const uint32_t full_there = cluster::map_to_block(cluster::smem_u32(&sm.full[0]), to_block);
    const bool receives = warp >= 8 && warp < 12;
    const int shift = g.fft_shift ? 4 : 0; // of the 8 channels a lane stores (receive)
    const int group_in = (warp - 8) & 3;

    const auto receive = [&](int i) { // the inbox of step t_first + i
        const int stage = i % k::stages;
        const unsigned parity = unsigned(i / k::stages) & 1;
        if (tid == 8 * 32)
            cluster::mbar_arrive_expect_tx(cluster::smem_u32(&sm.full[stage]),
                                           k::blocks * k::bins * RX * sizeof(float2));
        cluster::mbar_wait(cluster::smem_u32(&sm.full[stage]), parity);
        float2 e[k::blocks];
#pragma unroll
        for (int s = 0; s < k::blocks; s++)
            e[s] = sm.inbox[stage][s][group_in][lane];
        // 8-point inverse DFT over the senders: even and odd halves, then radix 2.
        inverse_dft4(e[0], e[2], e[4], e[6]);
        inverse_dft4(e[1], e[3], e[5], e[7]);
        const float h = 0.70710678118654752f;
        const float2 o1 = mul(e[3], make_float2(h, h)), o2 = times_i(e[5]),
                     o3 = mul(e[7], make_float2(-h, h));
        const float2 x[8] = { add(e[0], e[1]), add(e[2], o1), add(e[4], o2), add(e[6], o3),
                              sub(e[0], e[1]), sub(e[2], o1), sub(e[4], o2), sub(e[6], o3) };
        // This warp has read the stage (its loads fed the sums above): lane s
        // frees it on block s's `empty`, which counts every receiving warp.
        __syncwarp();
        if (lane < k::blocks)
            cluster::mbar_arrive_remote_relaxed(
                cluster::map_to_block(cluster::smem_u32(&sm.empty[stage]), unsigned(lane)));
        const int t = t_first + i;
        if (t >= t_begin && t < t_end && r0 + lane < R) {
            // Channel c + 32 m; with fft_shift at (c + 32 m + N/2) mod N = c + 32 (m ^ 4).
            float2* row = out + size_t(t * N + j + k::blocks * group_in) * R + r0 + lane;
#pragma unroll
            for (int m = 0; m < 8; m++)
                row[size_t((m ^ shift) * 32 * R)] = x[m];
        }
    };

#pragma unroll 1 // one turn of the window ring is code enough
    for (int base = 0; base < n_steps; base += 16) {
#pragma unroll
        for (int u = 0; u < 16; u++) {
            const int i = base + u;
            if constexpr (in_ring) {
                const int slot = u % k::ring_steps; // a constant: 16 steps a turn
                async_copy_wait<k::ring_steps - 1>(); // this step's copies have landed
                za[u] = window_sample<Tin>(*reinterpret_cast<const raw*>(&sm.ring[slot][0][tid]));
                zb[u] = window_sample<Tin>(*reinterpret_cast<const raw*>(&sm.ring[slot][1][tid]));
                asm volatile("" ::: "memory"); // the slot's reads stay before its refill
                copy_step(slot); // the step ring_steps ahead, into the slot just read
            } else {
                za[u] = window_sample<Tin>(next_a[u % PF]);
                zb[u] = window_sample<Tin>(next_b[u % PF]);
                load_step(next_a[u % PF], next_b[u % PF]);
            }

            // FIR of both branches (y_p = sum_k h[p + kN] x[m_t - p - kN]).
            const float2 ya = filter(za, sm.taps[warp], u);
            const float2 yb = filter(zb, sm.taps[warp + 16], u);
            // Radix 2 over q and q + 16: the even bins' half, the odd bins' half.
            const int buf = u & 1;
            sm.dft[buf][0][warp][lane] = add(ya, yb);
            sm.dft[buf][1][warp][lane] = mul(sub(ya, yb), w32);
            __syncthreads();
            if (warp < 8) { // radix 4 over q / 4 (positions part + 4 n)
                float2* col = &sm.dft[buf][half][0][lane];
                float2 x0 = col[part * RX], x1 = col[(4 + part) * RX], x2 = col[(8 + part) * RX],
                       x3 = col[(12 + part) * RX];
                inverse_dft4(x0, x1, x2, x3);
                col[part * RX] = x0;
                col[(4 + part) * RX] = mul(x1, pass1_tw[1]);
                col[(8 + part) * RX] = mul(x2, pass1_tw[2]);
                col[(12 + part) * RX] = mul(x3, pass1_tw[3]);
            }
            __syncthreads();
            if (warp < 8) { // radix 4 over q mod 4, then the send
                const float2* col = &sm.dft[buf][half][4 * part][0];
                float2 y0 = col[lane], y1 = col[RX + lane], y2 = col[2 * RX + lane],
                       y3 = col[3 * RX + lane];
                inverse_dft4(y0, y1, y2, y3);
                const int stage = i % k::stages;
                if (i >= k::stages) // the receivers have freed this stage
                    cluster::mbar_wait(cluster::smem_u32(&sm.empty[stage]),
                                       unsigned(i / k::stages - 1) & 1);
                const uint32_t to = inbox_there + stage * uint32_t(sizeof(sm.inbox[0]));
                const uint32_t bar = full_there + stage * uint32_t(sizeof(sm.full[0]));
                cluster::store_async(to, mul(y0, send_tw[0]), bar);
                cluster::store_async(to + RX * sizeof(float2), mul(y1, send_tw[1]), bar);
                cluster::store_async(to + 2 * RX * sizeof(float2), mul(y2, send_tw[2]), bar);
                cluster::store_async(to + 3 * RX * sizeof(float2), mul(y3, send_tw[3]), bar);
            } else if (receives && i >= k::lag) {
                receive(i - k::lag);
            }
        }
    }
    if constexpr (in_ring)
        async_copy_wait<0>(); // no copy lands in a block that has left
    if (receives)
        for (int i = n_steps - k::lag; i < n_steps; i++)
            receive(i);
    cluster::sync_all(); // no block leaves while another may still write to it
#endif
}

} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
