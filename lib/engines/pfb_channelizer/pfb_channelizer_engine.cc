/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/beamform/engines/pfb_channelizer_engine.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include "runtime/backends.h"

namespace gr {
namespace beamform {

BEAMFORM_DECLARE_GPU_MAKER(pfb_channelizer_engine,
                           make_pfb_channelizer_gpu,
                           const pfb_channelizer_config&,
                           const device_spec&)


namespace {
// Limits that keep every index of the engines (host and device) in range.
constexpr size_t max_channels = 1u << 16;
constexpr size_t max_taps_per_branch = 1024;
constexpr size_t max_prototype = 1u << 24;
constexpr size_t max_receivers = 1u << 20;

void require(bool ok, const std::string& message)
{
    if (!ok)
        throw std::invalid_argument(message);
}
} // namespace

void pfb_channelizer_config::validate() const
{
    check_sample_format(input, "input_format");
    require(n_channels >= 2 && n_channels <= max_channels,
            "n_channels must be in [2, 65536], got " + std::to_string(n_channels));
    require(taps_per_branch >= 1 && taps_per_branch <= max_taps_per_branch,
            "taps_per_branch must be in [1, 1024], got " +
                std::to_string(taps_per_branch));
    require(n_channels * taps_per_branch <= max_prototype,
            "n_channels * taps_per_branch must be at most 16777216, got " +
                std::to_string(n_channels * taps_per_branch));
    require(n_receivers >= 1 && n_receivers <= max_receivers,
            "n_receivers must be in [1, 1048576], got " + std::to_string(n_receivers));
    require(threads <= 1024, "threads must be in [0, 1024], got " + std::to_string(threads));
    require(oversample == 1 || oversample == 2,
            "oversample must be 1 or 2, got " + std::to_string(oversample));
    require(n_channels % oversample == 0,
            "oversample = 2 needs an even n_channels, got " + std::to_string(n_channels));
    require(taps.size() <= n_channels * taps_per_branch,
            "taps must have at most n_channels * taps_per_branch = " +
                std::to_string(n_channels * taps_per_branch) + " entries, got " +
                std::to_string(taps.size()) + " (raise taps_per_branch)");
    for (float t : taps)
        require(std::isfinite(t), "taps must be finite numbers");
    if (!taps.empty()) {
        bool any_nonzero = false;
        for (float t : taps)
            any_nonzero = any_nonzero || t != 0.0f;
        require(any_nonzero, "taps must not be all zero");
    }
}

std::vector<float> pfb_channelizer_config::prototype() const
{
    if (taps.empty())
        return default_pfb_taps(n_channels, taps_per_branch);
    std::vector<float> padded(taps);
    padded.resize(n_channels * taps_per_branch, 0.0f);
    return padded;
}

namespace {
//! Zeroth-order modified Bessel function of the first kind (power series).
double bessel_i0(double x)
{
    double term = 1.0, sum = 1.0;
    const double q = x * x / 4.0;
    for (int k = 1; k < 200 && term > 1e-17 * sum; k++) {
        term *= q / (double(k) * double(k));
        sum += term;
    }
    return sum;
}
} // namespace

std::vector<float> default_pfb_taps(size_t n_channels, size_t taps_per_branch)
{
    const double beta = 6.0;
    const size_t length = n_channels * taps_per_branch;
    const double centre = (double(length) - 1.0) / 2.0;
    const double norm = bessel_i0(beta);
    std::vector<double> h(length);
    double sum = 0.0;
    for (size_t n = 0; n < length; n++) {
        const double x = (double(n) - centre) / double(n_channels);
        const double sinc = x == 0.0 ? 1.0 : std::sin(M_PI * x) / (M_PI * x);
        // Kaiser window, as numpy.kaiser(length, beta).
        const double ratio =
            length > 1 ? 2.0 * double(n) / double(length - 1) - 1.0 : 0.0;
        const double window =
            bessel_i0(beta * std::sqrt(std::max(0.0, 1.0 - ratio * ratio))) / norm;
        h[n] = sinc * window;
        sum += h[n];
    }
    std::vector<float> taps(length);
    for (size_t n = 0; n < length; n++)
        taps[n] = float(h[n] / sum);
    return taps;
}

std::unique_ptr<pfb_channelizer_engine>
pfb_channelizer_engine::make(const pfb_channelizer_config& config,
                             const device_spec& device)
{
    config.validate();
    return make_for_device(
        "pfb_channelizer",
        device,
        [&] { return make_pfb_channelizer_cpu(config); },
        BEAMFORM_GPU_MAKERS(make_pfb_channelizer_gpu),
        config, device);
}

} // namespace beamform
} // namespace gr
