/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_BIT_PACKER_IMPL_H
#define INCLUDED_BEAMFORM_BIT_PACKER_IMPL_H

#include "engines/bit_packer_engine.h"
#include "runtime/device_block.h"
#include <gnuradio/beamform/bit_packer.h>

namespace gr {
namespace beamform {

class bit_packer_impl : public bit_packer, public device_block
{
public:
    bit_packer_impl(const bit_packer_config& config, const device_spec& device);

    size_t packed_item_words() const override { return d_config.packed_item_words(); }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    bit_packer_config d_config;
    std::unique_ptr<bit_packer_engine> d_engine;
};

} // namespace beamform
} // namespace gr

#endif
