/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The channelizer in one pass over tiles of steps (CUDA and HIP; notation of
 * pfb_channelizer.cuh: N channels, T taps per branch, O oversample, M = N/O).
 *
 * Why: the fused kernel keeps each branch's FIR window in registers, so a
 * block holds few receivers and runs its shared-memory FFT, barrier by
 * barrier, on a handful of rows per step; the two-pass path moves the FFT
 * inputs through device memory. Here a block computes a tile of S steps x RB
 * receivers x N branches without any window: thread (p, receiver) loads the
 * S + O (T_MAX - 1) samples its S outputs need (from L1/L2: neighbouring
 * tiles read them too) and accumulates the S outputs at once; the S RB rows
 * go to shared memory at their digit-reversed slots; one in-place FFT
 * (pfb_fft.cuh, no ping-pong buffer) transforms all of them between the same
 * few barriers; the spectra leave with RB consecutive receivers per channel.
 * Blocks loop over the (receiver group, tile) pairs of the call.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_PFB_TILED_CUH
#define INCLUDED_BEAMFORM_KERNELS_PFB_TILED_CUH

#include <gpu/pfb_two_pass.cuh>
#ifdef BF_GPU_EMULATION
#include <stdexcept>
#include <string>
#endif

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

constexpr int pfb_tiled_threads = 256;

//! The receiver groups of RB that a tiled launch computes: receivers
//! [g.first_receiver, R), group k from receiver first_receiver + k RB.
template <int RB>
__device__ __forceinline__ int pfb_tiled_groups(const pfb_geometry& g)
{
    return (g.n_receivers - g.first_receiver + RB - 1) / RB;
}

/*!
 * In-place FFT of \p rows rows (ld apart) in shared memory; rows are the
 * fastest index of the work so that a warp's lanes touch different rows
 * (ld = N + 1 puts them in different banks). Every thread must call it.
 */
__device__ __forceinline__ void
pfb_inplace_block_fft(float2* buf, const float2* twiddle, int log2_n, int rows, int ld)
{
    const int stages = pfb_fft::inplace_dit_stage_count(log2_n);
    for (int stage = 0; stage < stages; stage++) {
        const int log2_len = pfb_fft::inplace_dit_log2_len(log2_n, stage);
        if (stage == 0 && (log2_n & 1)) {
            const int total = rows << (log2_n - 1);
            for (int idx = threadIdx.x; idx < total; idx += blockDim.x)
                pfb_fft::inplace_dit_butterfly<2>(
                    buf + (idx % rows) * ld, twiddle, log2_n, log2_len, idx / rows);
        } else {
            const int total = rows << (log2_n - 2);
            for (int idx = threadIdx.x; idx < total; idx += blockDim.x)
                pfb_fft::inplace_dit_butterfly<4>(
                    buf + (idx % rows) * ld, twiddle, log2_n, log2_len, idx / rows);
        }
        __syncthreads();
    }
}

/*!
 * Branch p's taps h[p + kN], k < TMAX (zero past T), from the tiled kernels'
 * branch-major copy [N][TMAX] (pfb_plan::tiled_branch_taps): TMAX / 4 16-byte
 * loads. (From the prototype they were TMAX scalar loads, each with its own
 * address and bound check: 7 % of the instructions of the N = 256 tiled
 * kernel, more where tiles are short; apps/channelizer_bench.md, version 15.)
 */
template <int TMAX>
__device__ __forceinline__ void
pfb_branch_taps(const float* __restrict__ branch_taps, int p, float (&tap)[TMAX])
{
    static_assert(TMAX % 4 == 0, "whole 16-byte loads");
    const float4* t = reinterpret_cast<const float4*>(branch_taps) + p * (TMAX / 4);
#pragma unroll
    for (int k = 0; k < TMAX / 4; k++) {
        const float4 v = __ldg(t + k);
        tap[4 * k] = v.x;
        tap[4 * k + 1] = v.y;
        tap[4 * k + 2] = v.z;
        tap[4 * k + 3] = v.w;
    }
}

/*!
 * The multiply-adds of a tile's FIR for P (branch, receiver) pairs:
 * acc[i][s] += tap[i][k] x_i(s - k O) for s < S, k < TMAX, where
 * load(i, j) returns pair i's sample at offset j (in units of M) from its
 * newest sample of the tile's first step, j = -(TMAX - 1) O ... S - 1, each
 * loaded once. CARRY (P = 2, O = 2, pairs p and p + N/2): pair 1's sample at
 * j is pair 0's at j - 1, taken from a register instead of load(1, j).
 */
