/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The mma.sync kernel of the tensor-core beamformer on NVIDIA GPUs (sm_80 and
 * later; tuned for sm_90), plus the int1 column-popcount kernel. Included by
 * the CUDA engine (through tensor_beamformer_variants.cuh) and by
 * test_tensor_beamformer_emulated.cc. For each channel c and polarization p,
 * D (rows x T) = A_cp (expanded weights, tensor_beamformer_expand.h) . B_c
 * (the samples, k = interleaved re/im or packed bits), with the complex
 * result read straight out of the accumulators (rows g and g+8 of a fragment
 * are the real and imaginary part of one beam, see tensor_beamformer_layout.h).
 *
 * One kernel template serves both precisions, because one mma step takes
 * 32 bytes of k per row in both:
 *   float16: mma.sync.m16n8k16 f16 x f16 -> f32
 *   int1:    mma.sync.m16n8k256 b1 AND + popc -> s32 (Hopper has no fast
 *            XOR), corrected in the epilogue: 4 acc - 2 popc(A) - 2 popc(X) + K.
 *
 * Data movement per thread block (BM rows x BN time steps of one channel):
 *   A: cp.async (16 bytes, L2 only) into a STAGES-deep shared-memory ring.
 *   B: fc32 samples: global -> registers -> fp16 conversion -> shared memory,
 *      loaded one k tile ahead, so the conversion costs no extra pass and no
 *      extra global traffic; fp16 samples and packed bits: cp.async like A.
 *   Fragments: ldmatrix.x4 from XOR-swizzled tiles (no bank conflicts).
 *   Epilogue: voltage -> interleaved fc32 stores straight from registers;
 *   power -> |b|^2 or Stokes in registers, reduced over n_int time steps
 *   (shuffles, then shared-memory atomics), one store per integrated value.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_MMA_KERNEL_CUH
#define INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_MMA_KERNEL_CUH

#include "tensor_beamformer_epilogue.cuh"
#include "tensor_beamformer_loaders.cuh"
#include "tensor_beamformer_ptx.cuh"
#include <common/tensor_beamformer_layout.h>
#include <cstdint>

