/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_TENSOR_BEAMFORMER_IMPL_H
#define INCLUDED_BEAMFORM_TENSOR_BEAMFORMER_IMPL_H

#include "block_support/engine_block.h"
#include "block_support/message_checks.h"
#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <gnuradio/beamform/tensor_beamformer.h>
#include <pmt/pmt.h>
#include <atomic>
#include <mutex>
#include <optional>

namespace gr {
namespace beamform {

class tensor_beamformer_impl : public engine_block<tensor_beamformer, tensor_beamformer_engine>
{
public:
    tensor_beamformer_impl(const tensor_beamformer_config& config,
                           const std::vector<gr_complex>& weights,
                           const device_spec& device);

    void set_weights(const std::vector<gr_complex>& weights) override;
    std::vector<gr_complex> weights() const override;
    void set_geometry(const std::vector<std::array<double, 3>>& positions,
                      const std::vector<double>& frequencies,
                      const std::vector<gr_complex>& gains,
                      bool conjugate) override;
    void set_pointing_az_el(const std::vector<double>& az_el) override;
    void set_pointing_lm(const std::vector<double>& lm) override;
    uint64_t weight_updates_applied() const override;
    uint64_t messages_rejected() const override;
    uint64_t float16_overflows() const override { return d_overflows.load(); }
    uint64_t float16_underflows() const override { return d_underflows.load(); }

    int n_channels() const override { return int(d_config.n_channels); }
    int n_receivers() const override { return int(d_config.n_receivers); }
    int n_beams() const override { return int(d_config.n_beams); }
    int n_int() const override { return int(d_config.n_int); }
    beam_precision precision() const override { return d_config.precision; }
    beam_output output() const override { return d_config.output; }
    polarization_layout polarization() const override { return d_config.polarization; }
    stokes_mode stokes() const override { return d_config.stokes; }
    size_t input_item_bytes() const override { return d_config.input_item_bytes(); }
    size_t output_item_bytes() const override { return d_config.output_item_bytes(); }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;
    //! Also reports the GPU's float16 range counts of the last work call.
    bool stop() override;

private:
    struct geometry {
        std::vector<std::array<double, 3>> positions;
        std::vector<double> frequencies;
        std::vector<gr_complex> gains;
        bool conjugate = false;
    };

    void handle_weights_message(const pmt::pmt_t& msg);
    void handle_pointing_message(const pmt::pmt_t& msg);
    //! Warn when float16 rounds nonzero weights to 0.
    void warn_if_weights_vanish(const std::vector<gr_complex>& weights);
    //! Count and report input values float16 cannot hold: host input here,
    //! GPU input from the engine's device-side counts (a call late).
    void count_float16_range(const void* in, uint64_t n_times);
    void report_gpu_float16_range(bool include_latest);
    //! Count \p range and log it if it matters, out of \p values fc32 parts.
    void report_float16_range(const float16_range_counts& range, uint64_t values);
    //! Weights for a pointing (az_el or lm pairs) from the stored geometry.
    std::vector<gr_complex> steer(const std::vector<double>& pairs, bool as_lm) const;

    const tensor_beamformer_config d_config;

    mutable std::mutex d_mutex; // guards the two below
    std::vector<gr_complex> d_latest_weights;
    std::optional<geometry> d_geometry;
    queued_update<std::vector<gr_complex>> d_queued_weights;
    message_rejections d_rejected;
    std::atomic<uint64_t> d_overflows{ 0 }, d_underflows{ 0 };
    uint64_t d_gpu_values_per_call = 0; // fc32 parts of the latest work call
    uint64_t d_calls_out_of_range = 0; // work() only
};

} // namespace beamform
} // namespace gr

#endif
