/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The arithmetic of the rfi_flagger that the CPU engine, the GPU kernels
 * (kernels/gpu/rfi_flagger.cuh) and the emulated tests share, written so that
 * every result is bit-identical on the host and on a GPU:
 *  - powers |x|^2 in double: the two products of floats are exact, so a fused
 *    multiply-add gives the same sum as separate operations;
 *  - the one product that is not exact (P * P in the S2 sum) and the one in a
 *    threshold (K * MAD) go through mul_rn, never contracted into an fma;
 *  - the replacement noise comes from integer hashing and one IEEE-rounded
 *    sqrt, division and multiplication (no transcendental function, whose
 *    last bits differ between libm and the GPU's math library).
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_RFI_FLAGGER_MATH_H
#define INCLUDED_BEAMFORM_KERNELS_RFI_FLAGGER_MATH_H

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__) || defined(__HIPCC__) || defined(BF_GPU_EMULATION)
#define BF_RFI_HD __host__ __device__
#else
#define BF_RFI_HD
#endif

namespace gr {
namespace beamform {
namespace rfi_math {

//! a * b rounded once, never fused with a following addition.
BF_RFI_HD inline double mul_rn(double a, double b)
{
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return __dmul_rn(a, b);
#else
    // Host code: the engines are built for plain x86-64 (no FMA instructions,
    // so nothing to contract into); keep it so (no target_clones with fma).
    return a * b;
#endif
}

//! |x|^2 of one complex float, exactly rounded once (both products are exact).
BF_RFI_HD inline double power(float re, float im)
{
    const double r = re, i = im;
    return r * r + i * i;
}

/*!
 * The sums run over segments of this many spectra, and the segments' sums are
 * then added in order: S1 = (((seg_0) + seg_1) + ...). The GPU gives each
 * segment its own thread (enough loads in flight to keep the memory busy);
 * the CPU engine adds in the same order, so the sums are the same bits.
 */
constexpr unsigned sum_segment = 16;

//! The running sums of one (channel, receiver): S1 += P, S2 += P^2.
BF_RFI_HD inline void accumulate(double& s1, double& s2, double p)
{
    s1 = s1 + p;
    s2 = s2 + mul_rn(p, p);
}

/*!
 * Spectral kurtosis (Nita & Gary 2010, MNRAS 406, L60, eq. 8 with N = 1,
 * d = 1): SK = (M + 1) / (M - 1) (M S2 / S1^2 - 1). Its expectation is 1 for
 * Gaussian noise; a CW tone pushes it towards 0, a burst above 1.
 */
BF_RFI_HD inline double spectral_kurtosis(double s1, double s2, double m)
{
    const double q = (m * s2) / (s1 * s1);
    return ((m + 1.0) / (m - 1.0)) * (q - 1.0);
}

/*!
 * Whether a block is flagged: SK outside [lower, upper], or not a number (an
 * inf or NaN input). A block of exact zeros (S1 = 0, no signal at all: dropped
 * data) is not flagged: there is nothing to excise and no power to replace.
 */
BF_RFI_HD inline bool
sk_flagged(double s1, double s2, double m, double lower, double upper)
{
    if (s1 == 0.0)
        return false;
    const double sk = spectral_kurtosis(s1, s2, m);
    return !(sk >= lower && sk <= upper);
}

//! A key that orders NaN above everything (the median of powers ignores the
//! inputs that SK flags as non-finite anyway, but must stay well defined).
BF_RFI_HD inline double order_key(double v) { return v == v ? v : 1.0 / 0.0; }

//! The power-outlier criterion: S1 > median + K * MAD (over channels).
BF_RFI_HD inline bool power_outlier(double s1, double median, double mad, double k)
{
    return order_key(s1) > median + mul_rn(k, mad);
}

/*!
 * A counter-based generator (no state, so any item on any thread can draw its
 * own numbers): the SplitMix64 finalizer (Steele, Lea & Flood 2014, "Fast
 * splittable pseudorandom number generators", OOPSLA) of a 64-bit counter.
 */
BF_RFI_HD inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

//! The counter of value j of absolute item n, draw k (six per value).
BF_RFI_HD inline uint64_t noise_counter(uint64_t seed, uint64_t n, uint64_t j, unsigned k)
{
    return mix64(seed ^ mix64(n * 0x9e3779b97f4a7c15ULL + j)) + k * 0x9e3779b97f4a7c15ULL;
}

/*!
 * An approximately Gaussian integer of mean 0: the sum of 12 uniform 16-bit
 * integers (Irwin-Hall; excess kurtosis -0.1, tails cut at 6 sigma), centred
 * as sum(2 u - 65535), whose variance is 12 (65536^2 - 1) / 3. Three hashes
 * give the 12 draws.
 */
BF_RFI_HD inline int64_t irwin_hall12(uint64_t h0, uint64_t h1, uint64_t h2)
{
    int64_t sum = 0;
    const uint64_t h[3] = { h0, h1, h2 };
    for (int i = 0; i < 3; i++)
        for (int s = 0; s < 64; s += 16)
            sum += 2 * int64_t((h[i] >> s) & 0xffff) - 65535;
    return sum;
}

//! Variance of irwin_hall12.
constexpr double irwin_hall12_variance = 4.0 * (65536.0 * 65536.0 - 1.0);

/*!
 * Scale from irwin_hall12 to one component (real or imaginary) of complex
 * noise of mean power \p power: each component carries power / 2.
 */
BF_RFI_HD inline double noise_scale(double power)
{
    return sqrt(power / (2.0 * irwin_hall12_variance));
}

//! The replacement noise of value j of absolute item n (real, imaginary).
BF_RFI_HD inline void
noise_value(uint64_t seed, uint64_t n, uint64_t j, double scale, float& re, float& im)
{
    uint64_t h[6];
    for (unsigned k = 0; k < 6; k++)
        h[k] = mix64(noise_counter(seed, n, j, k));
    re = float(double(irwin_hall12(h[0], h[1], h[2])) * scale);
    im = float(double(irwin_hall12(h[3], h[4], h[5])) * scale);
}

} // namespace rfi_math
} // namespace beamform
} // namespace gr

#endif
