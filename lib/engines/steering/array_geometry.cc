/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engines/common/number_text.h"
#include <gnuradio/beamform/engines/array_geometry.h>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace beamform {

namespace {

constexpr double pi = 3.14159265358979323846;
constexpr double degrees_to_radians = pi / 180.0;

void check_finite(const char* name, double value)
{
    if (!std::isfinite(value))
        throw std::invalid_argument(std::string(name) + " must be a finite number");
}

void check_positions(const std::vector<std::array<double, 3>>& positions)
{
    if (positions.empty())
        throw std::invalid_argument(
            "positions must hold one (east, north, up) triple per receiver, got none");
    for (size_t a = 0; a < positions.size(); a++)
        for (double x : positions[a])
            if (!std::isfinite(x))
                throw std::invalid_argument(
                    "positions must be finite numbers (metres); receiver " +
                    std::to_string(a) + " is not");
}

void check_speed(double propagation_speed)
{
    if (!(propagation_speed > 0) || !std::isfinite(propagation_speed))
        throw std::invalid_argument(
            "propagation_speed must be a finite number > 0 (m/s)");
}

const std::array<double, 3>&
reference_receiver(const std::vector<std::array<double, 3>>& positions,
                   int reference_index)
{
    check_positions(positions);
    if (reference_index < 0 || size_t(reference_index) >= positions.size())
        throw std::invalid_argument("reference_index must be in [0, " +
                                    std::to_string(positions.size() - 1) + "], got " +
                                    std::to_string(reference_index));
    return positions[reference_index];
}

void check_geometry(const std::vector<std::array<double, 3>>& positions,
                    const std::array<double, 3>& reference_position,
                    double propagation_speed)
{
    check_positions(positions);
    for (double x : reference_position)
        check_finite("reference_position", x);
    check_speed(propagation_speed);
}

//! tau_a = (r_a - r_ref) . s / c for the unit vector s: the one place it is
//! computed. Arguments checked by check_geometry().
std::vector<double> delays_along(const std::vector<std::array<double, 3>>& positions,
                                 const std::array<double, 3>& s,
                                 const std::array<double, 3>& reference_position,
                                 double propagation_speed)
{
    std::vector<double> delays(positions.size());
    for (size_t a = 0; a < positions.size(); a++) {
        double projection = 0.0;
        for (int k = 0; k < 3; k++)
            projection += (positions[a][k] - reference_position[k]) * s[k];
        delays[a] = projection / propagation_speed;
        if (!std::isfinite(delays[a])) {
            std::ostringstream msg; // positions far apart, or a tiny propagation_speed
            msg << "the geometric delay of receiver " << a
                << " is not finite (its projected distance from the reference, "
                << projection << " m, over propagation_speed " << propagation_speed
                << " m/s): positions and propagation_speed must give finite delays";
            throw std::invalid_argument(msg.str());
        }
    }
    return delays;
}

} // namespace

std::array<double, 3> direction_vector(double azimuth_deg, double elevation_deg)
{
    check_finite("azimuth_deg", azimuth_deg);
    check_finite("elevation_deg", elevation_deg);
    if (elevation_deg < -90.0 || elevation_deg > 90.0)
        throw std::invalid_argument("elevation_deg must be in [-90, 90] degrees, got " +
                                    number_text(elevation_deg));
    const double az = azimuth_deg * degrees_to_radians;
    const double el = elevation_deg * degrees_to_radians;
    return { std::cos(el) * std::sin(az), std::cos(el) * std::cos(az), std::sin(el) };
}

std::array<double, 3> direction_lm(double l, double m)
{
    const double r2 = l * l + m * m;
    // A hair of tolerance so that l, m computed from an az/el on the horizon pass.
    if (!std::isfinite(l) || !std::isfinite(m) || r2 > 1.0 + 1e-12)
        throw std::invalid_argument("lm: direction cosines must satisfy l^2 + m^2 <= 1, "
                                    "got l = " +
                                    number_text(l) + ", m = " + number_text(m));
    return { l, m, std::sqrt(std::max(0.0, 1.0 - r2)) };
}

std::vector<double> geometric_delays(const std::vector<std::array<double, 3>>& positions,
                                     double azimuth_deg,
                                     double elevation_deg,
                                     const std::array<double, 3>& reference_position,
                                     double propagation_speed)
{
    check_geometry(positions, reference_position, propagation_speed);
    return delays_along(positions,
                        direction_vector(azimuth_deg, elevation_deg),
                        reference_position,
                        propagation_speed);
}

std::vector<double> geometric_delays(const std::vector<std::array<double, 3>>& positions,
                                     double azimuth_deg,
                                     double elevation_deg,
                                     int reference_index,
                                     double propagation_speed)
{
    return geometric_delays(positions,
                            azimuth_deg,
                            elevation_deg,
                            reference_receiver(positions, reference_index),
                            propagation_speed);
}

std::vector<double>
geometric_delays_lm(const std::vector<std::array<double, 3>>& positions,
                    double l,
                    double m,
                    const std::array<double, 3>& reference_position,
                    double propagation_speed)
{
    check_geometry(positions, reference_position, propagation_speed);
    return delays_along(
        positions, direction_lm(l, m), reference_position, propagation_speed);
}

std::vector<double>
geometric_delays_lm(const std::vector<std::array<double, 3>>& positions,
                    double l,
                    double m,
                    int reference_index,
                    double propagation_speed)
{
    return geometric_delays_lm(positions,
                               l,
                               m,
                               reference_receiver(positions, reference_index),
                               propagation_speed);
}

double max_representable_delay(double channel_bandwidth, double fraction)
{
    if (!(channel_bandwidth > 0) || !std::isfinite(channel_bandwidth))
        throw std::invalid_argument("channel_bandwidth must be a finite number > 0 (Hz)");
    if (!(fraction > 0) || fraction > 1)
        throw std::invalid_argument("fraction must be in (0, 1]");
    return fraction / channel_bandwidth;
}

std::string check_representable_delays(const std::vector<double>& delays,
                                       double channel_bandwidth,
                                       double fraction)
{
    const double limit = max_representable_delay(channel_bandwidth, fraction);
    std::vector<size_t> beyond;
    double largest = 0.0;
    for (size_t a = 0; a < delays.size(); a++) {
        const double d = std::abs(delays[a]);
        if (d > limit)
            beyond.push_back(a);
        if (d > largest)
            largest = d;
    }
    if (beyond.empty())
        return {};
    std::ostringstream msg;
    msg << beyond.size() << " receiver(s) have |delay| beyond " << fraction
        << " / channel bandwidth = " << limit << " s (largest " << largest
        << " s; receivers";
    for (size_t i = 0; i < beyond.size() && i < 8; i++)
        msg << " " << beyond[i];
    if (beyond.size() > 8)
        msg << " ...";
    msg << "): a per-channel phase cannot represent a delay that smears within a "
           "channel (coherent gain sinc(B tau) < "
        << std::sin(pi * fraction) / (pi * fraction)
        << "); apply a coarse sample delay before the channelizer";
    return msg.str();
}

} // namespace beamform
} // namespace gr