template <int TMAX, int O, int S, int P, bool CARRY, typename Load>
__device__ __forceinline__ void
pfb_tiled_accumulate(const float (&tap)[P][TMAX], float2 (&acc)[P][S], Load load)
{
    float2 previous = CARRY ? load(0, -(TMAX - 1) * O - 1) : make_float2(0.f, 0.f);
#pragma unroll
    for (int j = -(TMAX - 1) * O; j < S; j++) {
        float2 pair0_sample = make_float2(0.f, 0.f);
#pragma unroll
        for (int i = 0; i < P; i++) {
            const float2 v = CARRY && i == 1 ? previous : load(i, j);
            if (i == 0)
                pair0_sample = v;
#pragma unroll
            for (int s = 0; s < S; s++) {
                const int d = s - j; // k O
                if (d >= 0 && d % O == 0 && d / O < TMAX) {
                    acc[i][s].x = fmaf(tap[i][d / O], v.x, acc[i][s].x);
                    acc[i][s].y = fmaf(tap[i][d / O], v.y, acc[i][s].y);
                }
            }
        }
        if (CARRY)
            previous = pair0_sample;
    }
}

/*!
 * The FIR of one tile: y_p(t0 + s) for every branch p, the RB receivers from
 * r_first and the \p steps (<= S) steps from t0, each written to
 * rows[(s RB + rr) ld + slot(pos)] with pos its FFT input position. Threads
 * \p thread = 0 .. \p threads - 1 (a multiple of RB) of the block call it;
 * no barrier inside.
 *
 * HALVES (P = 2 only): a thread's two pairs are branches p and p + N/2 of one
 * receiver instead of pairs blockDim apart. With O = 2 (M = N/2) branch
 * p + N/2 needs at offset j the sample that branch p loaded at j - 1, so each
 * sample of the tile is loaded once instead of twice (the two branches are
 * otherwise N/2 RB pairs apart, far beyond what L1 keeps at N = 1024). With
 * O = 1 only the order of the pairs changes.
 */
template <typename Tin,
          int TMAX,
          int O,
          int S,
          int RB,
          int P,
          bool HALVES = false,
          typename Slot>
