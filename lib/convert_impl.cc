/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "convert_impl.h"
#include "block_support/block_params.h"

namespace gr {
namespace beamform {

convert::sptr convert::make(sample_format input_format,
                            int n_receivers,
                            const std::vector<float>& scale,
                            const std::string& device)
{
    convert_config config;
    config.input = input_format;
    config.n_receivers = check_count("n_receivers", n_receivers, 1, 1 << 20);
    config.scale = expand_per_receiver("scale", scale, config.n_receivers, 1.0f);
    config.validate();
    return gnuradio::make_block_sptr<convert_impl>(config, select_device(device));
}

convert_impl::convert_impl(const convert_config& config, const device_spec& device)
    : gr::sync_block(
          "convert",
          device_block::signature(
              1, 1, config.n_receivers * sample_size(config.input), device),
          device_block::signature(
              1, 1, config.n_receivers * sizeof(gr_complex), device)),
      engine_block(device,
                   config.n_receivers * sizeof(gr_complex),
                   convert_engine::make(config, device)),
      d_config(config)
{
}

int convert_impl::work(int noutput_items,
                       gr_vector_const_void_star& input_items,
                       gr_vector_void_star& output_items)
{
    run_engine(noutput_items, input_items[0],
               static_cast<gr_complex*>(output_items[0]),
               static_cast<size_t>(noutput_items));
    return noutput_items;
}

} // namespace beamform
} // namespace gr