namespace gr {
namespace beamform {
namespace cuda {
namespace tb_kernels {

//---------------------------------------------------------------------------
// Tile shapes
//---------------------------------------------------------------------------
/*!
 * BM rows (per polarization; 16 rows = 8 beams) x BN time steps per block,
 * WM x WN per warp, BKB bytes of k per pipeline stage, STAGES stages;
 * registers capped for MIN_BLOCKS blocks per SM (1: as many as the compiler
 * wants, up to 255).
 */
template <int BM_, int BN_, int WM_, int WN_, int BKB_, int STAGES_, int MIN_BLOCKS_ = 1>
struct tile_shape {
    static constexpr int BM = BM_, BN = BN_, WM = WM_, WN = WN_, BKB = BKB_,
                         STAGES = STAGES_, MIN_BLOCKS = MIN_BLOCKS_;
    static constexpr int warps_m = BM / WM, warps_n = BN / WN;
    static constexpr int warps = warps_m * warps_n;
    static constexpr int threads = warps * 32;
    static constexpr int MT = WM / 16; // m16 tiles per warp
    static constexpr int NT = WN / 8;  // n8 tiles per warp
    static constexpr int KSTEPS = BKB / 32;
    static constexpr int CPR = BKB / 16; // 16-byte chunks per tile row
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must divide the block tile");
    static_assert(WM % 16 == 0 && WN % 16 == 0,
                  "warp tile must be 16-row and 16-column multiples");
    static_assert(BKB == 32 || BKB == 64 || BKB == 128, "k tile of 32, 64 or 128 bytes");
    static_assert(STAGES >= 2, "at least double buffering");
};

//---------------------------------------------------------------------------
// The kernel
//---------------------------------------------------------------------------
template <class S, class L, int NPA>
constexpr int pipeline_smem_bytes()
{
    return S::STAGES * (NPA * S::BM + L::npol * S::BN) * S::BKB;
}

template <class S, class Op, class L, int NPA>
__global__ void __launch_bounds__(S::threads, S::MIN_BLOCKS)
    tensor_beamformer_kernel(const kernel_args args)
{
    using acc_t = typename Op::acc_t;
    constexpr int NPB = L::npol;
    unsigned char* const smem = dynamic_smem();
    const uint32_t smem_a = smem_u32(smem);
    const uint32_t smem_b = smem_a + S::STAGES * NPA * S::BM * S::BKB;

    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int wm = warp % S::warps_m;
    const int wn = warp / S::warps_m;
    const tb::tile_coord tc = tb::map_block(blockIdx.x,
                                            args.n_channels,
                                            args.m_tiles,
                                            args.n_tiles,
                                            args.channel_group,
                                            args.m_group);
    const int c = tc.channel;
    const int m0 = tc.m_tile * S::BM;
    const int n0 = tc.n_tile * S::BN;

    // A: NPA matrices of this channel, rows m0.. of each.
    const size_t matrix_bytes = size_t(args.rows) * args.row_bytes;
    const unsigned char* a_base =
        args.weights + size_t(c) * NPA * matrix_bytes + size_t(m0) * args.row_bytes;
    constexpr int A_CHUNKS = NPA * S::BM * S::CPR;
    static_assert(A_CHUNKS % S::threads == 0, "A tile chunks must spread evenly");

    auto issue_a = [&](int kt, int stage) {
        BF_NO_UNROLL
        for (int i = 0; i < A_CHUNKS / S::threads; i++) {
            const int q = threadIdx.x + i * S::threads;
            const int p = q / (S::BM * S::CPR);
            const int row = (q / S::CPR) % S::BM;
            const int byte = (q % S::CPR) * 16;
            const unsigned char* src = a_base + p * matrix_bytes +
                                       size_t(row) * args.row_bytes + kt * S::BKB + byte;
            cp_async16(smem_a + (stage * NPA + p) * (S::BM * S::BKB) +
                           swizzle_offset(row, byte, S::BKB),
                       src,
                       true);
        }
    };

    L loader(args, c, n0, smem + S::STAGES * NPA * S::BM * S::BKB);

    acc_t acc[NPA][S::MT][S::NT][4];
    BF_UNROLL
    for (int p = 0; p < NPA; p++)
        BF_UNROLL
    for (int i = 0; i < S::MT; i++)
        BF_UNROLL
    for (int j = 0; j < S::NT; j++)
        BF_UNROLL
    for (int r = 0; r < 4; r++)
        acc[p][i][j][r] = acc_t(0);

    const int k_tiles = args.k_tiles;

    // Prologue: STAGES-1 tiles in flight (one commit group each, even if empty).
    BF_UNROLL
    for (int s = 0; s < S::STAGES - 1; s++) {
        if (s < k_tiles) {
            issue_a(s, s);
            loader.issue(s, s);
        }
        cp_async_commit();
    }
    if constexpr (L::register_staged) {
        loader.fetch(0);
        loader.store(0);
    }

    for (int kt = 0; kt < k_tiles; kt++) {
        const int stage = kt % S::STAGES;
        // Tile kt has landed (its group and all older ones are complete) and
        // every warp is done with the stage that the next copies overwrite.
        cp_async_wait<S::STAGES - 2>();
        __syncthreads();

        const int next = kt + S::STAGES - 1;
        if (next < k_tiles) {
            issue_a(next, next % S::STAGES);
            loader.issue(next, next % S::STAGES);
        }
        cp_async_commit();
        if constexpr (L::register_staged) {
            if (kt + 1 < k_tiles)
                loader.fetch(kt + 1); // in flight while this tile is multiplied
        }

        const uint32_t a_stage = smem_a + stage * NPA * (S::BM * S::BKB);
        const uint32_t b_stage = smem_b + stage * NPB * (S::BN * S::BKB);
        BF_UNROLL
        for (int ks = 0; ks < S::KSTEPS; ks++) {
            uint32_t af[NPA][S::MT][4];
            uint32_t bf[NPB][S::NT][2];
            BF_UNROLL
            for (int p = 0; p < NPA; p++)
                BF_UNROLL
            for (int i = 0; i < S::MT; i++)
                ldmatrix_x4(af[p][i],
                            a_stage + p * (S::BM * S::BKB) +
                                swizzle_offset(wm * S::WM + i * 16 + tb::a_frag_row(lane),
                                               ks * 32 + tb::a_frag_byte(lane),
                                               S::BKB));
            BF_UNROLL
            for (int p = 0; p < NPB; p++)
                BF_UNROLL
            for (int j = 0; j < S::NT; j += 2) {
                uint32_t r[4];
                ldmatrix_x4(r,
                            b_stage + p * (S::BN * S::BKB) +
                                swizzle_offset(wn * S::WN + j * 8 + tb::b_frag_row(lane),
                                               ks * 32 + tb::b_frag_byte(lane),
                                               S::BKB));
                bf[p][j][0] = r[0];
                bf[p][j][1] = r[1];
                bf[p][j + 1][0] = r[2];
                bf[p][j + 1][1] = r[3];
            }
            BF_UNROLL
            for (int p = 0; p < NPA; p++)
                BF_UNROLL
            for (int i = 0; i < S::MT; i++)
                BF_UNROLL
            for (int j = 0; j < S::NT; j++)
                Op::mma(acc[p][i][j], af[p][i], bf[NPB == 1 ? 0 : p][j]);
        }

        if constexpr (L::register_staged) {
            if (kt + 1 < k_tiles)
                loader.store((kt + 1) % S::STAGES);
        }
    }
    cp_async_wait<0>();

    epilogue<Op, NPA, S::MT, S::NT, S::BM, S::BN, S::threads>(
        args, acc, smem, c, m0, n0, m0 + wm * S::WM, n0 + wn * S::WN);
}

//---------------------------------------------------------------------------
// int1 helper: population counts of each (t, c) sample row, per polarization
// (xy_pairs: X = even receivers, Y = odd), padding bits masked off. (A
// template only so that every file including this header may define it.)
//---------------------------------------------------------------------------
template <int = 0>
__global__ void column_popc_kernel(const uint32_t* __restrict__ in,
                                   int* __restrict__ out,
                                   size_t n_rows, // T * C
                                   int words,
                                   int n_receivers,
                                   int npol)
{
    const size_t row = size_t(blockIdx.x) * (blockDim.x / 32) + (threadIdx.x >> 5);
    if (row >= n_rows)
        return;
    const int lane = threadIdx.x & 31;
    const uint32_t* r = in + row * 2 * words;
    int count[2] = { 0, 0 };
    for (int w = lane; w < 2 * words; w += 32) {
        const int wd = w % words;
        const int valid = n_receivers - 32 * wd;
        const uint32_t keep = valid >= 32 ? 0xffffffffu : ((1u << valid) - 1u);
        const uint32_t bits = r[w] & keep;
        if (npol == 1) {
            count[0] += __popc(bits);
        } else {
            count[0] += __popc(bits & 0x55555555u);
            count[1] += __popc(bits & 0xaaaaaaaau);
        }
    }
    for (int p = 0; p < npol; p++) {
        int v = count[p];
        BF_UNROLL
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, o);
        if (lane == 0)
            out[row * npol + p] = v;
    }
}

} // namespace tb_kernels
} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
