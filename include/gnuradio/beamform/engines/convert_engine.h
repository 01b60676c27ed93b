/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_CONVERT_ENGINE_H
#define INCLUDED_BEAMFORM_ENGINES_CONVERT_ENGINE_H

#include <gnuradio/beamform/runtime/gpu_api.h>
#include <gnuradio/beamform/engines/sample_format.h>
#include <complex>
#include <memory>
#include <vector>

namespace gr {
namespace beamform {

struct convert_config {
    sample_format input = sample_format::sc16;
    size_t n_receivers = 1;
    //! One real factor per receiver (size n_receivers).
    std::vector<float> scale;

    //! std::invalid_argument naming the parameter and its accepted range.
    void validate() const;
};

/*!
 * \brief Raw array samples [receivers] (sc8, sc16, fc32) -> fc32 [receivers],
 * out[t][r] = scale[r] * in[t][r].
 *
 * Pointers live where the engine runs: host memory for cpu and emu, device
 * memory for cuda and hip. execute() enqueues on \p stream and returns; the
 * caller synchronizes.
 */
class convert_engine
{
public:
    virtual ~convert_engine() = default;
    virtual void execute(const void* in,
                         std::complex<float>* out,
                         size_t n_items,
                         stream_handle stream) = 0;

    static std::unique_ptr<convert_engine> make(const convert_config& config,
                                                const device_spec& device);
};

std::unique_ptr<convert_engine> make_convert_cpu(const convert_config& config);

} // namespace beamform
} // namespace gr

#endif
