/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_INCOHERENT_BEAM_ENGINE_H
#define INCLUDED_BEAMFORM_ENGINES_INCOHERENT_BEAM_ENGINE_H

#include <gnuradio/beamform/engines/beam_types.h>
#include <gnuradio/beamform/runtime/gpu_api.h>
#include <complex>
#include <cstdint>
#include <memory>

namespace gr {
namespace beamform {

//! What does not change while the engine runs.
struct incoherent_beam_config {
    size_t n_channels = 1;
    size_t n_receivers = 1;
    //! Spectra summed per output item, in [1, 1048576].
    size_t n_int = 1;
    //! single, or xy_pairs (receivers 2k, 2k+1 = X, Y of antenna k; even count).
    polarization_layout polarization = polarization_layout::single;
    //! I, or IQUV (needs xy_pairs).
    stokes_mode stokes = stokes_mode::I;
    //! CPU engine only: worker threads, 0 = every core. GPU engines ignore it.
    size_t threads = 0;

    size_t n_stokes() const { return stokes == stokes_mode::IQUV ? 4 : 1; }
    size_t input_item_bytes() const { return n_channels * n_receivers * 8; }
    size_t output_item_bytes() const { return n_stokes() * n_channels * 4; }

    //! std::invalid_argument naming the parameter, its value and the accepted range.
    void validate() const;
};

/*!
 * \brief The incoherent beam: receiver powers summed, per channel.
 *
 * Input: spectra [n_out * n_int][n_channels][n_receivers] complex float;
 * output: [n_out][n_stokes][n_channels] float (the tensor beamformer's power
 * item for one beam), where the engine runs (host memory for cpu and emu,
 * device memory for cuda and hip):
 *  - single, I:   out[o][0][c] = sum_t sum_a |x[t][c][a]|^2
 *  - xy_pairs, I: the same sum (Stokes I = |X|^2 + |Y|^2 summed over antennas)
 *  - xy_pairs, IQUV: I, Q = sum |X|^2 - |Y|^2, U = sum 2 Re(X Y*),
 *    V = sum 2 Im(X Y*), over antennas k (X = x[2k], Y = x[2k+1])
 * with t over the n_int spectra of output o. execute() enqueues on \p stream
 * and returns; the caller synchronizes.
 */
class incoherent_beam_engine
{
public:
    virtual ~incoherent_beam_engine() = default;

    virtual void execute(const std::complex<float>* in,
                         float* out,
                         size_t n_out,
                         stream_handle stream) = 0;

    static std::unique_ptr<incoherent_beam_engine>
    make(const incoherent_beam_config& config, const device_spec& device);
};

std::unique_ptr<incoherent_beam_engine>
make_incoherent_beam_cpu(const incoherent_beam_config& config);

} // namespace beamform
} // namespace gr

#endif
