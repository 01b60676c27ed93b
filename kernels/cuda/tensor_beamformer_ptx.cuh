/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The PTX wrappers of the NVIDIA tensor-beamformer kernels (shared memory
 * addresses, cp.async, ldmatrix, mma.sync) and the two precisions built on
 * them (op_fp16, op_int1). Included by the operand loaders, the mma.sync
 * kernel and the wgmma kernel; in the emulated tests the same names come
 * from kernels/emulation/gpu_emulation.h.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_PTX_CUH
#define INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_PTX_CUH

// In the emulated tests, kernels/emulation/gpu_emulation.h comes first and
// replaces this header (and defines BF_GPU_EMULATION).
#include <common/gpu_portable.h>
#include <common/load_store_as.h>
#include <cstdint>

#ifdef BF_GPU_EMULATION
#define BF_UNROLL
#define BF_NO_UNROLL
#else
#define BF_UNROLL _Pragma("unroll")
#define BF_NO_UNROLL _Pragma("unroll 1")
#endif

namespace gr {
namespace beamform {
namespace cuda {
namespace tb_kernels {

using tb::load_as;
using tb::load_once_as;
using tb::store_as;

//---------------------------------------------------------------------------
// PTX wrappers
//---------------------------------------------------------------------------
#ifndef BF_GPU_EMULATION
__device__ __forceinline__ uint32_t smem_u32(const void* p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

//! The dynamic shared memory of the block.
__device__ __forceinline__ unsigned char* dynamic_smem()
{
    extern __shared__ __align__(128) unsigned char tb_smem[];
    return tb_smem;
}

//! 16-byte asynchronous copy global -> shared; zero-fills when !valid.
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, bool valid)
{
    const int bytes = valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst),
                 "l"(src),
                 "r"(bytes));
}

//! 8-byte asynchronous copy (rows that are 8- but not 16-byte aligned).
__device__ __forceinline__ void cp_async8(uint32_t dst, const void* src, bool valid)
{
    const int bytes = valid ? 8 : 0;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst),
                 "l"(src),
                 "r"(bytes));
}

//! Hint: bring the 128-byte line at p into L2 (no registers, no completion).
__device__ __forceinline__ void prefetch_l2(const void* p)
{
    asm volatile("prefetch.global.L2 [%0];\n" ::"l"(p));
}

__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::);
}

template <int N>
__device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

__device__ __forceinline__ void
mma_m16n8k16_f16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void
mma_m16n8k256_b1_and(int (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
#else
//! A cache hint: nothing to model.
inline void prefetch_l2(const void*) {}
using emu::cp_async16;
using emu::cp_async8;
using emu::cp_async_commit;
using emu::cp_async_wait;
using emu::dynamic_smem;
using emu::ldmatrix_x4;
using emu::mma_m16n8k16_f16;
using emu::mma_m16n8k256_b1_and;
using emu::smem_u32;
#endif

//! The 32 bits of an fp16 pair.
__device__ __forceinline__ uint32_t bits_of(const __half2& h)
{
    return load_as<uint32_t>(&h);
}

//! The two precisions: their mma instruction and how an accumulator becomes a float.
struct op_fp16 {
    using acc_t = float;
    static __device__ __forceinline__ void
    mma(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
    {
        mma_m16n8k16_f16(d, a, b);
    }
};

struct op_int1 {
    using acc_t = int;
    static __device__ __forceinline__ void
    mma(int (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
    {
        mma_m16n8k256_b1_and(d, a, b);
    }
};

} // namespace tb_kernels
} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
