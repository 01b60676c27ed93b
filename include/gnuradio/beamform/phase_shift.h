/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_PHASE_SHIFT_H
#define INCLUDED_BEAMFORM_PHASE_SHIFT_H

#include <gnuradio/beamform/api.h>
#include <gnuradio/beamform/engines/array_geometry.h>
#include <gnuradio/beamform/device_block_info.h>
#include <gnuradio/sync_block.h>
#include <array>
#include <complex>

namespace gr {
namespace beamform {

/*!
 * \brief Per-channel delay compensation of spectra by phase rotation (LOFAR's
 * "phase shift per channel"), with complex calibration gains.
 * \ingroup beamform
 *
 * Item in and out: spectra [n_channels][n_receivers] gr_complex.
 *   out[t][c][a] = g_a exp(-2 pi i f_c tau_a(t)) in[t][c][a]
 *   tau_a(t) = delays[a] + rates[a] (t - t0),  t = n * item_period
 * f_c: the sky frequency of channel c (channel_frequencies, Hz); n: the
 * absolute index of the item since the flowgraph started (nitems_read), so t is
 * seconds on the item clock and t0 is on the same clock. The phase is evaluated
 * per item from n in double precision (no accumulation): it does not drift
 * over hours of samples.
 *
 * Meaning of the sign: the block DELAYS receiver a by tau_a (a delay by tau
 * multiplies a narrow-band signal at f by exp(-2 pi i f tau)). With delays =
 * geometric_delays(positions, az, el) (tau_a = (r_a - r_ref).s/c,
 * the receiver nearer the source sees the wavefront tau_a earlier) a plane wave
 * from (az, el) leaves the block in phase on every receiver.
 *
 * Updates: set_delays(), point_at() and messages on the `delays` port are held
 * until the start of the next work() call; the first item of that call is the
 * first one rotated with the new values (never half a batch), and the block
 * adds a stream tag "phase_shift_update" (value: the pmt dict that was
 * applied, or the keys set by the method) on that output item. Other tags pass
 * through unchanged (rate 1).
 *
 * Message port `delays`: a PMT dict with any of
 *   "delays" (f64/f32 vector or list of reals, seconds; one value or one per
 *            receiver), "rates" (s/s, same forms), "gains" (c32vector or list
 *            of complex; one or one per receiver), "t0" (real, seconds),
 *   "az_el"  (pair, tuple or vector (azimuth_deg, elevation_deg)): delays =
 *            geometric_delays of the positions given by set_geometry() and
 *            rates 0 (unless "rates" is given); not together with "delays".
 * Keys not present keep their values. A bad message is logged as an error and
 * ignored (the flowgraph keeps running).
 *
 * Delays larger than 0.25 / channel_bandwidth cannot be represented by a
 * per-channel phase (they smear within a channel): the block logs a warning
 * whenever delays are set beyond that (docs/phase_shift.md). The channel
 * bandwidth is the smallest spacing of channel_frequencies, or 1/item_period
 * with a single channel.
 *
 * On a GPU the spectra stay in GPU memory; buffers hold at least 64 MiB so that
 * one work call carries many items.
 */
class BEAMFORM_API phase_shift : virtual public gr::sync_block,
                                 virtual public device_block_info
{
public:
    typedef std::shared_ptr<phase_shift> sptr;

    /*!
     * \param n_channels channels per item, >= 1
     * \param n_receivers receivers per channel, >= 1
     * \param channel_frequencies sky frequency of every channel, Hz (n_channels)
     * \param item_period seconds per item, 1 / channel sample rate, > 0
     * \param delays seconds; empty (0), one for all, or one per receiver
     * \param rates seconds per second; empty (0), one, or one per receiver
     * \param gains complex; empty (1), one, or one per receiver
     * \param t0 seconds on the item clock at which delays hold
     * \param device "auto", "cpu", "cuda:N", "hip:N" (or "emu:N" for tests)
     * \param threads worker threads of the CPU engine, 0 = every core (GPU: ignored)
     */
    static sptr make(int n_channels,
                     int n_receivers,
                     const std::vector<double>& channel_frequencies,
                     double item_period,
                     const std::vector<double>& delays = {},
                     const std::vector<double>& rates = {},
                     const std::vector<gr_complex>& gains = {},
                     double t0 = 0.0,
                     const std::string& device = "auto",
                     int threads = 0);

    /*!
     * New delay model, applied from the first item of the next work() call.
     * Empty vectors keep the current values; one value applies to all receivers;
     * t0 always replaces the current t0.
     */
    virtual void set_delays(const std::vector<double>& delays,
                            const std::vector<double>& rates = {},
                            const std::vector<gr_complex>& gains = {},
                            double t0 = 0.0) = 0;

    /*!
     * Receiver positions (east, north, up metres, one per receiver) for
     * point_at() and the "az_el" message key; the reference receiver's delay is
     * 0; propagation_speed in m/s.
     */
    virtual void set_geometry(const std::vector<std::array<double, 3>>& positions,
                              int reference_index = 0,
                              double propagation_speed = speed_of_light) = 0;

    /*!
     * delays = geometric_delays(positions, azimuth, elevation) (rates 0, gains
     * and t0 unchanged), applied like set_delays().
     */
    virtual void point_at(double azimuth_deg, double elevation_deg) = 0;

    //! The model in use (or pending for the next work call).
    virtual std::vector<double> delays() const = 0;
    virtual std::vector<double> rates() const = 0;
    virtual std::vector<gr_complex> gains() const = 0;
    virtual double t0() const = 0;
    virtual std::vector<double> channel_frequencies() const = 0;
    virtual double item_period() const = 0;
    //! 0.25 / channel bandwidth: beyond it the block warns.
    virtual double max_representable_delay() const = 0;
    //! Updates applied so far (constructor excluded).
    virtual uint64_t updates_applied() const = 0;
    /*!
     * Messages on port "delays" rejected so far (unknown key, wrong length,
     * empty vector, non-finite or out-of-range value): each one is logged as an
     * error naming the port and the key, and none of it is applied.
     */
    virtual uint64_t messages_rejected() const = 0;
};

} // namespace beamform
} // namespace gr

#endif
