/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The wgmma kernel of the tensor-core beamformer and its PTX wrappers
 * (Hopper's warpgroup MMA, sm_90a only). Included by the engine's sm_90a
 * translation unit (tensor_beamformer_wgmma.cu) and by
 * test_tensor_beamformer_emulated.cc. The kernel:
 * the same product, operand layouts, loaders and epilogue as the mma.sync
 * kernel (tensor_beamformer_mma_kernel.cuh), with the multiply issued by
 * warpgroups of 4 warps straight from shared memory:
 *   float16: wgmma.mma_async m64nNk16 f32 += f16 x f16
 *   int1:    wgmma.mma_async m64nNk256 s32 += b1 AND b1 (popc)
 * A thread block of BM/64 warpgroups computes BM rows x BN time steps; each
 * warpgroup 64 rows x BN. Tiles are 128-byte rows (64 halves, 1024 bits) in
 * the 128-byte swizzle that wgmma reads natively; it is the XOR swizzle of
 * the mma.sync kernel at 128-byte rows (swizzle_offset), so the loaders are
 * shared. Every stage starts on a 1024-byte boundary (a swizzle atom is 8
 * rows x 128 bytes); the descriptor's stride is 1024 bytes per 8 rows, and
 * each k step advances the start address by 32 bytes.
 * Pipeline: weights (and fp16 samples / bits) by cp.async, S-2 tiles ahead;
 * fc32 samples through registers one tile ahead; one wgmma group in flight
 * (wait_group 1), so a stage is rewritten only after every warpgroup's
 * multiply that read it has completed (the barrier at the top of the loop).
 * Shared memory written by ordinary stores or cp.async is made visible to
 * the tensor cores' async proxy with fence.proxy.async before that barrier.
 *
 * Compiled for sm_90a only (lib/CMakeLists.txt gives this file's translation
 * unit -gencode=arch=compute_90a,code=sm_90a); in the plain sm_90 image the
 * kernel is empty and wgmma_image_available() tells the engine so.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_WGMMA_KERNEL_CUH
#define INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_WGMMA_KERNEL_CUH

#include "tensor_beamformer_epilogue.cuh"
#include "tensor_beamformer_loaders.cuh"
#include "tensor_beamformer_ptx.cuh"
#include <common/tensor_beamformer_layout.h>
#include <type_traits>
#include <cstdint>

#if defined(BF_GPU_EMULATION) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define BF_TB_HAVE_WGMMA 1
#endif

namespace gr {
namespace beamform {
namespace cuda {
namespace tb_kernels {

/*!
 * A wgmma tile: BM rows (BM / 64 warpgroups) x BN time steps, 128-byte k
 * tiles, STAGES stages. The members the loaders read (BN, BKB, CPR, threads)
 * mean what they mean in tile_shape.
 */
template <int BM_, int BN_, int STAGES_>
struct wgmma_shape {
    static constexpr int BM = BM_, BN = BN_, BKB = 128, STAGES = STAGES_;
    static constexpr int warpgroups = BM / 64;
    static constexpr int threads = warpgroups * 128;
    static constexpr int NT = BN / 8;
    static constexpr int KSTEPS = BKB / 32;
    static constexpr int CPR = BKB / 16;
    static_assert(BM % 64 == 0, "warpgroups of 64 rows");
    static_assert(BN == 128 || BN == 256, "wgmma N of 128 or 256 here");
    static_assert(STAGES >= 3, "two tiles in flight besides the one multiplied");
};

//! Dynamic shared memory a wgmma variant needs (1 KB for the alignment).
template <class W, class L>
constexpr int wgmma_pipeline_smem_bytes()
{
    return W::STAGES * (W::BM + L::npol * W::BN) * W::BKB + 1024;
}

#ifdef BF_GPU_EMULATION
using emu::fence_proxy_async;
using emu::wgmma_b1;
using emu::wgmma_commit;
using emu::wgmma_f16;
using emu::wgmma_fence;
using emu::wgmma_wait;
#elif defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ void fence_proxy_async()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/*
 * The accumulator operands of a wgmma, fragments d[i] .. d[i + 7] of four
 * registers each: C is "+f" (fp32) or "+r" (s32). The asm's %0, %1, ...
 * number them in this order.
 */
#define BF_WGMMA_ACC4(C, i) C(d[i][0]), C(d[i][1]), C(d[i][2]), C(d[i][3])
#define BF_WGMMA_ACC8(C, i)                                                        \
    BF_WGMMA_ACC4(C, i), BF_WGMMA_ACC4(C, i + 1), BF_WGMMA_ACC4(C, i + 2),         \
        BF_WGMMA_ACC4(C, i + 3), BF_WGMMA_ACC4(C, i + 4), BF_WGMMA_ACC4(C, i + 5), \
        BF_WGMMA_ACC4(C, i + 6), BF_WGMMA_ACC4(C, i + 7)

__device__ __forceinline__ void
wgmma_f16_n128(float (&d)[16][4], uint64_t desc_a, uint64_t desc_b)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
        "{"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p, 1, 1, 0, 0;\n"
        "}\n"
        : BF_WGMMA_ACC8("+f", 0), BF_WGMMA_ACC8("+f", 8)
        : "l"(desc_a), "l"(desc_b), "r"(1));
}

__device__ __forceinline__ void
wgmma_f16_n256(float (&d)[32][4], uint64_t desc_a, uint64_t desc_b)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
        "{"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, "
        "%110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, "
        "%125, %126, %127"
        "}, %128, %129, p, 1, 1, 0, 0;\n"
        "}\n"
        : BF_WGMMA_ACC8("+f", 0),
          BF_WGMMA_ACC8("+f", 8),
          BF_WGMMA_ACC8("+f", 16),
          BF_WGMMA_ACC8("+f", 24)
        : "l"(desc_a), "l"(desc_b), "r"(1));
}

__device__ __forceinline__ void
wgmma_b1_n128(int (&d)[16][4], uint64_t desc_a, uint64_t desc_b)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k256.s32.b1.b1.and.popc "
        "{"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p;\n"
        "}\n"
        : BF_WGMMA_ACC8("+r", 0), BF_WGMMA_ACC8("+r", 8)
        : "l"(desc_a), "l"(desc_b), "r"(1));
}