__device__ __forceinline__ void pfb_tiled_fir(const pfb_stream<Tin>& in,
                                              const float* __restrict__ branch_taps,
                                              float2* rows,
                                              int ld,
                                              const pfb_geometry& g,
                                              int r_first,
                                              long long t0,
                                              int steps,
                                              Slot slot,
                                              int thread,
                                              int threads)
{
    const int n = g.n_channels;
    const int m = g.step;
    // y_p(t0 + s) = sum_k h[p + kN] x[m_(t0+s) - p - kN]; sample offset
    // j = s - k O (in units of M) from the newest sample of step t0. A
    // thread takes P pairs (p, receiver) at once, so that the loads of all P
    // are in flight together: `threads` apart, or N RB / 2 apart (HALVES);
    // both keep the receiver (threads and N RB / 2 are multiples of RB).
    static_assert(!HALVES || P == 2, "HALVES: two pairs per thread");
    const int pair_span = HALVES ? n * RB / 2 : n * RB;        // first pairs walk this
    const int pair_gap = HALVES ? pair_span : threads; // a thread's P pairs
    const int first_step = HALVES ? threads : P * threads;
    for (int first = thread; first < pair_span; first += first_step) {
        const int rr = first % RB;
        const int r = r_first + rr;
        int p[P];
        bool live[P];
        long long newest[P];
        float tap[P][TMAX];
        float2 acc[P][S];
        // A partial last tile (steps < S) must not read past the input.
        bool all_in_input = steps == S;
#pragma unroll
        for (int i = 0; i < P; i++) {
            const int pair = first + i * pair_gap;
            p[i] = pair / RB;
            live[i] = pair < n * RB && r < g.n_receivers;
            newest[i] = (t0 + 1) * m - 1 - p[i];
            all_in_input = all_in_input &&
                           (!live[i] || newest[i] - (long long)(TMAX - 1) * O * m >= 0);
            // A dead pair filters with branch 0's taps; its outputs are dropped.
            pfb_branch_taps<TMAX>(branch_taps, live[i] ? p[i] : 0, tap[i]);
#pragma unroll
            for (int s = 0; s < S; s++)
                acc[i][s] = make_float2(0.f, 0.f);
        }
        // HALVES with O = 2: pair 1 (branch p + N/2) reads at offset j the
        // sample that pair 0 read at j - 1 (M = N/2), so it takes it from a
        // register instead of loading it again: one load per j for both.
        constexpr bool carry = HALVES && O == 2;
        const auto fir = [&](auto load) {
            pfb_tiled_accumulate<TMAX, O, S, P, carry>(tap, acc, load);
        };
        if (r < g.n_receivers) {
            const pfb_receiver_column<Tin> x(in, r);
            if (all_in_input) {
                // Plain loads, which the compiler issues together (no
                // select waits on each); a dead pair reads a live one's.
                const long long stride = (long long)m * x.row;
                const Tin* newest_sample[P];
#pragma unroll
                for (int i = 0; i < P; i++)
                    newest_sample[i] = x.input + (live[i] ? newest[i] : newest[0]) * x.row;
                fir([&](int i, int j) {
#ifdef BF_GPU_EMULATION
                    // The emulator cannot see a read past the input buffer:
                    // check the sample index (the call's input is n_out M samples).
                    const long long sample = (live[i] ? newest[i] : newest[0]) + (long long)j * m;
                    if (sample < 0 || sample >= g.n_out * m)
                        throw std::out_of_range("pfb_tiled_fir: input sample " +
                                                std::to_string(sample) + " outside [0, " +
                                                std::to_string(g.n_out * m) + ")");
#endif
                    return pfb_stream<Tin>::load_sample(newest_sample[i] + j * stride);
                });
            } else {
                fir([&](int i, int j) {
                    return live[i] && j < steps ? x.load(newest[i] + (long long)j * m)
                                                : make_float2(0.f, 0.f);
                });
            }
        }
#pragma unroll
        for (int i = 0; i < P; i++)
#pragma unroll
            for (int s = 0; s < S; s++)
                if (live[i] && s < steps) {
                    const int pos = pfb_fft_position<O>(p[i], t0 + s, g);
                    rows[(s * RB + rr) * ld + slot(pos)] = acc[i][s];
                }
    }
}

/*!
 * Spectra out: [t][channel][receiver], RB receivers of a channel together;
 * row s RB + rr holds the natural-order spectrum of step t0 + s, receiver
 * r_first + rr. Threads \p thread = 0 .. \p threads - 1 (a multiple of RB)
 * of the block call it; no barrier inside.
 *
 * Why the shape: element q = s N + k of receiver rr is output
 * (t0 N + q) R + r_first + rr, so with `threads` a multiple of RB a thread
 * keeps its receiver and its output pointer moves by a constant stride; the
 * per-element divisions and 64-bit products of a flat index were 26-30 % of
 * the tiled kernels' instructions (apps/channelizer_bench.md, version 7).
 */
template <int RB>
__device__ __forceinline__ void pfb_tiled_store(const float2* rows,
                                                int ld,
                                                float2* __restrict__ out,
                                                const pfb_geometry& g,
                                                int r_first,
                                                long long t0,
                                                int steps,
                                                int thread,
                                                int threads)
{
    const int n = g.n_channels;
    const int shift = g.fft_shift ? n / 2 : 0; // output channel k holds bin k + N/2
    const int rr = thread % RB;
    if (r_first + rr >= g.n_receivers)
        return;
    const int q_step = threads / RB;
    const long long receivers = g.n_receivers;
    const long long out_step = q_step * receivers;
    const int q_end = steps << g.log2_n;
    const float2* row = rows + rr * ld;
    int q = thread / RB;
    float2* o = out + (t0 * n + q) * receivers + r_first + rr;
    for (; q < q_end; q += q_step, o += out_step)
        *o = row[(q >> g.log2_n) * RB * ld + ((q + shift) & (n - 1))];
}

