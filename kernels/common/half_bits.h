/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * IEEE 754 binary16 on the host, as bit patterns: the one implementation of
 * fp16 rounding on the CPU side. Included by the host emulation of the GPU
 * kernels (kernels/emulation/gpu_emulation.h) and by the CPU engine's
 * round_to_half (lib/engines/tensor_beamformer/half_float.h). Self-contained:
 * standard headers only.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_HALF_BITS_H
#define INCLUDED_BEAMFORM_KERNELS_HALF_BITS_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace gr {
namespace beamform {
namespace half_bits {

/*!
 * \p f rounded to the nearest binary16 value, ties to even (what a GPU's
 * __float2half_rn does): overflow (|f| >= 65520) gives +-inf, values below
 * 2^-14 round to the subnormal grid of 2^-24, NaN gives a quiet NaN.
 */
inline uint16_t from_float(float f)
{
    uint32_t x;
    std::memcpy(&x, &f, sizeof x);
    const uint16_t sign = uint16_t((x >> 16) & 0x8000u);
    const uint32_t a = x & 0x7fffffffu;
    if (a >= 0x7f800000u) // inf or NaN
        return uint16_t(sign | (a > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (a >= 0x477ff000u) // >= 65520 rounds to infinity
        return uint16_t(sign | 0x7c00u);
    if (a < 0x38800000u) { // below 2^-14: subnormal half, a multiple of 2^-24
        float mag;
        std::memcpy(&mag, &a, sizeof mag);
        // mag * 2^24 is exact; rint rounds half to even (default mode).
        return uint16_t(sign | uint16_t(std::rint(mag * 16777216.0f)));
    }
    uint32_t h = ((((a >> 23) - 127 + 15) << 10) | ((a & 0x7fffffu) >> 13));
    const uint32_t rest = a & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
        h++; // a carry into the exponent is the correct rounding
    return uint16_t(sign | h);
}

//! The float value of the binary16 bit pattern \p h (exact).
inline float to_float(uint16_t h)
{
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1fu;
    const uint32_t m = h & 0x3ffu;
    uint32_t x;
    if (e == 0) {
        const float v = std::ldexp(float(m), -24);
        std::memcpy(&x, &v, sizeof x);
        x |= sign;
    } else if (e == 31) {
        x = sign | 0x7f800000u | (m << 13);
    } else {
        x = sign | ((e - 15 + 127) << 23) | (m << 13);
    }
    float f;
    std::memcpy(&f, &x, sizeof f);
    return f;
}

} // namespace half_bits
} // namespace beamform
} // namespace gr

#endif
