/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Typed access to raw bytes in device code: load_as / load_once_as / store_as. Shared by the
 * tensor-beamformer kernels of both back ends (kernels/cuda/ mma and wgmma,
 * kernels/hip/ MFMA). On the GPU these are plain (vector) loads and stores;
 * the host emulation (BF_GPU_EMULATION) copies bytes instead, which is what
 * C++'s aliasing rules allow there.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_LOAD_STORE_AS_H
#define INCLUDED_BEAMFORM_KERNELS_LOAD_STORE_AS_H

#include <common/gpu_portable.h> // replaced by the emulation when it came first
#include <cstring>

namespace gr {
namespace beamform {
namespace tb {

template <class T>
__device__ __forceinline__ T load_as(const void* p)
{
#ifdef BF_GPU_EMULATION
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
#else
    return *static_cast<const T*>(p);
#endif
}

//! load_as for data read once: marked evict-first in the caches
//! (ld.global.cs) on CUDA; a plain load elsewhere.
template <class T>
__device__ __forceinline__ T load_once_as(const void* p)
{
#if defined(BF_GPU_EMULATION) || !defined(BF_BACKEND_CUDA)
    return load_as<T>(p);
#else
    return __ldcs(static_cast<const T*>(p));
#endif
}

template <class T>
__device__ __forceinline__ void store_as(void* p, const T& v)
{
#ifdef BF_GPU_EMULATION
    std::memcpy(p, &v, sizeof(T));
#else
    *static_cast<T*>(p) = v;
#endif
}

} // namespace tb
} // namespace beamform
} // namespace gr

#endif
