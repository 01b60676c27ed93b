/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * gaussian_noise: its table is the normal distribution's quantiles (checked
 * against the normal CDF from std::erfc, an independent route from the
 * table's Newton solution), its values are the table's points times sigma,
 * and a stream does not depend on how it is cut into fill() calls.
 */
#include "engines/common/gaussian_noise.h"
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <vector>

using gr::beamform::gaussian_noise;

namespace {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

} // namespace

TEST(GaussianNoise, TableIsTheNormalQuantiles)
{
    const size_t n = gaussian_noise::pool_size;
    const float* t = gaussian_noise::table();
    double sum = 0.0, sum_of_squares = 0.0, max_cdf_error = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0) {
            ASSERT_LT(t[i - 1], t[i]) << "at " << i;
        }
        EXPECT_EQ(t[i], -t[n - 1 - i]) << "at " << i;
        sum += t[i];
        sum_of_squares += double(t[i]) * t[i];
        // Point i sits at the middle of its 1/n of probability.
        max_cdf_error =
            std::max(max_cdf_error, std::abs(normal_cdf(t[i]) - (i + 0.5) / double(n)));
    }
    EXPECT_NEAR(sum / n, 0.0, 1e-9);
    EXPECT_NEAR(sum_of_squares / n, 1.0, 1e-6);
    // The scaling to mean square 1 moves the points by 2.5e-6 of themselves.
    EXPECT_LT(max_cdf_error, 2e-6);
    EXPECT_NEAR(t[n - 1], 4.6212, 1e-3);
}

TEST(GaussianNoise, ValuesAreSigmaTimesTablePoints)
{
    gaussian_noise noise(5);
    std::vector<float> x(30001);
    const float sigma = 0.37f;
    noise.fill(x.data(), x.size(), sigma);
    const float* t = gaussian_noise::table();
    const float* end = t + gaussian_noise::pool_size;
    double sum_of_squares = 0.0;
    for (float v : x) {
        // v / sigma is within a rounding of its point: one of the two nearest.
        const float* p = std::lower_bound(t, end, v / sigma);
        const bool found = (p != end && sigma * p[0] == v) ||
                           (p != t && sigma * p[-1] == v) ||
                           (p + 1 < end && sigma * p[1] == v);
        ASSERT_TRUE(found) << v;
        sum_of_squares += double(v) * v;
    }
    // Mean square sigma^2 within 5 standard errors (sqrt(2 / n) relative).
    EXPECT_NEAR(
        sum_of_squares / x.size() / (sigma * sigma), 1.0, 5 * std::sqrt(2.0 / x.size()));
}

TEST(GaussianNoise, SameSeedSameStreamHoweverCut)
{
    gaussian_noise whole(42), pieces(42), other(43);
    std::vector<float> a(10000), b(10000), c(10000);
    whole.fill(a.data(), a.size(), 1.0f);
    // Pieces of 1, 2, 4, 5, 7 values: every remainder of 3 indices per draw.
    const size_t cuts[] = { 1, 2, 4, 5, 7 };
    for (size_t i = 0, k = 0; i < b.size(); k++) {
        const size_t m = std::min(cuts[k % 5], b.size() - i);
        pieces.fill(b.data() + i, m, 1.0f);
        i += m;
    }
    EXPECT_EQ(a, b);
    other.fill(c.data(), c.size(), 1.0f);
    EXPECT_NE(a, c);
}
