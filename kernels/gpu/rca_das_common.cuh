/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Device helpers shared by the rca_das kernels: the arithmetic of one sample
 * type (float for real processing, float2 for I/Q), cubic Lagrange weights and
 * the first-sample address (Algorithm 5), the Hann window, phase rotations, and
 * the voxel store of the volume-producing kernels.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_RCA_DAS_COMMON_CUH
#define INCLUDED_BEAMFORM_KERNELS_RCA_DAS_COMMON_CUH

#include <common/gpu_portable.h>
#include <gpu/warp_shuffle.cuh>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {
namespace rca {

constexpr float two_pi = 6.28318530717958647f;

//! Frames side by side in the half_sectors variant's storage: 8 half2 samples
//! = 32 bytes, one memory sector ([frame / 8][term][sample][frame % 8]).
constexpr int sector_frames = 8;

// One launch sequence for the engine and the emulated test
// (tests/cpp/test_rca_das_emulated.cc): a kernel launch on a GPU, a run of the
// kernel's body on the host under kernels/emulation/gpu_emulation.h.
#ifdef BF_GPU_EMULATION
using gpuStream_t = void*;
#define BF_RCA_LAUNCH(name, kernel, grid, block, shared, stream, ...) \
    launch(grid, block, shared, [&] { kernel(__VA_ARGS__); })
//! The block's dynamic shared memory as an array of T.
#define BF_RCA_DYNAMIC_SHARED(T, array) T* array = reinterpret_cast<T*>(::emu::dynamic_smem())
#else
#define BF_RCA_LAUNCH(name, kernel, grid, block, shared, stream, ...) \
    do {                                                              \
        kernel<<<grid, block, shared, stream>>>(__VA_ARGS__);         \
        BF_GPU_CHECK_LAUNCH(name);                                    \
    } while (0)
#define BF_RCA_DYNAMIC_SHARED(T, array) extern __shared__ T array[]
#endif

// Fast single-instruction approximations (relative error ~1e-7, flush-to-zero):
// the geometry never meets denormals, so the IEEE slow paths (range scaling,
// special-case branches) are pure overhead in the inner loops.
__device__ __forceinline__ float fast_rcp(float x)
{
#if defined(BF_BACKEND_CUDA)
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
#else
    return __frcp_rn(x);
#endif
}

__device__ __forceinline__ float fast_sqrt(float x)
{
#if defined(BF_BACKEND_CUDA)
    float r;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
#else
    return __fsqrt_rn(x);
#endif
}

//! A half2 carried in a float's 32 bits (term setups in shared memory), and back.
__device__ __forceinline__ float half2_as_float(__half2 h)
{
    float f;
    memcpy(&f, &h, sizeof f);
    return f;
}
__device__ __forceinline__ __half2 float_as_half2(float f)
{
    __half2 h;
    memcpy(&h, &f, sizeof h);
    return h;
}

//! The bits of v rounded to half (round to nearest even).
__device__ __forceinline__ uint16_t half_bits_of(float v)
{
#ifdef BF_GPU_EMULATION
    return gr::beamform::half_bits::from_float(v);
#else
    return __half_as_ushort(__float2half_rn(v));
#endif
}

//! Orders the shared-memory accesses of a warp's lanes. Every warp of the block
//! must call it equally often: with HIP it is a block barrier, as in the pfb kernels.
__device__ __forceinline__ void warp_sync()
{
#ifdef BF_BACKEND_HIP
    __syncthreads();
#else
    __syncwarp();
#endif
}

//! Bitwise OR of v over the 32 lanes of a warp (the same value in every lane).
__device__ __forceinline__ unsigned warp_or(unsigned v)
{
#if defined(BF_BACKEND_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_or_sync(0xffffffffu, v);
#else
#pragma unroll
    for (int m = 16; m > 0; m >>= 1)
        v |= lane_xor_shuffle(v, m);
    return v;
#endif
}

//! Arithmetic of one sample type: real (float) or I/Q (float2).
template <typename S>
struct ops;

template <>
struct ops<float> {
    //! What a delayed sample is multiplied by: the apodization.
    using rot_t = float;
    static __device__ __forceinline__ float zero() { return 0.0f; }
    static __device__ __forceinline__ float scale(float w, float s) { return w * s; }
    static __device__ __forceinline__ float madd(float acc, float w, float s)
    {
        return fmaf(w, s, acc);
    }
    static __device__ __forceinline__ float rotate_add(float acc, float d, float rot)
    {
        return fmaf(d, rot, acc);
    }
    static __device__ __forceinline__ float rotation(float apo, float /*cycles*/) { return apo; }
    static __device__ __forceinline__ float zero_rot() { return 0.0f; }
};

//! exp(2 pi i cycles), whole cycles removed first so the fast sine stays accurate.
__device__ __forceinline__ float2 cis(float cycles)
{
    cycles -= rintf(cycles);
    float s, c;
    __sincosf(two_pi * cycles, &s, &c);
    return make_float2(c, s);
}

template <>
struct ops<float2> {
    //! apodization * exp(2 pi i phase): complex.
    using rot_t = float2;
    static __device__ __forceinline__ float2 zero() { return make_float2(0.0f, 0.0f); }
    static __device__ __forceinline__ float2 scale(float w, float2 s)
    {
        return make_float2(w * s.x, w * s.y);
    }
    static __device__ __forceinline__ float2 madd(float2 acc, float w, float2 s)
    {
        return make_float2(fmaf(w, s.x, acc.x), fmaf(w, s.y, acc.y));
    }
    static __device__ __forceinline__ float2 rotate_add(float2 acc, float2 d, float2 rot)
    {
        acc.x = fmaf(d.x, rot.x, acc.x);
        acc.x = fmaf(-d.y, rot.y, acc.x);
        acc.y = fmaf(d.x, rot.y, acc.y);
        acc.y = fmaf(d.y, rot.x, acc.y);
        return acc;
    }
    static __device__ __forceinline__ float2 rotation(float apo, float cycles)
    {
        const float2 r = cis(cycles);
        return make_float2(apo * r.x, apo * r.y);
    }
    static __device__ __forceinline__ float2 zero_rot() { return make_float2(0.0f, 0.0f); }
};

//! Weights of cubic Lagrange interpolation on nodes 0..3 at tau (Algorithm 5).
__device__ __forceinline__ void lagrange_weights(float tau, float w[4])
{
    const float t1 = tau - 1.0f, t2 = tau - 2.0f, t3 = tau - 3.0f;
    w[0] = -t1 * t2 * t3 * (1.0f / 6.0f);
    w[1] = tau * t2 * t3 * 0.5f;
    w[2] = -tau * t1 * t3 * 0.5f;
    w[3] = tau * t1 * t2 * (1.0f / 6.0f);
}

//! Index of the first of the four samples: floor(clamp(fa - 1, 0, n - 4)).
__device__ __forceinline__ int first_sample(float fa, int n)
{
    return int(floorf(fminf(fmaxf(fa - 1.0f, 0.0f), float(n - 4))));
}

//! Hann window cos^2(pi u) = (1 + cos(2 pi u)) / 2 for |u| <= 0.5 (eq. 2).
__device__ __forceinline__ float hann(float u) { return 0.5f + 0.5f * __cosf(two_pi * u); }

//! Where and what the volume kernels write.
enum store_mode : int {
    store_complex = 0,  //!< float2 voxel (output iq)
    store_envelope = 1, //!< float |voxel| (output envelope, or db before the log pass)
    store_real = 2      //!< float voxel of a real volume (before the axial Hilbert pass)
};

struct volume_store {
    void* out;
    size_t stride_lat;  //!< voxel index = lat * stride_lat + elev * stride_elev + iz
    size_t stride_elev;
    int mode;
    unsigned* max_bits; //!< if not null: atomicMax of the envelope's bits (db of volume max)
};

__device__ __forceinline__ float magnitude(float2 v) { return sqrtf(v.x * v.x + v.y * v.y); }
__device__ __forceinline__ float magnitude(float v) { return fabsf(v); }

__device__ __forceinline__ void store_voxel(const volume_store& st, size_t voxel, float2 v, float& peak)
{
    if (st.mode == store_complex) {
        static_cast<float2*>(st.out)[voxel] = v;
    } else {
        const float m = magnitude(v);
        static_cast<float*>(st.out)[voxel] = m;
        peak = fmaxf(peak, m);
    }
}

__device__ __forceinline__ void store_voxel(const volume_store& st, size_t voxel, float v, float& peak)
{
    static_cast<float*>(st.out)[voxel] = v;
    (void)peak;
}

//! Envelopes are >= 0, so their bit patterns order like the values.
__device__ __forceinline__ void publish_peak(const volume_store& st, float peak)
{
    if (st.max_bits && peak > 0.0f)
        atomicMax(st.max_bits, __float_as_uint(peak));
}

} // namespace rca
} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
