/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Which kernels the two-pass path runs: pass 1 with or without lane groups,
 * pass 2 for N. One choice for the GPU engine (pfb_channelizer_gpu.cu) and the
 * host emulation test (tests/cpp/test_pfb_channelizer_emulated.cc).
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_PFB_TWO_PASS_KERNELS_CUH
#define INCLUDED_BEAMFORM_ENGINES_PFB_TWO_PASS_KERNELS_CUH

#include "pfb_channelizer_plan.h"
#include <gpu/pfb_columns_register_fft.cuh>
#include <gpu/pfb_two_pass.cuh>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

template <typename Tin>
using pfb_fir_columns_kernel_ptr = void (*)(pfb_stream<Tin>,
                                            const float*,
                                            float2*,
                                            pfb_geometry,
                                            long long,
                                            long long,
                                            long long);

//! Pass 1 for T_MAX and O, with the lane groups that pfb_lane_group picks.
template <typename Tin, int TMAX, int O, bool ACCUMULATE>
pfb_fir_columns_kernel_ptr<Tin> pfb_fir_columns_kernel_of(const pfb_stream<Tin>& in)
{
    if constexpr (sizeof(typename pfb_raw_sample<Tin>::type) <= 4) {
        switch (pfb_lane_group(in)) {
        case 4:
            return pfb_fir_columns_kernel<Tin, TMAX, O, 4, ACCUMULATE>;
        case 2:
            return pfb_fir_columns_kernel<Tin, TMAX, O, 2, ACCUMULATE>;
        }
    }
    return pfb_fir_columns_kernel<Tin, TMAX, O, 1, ACCUMULATE>;
}

//! The same for a block of taps (pfb_plan::two_pass_tap_blocks): the first
//! writes the columns, the others add to them.
template <typename Tin, int TMAX, int O>
pfb_fir_columns_kernel_ptr<Tin> pfb_fir_columns_kernel_of(const pfb_stream<Tin>& in,
                                                          bool accumulate)
{
    return accumulate ? pfb_fir_columns_kernel_of<Tin, TMAX, O, true>(in)
                      : pfb_fir_columns_kernel_of<Tin, TMAX, O, false>(in);
}

using pfb_columns_fft_kernel_ptr =
    void (*)(const float2*, const float2*, float2*, pfb_geometry, long long, long long);

//! The register-FFT pass 2 for N = 2^log2_n (pfb_plan::two_pass_register_fft
//! says which N have one).
inline pfb_columns_fft_kernel_ptr pfb_columns_register_fft_kernel_of(int log2_n)
{
    constexpr int RB = pfb_plan::two_pass_fft_receivers;
    switch (log2_n) {
    case 7:
        return pfb_columns_register_fft_kernel<7, RB>;
    case 8:
        return pfb_columns_register_fft_kernel<8, RB>;
    case 9:
        return pfb_columns_register_fft_kernel<9, RB>;
    case 10:
        return pfb_columns_register_fft_kernel<10, RB>;
    }
    return nullptr;
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
