/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pfb_channelizer_impl.h"
#include <gnuradio/beamform/engines/steering.h>
#include "block_support/block_params.h"
#include "block_support/rx_time.h"
#include "engines/common/number_text.h"
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
                                            const std::string& device,
                                            int threads)
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
    config.threads = check_count("threads", threads, 0, 1024);
    config.validate();
    check_item_bytes("n_channels * n_receivers * 8 (output item)",
                     uint64_t(config.n_channels) * config.n_receivers *
                         sizeof(gr_complex));
    if (!std::isfinite(center_freq))
        throw std::invalid_argument("center_freq must be a finite number (Hz)");
    if (!(sample_rate > 0.0) || !std::isfinite(sample_rate))
        throw std::invalid_argument("sample_rate must be a finite number > 0 (Hz), got " +
                                    number_text(sample_rate));
    // The channels' sky frequencies (channel_frequencies(), the output tags)
    // reach center_freq +- sample_rate / 2: they must be finite too.
    if (!std::isfinite(std::fabs(center_freq) + 0.5 * sample_rate))
        throw std::invalid_argument(
            "|center_freq| + sample_rate / 2 must be finite (the channels' sky "
            "frequencies reach center_freq +- sample_rate / 2), got center_freq " +
            number_text(center_freq) + " Hz, sample_rate " + number_text(sample_rate) +
            " Hz");
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
      engine_block(device,
                   config.n_channels * config.n_receivers * sizeof(gr_complex),
                   pfb_channelizer_engine::make(config, device)),
      d_config(config),
      d_center_freq(center_freq),
      d_sample_rate(sample_rate)
{
    // Tags are moved in work(), where rx_time values are corrected too.
    set_tag_propagation_policy(TPP_DONT);
    // Each work call reads the filter history (N T samples per receiver) once:
    // give it at least 8 T steps to spread that over.
    if (device.uses_device_buffers())
        set_min_output_items(
            *this, std::max<long>(min_output_buffer(0), 8 * long(config.taps_per_branch)));
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

int pfb_channelizer_impl::work(int noutput_items,
                               gr_vector_const_void_star& input_items,
                               gr_vector_void_star& output_items)
{
    run_engine(noutput_items, input_items[0],
               static_cast<gr_complex*>(output_items[0]),
               static_cast<size_t>(noutput_items));
    // Each tag moves to the output item made from its sample; an rx_time moves
    // back to the first input sample of that item's block.
    move_tags_decimated(uint64_t(noutput_items) * d_config.input_per_output(),
                        d_config.input_per_output(),
                        [this](gr::tag_t& tag, uint64_t samples_late) {
                            if (!pmt::eqv(tag.key, rx_time_key()))
                                return;
                            if (const auto t = parse_rx_time(tag.value))
                                tag.value = make_rx_time(
                                    shifted(*t, -double(samples_late) / d_sample_rate));
                        });
    return noutput_items;
}

} // namespace beamform
} // namespace gr
