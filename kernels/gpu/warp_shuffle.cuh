/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The warp shuffle of the portable kernels (CUDA, HIP and the host emulation
 * of kernels/emulation/gpu_emulation.h), in one place.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_WARP_SHUFFLE_CUH
#define INCLUDED_BEAMFORM_KERNELS_WARP_SHUFFLE_CUH

#include <common/gpu_portable.h>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

//! The v of lane (this lane ^ mask), mask < 32, within groups of 32 lanes (a
//! CUDA warp, half an AMD wavefront). Every lane of the warp calls it.
__device__ __forceinline__ unsigned lane_xor_shuffle(unsigned v, int mask)
{
#if defined(BF_GPU_EMULATION) || defined(BF_BACKEND_CUDA)
    return __shfl_xor_sync(0xffffffffu, v, mask);
#else
    return __shfl_xor(v, mask, 32);
#endif
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
