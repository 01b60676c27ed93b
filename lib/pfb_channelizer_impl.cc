/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pfb_channelizer_impl.h"
#include <gnuradio/beamform/engines/steering.h>
#include "block_support/block_params.h"
#include <pmt/pmt.h>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace beamform {

pfb_channelizer::sptr pfb_channelizer::make(int n_channels,
                                            const std::vector<float>& taps,
                                            int taps_per_branch,
                                            sample_format input_format,
                                            int n_receivers,
                                            int oversample,
                                            bool fft_shift,
                                            double center_freq,
                                            double sample_rate,
                                            const std::string& device)
{
    pfb_channelizer_config config;
    config.n_channels = check_count("n_channels", n_channels, 2, 1 << 16);
    config.taps_per_branch = check_count("taps_per_branch", taps_per_branch, 1, 1024);
    config.input = input_format;
    config.n_receivers = check_count("n_receivers", n_receivers, 1, 1 << 20);
    if (oversample != 1 && oversample != 2)
        throw std::invalid_argument("oversample must be 1 or 2, got " +
                                    std::to_string(oversample));
    config.oversample = unsigned(oversample);
    config.fft_shift = fft_shift;
    config.taps = taps;
    config.validate();
    if (!std::isfinite(center_freq))
        throw std::invalid_argument("center_freq must be a finite number (Hz)");
    if (!(sample_rate > 0.0) || !std::isfinite(sample_rate))
        throw std::invalid_argument("sample_rate must be a finite number > 0 (Hz), got " +
                                    std::to_string(sample_rate));
    config.taps = config.prototype();
    return gnuradio::make_block_sptr<pfb_channelizer_impl>(
        config, center_freq, sample_rate, select_device(device));
}

pfb_channelizer_impl::pfb_channelizer_impl(const pfb_channelizer_config& config,
                                           double center_freq,
                                           double sample_rate,
                                           const device_spec& device)
    : gr::sync_decimator(
          "pfb_channelizer",
          device_block::signature(
              1, 1, config.n_receivers * sample_size(config.input), device),
          device_block::signature(
              1, 1, config.n_channels * config.n_receivers * sizeof(gr_complex), device),
          unsigned(config.input_per_output())),
      device_block(device),
      d_config(config),
      d_center_freq(center_freq),
      d_sample_rate(sample_rate),
      d_engine(pfb_channelizer_engine::make(config, device))
{
    // Tags are moved in work(), where rx_time values can be corrected too.
    set_tag_propagation_policy(TPP_DONT);
    size_output_buffers(
        *this, config.n_channels * config.n_receivers * sizeof(gr_complex), device);
    // Each work call reads the filter history (N T samples per receiver) once:
    // give it at least 8 T steps to spread that over.
    if (device.uses_device_buffers())
        set_min_output_buffer(
            std::max<long>(min_output_buffer(0), 8 * long(config.taps_per_branch)));
}

std::vector<double> pfb_channelizer_impl::channel_frequencies() const
{
    // Channel k is centred at +k fs/N (GNU Radio's order), or ascending with fft_shift.
    return beamform::channel_frequencies(d_center_freq,
                                         d_sample_rate / double(d_config.n_channels),
                                         d_config.n_channels,
                                         d_config.fft_shift ? channel_order::fft_shift
                                                            : channel_order::pfb);
}

void pfb_channelizer_impl::propagate_tags(uint64_t n_in)
{
    static const pmt::pmt_t rx_time = pmt::intern("rx_time");
    const uint64_t step = d_config.input_per_output();
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, nitems_read(0), nitems_read(0) + n_in);
    for (gr::tag_t tag : tags) {
        const uint64_t out_item = tag.offset / step;
        const uint64_t samples_late = tag.offset - out_item * step;
        tag.offset = out_item;
        if (pmt::eqv(tag.key, rx_time) && pmt::is_tuple(tag.value) &&
            pmt::length(tag.value) == 2) {
            // Time of the first input sample of this output item's block.
            const pmt::pmt_t secs = pmt::tuple_ref(tag.value, 0);
            const pmt::pmt_t frac = pmt::tuple_ref(tag.value, 1);
            if (pmt::is_integer(secs) || pmt::is_uint64(secs)) {
                if (pmt::is_real(frac)) {
                    int64_t full = pmt::is_uint64(secs) ? int64_t(pmt::to_uint64(secs))
                                                        : int64_t(pmt::to_long(secs));
                    double f =
                        pmt::to_double(frac) - double(samples_late) / d_sample_rate;
                    const double whole = std::floor(f);
                    full += int64_t(whole);
                    f -= whole;
                    tag.value = pmt::make_tuple(pmt::from_uint64(uint64_t(full)),
                                                pmt::from_double(f));
                }
            }
        }
        add_item_tag(0, tag);
    }
}

int pfb_channelizer_impl::work(int noutput_items,
                               gr_vector_const_void_star& input_items,
                               gr_vector_void_star& output_items)
{
    d_engine->execute(input_items[0],
                      static_cast<gr_complex*>(output_items[0]),
                      static_cast<size_t>(noutput_items),
                      stream());
    propagate_tags(uint64_t(noutput_items) * d_config.input_per_output());
    finish_work();
    return noutput_items;
}

} // namespace beamform
} // namespace gr
