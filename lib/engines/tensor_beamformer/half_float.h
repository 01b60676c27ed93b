/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_HALF_FLOAT_H
#define INCLUDED_BEAMFORM_ENGINES_HALF_FLOAT_H

#include <common/half_bits.h>
#include <cmath>
#include <complex>
#include <cstddef>

namespace gr {
namespace beamform {

/*!
 * \p x rounded to the nearest IEEE 754 binary16 value (ties to even), returned
 * as float: what a GPU's __float2half_rn followed by __half2float gives.
 * Overflow (|x| >= 65520) gives +-inf, values below 2^-14 round to the
 * subnormal grid of 2^-24, NaN stays NaN (the same NaN). The rounding itself
 * is kernels/common/half_bits.h's.
 */
inline float round_to_half(float x)
{
    if (std::isnan(x))
        return x;
    return half_bits::to_float(half_bits::from_float(x));
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
