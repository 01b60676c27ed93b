/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_PFB_CHANNELIZER_IMPL_H
#define INCLUDED_BEAMFORM_PFB_CHANNELIZER_IMPL_H

#include "block_support/engine_block.h"
#include <gnuradio/beamform/engines/pfb_channelizer_engine.h>
#include <gnuradio/beamform/pfb_channelizer.h>

namespace gr {
namespace beamform {

class pfb_channelizer_impl : public engine_block<pfb_channelizer, pfb_channelizer_engine>
{
public:
    pfb_channelizer_impl(const pfb_channelizer_config& config,
                         double center_freq,
                         double sample_rate,
                         const device_spec& device);

    std::vector<double> channel_frequencies() const override;
    std::vector<float> taps() const override { return d_config.taps; }
    int n_channels() const override { return int(d_config.n_channels); }
    int n_receivers() const override { return int(d_config.n_receivers); }
    int oversample() const override { return int(d_config.oversample); }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:

    pfb_channelizer_config d_config; //!< taps resolved to the full prototype
    double d_center_freq;
    double d_sample_rate;
};

} // namespace beamform
} // namespace gr

#endif
