/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_GAUSSIAN_NOISE_H
#define INCLUDED_BEAMFORM_ENGINES_GAUSSIAN_NOISE_H

#include <array>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace beamform {

/*!
 * \brief Fast independent Gaussian values for simulations: each value is
 * sigma times one entry, picked uniformly at random and independently of every
 * other value, of a table of the normal distribution's pool_size quantiles.
 *
 * The table holds Phi^-1((i + 1/2) / pool_size), i = 0 .. pool_size - 1
 * (Phi: the standard normal CDF), scaled so that its mean square is exactly 1
 * (the midpoint quantiles fall short of it by 5e-6). A value is therefore
 * drawn from a discrete distribution of pool_size equally likely points whose
 * CDF is within 2.5e-6 of the normal's everywhere. Since every pick is
 * independent, the values are independent: no period and no correlation
 * between values, whatever their order (no block of the table is read in
 * sequence). What the table changes: no value exceeds its outermost point,
 * 4.62 in magnitude (a normal value does with probability 4e-6), and the
 * kurtosis is 2.9998 instead of 3.
 *
 * 2^18 points (1 MiB of float, one table for every generator of the process,
 * computed once in about 50 ms) stay in a core's L2 cache, while the CDF error
 * is below what a test on fewer than about 10^11 values could detect (a
 * Kolmogorov-Smirnov test on n values resolves about 1.4 / sqrt(n)).
 *
 * The indices come from xoshiro256**, the xoshiro256 linear engine with the
 * ** scrambler (Blackman and Vigna 2021, "Scrambled linear pseudorandom number
 * generators", ACM TOMS 47(4), article 36), its state seeded by the SplitMix
 * generator (Steele, Lea and Flood 2014, "Fast splittable pseudorandom number
 * generators", OOPSLA) as Blackman and Vigna recommend: three 18-bit indices
 * per 64-bit output. The same seed gives the same values, however the
 * stream is cut into fill() calls.
 */
class gaussian_noise
{
public:
    static constexpr unsigned index_bits = 18;
    static constexpr size_t pool_size = size_t(1) << index_bits;

    explicit gaussian_noise(uint64_t seed);

    //! out[i] = sigma * (an independent standard normal value), i < n.
    void fill(float* out, size_t n, float sigma);

    //! The table (sorted ascending, mean square 1), pool_size values.
    static const float* table();

private:
    std::array<uint64_t, 4> d_state;
    uint64_t d_bits = 0;         //!< indices not used yet, lowest first
    unsigned d_indices_left = 0; //!< how many (0 .. 2)
    const float* d_table;
};

} // namespace beamform
} // namespace gr

#endif
