/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_STEERING_H
#define INCLUDED_BEAMFORM_STEERING_H

#include <gnuradio/beamform/engines/array_geometry.h>
#include <array>
#include <complex>
#include <cstddef>
#include <vector>

namespace gr {
namespace beamform {

/*!
 * \brief Steering weights for arrays of receivers, and the sky frequency of
 * every channel of a channelizer.
 * \ingroup beamform
 *
 * Convention (docs/architecture.md), all in double precision:
 *  - positions, directions and geometric delays tau_a = (r_a - r_ref) . s / c
 *    as in array_geometry.h (which computes the delays); the phase centre
 *    r_ref is receiver \p reference_index (default 0) or \p reference_position.
 *    A receiver with tau_a > 0 lies closer to the source and sees the
 *    wavefront tau_a earlier, so a narrow-band plane wave arrives as
 *    x_a = x_ref exp(+2 pi i f tau_a).
 *  - weight: w_a(f) = g_a exp(-2 pi i f tau_a) with f the channel's sky
 *    frequency and g_a the receiver's complex calibration gain; the beam
 *    sum_a w_a x_a then adds the plane wave from s coherently.
 *    conjugate = true flips the sign of the phase: w_a = g_a exp(+2 pi i f tau_a)
 *    (gains are applied as given).
 *  - weights are returned [channels][beams][receivers] complex64, the layout of
 *    tensor_beamformer.
 * Bad input throws std::invalid_argument naming the parameter.
 */

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
std::vector<double>
channel_frequencies(double center_freq,
                    double channel_spacing,
                    size_t n_channels,
                    channel_order order = channel_order::pfb);

/*!
 * Weights [channels][beams][receivers] for beams pointed at (azimuth,
 * elevation) pairs.
 * \param positions   one (east, north, up) triple in metres per receiver
 * \param az_el       [beams][2] (azimuth, elevation) degrees, flattened
 * \param frequencies sky frequency of each channel, Hz (see channel_frequencies)
 * \param gains       complex calibration gain per receiver; empty = 1, one = all
 * \param conjugate   flip the sign of the phase (the opposite convention)
 * \param reference_index receiver at the phase centre (delay 0)
 */
std::vector<std::complex<float>>
steering_weights(const std::vector<std::array<double, 3>>& positions,
                 const std::vector<double>& az_el,
                 const std::vector<double>& frequencies,
                 const std::vector<std::complex<float>>& gains = {},
                 bool conjugate = false,
                 int reference_index = 0);

//! steering_weights() with an explicit phase centre (east, north, up) in metres.
std::vector<std::complex<float>>
steering_weights(const std::vector<std::array<double, 3>>& positions,
                 const std::vector<double>& az_el,
                 const std::vector<double>& frequencies,
                 const std::vector<std::complex<float>>& gains,
                 bool conjugate,
                 const std::array<double, 3>& reference_position);

//! steering_weights() for beams given as direction cosines, lm = [beams][2] (l, m).
std::vector<std::complex<float>>
steering_weights_lm(const std::vector<std::array<double, 3>>& positions,
                    const std::vector<double>& lm,
                    const std::vector<double>& frequencies,
                    const std::vector<std::complex<float>>& gains = {},
                    bool conjugate = false,
                    int reference_index = 0);

//! steering_weights_lm() with an explicit phase centre (east, north, up) in metres.
std::vector<std::complex<float>>
steering_weights_lm(const std::vector<std::array<double, 3>>& positions,
                    const std::vector<double>& lm,
                    const std::vector<double>& frequencies,
                    const std::vector<std::complex<float>>& gains,
                    bool conjugate,
                    const std::array<double, 3>& reference_position);

} // namespace beamform
} // namespace gr

#endif
