/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rca_das pre-processing (section IV-D.1): int16/float32 RF -> float, matched
 * filter as the full convolution of eq. 18 (zero padding outside the record),
 * only every decimation-th output computed; for I/Q the taps are the analytic
 * filter f + i H{f} and each output is brought to base band by
 * exp(-2 pi i f_d t_k).
 *
 * A block computes PRE_THREADS consecutive outputs of one receiver of one
 * emission: it stages the input span it needs (converted to float, zero
 * padded) and the taps in shared memory, then each thread runs the N_f-tap
 * dot product from shared memory.
 *
 * Layout written: [emission][receiver][T] with T = n_t + 2; sample k at k + 1,
 * (uint16_t output: real samples as half bits, emission pairs interleaved,
 * [emission / 2][receiver][T][emission % 2]; __half2 output with
 * frames_in_octets: eight emissions interleaved, [emission / 8][receiver][T]
 * [emission % 8], the half_sectors stage variant's layout),
 * entries 0 and n_t + 1 are zero guards (written once when the buffer is made)
 * so that the beamformers' six-sample windows never leave the row.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_RCA_DAS_PREPROCESS_CUH
#define INCLUDED_BEAMFORM_KERNELS_RCA_DAS_PREPROCESS_CUH

#include "rca_das_common.cuh"
#include <type_traits>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {
namespace rca {

constexpr int pre_threads = 128;

struct preprocess_params {
    int n_samples;   //!< RF samples per receiver
    int n_rx;
    int n_taps;
    int decimation;
    int n_t;         //!< outputs per receiver
    int row_stride;  //!< T = n_t + 2
    double phase0;   //!< -f_d * t0 [cycles]: base-band phase of output 0
    double phase_step; //!< -f_d / fs_eff [cycles per output]
    const float2* taps; //!< [n_taps] (imaginary part 0 for real processing)
    float scale;        //!< half outputs only: stored = scale x filtered value
    int emission0;      //!< half pairs and octets only: emission of blockIdx.z == 0
    //! __half2 output only: emissions in octets (out is the buffer's start)
    bool frames_in_octets;
};

template <typename In, typename S>
__global__ void __launch_bounds__(pre_threads)
    rca_preprocess_kernel(const In* __restrict__ rf, S* __restrict__ out, preprocess_params p)
{
    BF_RCA_DYNAMIC_SHARED(float, pre_shared);
    float2* taps = reinterpret_cast<float2*>(pre_shared);
    float* span = pre_shared + 2 * p.n_taps;

    const int rx = blockIdx.y;
    const int emission = blockIdx.z;
    const int k_first = blockIdx.x * pre_threads;
    // Output k reads inputs k*D - m, m = 0..N_f-1.
    const int span_first = k_first * p.decimation - (p.n_taps - 1);
    const int span_len = (pre_threads - 1) * p.decimation + p.n_taps;
    const In* row = rf + (size_t(emission) * p.n_rx + rx) * p.n_samples;

    for (int m = threadIdx.x; m < p.n_taps; m += pre_threads)
        taps[m] = p.taps[m];
    for (int s = threadIdx.x; s < span_len; s += pre_threads) {
        const int idx = span_first + s;
        span[s] = (idx >= 0 && idx < p.n_samples) ? float(row[idx]) : 0.0f;
    }
    __syncthreads();

    const int k = k_first + threadIdx.x;
    if (k >= p.n_t)
        return;
    // span index of input k*D - m is threadIdx.x * D + (N_f - 1) - m.
    const float* x = span + threadIdx.x * p.decimation + (p.n_taps - 1);
    float re = 0.0f, im = 0.0f;
    for (int m = 0; m < p.n_taps; m++) {
        const float v = x[-m];
        re = fmaf(v, taps[m].x, re);
        im = fmaf(v, taps[m].y, im);
    }
    if constexpr (std::is_same_v<S, uint16_t>) {
        // Real samples as half, frames in pairs (the half_real stage variant):
        // emission e's sample at lane e % 2 of pair e / 2; out is the buffer's start.
        const int e = p.emission0 + emission;
        out[((size_t(e >> 1) * p.n_rx + rx) * p.row_stride + 1 + k) * 2 + (e & 1)] =
            half_bits_of(p.scale * re);
    } else if constexpr (std::is_same_v<S, float2> || std::is_same_v<S, __half2>) {
        S* dst = out + (size_t(emission) * p.n_rx + rx) * p.row_stride + 1 + k;
        if constexpr (std::is_same_v<S, __half2>)
            if (p.frames_in_octets) {
                const int e = p.emission0 + emission;
                dst = out + ((size_t(e / sector_frames) * p.n_rx + rx) * p.row_stride + 1 + k) *
                                sector_frames +
                      e % sector_frames;
            }
        double cycles = p.phase0 + p.phase_step * double(k);
        cycles -= rint(cycles);
        float s, c;
        __sincosf(two_pi * float(cycles), &s, &c);
        if constexpr (std::is_same_v<S, __half2>) // the half2 stage variant's storage
            *dst = __floats2half2_rn(p.scale * (re * c - im * s), p.scale * (re * s + im * c));
        else
            *dst = make_float2(re * c - im * s, re * s + im * c);
    } else {
        out[(size_t(emission) * p.n_rx + rx) * p.row_stride + 1 + k] = re;
    }
}

template <typename In, typename S>
void launch_rca_preprocess(const In* rf,
                           S* out,
                           const preprocess_params& p,
                           int n_emissions,
                           gpuStream_t stream)
{
    if (n_emissions == 0)
        return;
    const dim3 grid((p.n_t + pre_threads - 1) / pre_threads, p.n_rx, n_emissions);
    const size_t shared =
        sizeof(float) * (2 * p.n_taps + (pre_threads - 1) * p.decimation + p.n_taps);
    const auto kernel = rca_preprocess_kernel<In, S>;
    BF_RCA_LAUNCH("rca_preprocess_kernel", kernel, grid, dim3(pre_threads), shared, stream, rf, out, p);
}

} // namespace rca
} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
