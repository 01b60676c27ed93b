/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Counting the fc32 values that float16 rounds to inf or to 0, so that the
 * block can report them instead of handing out NaN or zeros silently.
 */
#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <cmath>

namespace gr {
namespace beamform {

namespace {
// 65504 is float16's largest value; from 65520 (the tie, rounded to even) on
// the rounding gives inf. 2^-24 is its smallest subnormal; up to 2^-25 (the
// tie, rounded to even) the rounding gives 0.
constexpr float overflow_from = 65520.0f;
constexpr float underflow_up_to = 2.98023223876953125e-8f; // 2^-25
} // namespace

float16_range_counts count_float16_range(const std::complex<float>* values, size_t n)
{
    float16_range_counts counts;
    const float* parts = reinterpret_cast<const float*>(values);
    for (size_t i = 0; i < 2 * n; i++) {
        const float m = std::fabs(parts[i]);
        // NaN and inf are neither: they stay what they are in float16.
        counts.overflow += (m >= overflow_from && m != INFINITY) ? 1 : 0;
        counts.underflow += (m > 0.0f && m <= underflow_up_to) ? 1 : 0;
    }
    return counts;
}

} // namespace beamform
} // namespace gr
