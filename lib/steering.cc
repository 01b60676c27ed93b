/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/beamform/steering.h>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace beamform {

namespace {

constexpr double pi = 3.141592653589793238462643383279502884;
constexpr double degree = pi / 180.0;

void require_finite(const std::vector<double>& values, const std::string& name)
{
    for (size_t i = 0; i < values.size(); i++)
        if (!std::isfinite(values[i]))
            throw std::invalid_argument(name + " must be finite, entry " +
                                        std::to_string(i) + " is not");
}

//! Number of receivers in a flattened [receivers][3] position list.
size_t receiver_count(const std::vector<double>& positions)
{
    if (positions.empty() || positions.size() % 3 != 0)
        throw std::invalid_argument(
            "positions must hold 3 values (east, north, up) per receiver, at least one "
            "receiver; got " +
            std::to_string(positions.size()) + " values");
    require_finite(positions, "positions");
    return positions.size() / 3;
}

//! The phase centre: \p reference if given, else receiver 0.
std::vector<double> reference_point(const std::vector<double>& positions,
                                    const std::vector<double>& reference)
{
    if (reference.empty())
        return { positions[0], positions[1], positions[2] };
    if (reference.size() != 3)
        throw std::invalid_argument(
            "reference must be empty (receiver 0) or 3 values (east, north, up), got " +
            std::to_string(reference.size()));
    require_finite(reference, "reference");
    return reference;
}

std::vector<double> delays_towards(const std::vector<double>& positions,
                                   const std::vector<double>& s,
                                   const std::vector<double>& reference)
{
    const size_t n = receiver_count(positions);
    const std::vector<double> r0 = reference_point(positions, reference);
    std::vector<double> tau(n);
    for (size_t a = 0; a < n; a++) {
        double projection = 0.0;
        for (size_t k = 0; k < 3; k++)
            projection += (positions[3 * a + k] - r0[k]) * s[k];
        tau[a] = projection / speed_of_light;
    }
    return tau;
}

/*!
 * Weights for beams along the unit vectors \p directions [beams][3]:
 * w[c][b][a] = g_a exp(-+ 2 pi i f_c tau_ba).
 */
std::vector<std::complex<float>>
weights_for(const std::vector<double>& positions,
            const std::vector<std::vector<double>>& directions,
            const std::vector<double>& frequencies,
            const std::vector<std::complex<float>>& gains,
            bool conjugate,
            const std::vector<double>& reference)
{
    const size_t n_rx = receiver_count(positions);
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

    const size_t n_ch = frequencies.size(), n_beams = directions.size();
    std::vector<std::vector<double>> delays(n_beams);
    for (size_t b = 0; b < n_beams; b++)
        delays[b] = delays_towards(positions, directions[b], reference);

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
                const double phase = sign * 2.0 * pi * (turns - std::round(turns));
                weights[(c * n_beams + b) * n_rx + a] =
                    std::complex<float>(g * std::polar(1.0, phase));
            }
    return weights;
}

std::vector<std::vector<double>>
pairs_to_directions(const std::vector<double>& pairs, const std::string& name, bool as_lm)
{
    if (pairs.empty() || pairs.size() % 2 != 0)
        throw std::invalid_argument(name + " must hold 2 values per beam (" +
                                    (as_lm ? "l, m" : "azimuth, elevation in degrees") +
                                    "), at least one beam; got " +
                                    std::to_string(pairs.size()) + " values");
    std::vector<std::vector<double>> directions(pairs.size() / 2);
    for (size_t b = 0; b < directions.size(); b++)
        directions[b] = as_lm ? direction_lm(pairs[2 * b], pairs[2 * b + 1])
                              : direction_az_el(pairs[2 * b], pairs[2 * b + 1]);
    return directions;
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
            std::to_string(channel_spacing));
    if (n_channels < 1)
        throw std::invalid_argument("n_channels must be >= 1, got 0");
    const long long n = static_cast<long long>(n_channels);
    std::vector<double> f(n_channels);
    for (long long i = 0; i < n; i++) {
        long long offset;
        if (order == channel_order::pfb)
            offset = i < (n + 1) / 2 ? i : i - n; // 0, 1, .., then negatives
        else
            offset = i - n / 2; // ascending
        f[i] = center_freq + static_cast<double>(offset) * channel_spacing;
    }
    return f;
}

std::vector<double> direction_az_el(double azimuth_deg, double elevation_deg)
{
    if (!std::isfinite(azimuth_deg))
        throw std::invalid_argument("azimuth must be finite (degrees)");
    if (!std::isfinite(elevation_deg) || elevation_deg < -90.0 || elevation_deg > 90.0)
        throw std::invalid_argument("elevation must be in [-90, 90] degrees, got " +
                                    std::to_string(elevation_deg));
    const double az = azimuth_deg * degree, el = elevation_deg * degree;
    return { std::cos(el) * std::sin(az), std::cos(el) * std::cos(az), std::sin(el) };
}

std::vector<double> direction_lm(double l, double m)
{
    const double r2 = l * l + m * m;
    if (!std::isfinite(l) || !std::isfinite(m) || r2 > 1.0 + 1e-12)
        throw std::invalid_argument("lm: direction cosines must satisfy l^2 + m^2 <= 1, "
                                    "got l = " +
                                    std::to_string(l) + ", m = " + std::to_string(m));
    return { l, m, std::sqrt(std::max(0.0, 1.0 - r2)) };
}

std::vector<double> geometric_delays(const std::vector<double>& positions,
                                     double azimuth_deg,
                                     double elevation_deg,
                                     const std::vector<double>& reference)
{
    return delays_towards(
        positions, direction_az_el(azimuth_deg, elevation_deg), reference);
}

std::vector<double> geometric_delays_lm(const std::vector<double>& positions,
                                        double l,
                                        double m,
                                        const std::vector<double>& reference)
{
    return delays_towards(positions, direction_lm(l, m), reference);
}

std::vector<std::complex<float>>
steering_weights(const std::vector<double>& positions,
                 const std::vector<double>& az_el,
                 const std::vector<double>& frequencies,
                 const std::vector<std::complex<float>>& gains,
                 bool conjugate,
                 const std::vector<double>& reference)
{
    return weights_for(positions,
                       pairs_to_directions(az_el, "az_el", false),
                       frequencies,
                       gains,
                       conjugate,
                       reference);
}

std::vector<std::complex<float>>
steering_weights_lm(const std::vector<double>& positions,
                    const std::vector<double>& lm,
                    const std::vector<double>& frequencies,
                    const std::vector<std::complex<float>>& gains,
                    bool conjugate,
                    const std::vector<double>& reference)
{
    return weights_for(positions,
                       pairs_to_directions(lm, "lm", true),
                       frequencies,
                       gains,
                       conjugate,
                       reference);
}

} // namespace beamform
} // namespace gr
