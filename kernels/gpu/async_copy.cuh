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

//! Starts copying BYTES (4, 8 or 16) from \p src to \p dst (zeros where
//! !valid, and src is then not read); both aligned to BYTES. Part of the
//! thread's open group until async_copy_commit().
template <int BYTES>
__device__ __forceinline__ void async_copy(void* dst, const void* src, bool valid)
{
    static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16,
                  "cp.async copies 4, 8 or 16 bytes");
#ifdef BF_ASYNC_COPY_IS_CP_ASYNC
    const unsigned d = unsigned(__cvta_generic_to_shared(dst));
    // 16 bytes may bypass L1 (.cg): the data is staged in shared memory.
    if constexpr (BYTES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d),
                     "l"(src),
                     "r"(valid ? 16 : 0));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(d),
                     "l"(src),
                     "n"(BYTES),
                     "r"(valid ? BYTES : 0));
#elif defined(BF_GPU_EMULATION)
    emu::cp_async_to(dst, src, BYTES, valid);
#else
    struct chunk {
        unsigned char b[BYTES];
    };
    *static_cast<chunk*>(dst) = valid ? *static_cast<const chunk*>(src) : chunk{};
#endif
}

//! Closes this thread's open group of copies.
__device__ __forceinline__ void async_copy_commit()
{
#ifdef BF_ASYNC_COPY_IS_CP_ASYNC
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#elif defined(BF_GPU_EMULATION)
    emu::cp_async_commit();
#endif
}

//! Waits until at most \p PENDING of this thread's committed groups are
//! still in flight (the newest ones). For the block: a barrier behind it.
template <int PENDING>
__device__ __forceinline__ void async_copy_wait()
{
#ifdef BF_ASYNC_COPY_IS_CP_ASYNC
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
#elif defined(BF_GPU_EMULATION)
    emu::cp_async_wait<PENDING>();
#endif
}

//! Commits and waits for all of this thread's copies.
__device__ __forceinline__ void async_copy_wait_all()
{
    async_copy_commit();
    async_copy_wait<0>();
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
