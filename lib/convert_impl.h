/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_CONVERT_IMPL_H
#define INCLUDED_BEAMFORM_CONVERT_IMPL_H

#include "block_support/engine_block.h"
#include <gnuradio/beamform/engines/convert_engine.h>
#include <gnuradio/beamform/convert.h>

namespace gr {
namespace beamform {

class convert_impl : public engine_block<convert, convert_engine>
{
public:
    convert_impl(const convert_config& config, const device_spec& device);

    std::vector<float> scale() const override { return d_config.scale; }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    convert_config d_config;
};

} // namespace beamform
} // namespace gr

#endif
