/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_ENGINE_H
#define INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_ENGINE_H

#include <gnuradio/beamform/engines/beam_types.h>
#include <gnuradio/beamform/runtime/gpu_api.h>
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace beamform {

// beam_precision, beam_output, polarization_layout, stokes_mode: the block API
// shares them, so they live in the public header.

/*!
 * Data layout (C order, last index fastest), per time step t of a batch of T:
 *   input, float16 precision:  spectra   [T][channels][receivers]      fc32
 *   input, int1 precision:     1-bit     [T][channels][2][words] uint32,
 *                              words = ceil(receivers/32), bit_packer's layout
 *   weights:                             [channels][beams][receivers]  complex
 *   output voltage, single:              [T][channels][beams]          fc32
 *   output voltage, xy_pairs:            [T][channels][beams][2]       fc32 (X, Y)
 *   output power:                        [T/n_int][n_stokes][beams][channels] float32
 *     n_stokes = 1 for single polarization (|b|^2) and for stokes I, 4 for IQUV.
 * The product per channel c: B_c (beams x T) = W_c (beams x receivers) . X_c
 * (receivers x T); 8 * beams * T * receivers operations per channel.
 */
struct tensor_beamformer_config {
    size_t n_channels = 1;
    size_t n_receivers = 1;
    size_t n_beams = 1;
    beam_precision precision = beam_precision::float16;
    beam_output output = beam_output::voltage;
    size_t n_int = 1; //!< time steps integrated per power sample (power only)
    polarization_layout polarization = polarization_layout::single;
    stokes_mode stokes = stokes_mode::I;
    //! CPU engine only: worker threads, 0 = every core (the default). GPU
    //! engines ignore it.
    size_t threads = 0;

    //! std::invalid_argument naming the parameter and its accepted range.
    void validate() const;

    size_t n_stokes() const
    {
        return (polarization == polarization_layout::xy_pairs &&
                stokes == stokes_mode::IQUV)
                   ? 4
                   : 1;
    }
    size_t words_per_channel() const { return (n_receivers + 31) / 32; }
    //! Bytes of one input item (one time step).
    size_t input_item_bytes() const;
    //! Bytes of one output item (one time step, or n_int of them for power).
    size_t output_item_bytes() const;
    //! Expected size of the weights vector.
    size_t weight_count() const { return n_channels * n_beams * n_receivers; }
};

/*!
 * fc32 values that float16 cannot hold, counted per real and imaginary part:
 * overflow, finite with |x| >= 65520, rounds to +-inf (beams become inf or
 * NaN); underflow, nonzero with |x| <= 2^-25 (3e-8), rounds to 0. Scale the
 * input (convert's per-receiver scale) so that it stays within [6.1e-5, 65504],
 * float16's normal range, where it keeps 11 significant bits.
 */
struct float16_range_counts {
    uint64_t overflow = 0;
    uint64_t underflow = 0;
};

/*!
 * \brief The beamformer of the Tensor-Core Beamformer paper: for each channel,
 * a complex matrix product of weights and samples, on tensor cores / matrix
 * cores on a GPU; optionally detected and integrated (power) in the same pass.
 *
 * Pointers live where the engine runs. execute() enqueues on \p stream.
 * n_times must be a multiple of n_int in power mode.
 */
class tensor_beamformer_engine
{
public:
    virtual ~tensor_beamformer_engine() = default;

    /*!
     * Replace the weights ([channels][beams][receivers], host memory). Takes
     * effect at the next execute(); never inside one.
     */
    virtual void set_weights(const std::vector<std::complex<float>>& weights) = 0;

    virtual void
    execute(const void* in, void* out, size_t n_times, stream_handle stream) = 0;

    /*!
     * float16 precision on a GPU: the fc32 input values that float16 rounded
     * to inf and to 0, summed over the execute() calls whose counts have
     * reached the host, in call order, without waiting (usually all but the
     * latest one or two; later ones while the GPU's device -> host copies are
     * busy), or over all of them with \p include_latest once the caller has
     * synchronized the stream. The CPU engine returns zeros (its
     * input is in host memory, where the block counts it).
     */
    virtual float16_range_counts input_range(bool include_latest) const
    {
        (void)include_latest;
        return {};
    }

    const tensor_beamformer_config& config() const { return d_config; }

    static std::unique_ptr<tensor_beamformer_engine>
    make(const tensor_beamformer_config& config,
         const std::vector<std::complex<float>>& weights,
         const device_spec& device);

protected:
    explicit tensor_beamformer_engine(const tensor_beamformer_config& c) : d_config(c) {}
    tensor_beamformer_config d_config;
};

/*!
 * std::invalid_argument unless \p weights has config.weight_count() finite
 * entries (for float16 precision: each part below 65520 in magnitude, which
 * float16 would round to inf). make() and the block call it before any engine
 * sees the weights.
 */
void check_tensor_beamformer_weights(const tensor_beamformer_config& config,
                                     const std::vector<std::complex<float>>& weights);

//! Count over \p n complex values in host memory.
float16_range_counts count_float16_range(const std::complex<float>* values, size_t n);

std::unique_ptr<tensor_beamformer_engine>
make_tensor_beamformer_cpu(const tensor_beamformer_config& config,
                           const std::vector<std::complex<float>>& weights);

} // namespace beamform
} // namespace gr

#endif
