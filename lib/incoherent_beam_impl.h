/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_INCOHERENT_BEAM_IMPL_H
#define INCLUDED_BEAMFORM_INCOHERENT_BEAM_IMPL_H

#include "block_support/engine_block.h"
#include <gnuradio/beamform/engines/incoherent_beam_engine.h>
#include <gnuradio/beamform/incoherent_beam.h>

namespace gr {
namespace beamform {

class incoherent_beam_impl : public engine_block<incoherent_beam, incoherent_beam_engine>
{
public:
    incoherent_beam_impl(const incoherent_beam_config& config, const device_spec& device);

    int n_int() const override { return int(d_config.n_int); }
    polarization_layout polarization() const override { return d_config.polarization; }
    stokes_mode stokes() const override { return d_config.stokes; }
    int n_stokes() const override { return int(d_config.n_stokes()); }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    const incoherent_beam_config d_config;
};

} // namespace beamform
} // namespace gr

#endif
