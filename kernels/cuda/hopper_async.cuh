/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Hopper's (sm_90) asynchronous building blocks as device functions:
 * mbarriers (arrive, expect_tx, try_wait.parity), TMA tiled tensor copies
 * (cp.async.bulk.tensor.3d with complete_tx on an mbarrier), named barriers
 * (bar.sync id, count), setmaxnreg, and TMA tensor stores in bulk groups
 * (cp.async.bulk.tensor ... bulk_group). Used by the warp-specialised
 * tensor-beamformer kernel (tensor_beamformer_ws_kernel.cuh). In the
 * emulated tests the same names come from kernels/emulation/gpu_emulation.h.
 * Shared-memory operands are 32-bit shared-window addresses (smem_u32).
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_HOPPER_ASYNC_CUH
#define INCLUDED_BEAMFORM_KERNELS_HOPPER_ASYNC_CUH

#include "tensor_beamformer_ptx.cuh"
#include <cstdint>

#ifndef BF_GPU_EMULATION
#include <cuda.h> // CUtensorMap
#endif

namespace gr {
namespace beamform {
namespace cuda {
namespace tb_kernels {

#ifdef BF_GPU_EMULATION
using tensor_map = emu::tensor_map;
using emu::bulk_commit;
using emu::bulk_wait;
using emu::bulk_wait_read;
using emu::fence_barrier_init;
using emu::fence_proxy_async_global;
using emu::flag_add_release;
using emu::flag_load_acquire;
using emu::mbar_arrive;
using emu::mbar_arrive_expect_tx;
using emu::mbar_init;
using emu::mbar_wait;
using emu::named_barrier_sync;
using emu::setmaxnreg_dec;
using emu::setmaxnreg_inc;
using emu::spin_pause;
using emu::tma_load_3d;
using emu::tma_store_3d;
#else
using tensor_map = CUtensorMap;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ void mbar_init(uint32_t bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count)
                 : "memory");
}
//! Makes the initialised mbarriers visible to the other threads and the
//! asynchronous proxy (TMA); a block barrier follows.
__device__ __forceinline__ void fence_barrier_init()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar),
                 "r"(bytes)
                 : "memory");
}
//! Returns once the phase of parity \p parity of the mbarrier has completed.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done = 0;
    do {
        asm volatile("{\n"
                     ".reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n"
                     "}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}
__device__ __forceinline__ void named_barrier_sync(unsigned id, unsigned count)
{
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}
template <int REGS>
__device__ __forceinline__ void setmaxnreg_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}
template <int REGS>
__device__ __forceinline__ void setmaxnreg_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}
/*!
 * The box of the tensor map at \p map (a __grid_constant__ kernel parameter)
 * whose corner is (x, y, z) into shared memory at \p dst; its bytes complete
 * on the mbarrier \p bar.
 */
__device__ __forceinline__ void
tma_load_3d(uint32_t dst, const void* map, int x, int y, int z, uint32_t bar)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_"
                 "tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(dst),
                 "l"(map),
                 "r"(x),
                 "r"(y),
                 "r"(z),
                 "r"(bar)
                 : "memory");
}
//! An L2 policy that evicts the lines it marks first (createpolicy).
__device__ __forceinline__ uint64_t l2_evict_first_policy()
{
    uint64_t policy;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
    return policy;
}
/*!
 * The box at (x, y, z) of the tensor map at \p map from shared memory at
 * \p src (laid out as tma_load_3d lays it) into global memory, in this
 * thread's open bulk group; bytes outside the tensor are not written. The
 * writers of \p src fence to the async proxy first (fence_proxy_async).
 * The lines written are marked evict-first in the L2: a voltage output
 * streams through it once (gigabytes a call), and lines that are read again
 * should stay (H200, beamform_bench 3/rx64 and 3/rx128 alternating with the
 * plain store in two machine sessions: 0-3 % faster in 7 of 8 pairs;
 * apps/beamform_bench.md, session 26).
 */
__device__ __forceinline__ void
tma_store_3d(const void* map, int x, int y, int z, uint32_t src)
{
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group.L2::cache_hint "
                 "[%0, {%1, %2, %3}], [%4], %5;\n" ::"l"(map),
                 "r"(x),
                 "r"(y),
                 "r"(z),
                 "r"(src),
                 "l"(l2_evict_first_policy())
                 : "memory");
}
/*!
 * Flags between thread blocks of one launch (the in-kernel pass,
 * tensor_beamformer_ws_inline_pass.cuh): a counter read with acquire
 * semantics at GPU scope, and one added to with release semantics.
 */
__device__ __forceinline__ unsigned flag_load_acquire(const unsigned* p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void flag_add_release(unsigned* p, unsigned v)
{
    asm volatile("red.release.gpu.global.add.u32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
}
//! Orders this thread's global accesses of the generic proxy (ld, st) with
//! those of the async proxy (TMA): data that plain stores wrote and TMA reads.
__device__ __forceinline__ void fence_proxy_async_global()
{
    asm volatile("fence.proxy.async.global;\n" ::: "memory");
}
//! One round of a spin wait on a flag: leave the issue slots to other warps.
__device__ __forceinline__ void spin_pause() { __nanosleep(128); }
__device__ __forceinline__ void bulk_commit()
{
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
//! Until only this thread's newest N bulk groups are pending (their writes
//! done: a kernel's last wait).
template <int N>
__device__ __forceinline__ void bulk_wait()
{
    asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}
//! Until only the newest N bulk groups may still read shared memory.
template <int N>
__device__ __forceinline__ void bulk_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
#endif
#endif

} // namespace tb_kernels
} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
