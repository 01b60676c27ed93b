/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Thread-block cluster building blocks (sm_90): the block's rank in its
 * cluster, a shared-memory address in another block of the cluster (mapa),
 * an asynchronous store into another block's shared memory that completes
 * on that block's mbarrier (st.async ... complete_tx), an arrive on another
 * block's mbarrier, and the cluster-wide barrier. Used by the channelizer's
 * cluster kernel (pfb_cluster_kernel.cuh); not emulated on the host.
 *
 * Addresses are 32-bit shared-window addresses (smem_u32); a mapa'd address
 * lies in the shared::cluster window.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_CLUSTER_ASYNC_CUH
#define INCLUDED_BEAMFORM_KERNELS_CLUSTER_ASYNC_CUH

#include "hopper_async.cuh"
#include <cstdint>

namespace gr {
namespace beamform {
namespace cuda {
namespace cluster {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
using tb_kernels::mbar_arrive;
using tb_kernels::mbar_arrive_expect_tx;
using tb_kernels::mbar_init;
using tb_kernels::mbar_wait;
using tb_kernels::smem_u32;

__device__ __forceinline__ unsigned block_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}

//! The address of \p local (this block's shared window) in block \p rank.
__device__ __forceinline__ uint32_t map_to_block(uint32_t local, unsigned rank)
{
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(local), "r"(rank));
    return remote;
}

//! Stores \p v at \p remote; its 8 bytes complete on the mbarrier \p remote_bar
//! of the same block (both shared::cluster addresses).
__device__ __forceinline__ void store_async(uint32_t remote, float2 v, uint32_t remote_bar)
{
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, "
                 "[%3];\n" ::"r"(remote),
                 "f"(v.x),
                 "f"(v.y),
                 "r"(remote_bar)
                 : "memory");
}

/*!
 * Arrives on the mbarrier \p remote_bar of another block, relaxed: it orders
 * nothing. For "my reads of your data are done": those values are already in
 * registers and used. A release arrive costs a GPU-wide fence (MEMBAR.ALL.GPU,
 * which also waits for this thread's global stores): 2.8x the kernel's time in
 * apps/channelizer_bench.md version 19.
 */
__device__ __forceinline__ void mbar_arrive_remote_relaxed(uint32_t remote_bar)
{
    asm volatile("mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%0];\n" ::"r"(remote_bar)
                 : "memory");
}

//! Every thread of every block of the cluster (release / acquire: the
//! mbarrier initialisations before it are seen by the other blocks after it).
__device__ __forceinline__ void sync_all()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::
                     : "memory");
}
#endif

} // namespace cluster
} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
