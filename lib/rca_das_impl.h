/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_RCA_DAS_IMPL_H
#define INCLUDED_BEAMFORM_RCA_DAS_IMPL_H

#include "block_support/engine_block.h"
#include <gnuradio/beamform/engines/rca_das_engine.h>
#include <gnuradio/beamform/rca_das.h>

namespace gr {
namespace beamform {

class rca_das_impl : public engine_block<rca_das, rca_das_engine>
{
public:
    rca_das_impl(const rca_das_config& config,
                 const device_spec& device,
                 const std::vector<std::string>& warnings,
                 const std::string& device_notice);

    int n_emissions() const override { return int(d_config.n_emissions()); }
    int lri_z_count() const override { return int(engine().geometry().n_z_lri); }
    std::vector<std::string> warnings() const override { return d_warnings; }
    std::string engine_description() const override { return engine().describe(); }
    std::vector<float> filter_taps() const override { return d_config.filter_taps; }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    rca_das_config d_config;
    std::vector<std::string> d_warnings;
};

} // namespace beamform
} // namespace gr

#endif
