/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * bit_packer / bit_unpacker on a GPU (CUDA or HIP). Packing: one group of 32
 * lanes per output word; lane k reads receiver 32w+k (coalesced 8-byte
 * loads), and a warp vote gathers the 32 sign bits of the real parts and of
 * the imaginary parts into two words. Both kernels are memory-bound.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_BIT_PACKER_CUH
#define INCLUDED_BEAMFORM_KERNELS_BIT_PACKER_CUH

#include <common/gpu_portable.h>
#include <cstdint>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

/*!
 * The votes of the 32 lanes of the caller's 32-lane group (lane k in bit k).
 * CUDA warps are 32 lanes. HIP's __ballot returns the whole wavefront (64
 * lanes on CDNA): lanes 32-63 form the upper half.
 */
__device__ __forceinline__ uint32_t ballot32(bool pred)
{
#ifdef BF_BACKEND_HIP
    const unsigned long long votes = __ballot(pred);
    return uint32_t(votes >> (__lane_id() & 32u));
#else
    return __ballot_sync(0xffffffffu, pred);
#endif
}

//! fc32 [rows][receivers] -> [rows][2][words]; rows = T * channels.
__global__ void bit_pack_kernel(const float2* __restrict__ in,
                                uint32_t* __restrict__ out,
                                size_t rows,
                                unsigned n_receivers,
                                unsigned words)
{
    const unsigned lane = threadIdx.x & 31u;
    const size_t groups = rows * words;
    const size_t first = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const size_t stride = (size_t(gridDim.x) * blockDim.x) >> 5;
    // Every lane of a group runs the same iterations (the vote needs them all).
    for (size_t grp = first; grp < groups; grp += stride) {
        const size_t row = grp / words;
        const unsigned w = unsigned(grp % words);
        const unsigned r = 32u * w + lane;
        bool re_pos = false, im_pos = false; // padding bits stay 0
        if (r < n_receivers) {
            const float2 v = in[row * n_receivers + r];
            re_pos = v.x >= 0.0f;
            im_pos = v.y >= 0.0f;
        }
        const uint32_t re_bits = ballot32(re_pos);
        const uint32_t im_bits = ballot32(im_pos);
        if (lane == 0) {
            out[row * 2 * words + w] = re_bits;
            out[row * 2 * words + words + w] = im_bits;
        }
    }
}

//! [rows][2][words] -> fc32 [rows][receivers] of +-1 +-1j.
__global__ void bit_unpack_kernel(const uint32_t* __restrict__ in,
                                  float2* __restrict__ out,
                                  size_t rows,
                                  unsigned n_receivers,
                                  unsigned words)
{
    const size_t n = rows * n_receivers;
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const size_t row = i / n_receivers;
        const unsigned r = unsigned(i % n_receivers);
        const uint32_t* p = in + row * 2 * words;
        const uint32_t bit = 1u << (r % 32u);
        out[i] = make_float2((p[r / 32u] & bit) ? 1.0f : -1.0f,
                             (p[words + r / 32u] & bit) ? 1.0f : -1.0f);
    }
}

inline unsigned grid_for(size_t threads_needed, unsigned block)
{
    const size_t wanted = (threads_needed + block - 1) / block;
    return unsigned(wanted < 65536 ? (wanted ? wanted : 1) : 65536);
}

inline void launch_bit_pack(const float2* in,
                            uint32_t* out,
                            size_t rows,
                            unsigned n_receivers,
                            unsigned words,
                            gpuStream_t stream)
{
    if (rows == 0)
        return;
    const unsigned block = 256;
    bit_pack_kernel<<<grid_for(rows * words * 32, block), block, 0, stream>>>(
        in, out, rows, n_receivers, words);
    BF_GPU_CHECK_LAUNCH("bit_pack_kernel");
}

inline void launch_bit_unpack(const uint32_t* in,
                              float2* out,
                              size_t rows,
                              unsigned n_receivers,
                              unsigned words,
                              gpuStream_t stream)
{
    if (rows == 0)
        return;
    const unsigned block = 256;
    bit_unpack_kernel<<<grid_for(rows * n_receivers, block), block, 0, stream>>>(
        in, out, rows, n_receivers, words);
    BF_GPU_CHECK_LAUNCH("bit_unpack_kernel");
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
