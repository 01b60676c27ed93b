/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engines/common/spectrum_shape.h"
#include "runtime/backends.h"
#include <gnuradio/beamform/engines/rfi_flagger_engine.h>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace gr {
namespace beamform {

BEAMFORM_DECLARE_GPU_MAKER(rfi_flagger_engine,
                           make_rfi_flagger_gpu,
                           const rfi_flagger_config&,
                           const device_spec&)

namespace {

//! A double as %g (std::to_string prints 1e-9 as 0.000000).
std::string number(double v)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v);
    return text;
}
} // namespace

rfi_replacement rfi_replacement_from_string(const std::string& name,
                                            const char* parameter)
{
    if (name == "zeros")
        return rfi_replacement::zeros;
    if (name == "noise")
        return rfi_replacement::noise;
    throw std::invalid_argument(std::string(parameter) +
                                " must be \"zeros\" or \"noise\", got \"" + name + "\"");
}

const char* to_string(rfi_replacement r)
{
    return r == rfi_replacement::noise ? "noise" : "zeros";
}

void rfi_flagger_config::validate() const
{
    validate_spectrum_shape(n_channels, n_receivers);
    if (block_size < 2 || block_size > 65536)
        throw std::invalid_argument(
            "block_size (M, spectra per SK estimate) must be in [2, 65536], got " +
            std::to_string(block_size));
    if (!(pfa >= 1e-7 && pfa <= 0.25))
        throw std::invalid_argument(
            "pfa (false-alarm probability per side) must be in [1e-7, 0.25], got " +
            number(pfa));
    if (!(mad_threshold == 0.0 || (mad_threshold > 0.0 && mad_threshold <= 1e6)))
        throw std::invalid_argument(
            "mad_threshold must be 0 (off) or in (0, 1e6] median absolute deviations, "
            "got " +
            number(mad_threshold));
    if (replacement != rfi_replacement::zeros && replacement != rfi_replacement::noise)
        throw std::invalid_argument("replace must be zeros (0) or noise (1), got " +
                                    std::to_string(static_cast<int>(replacement)));
    if (threads > 1024)
        throw std::invalid_argument("threads must be in [0, 1024], got " +
                                    std::to_string(threads));
}

std::unique_ptr<rfi_flagger_engine>
rfi_flagger_engine::make(const rfi_flagger_config& config, const device_spec& device)
{
    config.validate();
    return make_for_device(
        "rfi_flagger",
        device,
        [&] { return make_rfi_flagger_cpu(config); },
        BEAMFORM_GPU_MAKERS(make_rfi_flagger_gpu),
        config,
        device);
}

} // namespace beamform
} // namespace gr
