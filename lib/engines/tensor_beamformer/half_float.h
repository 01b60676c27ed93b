/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_HALF_FLOAT_H
#define INCLUDED_BEAMFORM_ENGINES_HALF_FLOAT_H

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <limits>

namespace gr {
namespace beamform {

/*!
 * \p x rounded to the nearest IEEE 754 binary16 value (ties to even), returned
 * as float: what a GPU's __float2half_rn followed by __half2float gives.
 * Overflow (|x| >= 65520) gives +-inf, values below 2^-14 round to the
 * subnormal grid of 2^-24, NaN stays NaN.
 */
inline float round_to_half(float x)
{
    if (std::isnan(x) || std::isinf(x) || x == 0.0f)
        return x;
    constexpr float largest_half = 65504.0f;
    const float magnitude = std::fabs(x);
    int exponent; // magnitude = m * 2^exponent with m in [0.5, 1)
    std::frexp(magnitude, &exponent);
    // binary16 has 10 fraction bits; its smallest normal is 2^-14 and below it
    // the spacing stays 2^-24 (subnormals).
    const int spacing_exponent = std::max(exponent - 11, -24);
    // Scaling by powers of two is exact; nearbyint rounds ties to even in the
    // default rounding mode.
    const float rounded = std::ldexp(
        std::nearbyint(std::ldexp(magnitude, -spacing_exponent)), spacing_exponent);
    const float result =
        rounded > largest_half ? std::numeric_limits<float>::infinity() : rounded;
    return std::copysign(result, x);
}

inline std::complex<float> round_to_half(std::complex<float> z)
{
    return { round_to_half(z.real()), round_to_half(z.imag()) };
}

/*!
 * out[i] = round_to_half(in[i]) for i < n (in == out allowed): the same values,
 * through the processor's conversion instructions (F16C) where it has them
 * (half_float.cc).
 */
void round_to_half_array(const float* in, float* out, size_t n);

} // namespace beamform
} // namespace gr

#endif
