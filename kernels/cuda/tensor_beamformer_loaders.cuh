/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The B-operand loaders (samples -> shared-memory tiles) of the NVIDIA
 * tensor-beamformer kernels: fp16 input, fc32 (converted to fp16 on the way),
 * fc32 X/Y pairs, packed bits. Shared by the mma.sync kernel
 * (tensor_beamformer_mma_kernel.cuh) and the wgmma kernel
 * (tensor_beamformer_wgmma_kernel.cuh).
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_LOADERS_CUH
#define INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_LOADERS_CUH

#include "tensor_beamformer_ptx.cuh"
#include <common/tensor_beamformer_layout.h>
#include <type_traits>
#include <cstdint>

namespace gr {
namespace beamform {
namespace cuda {
namespace tb_kernels {

using tb::kernel_args;
using tb::swizzle_offset;

//---------------------------------------------------------------------------
// B loaders. Interface:
//   register_staged       loads go through registers (converted there)
//   npol                  B tiles per stage (2: X and Y split at load time)
//   issue(kt, stage)      cp.async loads of k tile kt into the stage
//   fetch(kt)             register loads of k tile kt
//   store(stage)          convert the fetched registers into the stage
//---------------------------------------------------------------------------

/*!
 * Rows of 4-byte words [T][C][words] copied into the stage by cp.async of
 * UNIT (16 or 8) bytes, zero-filled past the row's end and past the last
 * time step: the loader of every input that needs no conversion.
 */
template <class S, int UNIT>
struct cp_async_row_loader {
    static constexpr bool register_staged = false;
    static constexpr int npol = 1;
    static constexpr int PER_ROW = S::BKB / UNIT;
    static constexpr int COPIES = S::BN * PER_ROW / S::threads;
    static_assert((S::BN * PER_ROW) % S::threads == 0,
                  "B tile copies must spread evenly");
    const unsigned char* base;
    size_t row_stride; // bytes between time steps
    int row_bytes;     // bytes of one (t, c) row
    int n0, n_times;
    uint32_t smem_b;

    __device__ cp_async_row_loader(
        const kernel_args& a, int words, int c, int n0_, unsigned char* smem_b_)
        : base(static_cast<const unsigned char*>(a.input) + size_t(c) * words * 4),
          row_stride(size_t(a.n_channels) * words * 4),
          row_bytes(words * 4),
          n0(n0_),
          n_times(a.n_times),
          smem_b(smem_u32(smem_b_))
    {
    }

    __device__ void issue(int kt, int stage)
    {
        // Not unrolled: addresses are recomputed instead of held in registers
        // that the accumulators need.
        BF_NO_UNROLL
        for (int i = 0; i < COPIES; i++) {
            const int q = threadIdx.x + i * S::threads;
            const int row = q / PER_ROW;
            const int byte = (q % PER_ROW) * UNIT;
            const int kb = kt * S::BKB + byte;
            const bool valid = n0 + row < n_times && kb < row_bytes;
            const unsigned char* src =
                valid ? base + size_t(n0 + row) * row_stride + kb : base;
            const uint32_t dst =
                smem_b + stage * (S::BN * S::BKB) + swizzle_offset(row, byte, S::BKB);
            if constexpr (UNIT == 16)
                cp_async16(dst, src, valid);
            else
                cp_async8(dst, src, valid);
        }
    }
    __device__ void fetch(int) {}
    __device__ void store(int) {}
};

//! Interleaved complex fp16 samples [T][C][R] (the GEMM-core benchmark input).
template <class S>
struct loader_fp16_input : cp_async_row_loader<S, 16> {
    __device__
    loader_fp16_input(const kernel_args& a, int c, int n0_, unsigned char* smem_b_)
        : cp_async_row_loader<S, 16>(a, a.n_receivers, c, n0_, smem_b_)
    {
    }
};

/*!
 * fc32 samples [T][C][R], single polarization: VEC complex values per load
 * (2 when R is even, so that every (t, c) row is 16-byte aligned, else 1).
 */
template <class S, int VEC>
struct loader_fc32 {
    static constexpr bool register_staged = true;
    static constexpr int npol = 1;
    static constexpr int Q = S::BKB / 4; // complex samples per row per k tile
    static constexpr int VPR = Q / VEC;  // loads per row per k tile
    static constexpr int LOADS = S::BN * VPR / S::threads;
    static_assert((S::BN * VPR) % S::threads == 0, "B tile loads must spread evenly");
    using vec_t = typename std::conditional<VEC == 2, float4, float2>::type;
    const float2* base;
    size_t row_stride; // float2 between time steps
    int n0, n_times, n_rx;
    unsigned char* smem_b;
    vec_t v[LOADS];

