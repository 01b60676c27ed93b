/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engines/common/number_text.h"
#include <gnuradio/beamform/engines/array_geometry.h>
#include <gnuradio/beamform/engines/steering.h>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace beamform {

namespace {

constexpr double pi = 3.141592653589793238462643383279502884;

using weight_vector = std::vector<std::complex<float>>;
using position_list = std::vector<std::array<double, 3>>;

void require_finite(const std::vector<double>& values, const std::string& name)
{
    for (size_t i = 0; i < values.size(); i++)
        if (!std::isfinite(values[i]))
            throw std::invalid_argument(name + " must be finite, entry " +
                                        std::to_string(i) + " is not");
}

//! Number of beams in a flattened [beams][2] list of (az, el) or (l, m) pairs.
size_t beam_count(const std::vector<double>& pairs, const std::string& name, bool as_lm)
{
    if (pairs.empty() || pairs.size() % 2 != 0)
        throw std::invalid_argument(name + " must hold 2 values per beam (" +
                                    (as_lm ? "l, m" : "azimuth, elevation in degrees") +
                                    "), at least one beam; got " +
                                    std::to_string(pairs.size()) + " values");
    return pairs.size() / 2;
}

/*!
 * Weights for beams along the (az, el) or (l, m) \p pairs:
 * w[c][b][a] = g_a exp(-+ 2 pi i f_c tau_ba), the delays tau_ba from
 * array_geometry with the phase centre \p reference (an index or a position).
 */
template <typename Reference>
weight_vector weights_for(const position_list& positions,
                          const std::vector<double>& pairs,
                          bool as_lm,
                          const std::vector<double>& frequencies,
                          const weight_vector& gains,
                          bool conjugate,
                          const Reference& reference)
{
    const size_t n_beams = beam_count(pairs, as_lm ? "lm" : "az_el", as_lm);
    std::vector<std::vector<double>> delays(n_beams);
    for (size_t b = 0; b < n_beams; b++)
        delays[b] =
            as_lm
                ? geometric_delays_lm(
                      positions, pairs[2 * b], pairs[2 * b + 1], reference)
                : geometric_delays(positions, pairs[2 * b], pairs[2 * b + 1], reference);

    const size_t n_rx = positions.size();
    if (frequencies.empty())
        throw std::invalid_argument("frequencies must hold one sky frequency per "
                                    "channel, got none");
    require_finite(frequencies, "frequencies");
    if (!(gains.empty() || gains.size() == 1 || gains.size() == n_rx))
        throw std::invalid_argument(
            "gains must have 0, 1 or n_receivers = " + std::to_string(n_rx) +
            " entries, got " + std::to_string(gains.size()));
    for (size_t i = 0; i < gains.size(); i++)
        if (!std::isfinite(gains[i].real()) || !std::isfinite(gains[i].imag()))
            throw std::invalid_argument("gains must be finite, entry " +
                                        std::to_string(i) + " is not");

    const size_t n_ch = frequencies.size();
    const double sign = conjugate ? 1.0 : -1.0;
    std::vector<std::complex<float>> weights(n_ch * n_beams * n_rx);
    for (size_t c = 0; c < n_ch; c++)
        for (size_t b = 0; b < n_beams; b++)
            for (size_t a = 0; a < n_rx; a++) {
                const std::complex<double> g =
                    gains.empty()
                        ? 1.0
                        : std::complex<double>(gains[gains.size() == 1 ? 0 : a]);
                // Whole turns drop out before the multiplication by 2 pi.
                const double turns = frequencies[c] * delays[b][a];
                if (!std::isfinite(turns))
                    throw std::invalid_argument(
                        "frequency x geometric delay overflows for channel " +
                        std::to_string(c) + ", beam " + std::to_string(b) +
                        ", receiver " + std::to_string(a) + " (frequency " +
                        number_text(frequencies[c]) + " Hz, delay " +
                        number_text(delays[b][a]) + " s)");
                const double phase = sign * 2.0 * pi * (turns - std::round(turns));
                weights[(c * n_beams + b) * n_rx + a] =
                    std::complex<float>(g * std::polar(1.0, phase));
            }
    return weights;
}

} // namespace

std::vector<double> channel_frequencies(double center_freq,
                                        double channel_spacing,
                                        size_t n_channels,
                                        channel_order order)
{
    if (!std::isfinite(center_freq))
        throw std::invalid_argument("center_freq must be finite");
    if (!std::isfinite(channel_spacing) || channel_spacing <= 0.0)
        throw std::invalid_argument(
            "channel_spacing must be a finite number > 0 Hz, got " +
            number_text(channel_spacing));
    if (n_channels < 1)
        throw std::invalid_argument("n_channels must be >= 1, got 0");
    if (order != channel_order::pfb && order != channel_order::fft_shift)
        throw std::invalid_argument("order must be channel_order.pfb (0) or "
                                    "channel_order.fft_shift (1), got " +
                                    std::to_string(static_cast<int>(order)));
    const long long n = static_cast<long long>(n_channels);
    std::vector<double> f(n_channels);
    for (long long i = 0; i < n; i++) {
        long long offset;
        if (order == channel_order::pfb)
            offset = i < (n + 1) / 2 ? i : i - n; // 0, 1, .., then negatives
        else
            offset = i - n / 2; // ascending
        f[i] = center_freq + static_cast<double>(offset) * channel_spacing;
        if (!std::isfinite(f[i]))
            throw std::invalid_argument(
                "center_freq + offset x channel_spacing overflows for channel " +
                std::to_string(i) + " (center_freq " + number_text(center_freq) +
                " Hz, channel_spacing " + number_text(channel_spacing) + " Hz, offset " +
                std::to_string(offset) +
                "): |center_freq| + n_channels / 2 x channel_spacing must stay below "
                "1.8e308 Hz");
    }
    return f;
}

// The az/el and l/m entry points differ only in how weights_for() reads the
// direction pairs; the phase centre is a receiver index or a position.
weight_vector steering_weights(const position_list& positions,
                               const std::vector<double>& az_el,
                               const std::vector<double>& frequencies,
                               const weight_vector& gains,
                               bool conjugate,
                               int reference_index)
{
    return weights_for(
        positions, az_el, false, frequencies, gains, conjugate, reference_index);
}

weight_vector steering_weights(const position_list& positions,
                               const std::vector<double>& az_el,
                               const std::vector<double>& frequencies,
                               const weight_vector& gains,
                               bool conjugate,
                               const std::array<double, 3>& reference_position)
{
    return weights_for(
        positions, az_el, false, frequencies, gains, conjugate, reference_position);
}

weight_vector steering_weights_lm(const position_list& positions,
                                  const std::vector<double>& lm,
                                  const std::vector<double>& frequencies,
                                  const weight_vector& gains,
                                  bool conjugate,
                                  int reference_index)
{
    return weights_for(
        positions, lm, true, frequencies, gains, conjugate, reference_index);
}

weight_vector steering_weights_lm(const position_list& positions,
                                  const std::vector<double>& lm,
                                  const std::vector<double>& frequencies,
                                  const weight_vector& gains,
                                  bool conjugate,
                                  const std::array<double, 3>& reference_position)
{
    return weights_for(
        positions, lm, true, frequencies, gains, conjugate, reference_position);
}

} // namespace beamform
} // namespace gr
