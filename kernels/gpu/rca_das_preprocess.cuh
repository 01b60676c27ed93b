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
 * [emission % 8], the half_sectors stage variant's layout, written by
 * rca_preprocess_octets_kernel: a block filters one receiver's outputs for
 * the eight emissions of an octet and stores them as whole 32-byte sectors),
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
    int n_emissions;    //!< octets only: emissions of the launch (set by launch_rca_preprocess)
    int octet_spans;    //!< octets only: emissions filtered per pass (8, 4, 2 or 1; likewise)
};

//! The matched filter's output k (eq. 18): \p x is the staged input of sample k * D.
__device__ __forceinline__ float2 filter_output(const float* x, const float2* taps, int n_taps)
{
    float re = 0.0f, im = 0.0f;
    for (int m = 0; m < n_taps; m++) {
        const float v = x[-m];
        re = fmaf(v, taps[m].x, re);
        im = fmaf(v, taps[m].y, im);
    }
    return make_float2(re, im);
}

//! The demodulation's (cos, sin) of output k: exp(2 pi i (phase0 + k phase_step)).
__device__ __forceinline__ float2 demodulation(const preprocess_params& p, int k)
{
    double cycles = p.phase0 + p.phase_step * double(k);
    cycles -= rint(cycles);
    float s, c;
    __sincosf(two_pi * float(cycles), &s, &c);
    return make_float2(c, s);
}

//! The half2 variants' stored sample: the filtered value brought to base band, scaled.
__device__ __forceinline__ __half2 base_band_half2(float2 v, float2 cs, float scale)
{
    return __floats2half2_rn(scale * (v.x * cs.x - v.y * cs.y), scale * (v.x * cs.y + v.y * cs.x));
}

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
    const float2 filtered = filter_output(x, taps, p.n_taps);
    const float re = filtered.x, im = filtered.y;
    if constexpr (std::is_same_v<S, uint16_t>) {
        // Real samples as half, frames in pairs (the half_real stage variant):
        // emission e's sample at lane e % 2 of pair e / 2; out is the buffer's start.
        const int e = p.emission0 + emission;
        out[((size_t(e >> 1) * p.n_rx + rx) * p.row_stride + 1 + k) * 2 + (e & 1)] =
            half_bits_of(p.scale * re);
    } else if constexpr (std::is_same_v<S, float2> || std::is_same_v<S, __half2>) {
        S* dst = out + (size_t(emission) * p.n_rx + rx) * p.row_stride + 1 + k;
        const float2 cs = demodulation(p, k);
        const float c = cs.x, s = cs.y;
        if constexpr (std::is_same_v<S, __half2>) // the half2 stage variant's storage
            *dst = base_band_half2(filtered, cs, p.scale);
        else
            *dst = make_float2(re * c - im * s, re * s + im * c);
    } else {
        out[(size_t(emission) * p.n_rx + rx) * p.row_stride + 1 + k] = re;
    }
}

/*!
 * The half_sectors layout ([emission / 8][receiver][T][emission % 8], half2):
 * a block filters pre_threads outputs of one receiver for the emissions of
 * one octet that the launch has (octet_spans at a time through shared
 * memory), collects the eight half2 results of each output in shared memory
 * and writes the block's outputs, which are contiguous in this layout, as
 * 16-byte pieces (two per 32-byte sector); a block per emission would write
 * 4 bytes 32 bytes apart. The arithmetic is rca_preprocess_kernel's, bit for bit.
 */