__device__ __forceinline__ void
wgmma_b1_n256(int (&d)[32][4], uint64_t desc_a, uint64_t desc_b)
{
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k256.s32.b1.b1.and.popc "
        "{"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, "
        "%110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, "
        "%125, %126, %127"
        "}, %128, %129, p;\n"
        "}\n"
        : BF_WGMMA_ACC8("+r", 0),
          BF_WGMMA_ACC8("+r", 8),
          BF_WGMMA_ACC8("+r", 16),
          BF_WGMMA_ACC8("+r", 24)
        : "l"(desc_a), "l"(desc_b), "r"(1));
}

#undef BF_WGMMA_ACC8
#undef BF_WGMMA_ACC4

template <int N>
__device__ __forceinline__ void wgmma_f16(float (&d)[N / 8][4], uint64_t a, uint64_t b)
{
    if constexpr (N == 128)
        wgmma_f16_n128(d, a, b);
    else
        wgmma_f16_n256(d, a, b);
}
template <int N>
__device__ __forceinline__ void wgmma_b1(int (&d)[N / 8][4], uint64_t a, uint64_t b)
{
    if constexpr (N == 128)
        wgmma_b1_n128(d, a, b);
    else
        wgmma_b1_n256(d, a, b);
}
#endif

/*!
 * Pins the accumulators at this point of the program: nothing that reads them
 * may be moved above it (e.g. above a wgmma.wait_group, which names no
 * registers). Emits no instruction.
 */
template <int NT>
__device__ __forceinline__ void fence_accumulators(float (&d)[NT][4])
{
#ifndef BF_GPU_EMULATION
    BF_UNROLL
    for (int j = 0; j < NT; j++)
        BF_UNROLL
    for (int r = 0; r < 4; r++)
        asm volatile("" : "+f"(d[j][r])::"memory");
#endif
}
template <int NT>
__device__ __forceinline__ void fence_accumulators(int (&d)[NT][4])
{
#ifndef BF_GPU_EMULATION
    BF_UNROLL
    for (int j = 0; j < NT; j++)
        BF_UNROLL
    for (int r = 0; r < 4; r++)
        asm volatile("" : "+r"(d[j][r])::"memory");
#endif
}

/*!
 * Shared-memory matrix descriptor: K-major, 128-byte swizzle, 8-row groups
 * 1024 bytes apart (the leading-dimension offset is unused in this mode).
 */
