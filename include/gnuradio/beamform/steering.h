/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_STEERING_H
#define INCLUDED_BEAMFORM_STEERING_H

#include <gnuradio/beamform/api.h>
#include <complex>
#include <cstddef>
#include <vector>

namespace gr {
namespace beamform {

/*!
 * \brief Steering weights and geometric delays for arrays of receivers.
 * \ingroup beamform
 *
 * Convention (design.md), all in double precision:
 *  - positions: per receiver (east, north, up) in metres, flattened
 *    [receivers][3]. A receiver is one antenna polarization, so X and Y of one
 *    antenna share a position.
 *  - direction: s = (cos el sin az, cos el cos az, sin el) in east-north-up,
 *    azimuth from north through east, elevation above the horizon, degrees.
 *    Direction cosines: l = s_east, m = s_north, s_up = sqrt(1 - l^2 - m^2)
 *    (the hemisphere above the horizon).
 *  - geometric delay: tau_a = (r_a - r_ref) . s / c, r_ref = the first
 *    receiver's position unless \p reference is given. A receiver with
 *    tau_a > 0 lies closer to the source and sees the wavefront tau_a earlier,
 *    so a narrow-band plane wave arrives as x_a = x_ref exp(+2 pi i f tau_a).
 *  - weight: w_a(f) = g_a exp(-2 pi i f tau_a) with f the channel's sky
 *    frequency and g_a the receiver's complex calibration gain; the beam
 *    sum_a w_a x_a then adds the plane wave from s coherently.
 *    conjugate = true flips the sign of the phase: w_a = g_a exp(+2 pi i f tau_a)
 *    (gains are applied as given).
 *  - weights are returned [channels][beams][receivers] complex64, the layout of
 *    tensor_beamformer.
 * Bad input throws std::invalid_argument naming the parameter.
 */

//! Speed of light in vacuum, m/s.
constexpr double speed_of_light = 299792458.0;

/*!
 * Channel order of a channelizer's output.
 * pfb: GNU Radio's pfb_channelizer_ccf (and an unshifted FFT): channel 0 at
 *      DC, then the positive offsets, then the negative ones; channel i sits at
 *      offset i for i < ceil(n/2), else i - n (with even n, channel n/2 is -n/2).
 * fft_shift: ascending offsets -floor(n/2) .. ceil(n/2) - 1.
 */
enum class channel_order { pfb, fft_shift };

/*!
 * Sky frequency of every channel: center_freq + offset_i * channel_spacing,
 * offsets in \p order. For pfb_channelizer_ccf with input rate fs and n
 * channels, channel_spacing = fs / n and center_freq is the tuning frequency.
 */
BEAMFORM_API std::vector<double>
channel_frequencies(double center_freq,
                    double channel_spacing,
                    size_t n_channels,
                    channel_order order = channel_order::pfb);

//! Unit vector (east, north, up) towards (azimuth, elevation) in degrees.
BEAMFORM_API std::vector<double> direction_az_el(double azimuth_deg,
                                                 double elevation_deg);

//! Unit vector (east, north, up) for direction cosines (l, m), l^2 + m^2 <= 1.
BEAMFORM_API std::vector<double> direction_lm(double l, double m);

/*!
 * Geometric delay of every receiver in seconds towards (azimuth, elevation):
 * tau_a = (r_a - r_ref) . s / c.
 * \param positions [receivers][3] (east, north, up) metres, flattened
 * \param reference (east, north, up) of the phase centre; empty: receiver 0
 */
BEAMFORM_API std::vector<double>
geometric_delays(const std::vector<double>& positions,
                 double azimuth_deg,
                 double elevation_deg,
                 const std::vector<double>& reference = {});

//! geometric_delays() for a direction given as direction cosines (l, m).
BEAMFORM_API std::vector<double>
geometric_delays_lm(const std::vector<double>& positions,
                    double l,
                    double m,
                    const std::vector<double>& reference = {});

/*!
 * Weights [channels][beams][receivers] for beams pointed at (azimuth,
 * elevation) pairs.
 * \param positions   [receivers][3] (east, north, up) metres, flattened
 * \param az_el       [beams][2] (azimuth, elevation) degrees, flattened
 * \param frequencies sky frequency of each channel, Hz (see channel_frequencies)
 * \param gains       complex calibration gain per receiver; empty = 1, one = all
 * \param conjugate   flip the sign of the phase (the opposite convention)
 * \param reference   phase centre (east, north, up); empty = receiver 0
 */
BEAMFORM_API std::vector<std::complex<float>>
steering_weights(const std::vector<double>& positions,
                 const std::vector<double>& az_el,
                 const std::vector<double>& frequencies,
                 const std::vector<std::complex<float>>& gains = {},
                 bool conjugate = false,
                 const std::vector<double>& reference = {});

//! steering_weights() for beams given as direction cosines, lm = [beams][2] (l, m).
BEAMFORM_API std::vector<std::complex<float>>
steering_weights_lm(const std::vector<double>& positions,
                    const std::vector<double>& lm,
                    const std::vector<double>& frequencies,
                    const std::vector<std::complex<float>>& gains = {},
                    bool conjugate = false,
                    const std::vector<double>& reference = {});

} // namespace beamform
} // namespace gr

#endif
