/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_RCA_DAS_H
#define INCLUDED_BEAMFORM_RCA_DAS_H

#include <gnuradio/beamform/api.h>
#include <gnuradio/beamform/device_block_info.h>
#include <gnuradio/sync_decimator.h>
#include <string>
#include <vector>

namespace gr {
namespace beamform {

/*!
 * \brief Row-column (RCA) ultrasound volume beamformer: dual-stage
 * delay-and-sum (Praesius et al., "Real-Time Full-Volume Row-Column Imaging"),
 * or the conventional full 3D delay-and-sum it approximates.
 * \ingroup beamform
 *
 * Input item: the RF data of one emission, [n_elements][n_samples] of int16
 * (input_type "int16") or float32 ("float32"), received by the side that does
 * not transmit. The emissions of a volume arrive in the order of
 * source_positions; the first input item is emission 0.
 *
 * Output item: one volume per n_emissions input items, [x][y][z] (z fastest):
 * fc32 for output "iq" (base band, demodulated by exp(-2 pi i (2 f_d / c) z)),
 * float32 for "envelope" and "db" (20 log10(envelope / db_reference), or
 * relative to the volume's maximum when db_reference is 0; floored at -300 dB).
 *
 * Geometry (metres): probe in z = 0; element i of either side at
 * (i - (n_elements - 1) / 2) * pitch; rows are distributed along y, columns
 * along x. Each emission is a defocused wave from a virtual line source at
 * source_positions[j] along the transmitting side's axis and depth
 * source_depths[j] <= 0. t_start is the time of RF sample 0, where t = 0 is
 * when the wave crosses z = 0 in front of the virtual source.
 *
 * Processing "iq": matched filter (filter_taps, N_f taps) made analytic by a
 * Hilbert transform, demodulation by f_d (demodulation_frequency, 0 means
 * center_frequency), keeping every decimation-th sample; "real": the real
 * matched filter, and an axial Hilbert FIR (33 taps) on the volume for the
 * iq/envelope/db outputs. Stage 1 beamforms one xz image per emission (Hann
 * dynamic apodization with f_number, cubic Lagrange interpolation, early exit),
 * stage 2 extrapolates and sums them into the volume (eq. 22).
 *
 * Tags: propagated by GNU Radio's default policy; their offsets are divided by
 * n_emissions (the block's rate), so a tag on any emission of a volume lands on
 * that volume's item.
 *
 * On a GPU, input and output items live in GPU memory (device_buffer); output
 * buffers hold at least two volumes. gpu_precision "float16" runs the
 * half-precision kernels there (I/Q: half2_pipelined, real: half2_real).
 */
class BEAMFORM_API rca_das : virtual public gr::sync_decimator,
                             virtual public device_block_info
{
public:
    typedef std::shared_ptr<rca_das> sptr;

    /*!
     * \param n_elements elements per side (receivers per emission), [4, 16384]
     * \param pitch element pitch [m]
     * \param center_frequency pulse centre frequency f0 [Hz]
     * \param sampling_frequency RF sampling rate fs [Hz]
     * \param speed_of_sound c [m/s]
     * \param t_start time of RF sample 0 [s]
     * \param n_samples RF samples per receiver and emission
     * \param transmit "rows" or "columns": the side that transmits
     * \param source_positions virtual source position of each emission along the
     *        transmitting side's axis [m]; their number is n_emissions
     * \param source_depths virtual source depths [m] (<= 0), one for all or one
     *        per emission
     * \param x_start,x_step,x_count output grid along x [m]
     * \param y_start,y_step,y_count output grid along y [m]
     * \param z_start,z_step,z_count output grid along z [m], z_start > 0
     * \param f_number F# of the Hann receive and transmit apodization
     * \param filter_taps matched filter taps; empty: a 23-tap Gaussian pulse at
     *        center_frequency with 50 % bandwidth (rca_gaussian_pulse_taps)
     * \param decimation keep every decimation-th filtered sample
     * \param input_type "int16" or "float32"
     * \param output "iq", "envelope" or "db"
     * \param db_reference envelope of 0 dB; 0: each volume's maximum
     * \param processing "iq" or "real"
     * \param method "dual_stage" or "conventional"
     * \param demodulation_frequency f_d [Hz]; 0: center_frequency
     * \param device "auto", "cpu", "cuda:N", "hip:N" (or "emu:N" for tests)
     * \param gpu_precision arithmetic on a GPU: "float32" or "float16" (half
     *        precision storage and interpolation, about 1.25x the volume rate,
     *        relative error below 2e-3 instead of 1e-4; needs input_type
     *        "int16" and method "dual_stage" on every device). The CPU engine
     *        computes in float32 whatever it says (logged once).
     */
    static sptr make(int n_elements = 128,
                     double pitch = 200e-6,
                     double center_frequency = 6e6,
                     double sampling_frequency = 31.25e6,
                     double speed_of_sound = 1540.0,
                     double t_start = 0.0,
                     int n_samples = 894,
                     const std::string& transmit = "rows",
                     const std::vector<double>& source_positions = { 0.0 },
                     const std::vector<double>& source_depths = { -6.4e-3 },
                     double x_start = -12.9e-3,
                     double x_step = 25.8e-3 / 133,
                     int x_count = 133,
                     double y_start = -12.9e-3,
                     double y_step = 25.8e-3 / 115,
                     int y_count = 115,
                     double z_start = 5e-3,
                     double z_step = 20e-3 / 250,
                     int z_count = 250,
                     double f_number = 0.6,
                     const std::vector<float>& filter_taps = std::vector<float>(),
                     int decimation = 3,
                     const std::string& input_type = "int16",
                     const std::string& output = "envelope",
                     double db_reference = 0.0,
                     const std::string& processing = "iq",
                     const std::string& method = "dual_stage",
                     double demodulation_frequency = 0.0,
                     const std::string& device = "auto",
                     const std::string& gpu_precision = "float32");

    //! Emissions per volume (the decimation of this block).
    virtual int n_emissions() const = 0;
    //! Depth samples of the stage-1 images (chosen to cover eq. 22's look-ups).
    virtual int lri_z_count() const = 0;
    //! Sampling-criterion warnings (eq. 7) for this grid; also logged at construction.
    virtual std::vector<std::string> warnings() const = 0;
    //! What runs: engine, kernels, batch sizes.
    virtual std::string engine_description() const = 0;
    //! The matched filter in use (filter_taps, or the default).
    virtual std::vector<float> filter_taps() const = 0;
};

} // namespace beamform
} // namespace gr

#endif
