/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ARRAY_SOURCE_IMPL_H
#define INCLUDED_BEAMFORM_ARRAY_SOURCE_IMPL_H

#include "engines/common/gaussian_noise.h"
#include <gnuradio/beamform/array_source.h>
#include <complex>

namespace gr {
namespace beamform {

//! Everything array_source::make checked, in the form the work function uses.
struct array_source_config {
    std::vector<std::array<double, 3>> positions;
    double sample_rate = 1.0;
    double center_freq = 0.0;
    std::vector<double> azimuths, elevations, frequency_offsets, amplitudes, phases;
    double noise_amplitude = 0.0;
    sample_format output_format = sample_format::fc32;
    double scale = 1.0;
    uint64_t seed = 1;
    int reference_index = 0;
    double propagation_speed = speed_of_light;
    double start_time = 0.0;

    //! std::invalid_argument naming the parameter; fills empty amplitudes/phases.
    void validate_and_complete();
};

class array_source_impl : public array_source
{
public:
    explicit array_source_impl(const array_source_config& config);

    int n_receivers() const override { return int(d_config.positions.size()); }
    std::vector<double> source_delays() const override { return d_delays; }

    //! Logs one info line: receivers, sources, item size, output buffer.
    bool start() override;
    //! Forgets the max_output_buffer GNU Radio set to what it allocated.
    bool stop() override;

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    //! Items [first, first + n) as fc32 into out: noise, then each tone added.
    void simulate(uint64_t first, size_t n, float* out);
    //! tone_re/im[t] = exp(2 pi i f_k (first + t) / sample_rate), t < n, source k.
    void evaluate_tone(size_t k, uint64_t first, size_t n);

    array_source_config d_config;
    size_t d_n_receivers;
    size_t d_n_sources;
    size_t d_tile_items;                     //!< items simulated at a time
    std::vector<double> d_delays;            //!< [sources][receivers], s
    std::vector<double> d_cycles_per_sample; //!< per source
    std::vector<float> d_phasor_re;          //!< [sources][receivers]
    std::vector<float> d_phasor_im;          //!< [sources][receivers]
    std::vector<float> d_tone_re, d_tone_im; //!< one tile, one source
    std::vector<float> d_tile;               //!< one tile fc32 (integer formats)
    gaussian_noise d_noise;
};

} // namespace beamform
} // namespace gr

#endif
