/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Which kernel an entry of pfb_plan::tiled_shapes runs: one choice for the
 * GPU engine (pfb_channelizer_gpu.cu) and the host emulation test
 * (tests/cpp/test_pfb_channelizer_emulated.cc), so that the test runs what
 * the engine runs. Every tiled kernel takes the same arguments.
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_PFB_TILED_KERNELS_CUH
#define INCLUDED_BEAMFORM_ENGINES_PFB_TILED_KERNELS_CUH

#include "pfb_channelizer_plan.h"
#include <gpu/pfb_tiled.cuh>
#include <gpu/pfb_tiled_register_fft.cuh>
#include <gpu/pfb_tiled_ring.cuh>
#include <cstddef>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

template <typename Tin>
using pfb_tiled_kernel_ptr = void (*)(pfb_stream<Tin>,
                                      const float*,
                                      const float2*,
                                      float2*,
                                      pfb_geometry,
                                      long long);

//! The kernel of entry I of pfb_plan::tiled_shapes for input Tin and O (1 or 2).
template <typename Tin, int O, size_t I>
pfb_tiled_kernel_ptr<Tin> pfb_tiled_kernel_of()
{
    constexpr pfb_plan::tiled_shape shape = pfb_plan::tiled_shapes[I];
    constexpr int T = pfb_plan::fused_max_taps;
    constexpr int S = shape.steps, RB = shape.receivers, P = shape.pairs;
    constexpr int L = shape.register_log2_n, NT = shape.threads;
    constexpr bool H = shape.branch_halves;
    if constexpr (shape.ring) {
        static_assert(L > 0 && !H && shape.min_blocks == 1,
                      "ring: register FFT, one block per SM");
        return pfb_tiled_ring_kernel<Tin, T, O, S, RB, P, L, NT>;
    } else if constexpr (L > 0) {
        return pfb_tiled_register_fft_kernel<Tin, T, O, S, RB, P, L, shape.min_blocks, NT, H>;
    } else {
        static_assert(NT == pfb_tiled_threads, "the in-place kernel's launch bound");
        static_assert(!H, "branch_halves: register-FFT entries only");
        return pfb_tiled_kernel<Tin, T, O, S, RB, P>;
    }
}

//! pfb_tiled_kernel_of for the run-time oversample (1 or 2).
template <typename Tin, size_t I>
pfb_tiled_kernel_ptr<Tin> pfb_tiled_kernel_of(unsigned oversample)
{
    return oversample == 1 ? pfb_tiled_kernel_of<Tin, 1, I>() : pfb_tiled_kernel_of<Tin, 2, I>();
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