/*!
 * pfb_tiled_store for a compile-time N = 2^LOG2_N, where the THREADS / RB
 * threads of a receiver divide N into at most 4 channels each: a thread
 * stores the same N RB / THREADS channels of every step, so their
 * shared-memory columns and output offsets are computed once per tile (with a
 * run-time N, the index arithmetic of each 8-byte store took about ten
 * instructions; apps/channelizer_bench.md, version 15). Otherwise (more
 * columns would hold too many registers) the general store. Same contract as
 * pfb_tiled_store.
 */
template <int RB, int LOG2_N, int THREADS>
__device__ __forceinline__ void pfb_tiled_store_n(const float2* rows,
                                                  int ld,
                                                  float2* __restrict__ out,
                                                  const pfb_geometry& g,
                                                  int r_first,
                                                  long long t0,
                                                  int steps,
                                                  int thread)
{
    constexpr int n = 1 << LOG2_N;
    constexpr int lanes = THREADS / RB; // threads per receiver
    static_assert(THREADS % RB == 0, "whole receiver groups");
    if constexpr (n % lanes != 0 || n / lanes > 4) { // at most 4 columns in registers
        pfb_tiled_store<RB>(rows, ld, out, g, r_first, t0, steps, thread, THREADS);
    } else {
        constexpr int per_step = n / lanes; // channels of a step per thread
        const int rr = thread % RB;
        if (r_first + rr >= g.n_receivers)
            return;
        const int c0 = thread / RB;
        const int shift = g.fft_shift ? n / 2 : 0; // output channel k holds bin k + N/2
        const long long receivers = g.n_receivers;
        int column[per_step];
        long long offset[per_step];
#pragma unroll
        for (int k = 0; k < per_step; k++) {
            column[k] = (c0 + k * lanes + shift) & (n - 1);
            offset[k] = k * lanes * receivers;
        }
        const float2* row = rows + rr * ld;
        float2* o = out + (t0 * n + c0) * receivers + r_first + rr;
        for (int s = 0; s < steps; s++, row += RB * ld, o += n * receivers)
#pragma unroll
            for (int k = 0; k < per_step; k++)
                o[offset[k]] = row[column[k]];
    }
}

/*!
 * Grid: any number of blocks; block b takes the pairs (receiver group, tile)
 * b, b + gridDim.x, ... of the \p tiles_per_group tiles of S steps of each
 * receiver group of RB receivers. Dynamic shared memory: N twiddles + S RB
 * rows of ld = N + 1.
 */
template <typename Tin, int TMAX, int O, int S, int RB, int P>
__global__ void __launch_bounds__(pfb_tiled_threads, 2)
    pfb_tiled_kernel(pfb_stream<Tin> in,
                     const float* __restrict__ branch_taps, // [N][TMAX]
                     const float2* __restrict__ twiddle_table,
                     float2* __restrict__ out,
                     pfb_geometry g,
                     long long tiles_per_group)
{
    static_assert(pfb_tiled_threads % RB == 0, "pfb_tiled_store: whole receiver groups");
    extern __shared__ float2 pfb_smem[];
    const int n = g.n_channels;
    const int ld = pfb_fft::row_stride(n);
    float2* twiddle = pfb_smem;
    float2* rows = twiddle + n; // row s RB + rr: step s of the tile, receiver rr
    for (int k = threadIdx.x; k < n; k += blockDim.x)
        twiddle[k] = twiddle_table[k];

    const long long groups = pfb_tiled_groups<RB>(g);
    const long long work = groups * tiles_per_group;
    for (long long w = blockIdx.x; w < work; w += gridDim.x) {
        const int r_first = g.first_receiver + int(w % groups) * RB;
        const long long t0 = (w / groups) * S;
        const int steps = int(min((long long)S, g.n_out - t0));
        // FIR outputs at their digit-reversed slots for the in-place FFT.
        pfb_tiled_fir<Tin, TMAX, O, S, RB, P>(
            in,
            branch_taps,
            rows,
            ld,
            g,
            r_first,
            t0,
            steps,
            [&](int pos) { return pfb_fft::inplace_dit_slot(pos, g.log2_n); },
            int(threadIdx.x),
            int(blockDim.x));
        __syncthreads();
        pfb_inplace_block_fft(rows, twiddle, g.log2_n, steps * RB, ld);
        pfb_tiled_store<RB>(rows, ld, out, g, r_first, t0, steps, int(threadIdx.x), int(blockDim.x));
        __syncthreads(); // the next tile's FIR rewrites the rows
    }
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
