/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The short-K ("resident weights") mma.sync kernel of the tensor-core
 * beamformer: float16, single polarization, k = 2 x receivers <= 256 halves
 * (row_bytes <= 512). With so short a k, the pipelined kernel
 * (tensor_beamformer_mma_kernel.cuh) does 2-8 k tiles per thread block after
 * a full pipeline prologue and then its epilogue, one block per SM: load
 * latency and the epilogue are never hidden. Here instead:
 *
 *   - a thread block owns one (channel, BM-row band of the weights) item at a
 *     time and keeps the band's WHOLE k resident in shared memory, loaded once
 *     per item by cp.async;
 *   - it loops over all BN-wide time tiles of the item, and then over further
 *     items (item += gridDim.x: persistent; the engine launches
 *     min(items, SMs x blocks per SM) blocks; consecutive items are the m bands
 *     of one channel, so that blocks running together share its samples in L2);
 *   - the samples of the next time tile (of this item or the next) go into the
 *     other of two shared-memory stages while the current one is multiplied:
 *     fc32 through registers one 64-byte k tile ahead (converted to fp16 on the
 *     way, as in the pipelined kernel), fp16 by cp.async;
 *   - the epilogue is the pipelined kernel's (tensor_beamformer_epilogue.cuh),
 *     with its power sums in a region of their own, so that the weights stay;
 *     a new item's weights are copied while the last tile's epilogue runs
 *     (from L2: they were prefetched there when the previous item began).
 *
 * Shared memory at run time (k_tiles = row_bytes / 64):
 *   W [k_tiles][BM][64]   X [2][k_tiles][BN][64]   power sums
 * each [rows][64] tile XOR-swizzled as in the pipelined kernel.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_RESIDENT_KERNEL_CUH
#define INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_RESIDENT_KERNEL_CUH

#include "tensor_beamformer_mma_kernel.cuh"

