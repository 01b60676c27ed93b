/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "gaussian_noise.h"
#include <cmath>
#include <vector>

namespace gr {
namespace beamform {

namespace {

//! Upper-tail probability of the standard normal, Q(x) = 1 - Phi(x).
double upper_tail(double x) { return 0.5 * std::erfc(x / std::sqrt(2.0)); }

/*!
 * x >= 0 with Q(x) = q, 0 < q <= 1/2: Newton's method on ln Q(x) - ln q.
 * ln Q is concave and decreasing, so after the first step every iterate lies
 * at or above the root and falls to it; ln Q is close to -x^2 / 2 in the tail,
 * so few steps are needed.
 */
double upper_quantile(double q)
{
    constexpr double inv_sqrt_two_pi = 0.39894228040143267794;
    const double target = std::log(q);
    double x = 0.0;
    for (int i = 0; i < 100; i++) {
        const double tail = upper_tail(x);
        const double density = inv_sqrt_two_pi * std::exp(-0.5 * x * x);
        const double step = (std::log(tail) - target) * tail / density;
        x += step;
        if (std::abs(step) <= 1e-15 * (1.0 + x))
            break;
    }
    return x;
}

std::vector<float> make_table()
{
    // Symmetric: the upper half from the tail probabilities (i + 1/2) / N.
    constexpr size_t n = gaussian_noise::pool_size, half = n / 2;
    std::vector<double> upper(half);
    double sum_of_squares = 0.0;
    for (size_t i = 0; i < half; i++) {
        upper[i] = upper_quantile((double(i) + 0.5) / double(n));
        sum_of_squares += 2.0 * upper[i] * upper[i];
    }
    // The midpoint quantiles have a mean square a little below 1: scale to 1.
    const double scale = std::sqrt(double(n) / sum_of_squares);
    std::vector<float> table(n);
    for (size_t i = 0; i < half; i++) {
        table[i] = float(-scale * upper[i]); // upper[0] is the largest
        table[n - 1 - i] = float(scale * upper[i]);
    }
    return table;
}

uint64_t rotate_left(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

//! splitmix64: one seed -> a well-mixed sequence for the generator's state.
uint64_t splitmix64(uint64_t& x)
{
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/*!
 * xoshiro256**: a scrambled (** = multiply, rotate, multiply) xor/shift/rotate
 * state. A function of this file, not a member: the library exports its
 * members, and with -fPIC an exported function is not inlined into fill().
 */
inline uint64_t next(std::array<uint64_t, 4>& s)
{
    const uint64_t result = rotate_left(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotate_left(s[3], 45);
    return result;
}

} // namespace

const float* gaussian_noise::table()
{
    static const std::vector<float> values = make_table(); // once per process
    return values.data();
}

gaussian_noise::gaussian_noise(uint64_t seed) : d_table(table())
{
    for (auto& s : d_state)
        s = splitmix64(seed);
}

void gaussian_noise::fill(float* out, size_t n, float sigma)
{
    constexpr uint64_t mask = pool_size - 1;
    const float* table = d_table;
    size_t i = 0;
    // Indices left from the last call first: the values do not depend on how
    // a stream is cut into calls.
    for (; i < n && d_indices_left > 0; i++, d_indices_left--, d_bits >>= index_bits)
        out[i] = sigma * table[d_bits & mask];
    for (; i + 3 <= n; i += 3) {
        const uint64_t r = next(d_state);
        out[i] = sigma * table[r & mask];
        out[i + 1] = sigma * table[(r >> index_bits) & mask];
        out[i + 2] = sigma * table[(r >> (2 * index_bits)) & mask];
    }
    if (i < n) {
        d_bits = next(d_state);
        d_indices_left = 3;
        for (; i < n; i++, d_indices_left--, d_bits >>= index_bits)
            out[i] = sigma * table[d_bits & mask];
    }
}

} // namespace beamform
} // namespace gr
