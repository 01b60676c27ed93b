/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "half_float.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define BEAMFORM_HALF_F16C 1
#endif

namespace gr {
namespace beamform {

namespace {

void round_scalar(const float* in, float* out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = round_to_half(in[i]);
}

#ifdef BEAMFORM_HALF_F16C
// vcvtps2ph with rounding control 0 rounds to nearest even, overflows to inf,
// keeps NaN a NaN and produces binary16 subnormals: round_to_half's contract.
__attribute__((target("avx,f16c"))) void round_f16c(const float* in, float* out, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h =
            _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
    }
    if (i < n) { // the last 1 to 7 values, through a zero-padded vector
        float tail[8] = {};
        for (size_t j = i; j < n; j++)
            tail[j - i] = in[j];
        const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(tail), _MM_FROUND_TO_NEAREST_INT);
        _mm256_storeu_ps(tail, _mm256_cvtph_ps(h));
        for (size_t j = i; j < n; j++)
            out[j] = tail[j - i];
    }
}

bool has_f16c()
{
    static const bool yes = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
    return yes;
}
#endif

} // namespace

void round_to_half_array(const float* in, float* out, size_t n)
{
#ifdef BEAMFORM_HALF_F16C
    if (has_f16c()) {
        round_f16c(in, out, n);
        return;
    }
#endif
    round_scalar(in, out, n);
}

} // namespace beamform
} // namespace gr
