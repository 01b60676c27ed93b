/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_INCOHERENT_BEAM_H
#define INCLUDED_BEAMFORM_INCOHERENT_BEAM_H

#include <gnuradio/beamform/api.h>
#include <gnuradio/beamform/device_block_info.h>
#include <gnuradio/beamform/engines/beam_types.h>
#include <gnuradio/sync_decimator.h>

namespace gr {
namespace beamform {

/*!
 * \brief The incoherent beam: the powers of all receivers summed per channel
 * and integrated over n_int spectra.
 * \ingroup beamform
 *
 * Input item: spectra [n_channels][n_receivers] gr_complex (the channelizer's,
 * phase_shift's or rfi_flagger's output). Output item, one per n_int input
 * items: [n_stokes][n_channels] float, the tensor beamformer's power item for
 * a single beam, so filterbank_sink (n_beams = 1) writes it as a filterbank
 * file:
 *  - polarization single, stokes I: sum over receivers and n_int spectra of |x|^2;
 *  - xy_pairs (receivers 2k, 2k+1 = X, Y of antenna k), stokes I:
 *    I = sum (|X|^2 + |Y|^2), the same number;
 *  - xy_pairs, stokes IQUV: I, Q = sum |X|^2 - |Y|^2, U = sum 2 Re(X Y*),
 *    V = sum 2 Im(X Y*), summed over antennas and spectra.
 * The incoherent beam sees the whole field of view of one receiver, with the
 * sensitivity of sqrt(n_antennas) of them (a coherent beam: n_antennas).
 *
 * Tags: each input tag goes to the output item made from its spectrum
 * (offset / n_int, rounded down).
 */
class BEAMFORM_API incoherent_beam : virtual public gr::sync_decimator,
                                     virtual public device_block_info
{
public:
    typedef std::shared_ptr<incoherent_beam> sptr;

    /*!
     * \param n_channels channels per item, >= 1
     * \param n_receivers receivers per channel, >= 1 (even for xy_pairs)
     * \param n_int spectra summed per output item, in [1, 1048576]
     * \param polarization single, or xy_pairs (receivers 2k, 2k+1 = X, Y)
     * \param stokes I, or IQUV (needs xy_pairs)
     * \param device "auto", "cpu", "cuda:N", "hip:N" (or "emu:N" for tests)
     * \param threads worker threads of the CPU engine, 0 = every core (GPU: ignored)
     */
    static sptr make(int n_channels,
                     int n_receivers,
                     int n_int = 1,
                     polarization_layout polarization = polarization_layout::single,
                     stokes_mode stokes = stokes_mode::I,
                     const std::string& device = "auto",
                     int threads = 0);

    virtual int n_int() const = 0;
    virtual polarization_layout polarization() const = 0;
    virtual stokes_mode stokes() const = 0;
    //! 1 (I) or 4 (IQUV): the output item is [n_stokes][n_channels].
    virtual int n_stokes() const = 0;
};

} // namespace beamform
} // namespace gr

#endif
