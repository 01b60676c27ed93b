/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Global -> shared copies that do not pass through registers, for the
 * portable kernels. CUDA: cp.async (sm_80 and later), so that a thread can
 * have all of a tile's loads in flight at once instead of a batch that fits in
 * its registers. The host emulation models cp.async (each copy lands at
 * random when issued or only at the wait), so that a missing wait shows in
 * the emulated tests. HIP: a plain copy, complete at once.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_ASYNC_COPY_CUH
#define INCLUDED_BEAMFORM_KERNELS_ASYNC_COPY_CUH

#include <common/gpu_portable.h>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

#if defined(BF_BACKEND_CUDA) && !defined(BF_GPU_EMULATION) && defined(__CUDA_ARCH__) && \
    __CUDA_ARCH__ >= 800
#define BF_ASYNC_COPY_IS_CP_ASYNC 1
#endif

//! Starts copying *src to *dst (8 bytes; zeros where !valid, and src is then
//! not read). Complete for this thread after async_copy_wait_all(), for the
//! block after a barrier behind that.
__device__ __forceinline__ void async_copy8(float2* dst, const float2* src, bool valid)
{
#ifdef BF_ASYNC_COPY_IS_CP_ASYNC
    const unsigned d = unsigned(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(d),
                 "l"(src),
                 "r"(valid ? 8 : 0));
#elif defined(BF_GPU_EMULATION)
    emu::cp_async_to(dst, src, 8, valid);
#else
    *dst = valid ? *src : make_float2(0.f, 0.f);
#endif
}

//! Waits for this thread's async_copy8 copies.
__device__ __forceinline__ void async_copy_wait_all()
{
#ifdef BF_ASYNC_COPY_IS_CP_ASYNC
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
#elif defined(BF_GPU_EMULATION)
    emu::cp_async_commit();
    emu::cp_async_wait<0>();
#endif
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