__device__ __forceinline__ uint64_t smem_descriptor(uint32_t smem_address)
{
    return uint64_t((smem_address & 0x3ffffu) >> 4) | (uint64_t(1) << 16) |
           (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}

/*!
 * The wgmma of one 128-byte k tile: KSTEPS steps of 32 bytes of k (+2 in the
 * descriptors' 16-byte units per step), fp16 or b1 by the precision.
 */
template <class Op, int BN, int KSTEPS, class Acc>
__device__ __forceinline__ void
wgmma_k_tile(Acc (&acc)[BN / 8][4], uint64_t desc_a, uint64_t desc_b)
{
#ifdef BF_TB_HAVE_WGMMA
    BF_UNROLL
    for (int ks = 0; ks < KSTEPS; ks++) {
        if constexpr (std::is_same<Op, op_int1>::value)
            wgmma_b1<BN>(acc, desc_a + 2 * ks, desc_b + 2 * ks);
        else
            wgmma_f16<BN>(acc, desc_a + 2 * ks, desc_b + 2 * ks);
    }
#endif
}

template <class W, class Op, class L>
__global__ void __launch_bounds__(W::threads, 1)
    tensor_beamformer_wgmma_kernel(const kernel_args args)
{
#ifdef BF_TB_HAVE_WGMMA
    using acc_t = typename Op::acc_t;
    static_assert(L::npol == 1, "wgmma kernels: single polarization");
    unsigned char* const raw = dynamic_smem();
    unsigned char* const smem = raw + ((1024u - (smem_u32(raw) & 1023u)) & 1023u);
    const uint32_t smem_a = smem_u32(smem);
    const uint32_t smem_b = smem_a + W::STAGES * W::BM * W::BKB;

    const int warp = threadIdx.x >> 5;
    const int wg = warp >> 2;
    const tb::tile_coord tc = tb::map_block(blockIdx.x,
                                            args.n_channels,
                                            args.m_tiles,
                                            args.n_tiles,
                                            args.channel_group,
                                            args.m_group);
    const int c = tc.channel;
    const int m0 = tc.m_tile * W::BM;
    const int n0 = tc.n_tile * W::BN;

    const unsigned char* a_base = args.weights + size_t(c) * args.rows * args.row_bytes +
                                  size_t(m0) * args.row_bytes;
    constexpr int A_CHUNKS = W::BM * W::CPR;
    static_assert(A_CHUNKS % W::threads == 0, "A tile chunks must spread evenly");
    auto issue_a = [&](int kt, int stage) {
        BF_NO_UNROLL
        for (int i = 0; i < A_CHUNKS / W::threads; i++) {
            const int q = threadIdx.x + i * W::threads;
            const int row = q / W::CPR;
            const int byte = (q % W::CPR) * 16;
            cp_async16(smem_a + stage * (W::BM * W::BKB) +
                           swizzle_offset(row, byte, W::BKB),
                       a_base + size_t(row) * args.row_bytes + kt * W::BKB + byte,
                       true);
        }
    };

    L loader(args, c, n0, smem + W::STAGES * W::BM * W::BKB);

    acc_t acc[1][1][W::NT][4];
    BF_UNROLL
    for (int j = 0; j < W::NT; j++)
        BF_UNROLL
    for (int r = 0; r < 4; r++)
        acc[0][0][j][r] = acc_t(0);

    const int k_tiles = args.k_tiles;
    BF_UNROLL
    for (int s = 0; s < W::STAGES - 2; s++) {
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
        const int stage = kt % W::STAGES;
        cp_async_wait<W::STAGES - 3>();
        fence_proxy_async(); // this thread's cp.async and st.shared -> the tensor cores
        __syncthreads();
        // Every warpgroup's multiply of tile kt-2 has completed (wait_group 1
        // below, before this barrier): its stage takes tile kt+S-2.
        const int next = kt + W::STAGES - 2;
        if (next < k_tiles) {
            issue_a(next, next % W::STAGES);
            loader.issue(next, next % W::STAGES);
        }
        cp_async_commit();
        if constexpr (L::register_staged) {
            if (kt + 1 < k_tiles)
                loader.fetch(kt + 1);
        }
        const uint64_t desc_a =
            smem_descriptor(smem_a + stage * (W::BM * W::BKB) + wg * (64 * W::BKB));
        const uint64_t desc_b = smem_descriptor(smem_b + stage * (W::BN * W::BKB));
        fence_accumulators(acc[0][0]);
        wgmma_fence();
        wgmma_k_tile<Op, W::BN, W::KSTEPS>(acc[0][0], desc_a, desc_b);
        wgmma_commit();
        wgmma_wait<1>();
        fence_accumulators(acc[0][0]);
        if constexpr (L::register_staged) {
            // stage (kt+1) % S last fed tile kt+1-S, long complete everywhere
            if (kt + 1 < k_tiles)
                loader.store((kt + 1) % W::STAGES);
        }
    }
    wgmma_wait<0>();
    fence_accumulators(acc[0][0]); // the epilogue reads them only after the wait
    cp_async_wait<0>();

    // Warp w of warpgroup wg holds rows 16 w .. 16 w + 15 of the warpgroup's 64.
    // The power epilogue reuses the shared memory from its unaligned start.
    epilogue<Op, 1, 1, W::NT, W::BM, W::BN, W::threads>(
        args, acc, raw, c, m0, n0, m0 + wg * 64 + (warp & 3) * 16, n0);
#endif
}

/*!
 * Writes 1 if the image the runtime loaded for this device has the wgmma
 * kernels (sm_90a), 0 if it is the plain sm_90 image (empty kernels).
 */
template <int = 0>
__global__ void wgmma_image_probe(int* out)
{
#ifdef BF_TB_HAVE_WGMMA
    *out = 1;
#else
    *out = 0;
#endif
}

} // namespace tb_kernels
} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