template <typename In>
__global__ void __launch_bounds__(pre_threads)
    rca_preprocess_octets_kernel(const In* __restrict__ rf, __half2* __restrict__ out, preprocess_params p)
{
    constexpr int E = sector_frames;
    BF_RCA_DYNAMIC_SHARED(float, pre_shared);
    float2* taps = reinterpret_cast<float2*>(pre_shared);
    const int span_len = (pre_threads - 1) * p.decimation + p.n_taps;
    float* spans = pre_shared + 2 * p.n_taps;                                          // [octet_spans][span_len]
    __half2* staged = reinterpret_cast<__half2*>(spans + p.octet_spans * span_len); // [pre_threads][E]

    const int rx = blockIdx.y;
    const int octet = p.emission0 / E + int(blockIdx.z);
    const int k_first = blockIdx.x * pre_threads;
    const int span_first = k_first * p.decimation - (p.n_taps - 1);
    const int k = k_first + threadIdx.x;
    // The launch's emissions of this octet: j in [j_begin, j_end).
    const int j_begin = max(0, p.emission0 - octet * E);
    const int j_end = min(E, p.emission0 + p.n_emissions - octet * E);

    for (int m = threadIdx.x; m < p.n_taps; m += pre_threads)
        taps[m] = p.taps[m];
    const float2 cs = demodulation(p, k);
    for (int j0 = j_begin; j0 < j_end; j0 += p.octet_spans) {
        const int n_spans = min(p.octet_spans, j_end - j0);
        if (j0 != j_begin)
            __syncthreads(); // the previous pass has read its spans
        for (int i = 0; i < n_spans; i++) {
            const In* row =
                rf + (size_t(octet * E + j0 + i - p.emission0) * p.n_rx + rx) * p.n_samples;
            for (int s = threadIdx.x; s < span_len; s += pre_threads) {
                const int idx = span_first + s;
                spans[i * span_len + s] = (idx >= 0 && idx < p.n_samples) ? float(row[idx]) : 0.0f;
            }
        }
        __syncthreads();
        if (k < p.n_t)
            for (int i = 0; i < n_spans; i++) {
                const float* x = spans + i * span_len + threadIdx.x * p.decimation + (p.n_taps - 1);
                staged[threadIdx.x * E + j0 + i] =
                    base_band_half2(filter_output(x, taps, p.n_taps), cs, p.scale);
            }
    }
    __syncthreads();

    // Outputs k_first .. k_first + n_k - 1 of the octet's row: n_k x 32 contiguous
    // bytes; piece i is samples i / 2, emissions 4 (i % 2) .. 4 (i % 2) + 3.
    const int n_k = min(pre_threads, p.n_t - k_first);
    __half2* const row_out = out + ((size_t(octet) * p.n_rx + rx) * p.row_stride + 1 + k_first) * E;
    for (int i = threadIdx.x; i < 2 * n_k; i += pre_threads) {
        const int j4 = (i & 1) * 4;
        __half2* dst = row_out + size_t(i) * 4;
        const __half2* src = staged + (i >> 1) * E + j4;
        if (j4 >= j_begin && j4 + 4 <= j_end) {
            *reinterpret_cast<float4*>(dst) = make_float4(half2_as_float(src[0]),
                                                          half2_as_float(src[1]),
                                                          half2_as_float(src[2]),
                                                          half2_as_float(src[3]));
        } else {
            for (int j = 0; j < 4; j++)
                if (j4 + j >= j_begin && j4 + j < j_end)
                    dst[j] = src[j];
        }
    }
}

//! Emissions per pass of rca_preprocess_octets_kernel: all eight where their
//! inputs fit with the taps and the staged outputs in the 48 KB of shared
//! memory a launch gets without opting in (the paper's set-up: 17 KB), else fewer.
inline int octet_spans_for(const preprocess_params& p)
{
    const size_t span_bytes = sizeof(float) * ((pre_threads - 1) * p.decimation + p.n_taps);
    const size_t fixed = sizeof(float2) * p.n_taps + sizeof(__half2) * pre_threads * sector_frames;
    int n = sector_frames;
    while (n > 1 && fixed + size_t(n) * span_bytes > 48 * 1024)
        n /= 2;
    return n;
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
    if constexpr (std::is_same_v<S, __half2>)
        if (p.frames_in_octets) {
            preprocess_params q = p;
            q.n_emissions = n_emissions;
            q.octet_spans = octet_spans_for(q);
            const int octets =
                (p.emission0 + n_emissions - 1) / sector_frames - p.emission0 / sector_frames + 1;
            const dim3 grid((p.n_t + pre_threads - 1) / pre_threads, p.n_rx, octets);
            const size_t shared =
                sizeof(float) * (2 * p.n_taps +
                                 size_t(q.octet_spans) * ((pre_threads - 1) * p.decimation + p.n_taps)) +
                sizeof(__half2) * pre_threads * sector_frames;
            const auto kernel = rca_preprocess_octets_kernel<In>;
            BF_RCA_LAUNCH(
                "rca_preprocess_octets_kernel", kernel, grid, dim3(pre_threads), shared, stream, rf, out, q);
            return;
        }
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