    __device__ loader_fc32(const kernel_args& a, int c, int n0_, unsigned char* smem_b_)
        : base(static_cast<const float2*>(a.input) + size_t(c) * a.n_receivers),
          row_stride(size_t(a.n_channels) * a.n_receivers),
          n0(n0_),
          n_times(a.n_times),
          n_rx(a.n_receivers),
          smem_b(smem_b_)
    {
    }

    __device__ void issue(int, int) {}

    __device__ void fetch(int kt)
    {
        BF_UNROLL
        for (int i = 0; i < LOADS; i++) {
            const int q = threadIdx.x + i * S::threads;
            const int row = q / VPR;
            const int rx = kt * Q + (q % VPR) * VEC;
            // VEC == 2 implies R even, so rx < R covers both samples.
            if (n0 + row < n_times && rx < n_rx)
                v[i] = load_as<vec_t>(base + size_t(n0 + row) * row_stride + rx);
            else
                v[i] = vec_t{};
        }
    }

    __device__ void store(int stage)
    {
        unsigned char* smem = smem_b + stage * (S::BN * S::BKB);
        BF_UNROLL
        for (int i = 0; i < LOADS; i++) {
            const int q = threadIdx.x + i * S::threads;
            const int row = q / VPR;
            const int byte = (q % VPR) * VEC * 4; // one half2 per complex sample
            if constexpr (VEC == 2) {
                const __half2 h0 = __floats2half2_rn(v[i].x, v[i].y);
                const __half2 h1 = __floats2half2_rn(v[i].z, v[i].w);
                uint2 u;
                u.x = bits_of(h0);
                u.y = bits_of(h1);
                store_as(smem + swizzle_offset(row, byte, S::BKB), u);
            } else {
                const __half2 h = __floats2half2_rn(v[i].x, v[i].y);
                store_as(smem + swizzle_offset(row, byte, S::BKB), h);
            }
        }
    }
};

/*!
 * fc32 samples [T][C][R] with receivers (2a, 2a+1) = (X, Y) of antenna a:
 * one 16-byte load per antenna, X to the first B tile of the stage, Y to the
 * second, so each polarization's product runs over its own antennas only.
 */
template <class S>
struct loader_fc32_xy {
    static constexpr bool register_staged = true;
    static constexpr int npol = 2;
    static constexpr int Q = S::BKB / 4; // antennas per row per k tile
    static constexpr int LOADS = S::BN * Q / S::threads;
    static_assert((S::BN * Q) % S::threads == 0, "B tile loads must spread evenly");
    const float2* base;
    size_t row_stride;
    int n0, n_times, n_ant;
    unsigned char* smem_b;
    float4 v[LOADS];

    __device__
    loader_fc32_xy(const kernel_args& a, int c, int n0_, unsigned char* smem_b_)
        : base(static_cast<const float2*>(a.input) + size_t(c) * a.n_receivers),
          row_stride(size_t(a.n_channels) * a.n_receivers),
          n0(n0_),
          n_times(a.n_times),
          n_ant(a.n_receivers / 2),
          smem_b(smem_b_)
    {
    }

    __device__ void issue(int, int) {}

    __device__ void fetch(int kt)
    {
        BF_UNROLL
        for (int i = 0; i < LOADS; i++) {
            const int q = threadIdx.x + i * S::threads;
            const int row = q / Q;
            const int ant = kt * Q + q % Q;
            if (n0 + row < n_times && ant < n_ant)
                v[i] = load_as<float4>(base + size_t(n0 + row) * row_stride + 2 * ant);
            else
                v[i] = float4{};
        }
    }

    __device__ void store(int stage)
    {
        unsigned char* smem = smem_b + stage * (2 * S::BN * S::BKB);
        BF_UNROLL
        for (int i = 0; i < LOADS; i++) {
            const int q = threadIdx.x + i * S::threads;
            const int row = q / Q;
            const int off = swizzle_offset(row, (q % Q) * 4, S::BKB);
            store_as(smem + off, __floats2half2_rn(v[i].x, v[i].y));
            store_as(smem + S::BN * S::BKB + off, __floats2half2_rn(v[i].z, v[i].w));
        }
    }
};

/*!
 * Packed 1-bit samples [T][C][2][words] (bit_packer's layout): cp.async of
 * 16 bytes when a row is a multiple of 4 words (every row 16-byte aligned),
 * else of 8 bytes (a row is 2 * words words: always 8-byte aligned).
 */
template <class S, bool WIDE>
struct loader_bits : cp_async_row_loader<S, WIDE ? 16 : 8> {
    __device__ loader_bits(const kernel_args& a, int c, int n0_, unsigned char* smem_b_)
        : cp_async_row_loader<S, WIDE ? 16 : 8>(a, a.in_row_words, c, n0_, smem_b_)
    {
    }
};

} // namespace tb_kernels
} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
