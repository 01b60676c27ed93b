/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "bit_unpacker_impl.h"
#include "runtime/block_params.h"

namespace gr {
namespace beamform {

bit_unpacker::sptr
bit_unpacker::make(int n_channels, int n_receivers, const std::string& device)
{
    bit_packer_config config;
    config.n_channels = check_count("n_channels", n_channels, 1, 1 << 16);
    config.n_receivers = check_count("n_receivers", n_receivers, 1, 1 << 20);
    config.validate();
    return gnuradio::make_block_sptr<bit_unpacker_impl>(config, select_device(device));
}

bit_unpacker_impl::bit_unpacker_impl(const bit_packer_config& config,
                                     const device_spec& device)
    : gr::sync_block(
          "bit_unpacker",
          device_block::signature(
              1, 1, config.packed_item_words() * sizeof(uint32_t), device),
          device_block::signature(
              1, 1, config.n_channels * config.n_receivers * sizeof(gr_complex), device)),
      device_block(device),
      d_config(config),
      d_engine(bit_unpacker_engine::make(config, device))
{
    size_output_buffers(
        *this, config.n_channels * config.n_receivers * sizeof(gr_complex), device);
}

int bit_unpacker_impl::work(int noutput_items,
                            gr_vector_const_void_star& input_items,
                            gr_vector_void_star& output_items)
{
    d_engine->execute(static_cast<const uint32_t*>(input_items[0]),
                      static_cast<gr_complex*>(output_items[0]),
                      static_cast<size_t>(noutput_items),
                      stream());
    finish_work();
    return noutput_items;
}

} // namespace beamform
} // namespace gr
