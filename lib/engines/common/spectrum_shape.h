/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_COMMON_SPECTRUM_SHAPE_H
#define INCLUDED_BEAMFORM_ENGINES_COMMON_SPECTRUM_SHAPE_H

#include <cstddef>
#include <stdexcept>
#include <string>

namespace gr {
namespace beamform {

//! The largest channel or receiver count an engine accepts.
constexpr size_t max_spectrum_count = size_t(1) << 20;

/*!
 * The check every engine of spectra [n_channels][n_receivers] makes of its
 * shape: std::invalid_argument naming the parameter and the accepted range.
 */
inline void validate_spectrum_shape(size_t n_channels, size_t n_receivers)
{
    if (n_channels < 1 || n_channels > max_spectrum_count)
        throw std::invalid_argument("n_channels must be in [1, 1048576], got " +
                                    std::to_string(n_channels));
    if (n_receivers < 1 || n_receivers > max_spectrum_count)
        throw std::invalid_argument("n_receivers must be in [1, 1048576], got " +
                                    std::to_string(n_receivers));
    if (n_channels * n_receivers > (size_t(1) << 26))
        throw std::invalid_argument(
            "n_channels * n_receivers must be at most 67108864 (item of 512 MiB), got " +
            std::to_string(n_channels * n_receivers));
}

} // namespace beamform
} // namespace gr

#endif
