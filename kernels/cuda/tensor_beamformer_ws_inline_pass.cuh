/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The in-kernel pass of the warp-specialised kernel ("+ipass"): fc32 samples
 * converted to the fp16 rows that TMA reads, by the producer warpgroup's three
 * spare warps while the consumers multiply, instead of by a streaming pass
 * before the kernel ("+pass").
 *
 * Why: with many receivers (512) the product is bound by the tensor cores and
 * the "+pass" pass is a separate sweep over memory (1.07 GB read, 0.54 GB
 * written: 0.38 ms of the 2.08 ms call on an H200). Here the pass runs in the
 * memory system's spare time beside the product (apps/beamform_bench.md,
 * session 29).
 *
 * How:
 *   - The fp16 rows are cut into slabs (channel, time tile of BN steps) of
 *     BN / rows_per_part parts. Part g = slab x parts + j is converted by
 *     worker g mod workers (worker = spare warp x grid + block: consecutive
 *     parts on different SMs), each worker in increasing g, which is the
 *     order in which the product's tiles use the slabs (channel first).
 *   - A worker adds 1 to its slab's counter (release) once the part's rows
 *     are stored; the producer thread waits (acquire) until the counter of the
 *     tile's slab holds all parts, then issues the tile's TMA copies.
 *   - A block's producer thread raises the launch's frontier (atomicMax)
 *     to each tile's index before it waits for the tile's slab. A worker
 *     converts no slab of a channel past the reach: the channel group of the
 *     tile one grid past the frontier (the tiles the blocks take next), plus
 *     args.pass_lead_channels channels. So converted rows are still in L2
 *     when they are read, and the pass does not take the memory system from
 *     the product at the start. No wait cycle can form: a producer raises the
 *     frontier to its own tile before waiting, and tiles take channel groups
 *     in order (tb::map_block), so every part of its slab is within every
 *     worker's reach.
 *   - Every block of the launch must run at once (a persistent grid of at
 *     most one block per SM), since a block waits for the others' workers.
 *     The emulated tests run one block (blocks run one after the other
 *     there).
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_WS_INLINE_PASS_CUH
#define INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_WS_INLINE_PASS_CUH

#include "tensor_beamformer_wgmma_kernel.cuh" // BF_TB_HAVE_WGMMA
#include <type_traits>

namespace gr {
namespace beamform {
namespace cuda {
namespace tb_kernels {

/*!
 * fp16 rows read by TMA, converted from fc32 [T][C][R] inside the kernel
 * (VEC complex per load: 2 when R is even). args.input is the fp16 rows,
 * args.n_receivers their padded length; args.pass_* the fc32 source.
 */
template <class W, int VEC>
struct ws_samples_inline_pass {
    static constexpr bool by_tma = true;
    static constexpr bool inline_pass = true;
    static constexpr int npol = 1;
    static constexpr int rows_per_part = 8;
    static constexpr int parts = W::BN / rows_per_part; // per slab
    static constexpr int spare_warps = 3;
    static constexpr int U = 8;  // loads per row and lane in flight
    static constexpr int RU = 2; // rows in flight
    using vec_t = typename std::conditional<VEC == 2, float4, float2>::type;

    static int row_bytes(const kernel_args& a) { return a.n_receivers * 4; }

    //! The counter after the slabs': the highest tile a block has started.
    __device__ static unsigned* frontier(const kernel_args& a)
    {
        return a.pass_ready + size_t(a.n_channels) * size_t(a.n_tiles);
    }

    //! The last channel whose slabs the workers may convert now. Tiles take
    //! channel groups in order (tb::map_block), so the group of tile t is
    //! t / (channel_group x m_tiles x n_tiles).
    __device__ static int reach(const kernel_args& a)
    {
#ifdef BF_TB_HAVE_WGMMA
        const long long group_tiles =
            (long long)a.channel_group * a.m_tiles * a.n_tiles;
        const long long t = (long long)flag_load_acquire(frontier(a)) + gridDim.x;
        const int g = a.channel_group;
        return int(t / group_tiles) * g + g - 1 + a.pass_lead_channels;
#else
        return 0;
#endif
    }

