/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engines/common/spectrum_shape.h"
#include "runtime/backends.h"
#include <gnuradio/beamform/engines/incoherent_beam_engine.h>
#include <stdexcept>
#include <string>

namespace gr {
namespace beamform {

BEAMFORM_DECLARE_GPU_MAKER(incoherent_beam_engine,
                           make_incoherent_beam_gpu,
                           const incoherent_beam_config&,
                           const device_spec&)

void incoherent_beam_config::validate() const
{
    validate_spectrum_shape(n_channels, n_receivers);
    if (n_int < 1 || n_int > max_spectrum_count)
        throw std::invalid_argument("n_int must be in [1, 1048576], got " +
                                    std::to_string(n_int));
    if (polarization != polarization_layout::single &&
        polarization != polarization_layout::xy_pairs)
        throw std::invalid_argument(
            "polarization must be single (0) or xy_pairs (1), got " +
            std::to_string(static_cast<int>(polarization)));
    if (stokes != stokes_mode::I && stokes != stokes_mode::IQUV)
        throw std::invalid_argument("stokes must be I (0) or IQUV (1), got " +
                                    std::to_string(static_cast<int>(stokes)));
    if (polarization == polarization_layout::xy_pairs && n_receivers % 2)
        throw std::invalid_argument("polarization xy_pairs needs an even n_receivers "
                                    "(X, Y of each antenna), got " +
                                    std::to_string(n_receivers));
    if (stokes == stokes_mode::IQUV && polarization != polarization_layout::xy_pairs)
        throw std::invalid_argument(
            "stokes IQUV needs polarization xy_pairs (got single)");
    if (threads > 1024)
        throw std::invalid_argument("threads must be in [0, 1024], got " +
                                    std::to_string(threads));
}

std::unique_ptr<incoherent_beam_engine>
incoherent_beam_engine::make(const incoherent_beam_config& config,
                             const device_spec& device)
{
    config.validate();
    return make_for_device(
        "incoherent_beam",
        device,
        [&] { return make_incoherent_beam_cpu(config); },
        BEAMFORM_GPU_MAKERS(make_incoherent_beam_gpu),
        config,
        device);
}

} // namespace beamform
} // namespace gr
