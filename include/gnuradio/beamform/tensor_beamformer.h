/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_TENSOR_BEAMFORMER_H
#define INCLUDED_BEAMFORM_TENSOR_BEAMFORMER_H

#include <gnuradio/beamform/api.h>
#include <gnuradio/beamform/engines/beam_types.h>
#include <gnuradio/beamform/device_block_info.h>
#include <gnuradio/sync_decimator.h>
#include <array>
#include <cstdint>

namespace gr {
namespace beamform {

/*!
 * \brief Tied-array beamformer on tensor cores: for every channel, beams =
 * weights . spectra, optionally detected and integrated in the same pass.
 * \ingroup beamform
 *
 * Items (C order, last index fastest), one input item per time step:
 *  - input, precision float16: spectra [n_channels][n_receivers] gr_complex;
 *    samples and weights are rounded to fp16, sums are fp32.
 *  - input, precision int1: the packed 1-bit stream of bit_packer,
 *    [n_channels][2][words] uint32 with words = ceil(n_receivers / 32);
 *    the weights are reduced to their signs too (value >= 0 -> +1).
 *  - output voltage, polarization single:   [n_channels][n_beams] gr_complex,
 *    beam_b = sum_r w[c][b][r] x[c][r] (no conjugation of the weights).
 *  - output voltage, polarization xy_pairs: [n_channels][n_beams][2] gr_complex
 *    (X beam over receivers 2k, Y beam over receivers 2k+1).
 *  - output power: [n_stokes][n_beams][n_channels] float, one item per n_int
 *    input items: |beam|^2 (single), Stokes I = |X|^2 + |Y|^2 (xy_pairs, I), or
 *    I, Q = |X|^2 - |Y|^2, U = 2 Re(X Y*), V = 2 Im(X Y*) (xy_pairs, IQUV),
 *    summed over n_int time steps.
 *
 * Weights: [n_channels][n_beams][n_receivers] complex, from an array or from
 * the steering helper (gnuradio.beamform.steering_weights or
 * beamform.steering_helpers.weights_for).
 *
 * Runtime updates, message ports:
 *  - "weights": a c32vector of the full weight matrix, or a dict with key
 *    "weights" holding one.
 *  - "pointing": a dict with "az_el" (f64vector, [n_beams][2] azimuth,
 *    elevation in degrees) or "lm" (f64vector, [n_beams][2] direction
 *    cosines); needs set_geometry() first.
 *  Updates (also those of set_weights / set_pointing_*) are queued and applied
 *  at the first item of the next work call, never inside one; in power mode
 *  that is also an integration boundary. The first output item made with the
 *  new weights carries the tag "weights_update" (value: the number of updates
 *  applied so far, a uint64). A malformed message is logged and dropped.
 *
 * Tags: all input tags pass through to the output item made from their time
 * step: offset / n_int rounded down in power mode (so a tag stays with the
 * integration that contains it; GNU Radio's own decimator propagation would
 * round to the nearest item), unchanged in voltage mode.
 *
 * On a GPU input and output stay in GPU memory for the neighbouring beamform
 * blocks; output buffers hold at least 64 MiB so that one work call carries
 * enough time steps to fill the device.
 */
class BEAMFORM_API tensor_beamformer : virtual public gr::sync_decimator,
                                       virtual public device_block_info
{
public:
    typedef std::shared_ptr<tensor_beamformer> sptr;

    /*!
     * \param n_channels   channels per item, >= 1
     * \param n_receivers  receivers (antenna polarizations) per channel, >= 1
     * \param n_beams      beams per channel, >= 1
     * \param weights      [n_channels][n_beams][n_receivers] complex, finite
     * \param precision    float16 or int1 (the input is then bit_packer's stream)
     * \param output       voltage (complex beams) or power (detected, integrated)
     * \param n_int        time steps summed per power item (power only; 1 for voltage)
     * \param polarization single, or xy_pairs (receivers 2k, 2k+1 = X, Y)
     * \param stokes       I or IQUV (IQUV needs xy_pairs)
     * \param device       "auto", "cpu", "cuda:N", "hip:N" (or "emu:N" for tests)
     * \param threads      worker threads of the CPU engine, 0 = every core (GPU: ignored)
     */
    static sptr make(int n_channels,
                     int n_receivers,
                     int n_beams,
                     const std::vector<gr_complex>& weights,
                     beam_precision precision = beam_precision::float16,
                     beam_output output = beam_output::voltage,
                     int n_int = 1,
                     polarization_layout polarization = polarization_layout::single,
                     stokes_mode stokes = stokes_mode::I,
                     const std::string& device = "auto",
                     int threads = 0);

    //! Queue new weights ([n_channels][n_beams][n_receivers]); checked now.
    virtual void set_weights(const std::vector<gr_complex>& weights) = 0;
    //! The most recently given weights (queued or in use).
    virtual std::vector<gr_complex> weights() const = 0;

    /*!
     * Array geometry for pointing updates (the "pointing" port and
     * set_pointing_*): positions one (east, north, up) triple in metres per
     * receiver (n_receivers, as in array_geometry.h), frequencies
     * [n_channels] sky frequency in Hz, gains one complex gain per receiver
     * (empty = 1, one value = all), conjugate as in steering.h. The phase
     * centre is receiver 0.
     */
    virtual void set_geometry(const std::vector<std::array<double, 3>>& positions,
                              const std::vector<double>& frequencies,
                              const std::vector<gr_complex>& gains = {},
                              bool conjugate = false) = 0;
    //! Queue weights for beams at az_el = [n_beams][2] degrees (needs set_geometry).
    virtual void set_pointing_az_el(const std::vector<double>& az_el) = 0;
    //! Queue weights for beams at lm = [n_beams][2] direction cosines (needs
    //! set_geometry).
    virtual void set_pointing_lm(const std::vector<double>& lm) = 0;

    //! Weight updates applied so far (not counting the weights given to make()).
    virtual uint64_t weight_updates_applied() const = 0;
    /*!
     * Messages on ports "weights" and "pointing" rejected so far (unknown key,
     * wrong length, empty vector, non-finite value): each one is logged as an
     * error naming the port and the key, and none of it is applied.
     */
    virtual uint64_t messages_rejected() const = 0;
    /*!
     * float16 precision, cpu and emu devices: input values (real or imaginary
     * parts) that float16 rounded to inf (|x| >= 65520; the beams become inf or
     * NaN) and nonzero ones it rounded to 0 (|x| <= 2^-25), counted over all
     * work calls; a warning is logged when they occur (the 1st, 2nd, 4th, 8th,
     * ... work call with any). Scale the input into [6.1e-5, 65504], e.g. with
     * convert's per-receiver scale. 0 on GPU devices (not counted there).
     */
    virtual uint64_t float16_overflows() const = 0;
    virtual uint64_t float16_underflows() const = 0;

    virtual int n_channels() const = 0;
    virtual int n_receivers() const = 0;
    virtual int n_beams() const = 0;
    virtual int n_int() const = 0;
    virtual beam_precision precision() const = 0;
    virtual beam_output output() const = 0;
    virtual polarization_layout polarization() const = 0;
    virtual stokes_mode stokes() const = 0;
    //! Bytes of one input item and of one output item.
    virtual size_t input_item_bytes() const = 0;
    virtual size_t output_item_bytes() const = 0;
};

} // namespace beamform
} // namespace gr

#endif
