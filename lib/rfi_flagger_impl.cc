/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "block_support/block_params.h"
#include "rfi_flagger_impl.h"
#include <gnuradio/io_signature.h>
#include <stdexcept>
#include <string>

namespace gr {
namespace beamform {

namespace {
const pmt::pmt_t port_flags = pmt::mp("flags");
const pmt::pmt_t key_offset = pmt::mp("offset");
const pmt::pmt_t key_m = pmt::mp("M");
const pmt::pmt_t key_channels = pmt::mp("n_channels");
const pmt::pmt_t key_receivers = pmt::mp("n_receivers");
const pmt::pmt_t key_mask = pmt::mp("mask");

size_t spectrum_bytes(const rfi_flagger_config& c)
{
    return check_item_bytes("n_channels * n_receivers * 8",
                            uint64_t(c.n_channels) * c.n_receivers * sizeof(gr_complex));
}
} // namespace

rfi_flagger::sptr rfi_flagger::make(int n_channels,
                                    int n_receivers,
                                    int block_size,
                                    double pfa,
                                    double mad_threshold,
                                    const std::string& replace,
                                    uint64_t seed,
                                    const std::string& device,
                                    int threads)
{
    rfi_flagger_config config;
    config.n_channels = check_count("n_channels", n_channels, 1, 1 << 20);
    config.n_receivers = check_count("n_receivers", n_receivers, 1, 1 << 20);
    config.block_size = check_count("block_size", block_size, 2, 65536);
    config.pfa = pfa;
    config.mad_threshold = mad_threshold;
    config.replacement = rfi_replacement_from_string(replace, "replace");
    config.seed = seed;
    config.threads = check_count("threads", threads, 0, 1024);
    config.validate();
    spectrum_bytes(config);
    return gnuradio::make_block_sptr<rfi_flagger_impl>(config, select_device(device));
}

rfi_flagger_impl::rfi_flagger_impl(const rfi_flagger_config& config,
                                   const device_spec& device)
    : gr::sync_block("rfi_flagger",
                     device_block::signature(1, 1, spectrum_bytes(config), device),
                     device_block::signature(1, 1, spectrum_bytes(config), device)),
      engine_block(
          device, spectrum_bytes(config), rfi_flagger_engine::make(config, device)),
      d_config(config),
      d_thresholds(sk_thresholds_for(config.block_size, config.pfa)),
      d_values(config.n_channels * config.n_receivers)
{
    set_output_multiple(int(config.block_size));
    message_port_register_out(port_flags);
}

void rfi_flagger_impl::publish(uint64_t first_item, size_t n_blocks)
{
    const size_t m = d_config.block_size;
    uint64_t flagged = 0;
    const bool connected =
        has_msg_port(port_flags) && !pmt::is_null(message_subscribers(port_flags));
    for (size_t b = 0; b < n_blocks; b++) {
        const uint8_t* mask = d_mask.data() + b * d_values;
        size_t count = 0;
        for (size_t j = 0; j < d_values; j++)
            count += mask[j];
        flagged += count * m;
        if (!connected)
            continue;
        pmt::pmt_t d = pmt::make_dict();
        d = pmt::dict_add(d, key_offset, pmt::from_uint64(first_item + b * m));
        d = pmt::dict_add(d, key_m, pmt::from_long(long(m)));
        d = pmt::dict_add(d, key_channels, pmt::from_long(long(d_config.n_channels)));
        d = pmt::dict_add(d, key_receivers, pmt::from_long(long(d_config.n_receivers)));
        d = pmt::dict_add(d, key_mask, pmt::init_u8vector(d_values, mask));
        message_port_pub(port_flags, d);
    }
    d_flagged += flagged;
    d_total += uint64_t(n_blocks) * m * d_values;
}

bool rfi_flagger_impl::stop()
{
    const bool ok = engine_block::stop();
    const uint64_t total = d_total.load(), flagged = d_flagged.load();
    d_logger->info("flagged {:d} of {:d} values ({:.4f}%; SK outside [{:.4f}, {:.4f}], "
                   "M = {:d}, pfa = {:g} per side)",
                   flagged,
                   total,
                   total ? 100.0 * double(flagged) / double(total) : 0.0,
                   d_thresholds.lower,
                   d_thresholds.upper,
                   d_config.block_size,
                   d_config.pfa);
    return ok;
}

int rfi_flagger_impl::work(int noutput_items,
                           gr_vector_const_void_star& input_items,
                           gr_vector_void_star& output_items)
{
    const size_t n_blocks = size_t(noutput_items) / d_config.block_size;
    const size_t n = n_blocks * d_config.block_size; // all of them: output multiple
    d_mask.resize(n_blocks * d_values);
    const uint64_t first = nitems_read(0);
    run_engine(noutput_items,
               static_cast<const gr_complex*>(input_items[0]),
               static_cast<gr_complex*>(output_items[0]),
               n,
               first,
               d_mask.data());
    // The masks are on the host once this call's GPU work is done.
    synchronize();
    publish(first, n_blocks);
    return int(n);
}

} // namespace beamform
} // namespace gr
