/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ARRAY_SOURCE_H
#define INCLUDED_BEAMFORM_ARRAY_SOURCE_H

#include <gnuradio/beamform/api.h>
#include <gnuradio/beamform/engines/array_geometry.h>
#include <gnuradio/beamform/engines/sample_format.h>
#include <gnuradio/sync_block.h>
#include <array>

namespace gr {
namespace beamform {

/*!
 * \brief Simulated antenna array: plane-wave tones from given directions plus
 * complex Gaussian noise, as raw array samples [n_receivers] (fc32, sc16, sc8).
 * \ingroup beamform
 *
 * Receiver a sits at positions[a] (east, north, up metres). Source k is a tone
 * at sky frequency f_k = center_freq + frequency_offsets[k] arriving from
 * (azimuths[k], elevations[k]) (azimuth from north through east) with amplitude
 * amplitudes[k] and phase phases[k] (radians, at the reference receiver and
 * t = 0). With tau_ak = geometric delay (r_a - r_ref).s_k / c, receiver a sees
 * the wavefront tau_ak EARLIER than the reference (arrival offset -tau_ak), so
 * the exact (not narrow-band) model of the received RF is
 * A_k cos(2 pi f_k (t + tau_ak) + phi_k); after mixing down by center_freq the
 * complex baseband sample n (t = n / sample_rate) is
 *   x_a[n] = sum_k A_k exp(i (2 pi (f_off,k n / sample_rate + f_k tau_ak) + phi_k))
 *            + noise_a[n],
 * i.e. both the carrier phase and the envelope are delayed with the tone's
 * own sky frequency. The tone phase is evaluated exactly from the integer
 * sample index in double precision (reduced mod 1 cycle) at every 64th sample
 * and advanced in between by a double-precision rotation (off by about 1e-14
 * cycles at most), so it does not drift; the sum is formed in float.
 * noise_a[n]: independent complex Gaussian per receiver and sample with
 * E|noise|^2 = noise_amplitude^2, its real and imaginary parts independent
 * (seeded: the output is reproducible, however GNU Radio cuts the stream into
 * work calls). Each part is noise_amplitude / sqrt(2) times a value picked
 * uniformly at random, independently of every other, from a table of 2^18
 * quantiles of the standard normal distribution (scaled to mean square 1):
 * a discrete distribution whose CDF is within 2.5e-6 of the normal's, which
 * is enough for any test on fewer than about 10^11 values. Since each pick is
 * independent, the noise has no period and no correlation between receivers
 * or samples; what the table changes is the far tail: no part exceeds 4.62
 * times its RMS (a normal value does with probability 4e-6).
 *
 * Integer formats: value = round(scale * x) saturated to the type's range.
 * Tags on item 0: rx_time (uint64 seconds, double fraction) = start_time,
 * rx_freq (double, Hz) = center_freq, rx_rate (double, Hz) = sample_rate.
 * The block runs unthrottled (add a throttle for GUIs). Its output buffer
 * holds about 8 MiB of items, as the CPU engine blocks' do.
 */
class BEAMFORM_API array_source : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<array_source> sptr;

    /*!
     * \param positions one (east, north, up) triple per receiver, metres
     * \param sample_rate complex samples per second, > 0
     * \param center_freq Hz (the sky frequency of baseband 0)
     * \param azimuths source azimuths in degrees (one per source, may be empty)
     * \param elevations source elevations in degrees, [-90, 90]
     * \param frequency_offsets source frequencies relative to center_freq, Hz
     * \param amplitudes source amplitudes; empty: 1 for every source
     * \param phases source phases in radians; empty: 0
     * \param noise_amplitude RMS of the complex noise per receiver, >= 0
     * \param output_format fc32, sc16 or sc8
     * \param scale integer formats: value = round(scale * x); > 0
     * \param seed noise seed
     * \param reference_index receiver whose delays are 0
     * \param propagation_speed m/s, > 0
     * \param start_time seconds, value of the rx_time tag on item 0
     */
    static sptr make(const std::vector<std::array<double, 3>>& positions,
                     double sample_rate,
                     double center_freq,
                     const std::vector<double>& azimuths,
                     const std::vector<double>& elevations,
                     const std::vector<double>& frequency_offsets,
                     const std::vector<double>& amplitudes = {},
                     const std::vector<double>& phases = {},
                     double noise_amplitude = 0.0,
                     sample_format output_format = sample_format::fc32,
                     double scale = 1.0,
                     uint64_t seed = 1,
                     int reference_index = 0,
                     double propagation_speed = speed_of_light,
                     double start_time = 0.0);

    //! Receivers per item.
    virtual int n_receivers() const = 0;
    //! Geometric delay of every (source, receiver), [sources][receivers] seconds.
    virtual std::vector<double> source_delays() const = 0;
};

} // namespace beamform
} // namespace gr

#endif
