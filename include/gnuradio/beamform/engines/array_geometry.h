/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ARRAY_GEOMETRY_H
#define INCLUDED_BEAMFORM_ARRAY_GEOMETRY_H

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace gr {
namespace beamform {

/*!
 * \brief Array geometry: pointing directions and geometric delays (the
 * convention of docs/architecture.md), in double precision. The one implementation of the convention
 * in the module: steering.h, phase_shift, array_source and the Python helpers
 * all call it.
 * \ingroup beamform
 *
 *  - positions: one (east, north, up) triple in metres per receiver (Python: a
 *    list of [e, n, u] or a numpy (n, 3) array). A receiver is one antenna
 *    polarization, so X and Y of one antenna share a position.
 *  - direction: s = (cos el sin az, cos el cos az, sin el), azimuth from north
 *    through east, elevation above the horizon, both in degrees. s points from
 *    the array TOWARDS the source. Direction cosines: l = s_east, m = s_north,
 *    s_up = sqrt(1 - l^2 - m^2) (the hemisphere above the horizon).
 *  - geometric delay: tau_a = (r_a - r_ref) . s / c, r_ref the position of a
 *    reference receiver (default receiver 0) or an explicit phase centre, c the
 *    propagation speed (default speed_of_light).
 *
 * Sign, spelled out: a receiver with tau_a > 0 lies closer to the source, so
 * the wavefront reaches it tau_a seconds EARLIER than the reference:
 * x_a(t) = x_ref(t + tau_a), and in a channel at sky frequency f a plane wave
 * arrives as x_a = x_ref exp(+2 pi i f tau_a). Its arrival-time offset is
 * -tau_a. To align the array, each receiver is delayed by +tau_a (the negative
 * of its arrival-time offset): phase_shift with delays = geometric_delays(...)
 * multiplies by exp(-2 pi i f tau_a), which cancels that phase, so the plane
 * wave from s adds in phase. No sign flip is needed between this helper and
 * phase_shift; steering_weights (steering.h) use the same delays.
 *
 * Bad input throws std::invalid_argument naming the parameter.
 */

//! Speed of light in vacuum, m/s: the default propagation speed.
constexpr double speed_of_light = 299792458.0;

//! Unit vector (east, north, up) towards (azimuth, elevation) in degrees.
std::array<double, 3> direction_vector(double azimuth_deg,
                                                    double elevation_deg);

//! Unit vector (east, north, up) for direction cosines (l, m), l^2 + m^2 <= 1.
std::array<double, 3> direction_lm(double l, double m);

/*!
 * Geometric delay of every receiver in seconds, tau_a = (r_a - r_ref) . s / c,
 * with r_ref the position of receiver \p reference_index.
 * \param positions one (east, north, up) triple in metres per receiver (>= 1)
 * \param azimuth_deg azimuth of the source, degrees from north through east
 * \param elevation_deg elevation of the source, degrees in [-90, 90]
 * \param reference_index receiver whose delay is 0, in [0, receivers)
 * \param propagation_speed c in m/s (> 0); speed_of_light for radio, ~1540 in
 *        tissue
 */
std::vector<double>
geometric_delays(const std::vector<std::array<double, 3>>& positions,
                 double azimuth_deg,
                 double elevation_deg,
                 int reference_index = 0,
                 double propagation_speed = speed_of_light);

//! As above, with an explicit reference position (phase centre) in metres.
std::vector<double>
geometric_delays(const std::vector<std::array<double, 3>>& positions,
                 double azimuth_deg,
                 double elevation_deg,
                 const std::array<double, 3>& reference_position,
                 double propagation_speed = speed_of_light);

//! geometric_delays() for a direction given as direction cosines (l, m).
std::vector<double>
geometric_delays_lm(const std::vector<std::array<double, 3>>& positions,
                    double l,
                    double m,
                    int reference_index = 0,
                    double propagation_speed = speed_of_light);

//! geometric_delays_lm() with an explicit reference position in metres.
std::vector<double>
geometric_delays_lm(const std::vector<std::array<double, 3>>& positions,
                    double l,
                    double m,
                    const std::array<double, 3>& reference_position,
                    double propagation_speed = speed_of_light);

/*!
 * The largest delay a per-channel phase represents well: \p fraction /
 * channel_bandwidth. A phase correction is exact only at the channel's centre
 * frequency; at an offset df inside the channel the residual phase is
 * 2 pi df tau. Over a flat channel of bandwidth B the coherent gain of a
 * delay-only error tau is sinc(B tau) = sin(pi B tau) / (pi B tau): 0.90 at
 * B tau = 0.25 (-0.9 dB), 0.64 at 0.5 (-3.9 dB). Beyond this a delay smears
 * within the channel and needs a true (sample-shift) delay before the
 * channelizer.
 * \param channel_bandwidth Hz, > 0
 * \param fraction in (0, 1], default 0.25
 */
double max_representable_delay(double channel_bandwidth,
                                            double fraction = 0.25);

/*!
 * Empty when every |delays[a]| <= max_representable_delay(channel_bandwidth,
 * fraction); otherwise a one-line warning naming the receivers beyond it (the
 * first few) and the largest delay. phase_shift logs it through the GNU Radio
 * logger.
 */
std::string check_representable_delays(const std::vector<double>& delays,
                                                    double channel_bandwidth,
                                                    double fraction = 0.25);

} // namespace beamform
} // namespace gr

#endif
