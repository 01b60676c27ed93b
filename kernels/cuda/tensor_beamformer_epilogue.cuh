/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The epilogue of the NVIDIA tensor-beamformer kernels: accumulators ->
 * voltages, or -> |b|^2 / Stokes summed over integration windows, written in
 * the output's layout or channel-major for the engine to transpose
 * (tb::power_layout, tensor_beamformer_power_transpose.cuh). Shared by every
 * CUDA kernel: mma.sync, resident, wgmma and the warp-specialised ones.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_EPILOGUE_CUH
#define INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_EPILOGUE_CUH

#include "tensor_beamformer_ptx.cuh"
#include <common/tensor_beamformer_layout.h>
#include <type_traits>

namespace gr {
namespace beamform {
namespace cuda {
namespace tb_kernels {

using tb::kernel_args;

/*!
 * The value of an accumulator as a float: fp16 as is; int1 through the AND
 * identity sum a x = 4 popc(A&X) - 2 popc(A) - 2 popc(X) + K over ±1 values.
 */
template <class Op>
__device__ __forceinline__ float
finish(typename Op::acc_t acc, int row_pc, int col_pc, int k_valid)
{
    if constexpr (std::is_same<Op, op_int1>::value)
        return float(4 * acc - 2 * row_pc - 2 * col_pc + k_valid);
    else
        return acc;
}

//! The epilogue's barrier where every thread of the block runs it.
struct block_sync {
    __device__ static void sync() { __syncthreads(); }
};

/*!
 * Epilogue shared by the mma.sync and wgmma kernels. The calling warp holds
 * accumulators acc[p][i][j][r] for A rows warp_row0 + 16 i + (r < 2 ? g : g + 8)
 * (real part of beam (warp_row0 + 16 i) / 2 + g, then its imaginary part) and
 * time steps warp_n0 + 8 j + 2 (lane % 4) + (r % 2), with g = lane / 4.
 * Voltage: stored as they are. Power: summed per integration window in
 * shared memory (which the block no longer needs for operands) and stored
 * once per window. Every thread of the block must call it (barriers), or,
 * with \p Sync a narrower barrier, the THREADS threads of one aligned group
 * (threads 0 .. THREADS-1, or one warpgroup of a ping-pong kernel).
 * \p XY_SHORT_WINDOWS: X/Y pairs' windows of 1, 2 and 4 steps in registers
 * too (below), in the kernels compiled for it only.
 */
template <class Op,
          int NPA,
          int MT,
          int NT,
          int BM,
          int BN,
          int THREADS,
          class Sync = block_sync,
          bool XY_SHORT_WINDOWS = false>
__device__ __forceinline__ void epilogue(const kernel_args& args,
                                         typename Op::acc_t (&acc)[NPA][MT][NT][4],
                                         unsigned char* smem,
                                         int c,
                                         int m0,
                                         int n0,
                                         int warp_row0,
                                         int warp_n0)
{
    const int lane = threadIdx.x & 31;
    const int g = lane >> 2;
    const int t4 = lane & 3;
    const int n_beams = args.n_beams;
    const int n_times = args.n_times;

    // int1 corrections: popc of each weight row and of each sample column
    // (read where used, so they hold no registers during the epilogue).
    constexpr bool is_int1 = std::is_same<Op, op_int1>::value;
    auto row_popc = [&](int p, int i, int part) -> int {
        if constexpr (is_int1)
            return args.row_popc[(size_t(c) * NPA + p) * args.rows + warp_row0 + i * 16 +
                                 part * 8 + g];
        else
            return 0;
    };
    auto col_popc = [&](int p, int n) -> int {
        if constexpr (is_int1)
            return n < n_times
                       ? args.col_popc[(size_t(n) * args.n_channels + c) * NPA + p]
                       : 0;
        else
            return 0;
    };

    if (!args.power) {
        // Voltage: [T][C][B] complex, or [T][C][B][2] complex (X, Y).
        BF_UNROLL
        for (int i = 0; i < MT; i++) {
            const int beam = (warp_row0 + i * 16) / 2 + g;
            if (beam >= n_beams)
                continue;
            BF_UNROLL
            for (int j = 0; j < NT; j++)
                BF_UNROLL
            for (int h = 0; h < 2; h++) {
                const int n = warp_n0 + j * 8 + 2 * t4 + h;
                if (n >= n_times)
                    continue;
                float re[NPA], im[NPA];
                BF_UNROLL
                for (int p = 0; p < NPA; p++) {
                    const int cp = col_popc(p, n);
                    re[p] =
                        finish<Op>(acc[p][i][j][h], row_popc(p, i, 0), cp, args.k_valid);
                    im[p] = finish<Op>(
                        acc[p][i][j][2 + h], row_popc(p, i, 1), cp, args.k_valid);
                }
                const size_t item = (size_t(n) * args.n_channels + c) * n_beams + beam;
                if constexpr (NPA == 1)
                    store_as(static_cast<float2*>(args.out) + item,
                             make_float2(re[0], im[0]));
                else
                    store_as(static_cast<float4*>(args.out) + item,
                             make_float4(re[0], im[0], re[1], im[1]));
            }
        }
        return;
    }

    // Power: |b|^2, or Stokes I / IQUV from (X, Y), summed over n_int steps.
    const int n_stokes = (NPA == 2 && args.iquv) ? 4 : 1;
    const int n_int = args.n_int;
    constexpr int MAX_STOKES = NPA == 2 ? 4 : 1;
    const tb::power_layout where = tb::power_layout_of(args, n_stokes, c);
    // Stokes of the calling thread's columns n0c and n0c + 1 of fragment (i, j).
    auto stokes_of = [&](int i, int j, float(&st)[2][4]) {
        BF_UNROLL
        for (int h = 0; h < 2; h++) {
            float re[NPA], im[NPA];
            const int n = warp_n0 + j * 8 + 2 * t4 + h;
            BF_UNROLL
            for (int p = 0; p < NPA; p++) {
                const int cp = col_popc(p, n);
                re[p] = finish<Op>(acc[p][i][j][h], row_popc(p, i, 0), cp, args.k_valid);
                im[p] =
                    finish<Op>(acc[p][i][j][2 + h], row_popc(p, i, 1), cp, args.k_valid);
            }
            const float px = re[0] * re[0] + im[0] * im[0];
            if constexpr (NPA == 1) {
                st[h][0] = px;
                st[h][1] = st[h][2] = st[h][3] = 0.0f;
            } else {
                const float py = re[1] * re[1] + im[1] * im[1];
                st[h][0] = px + py;
                st[h][1] = px - py;
                st[h][2] = 2.0f * (re[0] * re[1] + im[0] * im[1]);
                st[h][3] = 2.0f * (im[0] * re[1] - re[0] * im[1]);
            }
        }
    };

    // Windows that lie whole inside the warp's own columns (n_int a multiple
    // of 8 that divides the warp's NT x 8 columns, which start on a window):
    // each thread sums its columns of a window in registers, the quad's four
    // threads (one row, all 8 columns of each n8 fragment) combine theirs by
    // two shuffles, and one of them stores the window. No shared memory, no
    // atomics and no barrier: the general path below spends most of a
    // short-k power tile there (apps/beamform_bench.md, "register windows").
    float* const out = static_cast<float*>(args.out);
    if (n_int % 8 == 0 && (NT * 8) % n_int == 0 && warp_n0 % n_int == 0) {
        // The window's length as a constant for the usual ones (8, 16, 32
        // steps): with a run-time length the compiler cannot resolve which
        // fragment closes a window, and the epilogue became a chain of
        // branches and moves that stalled on instruction fetch
        // (apps/beamform_bench.md, "Window length as a constant").
        auto in_registers = [&](auto octets_of) {
            const int octets = octets_of; // n8 fragments per window
            if constexpr (NPA == 1) {
                // |b|^2, four windows at a time (the warp's columns hold a whole
                // number of such groups): each thread sums its columns of each
                // window by fused multiply-adds (two chains, one per column of a
                // fragment), then the quad reduce-scatters: after 3 shuffles
                // thread t4 holds window t4's total and all four store. This
                // halves the epilogue's instructions against one window at a time
                // (8 shuffles and 4 one-lane stores per 4 windows), and the
                // epilogue is half of a short-k tile's time (apps/beamform_bench.md,
                // "four windows per quad").
                if ((NT * 8) % (32 * octets) == 0) {
                    const unsigned all = 0xffffffffu;
                    const bool hi = (t4 & 2) != 0, odd = (t4 & 1) != 0;
                    BF_UNROLL
                    for (int i = 0; i < MT; i++) {
                        const int beam = (warp_row0 + i * 16) / 2 + g;
                        const bool beam_ok = beam < n_beams;
                        // the group's windows; the open window's columns 2 t4, 2 t4 + 1
                        float w0 = 0.0f, w1 = 0.0f, w2 = 0.0f, w3 = 0.0f;
                        float c0 = 0.0f, c1 = 0.0f;
                        int in_window = 0, windows_done = 0;
                        int w = warp_n0 / n_int; // the group's first window
                        // This thread's window of the group: [w + t4][beam][c],
                        // then 4 windows on per group.
                        float* dst = out + where.at(w + t4, 0, beam);
                        const size_t group_step = 4 * where.window;
                        BF_UNROLL
                        for (int j = 0; j < NT; j++) {
                            if constexpr (is_int1) {
                                float st[2][4];
                                stokes_of(i, j, st);
                                c0 += st[0][0];
                                c1 += st[1][0];
                            } else {
                                c0 = fmaf(acc[0][i][j][0],
                                          acc[0][i][j][0],
                                          fmaf(acc[0][i][j][2], acc[0][i][j][2], c0));
                                c1 = fmaf(acc[0][i][j][1],
                                          acc[0][i][j][1],
                                          fmaf(acc[0][i][j][3], acc[0][i][j][3], c1));
                            }
                            if (++in_window < octets) // warp-uniform, as below
                                continue;
                            in_window = 0;
                            w0 = w1;
                            w1 = w2;
                            w2 = w3;
                            w3 = c0 + c1;
                            c0 = c1 = 0.0f;
                            if (++windows_done < 4)
                                continue;
                            windows_done = 0;
                            // Threads t4 and t4 ^ 2 swap the halves they do not keep,
                            // then t4 and t4 ^ 1: thread t4 keeps window t4.
                            const float a =
                                (hi ? w2 : w0) + __shfl_xor_sync(all, hi ? w0 : w2, 2);
                            const float b =
                                (hi ? w3 : w1) + __shfl_xor_sync(all, hi ? w1 : w3, 2);
                            const float v =
                                (odd ? b : a) + __shfl_xor_sync(all, odd ? a : b, 1);
                            // n_times is a multiple of n_int: no partial window.
                            if (beam_ok && (w + t4) * n_int < n_times)
                                *dst = v;
                            dst += group_step;
                            w += 4;
                        }
                    }
                    return;
                }
            }
            // n_times is a multiple of n_int (check_tensor_beamformer_times), so a
            // window with columns past n_times is never stored: no masking.
            // Where the window length is a constant that groups by four, nvcc
            // finds this loop unreachable (warning 128): true, and harmless.
#ifdef __CUDACC__
#pragma nv_diag_suppress 128
#endif
            BF_UNROLL
            for (int i = 0; i < MT; i++) {
                const int beam = (warp_row0 + i * 16) / 2 + g;
                const bool beam_ok = beam < n_beams;
                float sum[MAX_STOKES];
                BF_UNROLL
                for (int s = 0; s < MAX_STOKES; s++)
                    sum[s] = 0.0f;
                int in_window = 0;
                int w = warp_n0 / n_int;
                BF_UNROLL
                for (int j = 0; j < NT; j++) {
                    float st[2][4];
                    stokes_of(i, j, st);
                    BF_UNROLL
                    for (int s = 0; s < MAX_STOKES; s++)
                        sum[s] += st[0][s] + st[1][s];
                    if (++in_window < octets) // warp-uniform
                        continue;
                    BF_UNROLL
                    for (int s = 0; s < MAX_STOKES; s++) {
                        if (s >= n_stokes)
                            break;
                        float v = sum[s];
                        v += __shfl_xor_sync(0xffffffffu, v, 1);
                        v += __shfl_xor_sync(0xffffffffu, v, 2);
                        sum[s] = 0.0f;
                        if (t4 == (w & 3) && beam_ok && w * n_int < n_times)
                            out[where.at(w, s, beam)] = v;
                    }
                    in_window = 0;
                    w++;
                }
            }
#ifdef __CUDACC__
#pragma nv_diag_default 128
#endif
        };
        switch (n_int) {
        case 8:
            in_registers(std::integral_constant<int, 1>{});
            break;
        case 16:
            in_registers(std::integral_constant<int, 2>{});
            break;
        case 32:
            in_registers(std::integral_constant<int, 4>{});
            break;
        default:
            in_registers(n_int / 8);
        }
        return;
    }

    // Single polarization, windows inside one n8 fragment (n_int 1, 2, 4): the
    // thread's two columns 2 t4, 2 t4 + 1 are one window (n_int 2), two
    // (n_int 1), or half of one that the neighbouring quad lane holds the
    // other half of (n_int 4, one shuffle). Stored from registers, like the
    // windows above: the shared sums below, an atomic add per value at n_int
    // 1, ran at 6 % of the byte floor. X/Y pairs only in the kernels compiled
    // with XY_SHORT_WINDOWS ("+sw"): this path made their kernels' code 25 %
    // longer, and LOFAR's Stokes at n_int 16 ran 6-20 % slower with it
    // (apps/beamform_bench.md, "Power at small n_int"). n_int divides BN, so
    // no window straddles blocks, and n_times is a multiple of n_int.
    if ((NPA == 1 || XY_SHORT_WINDOWS) && tb::short_window(n_int)) {
        BF_UNROLL
        for (int i = 0; i < MT; i++) {
            const int beam = (warp_row0 + i * 16) / 2 + g;
            const bool beam_ok = beam < n_beams;
            BF_UNROLL
            for (int j = 0; j < NT; j++) {
                float st[2][4];
                stokes_of(i, j, st);
                const int n_first = warp_n0 + j * 8 + 2 * t4; // column of h = 0
                BF_UNROLL
                for (int s = 0; s < MAX_STOKES; s++) {
                    if (s >= n_stokes)
                        break;
                    if (n_int == 1) {
                        BF_UNROLL
                        for (int h = 0; h < 2; h++)
                            if (beam_ok && n_first + h < n_times)
                                out[where.at(n_first + h, s, beam)] = st[h][s];
                        continue;
                    }
                    float v = st[0][s] + st[1][s];
                    if (n_int == 4)
                        v += __shfl_xor_sync(0xffffffffu, v, 1);
                    if (beam_ok && n_first < n_times && (n_int == 2 || (t4 & 1) == 0))
                        out[where.at(n_first / n_int, s, beam)] = v;
                }
            }
        }
        return;
    }

    // Else: shared memory (free now) holds [n_stokes][windows][BM/2 beams] sums,
    // beams fastest: the final loop below reads them in that order, and in the
    // channel-major layout consecutive beams are consecutive addresses.
    const int windows = args.windows;
    constexpr int BEAMS = BM / 2;
    float* red = reinterpret_cast<float*>(smem);
    const int tid = int(threadIdx.x % THREADS); // within the synchronised group
    Sync::sync(); // every warp is done reading the pipeline buffers
    for (int e = tid; e < n_stokes * BEAMS * windows; e += THREADS)
        red[e] = 0.0f;
    Sync::sync();

    const int w0 = n0 / n_int;                  // first window this block touches
    const bool pairs_share = (n_int % 2) == 0;  // columns 2t, 2t+1 in one window
    const bool octets_share = (n_int % 8) == 0; // all 8 columns of an n8 tile
    BF_UNROLL
    for (int i = 0; i < MT; i++) {
        const int beam_local = (warp_row0 - m0 + i * 16) / 2 + g;
        const bool beam_ok = m0 / 2 + beam_local < n_beams;
        BF_UNROLL
        for (int j = 0; j < NT; j++) {
            float st[2][4]; // [h][stokes]
            stokes_of(i, j, st);
            const int n_first = warp_n0 + j * 8 + 2 * t4; // column of h = 0
            BF_UNROLL
            for (int s = 0; s < MAX_STOKES; s++) {
                if (s >= n_stokes)
                    break;
                // the sum of (s, window w - w0, beam_local)
                auto sum = [&](int w) {
                    return red + (s * windows + w - w0) * BEAMS + beam_local;
                };
                if (octets_share) {
                    float v = st[0][s] + st[1][s];
                    v += __shfl_xor_sync(0xffffffffu, v, 1);
                    v += __shfl_xor_sync(0xffffffffu, v, 2);
                    if (t4 == 0 && beam_ok && n_first < n_times)
                        atomicAdd(sum(n_first / n_int), v);
                } else if (pairs_share) {
                    if (beam_ok && n_first < n_times)
                        atomicAdd(sum(n_first / n_int), st[0][s] + st[1][s]);
                } else {
                    BF_UNROLL
                    for (int h = 0; h < 2; h++)
                        if (beam_ok && n_first + h < n_times)
                            atomicAdd(sum((n_first + h) / n_int), st[h][s]);
                }
            }
        }
    }
    Sync::sync();

    // One value per (stokes, beam, window): a plain store when the window lies
    // inside this block's time range, else an atomic add into the output that
    // the engine zeroed first (windows that straddle blocks).
    const int n_end = min(n0 + BN, n_times);
    for (int e = tid; e < n_stokes * BEAMS * windows; e += THREADS) {
        const int beam_local = e % BEAMS;
        const int w = (e / BEAMS) % windows;
        const int s = e / (windows * BEAMS);
        const int beam = m0 / 2 + beam_local;
        const int gw = w0 + w;
        if (beam >= n_beams || gw * n_int >= n_end)
            continue;
        const size_t idx = where.at(size_t(gw), s, beam);
        if (gw * n_int >= n0 && (gw + 1) * n_int <= n0 + BN)
            out[idx] = red[e];
        else
            atomicAdd(out + idx, red[e]);
    }
}
} // namespace tb_kernels
} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