    //! The producer thread, before the copies of tile \p t: raises the
    //! frontier to it, then waits until its slab is whole.
    __device__ static void
    wait_slab(const kernel_args& a, long long t, int channel, int n_tile)
    {
#ifdef BF_TB_HAVE_WGMMA
        atomicMax(frontier(a), unsigned(t));
#ifdef BF_GPU_EMULATION
        emu::note_progress();
#endif
        const unsigned* ready = a.pass_ready + size_t(channel) * a.n_tiles + n_tile;
        while (flag_load_acquire(ready) < unsigned(parts))
            spin_pause();
        fence_proxy_async_global(); // plain stores -> TMA reads
#endif
    }

    //! One spare warp (\p worker of \p workers) converts its parts.
    template <class Tally>
    __device__ static void
    convert(const kernel_args& a, int worker, int workers, Tally& tally)
    {
#ifdef BF_TB_HAVE_WGMMA
        const int lane = int(threadIdx.x) & 31;
        const int R = a.pass_receivers;
        const int ld = a.n_receivers; // fp16 complex per row, R padded
        const int vpr = ld / VEC;     // vectors per row
        const size_t C = size_t(a.n_channels);
        const float2* in = static_cast<const float2*>(a.pass_input);
        unsigned char* out = static_cast<unsigned char*>(const_cast<void*>(a.input));
        const long long all = (long long)a.n_channels * a.n_tiles * parts;
        int reached = -1; // lane 0's last reading of reach()
        BF_NO_UNROLL
        for (long long g = worker; g < all; g += workers) {
            const long long slab = g / parts;
            const int c = int(slab / a.n_tiles);
            const int t_first =
                int(slab % a.n_tiles) * W::BN + int(g % parts) * rows_per_part;
            // The reach only grows, so it is read again only when c passes it.
            if (lane == 0)
                while (c > reached) {
                    reached = reach(a);
                    if (c > reached)
                        spin_pause();
                }
            __syncwarp();
            BF_NO_UNROLL
            for (int r0 = 0; r0 < rows_per_part; r0 += RU)
                BF_NO_UNROLL
                for (int v0 = 0; v0 < vpr; v0 += 32 * U) {
                    vec_t x[RU][U];
                    BF_UNROLL
                    for (int r = 0; r < RU; r++)
                        BF_UNROLL
                        for (int u = 0; u < U; u++) {
                            const int t = t_first + r0 + r;
                            const int col = (v0 + lane + 32 * u) * VEC;
                            // VEC == 2 implies R even, so col < R covers both values.
                            if (t < a.n_times && col < R)
                                // fc32 samples are read once: evict-first.
                                x[r][u] = load_once_as<vec_t>(in + (size_t(t) * C + c) * R + col);
                            else
                                x[r][u] = vec_t{};
                        }
                    BF_UNROLL
                    for (int r = 0; r < RU; r++)
                        BF_UNROLL
                        for (int u = 0; u < U; u++) {
                            const int t = t_first + r0 + r;
                            const int v = v0 + lane + 32 * u;
                            if (t >= a.n_times || v >= vpr)
                                continue;
                            unsigned char* o =
                                out + ((size_t(t) * C + c) * ld + size_t(v) * VEC) * 4;
                            if constexpr (VEC == 2) {
                                uint2 h;
                                h.x = bits_of(__floats2half2_rn(x[r][u].x, x[r][u].y));
                                h.y = bits_of(__floats2half2_rn(x[r][u].z, x[r][u].w));
                                store_as(o, h);
                                tally.add4(x[r][u]);
                            } else {
                                store_as(o, bits_of(__floats2half2_rn(x[r][u].x, x[r][u].y)));
                                tally.add(x[r][u].x, x[r][u].y);
                            }
                        }
                }
            fence_proxy_async_global();
            __threadfence();
            __syncwarp();
            if (lane == 0)
                flag_add_release(a.pass_ready + slab, 1u);
        }
#endif
    }
};

} // namespace tb_kernels
} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
