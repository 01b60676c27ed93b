/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The per-receiver step of the rfi_flagger on the host (the CPU engine and the
 * tests): the power-outlier criterion over channels and the power of the
 * replacement noise, for one receiver of one block. The GPU kernel
 * (kernels/gpu/rfi_flagger.cuh) computes the same values in the same order.
 */
#ifndef INCLUDED_BEAMFORM_RFI_FLAGGER_RECEIVER_STATS_H
#define INCLUDED_BEAMFORM_RFI_FLAGGER_RECEIVER_STATS_H

#include <common/rfi_flagger_math.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace gr {
namespace beamform {

//! Median of \p v (reordered): the middle value, or the mean of the two middle ones.
inline double median_of(std::vector<double>& v)
{
    const size_t n = v.size(), h = n / 2;
    std::nth_element(v.begin(), v.begin() + h, v.end());
    const double upper = v[h];
    if (n % 2)
        return upper;
    const double lower = *std::max_element(v.begin(), v.begin() + h);
    return (lower + upper) * 0.5;
}

/*!
 * For receiver a of one block: s1 and flags are the block's [channel][receiver]
 * arrays (stride n_receivers). With mad_threshold > 0, flags the channels whose
 * S1 exceeds median + K MAD; returns the scale of the replacement noise
 * (rfi_math::noise_scale of the mean power per value of the unflagged channels,
 * 0 when all are flagged). \p scratch is any vector (reused).
 */
inline double receiver_step(const double* s1,
                            uint8_t* flags,
                            size_t n_channels,
                            size_t n_receivers,
                            size_t a,
                            size_t block_size,
                            double mad_threshold,
                            std::vector<double>& scratch)
{
    if (mad_threshold > 0.0) {
        scratch.resize(n_channels);
        for (size_t c = 0; c < n_channels; c++)
            scratch[c] = rfi_math::order_key(s1[c * n_receivers + a]);
        const double median = median_of(scratch);
        for (size_t c = 0; c < n_channels; c++)
            scratch[c] = rfi_math::order_key(
                std::fabs(rfi_math::order_key(s1[c * n_receivers + a]) - median));
        const double mad = median_of(scratch);
        for (size_t c = 0; c < n_channels; c++)
            if (rfi_math::power_outlier(
                    s1[c * n_receivers + a], median, mad, mad_threshold))
                flags[c * n_receivers + a] = 1;
    }
    double sum = 0.0;
    size_t count = 0;
    for (size_t c = 0; c < n_channels; c++)
        if (!flags[c * n_receivers + a]) {
            sum = sum + s1[c * n_receivers + a];
            count++;
        }
    const double power = count ? sum / (double(block_size) * double(count)) : 0.0;
    return rfi_math::noise_scale(power);
}

} // namespace beamform
} // namespace gr

#endif
