/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_RFI_FLAGGER_IMPL_H
#define INCLUDED_BEAMFORM_RFI_FLAGGER_IMPL_H

#include "block_support/engine_block.h"
#include <gnuradio/beamform/engines/rfi_flagger_engine.h>
#include <gnuradio/beamform/rfi_flagger.h>
#include <atomic>
#include <vector>

namespace gr {
namespace beamform {

class rfi_flagger_impl : public engine_block<rfi_flagger, rfi_flagger_engine>
{
public:
    rfi_flagger_impl(const rfi_flagger_config& config, const device_spec& device);

    int block_size() const override { return int(d_config.block_size); }
    double pfa() const override { return d_config.pfa; }
    double lower_threshold() const override { return d_thresholds.lower; }
    double upper_threshold() const override { return d_thresholds.upper; }
    double mad_threshold() const override { return d_config.mad_threshold; }
    std::string replace() const override { return to_string(d_config.replacement); }
    uint64_t flagged_count() const override { return d_flagged.load(); }
    uint64_t total_count() const override { return d_total.load(); }

    bool stop() override;

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    void publish(uint64_t first_item, size_t n_blocks);

    const rfi_flagger_config d_config;
    const sk_thresholds d_thresholds;
    const size_t d_values; // per spectrum
    std::vector<uint8_t> d_mask;
    std::atomic<uint64_t> d_flagged{ 0 }, d_total{ 0 };
};

} // namespace beamform
} // namespace gr

#endif