namespace gr {
namespace beamform {
namespace cuda {
namespace tb_kernels {

/*!
 * BM rows x BN time steps per block, WM x WN per warp, k in 64-byte tiles
 * (the operand layout's padding), at most MAX_K_BYTES of k per row, and the
 * number of blocks per SM the registers are capped for (MIN_BLOCKS).
 */
template <int BM_, int BN_, int WM_, int WN_, int MIN_BLOCKS_>
struct resident_shape : tile_shape<BM_, BN_, WM_, WN_, 64, 2> {
    static constexpr int MAX_K_BYTES = 512; // 2 x 128 receivers of fp16
    static constexpr int MIN_BLOCKS = MIN_BLOCKS_;
};

//! Shared memory of the operands (weights + two sample stages) for rows of row_bytes.
template <class S>
constexpr size_t resident_operand_smem_bytes(size_t row_bytes)
{
    return size_t(S::BM + 2 * S::BN) * row_bytes;
}

template <class S, class L>
__global__ void __launch_bounds__(S::threads, S::MIN_BLOCKS)
    tensor_beamformer_resident_kernel(const kernel_args args)
{
    using Op = op_fp16;
    static_assert(L::npol == 1, "single polarization only");
    constexpr int KB = S::BKB; // 64 bytes of k per tile
    const int k_tiles = args.k_tiles;
    const int row_bytes = args.row_bytes;
    unsigned char* const smem = dynamic_smem();
    unsigned char* const smem_x = smem + size_t(S::BM) * row_bytes;
    unsigned char* const smem_red = smem_x + size_t(2 * S::BN) * row_bytes;
    const uint32_t w_u32 = smem_u32(smem);
    const uint32_t x_u32 = smem_u32(smem_x);

    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int wm = warp % S::warps_m;
    const int wn = warp / S::warps_m;

    // This block's jobs: items blockIdx.x, + gridDim.x, ..., each n_tiles time tiles.
    const long long items = (long long)args.n_channels * args.m_tiles;
    const long long n_tiles = args.n_tiles;
    if ((long long)blockIdx.x >= items)
        return;
    const long long my_items = (items - 1 - blockIdx.x) / gridDim.x + 1;
    const long long jobs = my_items * n_tiles;
    auto item_of = [&](long long job) { return blockIdx.x + (job / n_tiles) * gridDim.x; };
    auto n0_of = [&](long long job) { return int(job % n_tiles) * S::BN; };

    // The weight band of an item into W (all k tiles), one commit group.
    auto load_weights = [&](long long item) {
        const int c = int(item / args.m_tiles);
        const int m0 = int(item % args.m_tiles) * S::BM;
        const unsigned char* band =
            args.weights + (size_t(c) * args.rows + m0) * size_t(row_bytes);
        const int chunks_per_row = row_bytes / 16;
        BF_NO_UNROLL
        for (int q = threadIdx.x; q < S::BM * chunks_per_row; q += S::threads) {
            const int row = q / chunks_per_row;
            const int chunk = q % chunks_per_row;
            const int kt = chunk / (KB / 16);
            const int byte = (chunk % (KB / 16)) * 16;
            cp_async16(w_u32 + kt * (S::BM * KB) + swizzle_offset(row, byte, KB),
                       band + size_t(row) * row_bytes + chunk * 16,
                       true);
        }
        cp_async_commit();
    };

    // The weight band of an item into L2, a whole item ahead of its copy into
    // shared memory: that copy then waits on L2, not on DRAM (every band is
    // read from DRAM once, all SMs at about the same time).
    auto prefetch_weights = [&](long long item) {
        const int c = int(item / args.m_tiles);
        const int m0 = int(item % args.m_tiles) * S::BM;
        const unsigned char* band =
            args.weights + (size_t(c) * args.rows + m0) * size_t(row_bytes);
        const int band_bytes = S::BM * row_bytes;
        BF_NO_UNROLL
        for (int b = threadIdx.x * 128; b < band_bytes; b += S::threads * 128)
            prefetch_l2(band + b);
    };

    // Prologue: the first item's weights and the first time tile into stage 0.
    load_weights(item_of(0));
    {
        const long long item = item_of(0);
        L first(args, int(item / args.m_tiles), n0_of(0), smem_x);
        for (int kt = 0; kt < k_tiles; kt++) {
            if constexpr (L::register_staged) {
                first.fetch(kt);
                first.store(kt);
            } else {
                first.issue(kt, kt);
            }
        }
        cp_async_commit();
    }
    cp_async_wait<0>();
    __syncthreads();

    float acc[1][S::MT][S::NT][4];
    for (long long job = 0; job < jobs; job++) {
        const int stage = int(job & 1);
        const long long item = item_of(job);
        const int c = int(item / args.m_tiles);
        const int m0 = int(item % args.m_tiles) * S::BM;
        const int n0 = n0_of(job);
        const bool has_next = job + 1 < jobs;
        const bool new_item = has_next && (job + 1) % n_tiles == 0;
        if (job % n_tiles == 0 && item + gridDim.x < items)
            prefetch_weights(item + gridDim.x); // this block's next item

        // The next job's samples go into the other stage, which every warp
        // finished reading before the barrier that ended the previous job.
        const long long next_item = item_of(job + 1);
        L next(args, int(next_item / args.m_tiles), n0_of(job + 1), smem_x);
        const int next_stage0 = (stage ^ 1) * k_tiles;
        if constexpr (!L::register_staged) {
            if (has_next)
                for (int kt = 0; kt < k_tiles; kt++)
                    next.issue(kt, next_stage0 + kt);
            cp_async_commit();
        }

        BF_UNROLL
        for (int i = 0; i < S::MT; i++)
            BF_UNROLL
        for (int j = 0; j < S::NT; j++)
            BF_UNROLL
        for (int r = 0; r < 4; r++)
            acc[0][i][j][r] = 0.0f;

        BF_NO_UNROLL
        for (int kt = 0; kt < k_tiles; kt++) {
            if constexpr (L::register_staged) {
                if (has_next)
                    next.fetch(kt); // in flight while this k tile is multiplied
            }
            const uint32_t a_tile = w_u32 + kt * (S::BM * KB);
            const uint32_t b_tile = x_u32 + (stage * k_tiles + kt) * (S::BN * KB);
            BF_UNROLL
            for (int ks = 0; ks < S::KSTEPS; ks++) {
                uint32_t af[S::MT][4];
                uint32_t bf[S::NT][2];
                BF_UNROLL
                for (int i = 0; i < S::MT; i++)
                    ldmatrix_x4(af[i],
                                a_tile + swizzle_offset(wm * S::WM + i * 16 +
                                                            tb::a_frag_row(lane),
                                                        ks * 32 + tb::a_frag_byte(lane),
                                                        KB));
                BF_UNROLL
                for (int j = 0; j < S::NT; j += 2) {
                    uint32_t r[4];
                    ldmatrix_x4(r,
                                b_tile + swizzle_offset(wn * S::WN + j * 8 +
                                                            tb::b_frag_row(lane),
                                                        ks * 32 + tb::b_frag_byte(lane),
                                                        KB));
                    bf[j][0] = r[0];
                    bf[j][1] = r[1];
                    bf[j + 1][0] = r[2];
                    bf[j + 1][1] = r[3];
                }
                BF_UNROLL
                for (int i = 0; i < S::MT; i++)
                    BF_UNROLL
                for (int j = 0; j < S::NT; j++)
                    Op::mma(acc[0][i][j], af[i], bf[j]);
            }
            if constexpr (L::register_staged) {
                if (has_next)
                    next.store(next_stage0 + kt);
            }
        }
        cp_async_wait<0>();
        // The next job's samples are in place, and every warp is done with
        // this stage and (if the item changes) with the weights.
        __syncthreads();
        if (new_item)
            load_weights(next_item); // lands while this tile's epilogue runs

        epilogue<Op, 1, S::MT, S::NT, S::BM, S::BN, S::threads>(
            args, acc, smem_red, c, m0, n0, m0 + wm * S::WM, n0 + wn * S::WN);

        if (new_item) {
            cp_async_wait<0>();
            __syncthreads();
        }
    }
}

} // namespace tb_kernels
} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
