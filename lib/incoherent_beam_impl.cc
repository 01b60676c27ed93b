/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "block_support/block_params.h"
#include "incoherent_beam_impl.h"
#include <gnuradio/io_signature.h>

namespace gr {
namespace beamform {

incoherent_beam::sptr incoherent_beam::make(int n_channels,
                                            int n_receivers,
                                            int n_int,
                                            polarization_layout polarization,
                                            stokes_mode stokes,
                                            const std::string& device,
                                            int threads)
{
    incoherent_beam_config config;
    config.n_channels = check_count("n_channels", n_channels, 1, 1 << 20);
    config.n_receivers = check_count("n_receivers", n_receivers, 1, 1 << 20);
    config.n_int = check_count("n_int", n_int, 1, 1 << 20);
    config.polarization = polarization;
    config.stokes = stokes;
    config.threads = check_count("threads", threads, 0, 1024);
    config.validate();
    check_item_bytes("n_channels * n_receivers * 8 (input item)",
                     uint64_t(n_channels) * uint64_t(n_receivers) * 8);
    return gnuradio::make_block_sptr<incoherent_beam_impl>(config, select_device(device));
}

incoherent_beam_impl::incoherent_beam_impl(const incoherent_beam_config& config,
                                           const device_spec& device)
    : gr::sync_decimator(
          "incoherent_beam",
          device_block::signature(1, 1, config.input_item_bytes(), device),
          device_block::signature(1, 1, config.output_item_bytes(), device),
          static_cast<unsigned>(config.n_int)),
      engine_block(device,
                   config.output_item_bytes(),
                   incoherent_beam_engine::make(config, device)),
      d_config(config)
{
    // Tags are moved in work() (move_tags_decimated), each to its own output item.
    set_tag_propagation_policy(TPP_DONT);
}

int incoherent_beam_impl::work(int noutput_items,
                               gr_vector_const_void_star& input_items,
                               gr_vector_void_star& output_items)
{
    run_engine(noutput_items,
               static_cast<const gr_complex*>(input_items[0]),
               static_cast<float*>(output_items[0]),
               static_cast<size_t>(noutput_items));
    move_tags_decimated(uint64_t(noutput_items) * d_config.n_int, d_config.n_int);
    return noutput_items;
}

} // namespace beamform
} // namespace gr
