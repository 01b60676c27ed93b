/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "block_support/block_params.h"
#include "block_support/message_checks.h"
#include "block_support/pmt_values.h"
#include "tensor_beamformer_impl.h"
#include <gnuradio/beamform/engines/steering.h>
#include <stdexcept>

namespace gr {
namespace beamform {

namespace {
const pmt::pmt_t weights_port = pmt::mp("weights");
const pmt::pmt_t pointing_port = pmt::mp("pointing");
const pmt::pmt_t update_tag_key = pmt::mp("weights_update");

} // namespace

tensor_beamformer::sptr tensor_beamformer::make(int n_channels,
                                                int n_receivers,
                                                int n_beams,
                                                const std::vector<gr_complex>& weights,
                                                beam_precision precision,
                                                beam_output output,
                                                int n_int,
                                                polarization_layout polarization,
                                                stokes_mode stokes,
                                                const std::string& device,
                                                int threads)
{
    tensor_beamformer_config config;
    config.n_channels = check_count("n_channels", n_channels, 1, 1 << 16);
    config.n_receivers = check_count("n_receivers", n_receivers, 1, 1 << 20);
    config.n_beams = check_count("n_beams", n_beams, 1, 1 << 20);
    config.n_int = check_count("n_int", n_int, 1, 1 << 20);
    config.precision = precision;
    config.output = output;
    config.polarization = polarization;
    config.stokes = stokes;
    config.threads = check_count("threads", threads, 0, 1024);
    config.validate();
    check_item_bytes(precision == beam_precision::int1
                         ? "n_channels * 2 * ceil(n_receivers / 32) * 4 (int1 input)"
                         : "n_channels * n_receivers * 8 (float16 input)",
                     config.input_item_bytes());
    check_item_bytes(output == beam_output::power
                         ? "n_stokes * n_beams * n_channels * 4 (power output)"
                         : "n_channels * n_beams * n_polarizations * 8 (voltage output)",
                     config.output_item_bytes());
    check_tensor_beamformer_weights(config, weights);
    return gnuradio::make_block_sptr<tensor_beamformer_impl>(
        config, weights, select_device(device));
}

tensor_beamformer_impl::tensor_beamformer_impl(const tensor_beamformer_config& config,
                                               const std::vector<gr_complex>& weights,
                                               const device_spec& device)
    : gr::sync_decimator(
          "tensor_beamformer",
          device_block::signature(1, 1, config.input_item_bytes(), device),
          device_block::signature(1, 1, config.output_item_bytes(), device),
          // power: one output item per n_int time steps; voltage: n_int = 1
          static_cast<unsigned>(config.n_int)),
      engine_block(device,
                   config.output_item_bytes(),
                   tensor_beamformer_engine::make(config, weights, device)),
      d_config(config),
      d_latest_weights(weights)
{
    // Tags are moved in work() (move_tags_decimated), each to its own power item.
    set_tag_propagation_policy(TPP_DONT);
    warn_if_weights_vanish(weights);

    message_port_register_in(weights_port);
    set_msg_handler(weights_port,
                    [this](const pmt::pmt_t& msg) { handle_weights_message(msg); });
    message_port_register_in(pointing_port);
    set_msg_handler(pointing_port,
                    [this](const pmt::pmt_t& msg) { handle_pointing_message(msg); });
}

void tensor_beamformer_impl::warn_if_weights_vanish(
    const std::vector<gr_complex>& weights)
{
    if (d_config.precision != beam_precision::float16)
        return;
    const auto range = beamform::count_float16_range(weights.data(), weights.size());
    if (range.underflow > 0)
        d_logger->warn("{:d} nonzero weight parts are at most 2^-25 in magnitude and "
                       "become 0 in float16; scale the weights up (the beams scale with "
                       "them)",
                       range.underflow);
}

void tensor_beamformer_impl::set_weights(const std::vector<gr_complex>& weights)
{
    check_tensor_beamformer_weights(d_config, weights);
    warn_if_weights_vanish(weights);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_latest_weights = weights;
    d_queued_weights.queue(weights);
}

std::vector<gr_complex> tensor_beamformer_impl::weights() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_latest_weights;
}

void tensor_beamformer_impl::set_geometry(
    const std::vector<std::array<double, 3>>& positions,
    const std::vector<double>& frequencies,
    const std::vector<gr_complex>& gains,
    bool conjugate)
{
    if (positions.size() != d_config.n_receivers)
        throw std::invalid_argument(
            "positions must have n_receivers = " + std::to_string(d_config.n_receivers) +
            " (east, north, up) triples, got " + std::to_string(positions.size()));
    if (frequencies.size() != d_config.n_channels)
        throw std::invalid_argument(
            "frequencies must have n_channels = " + std::to_string(d_config.n_channels) +
            " values (Hz), got " + std::to_string(frequencies.size()));
    geometry g{ positions,
                frequencies,
                expand_per_receiver(
                    "gains", gains, d_config.n_receivers, gr_complex(1.0f, 0.0f)),
                conjugate };
    // Steer once towards the zenith so that bad positions or frequencies fail
    // here, not later in a message handler.
    steering_weights(g.positions, { 0.0, 90.0 }, g.frequencies, g.gains, g.conjugate);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_geometry = std::move(g);
}

std::vector<gr_complex> tensor_beamformer_impl::steer(const std::vector<double>& pairs,
                                                      bool as_lm) const
{
    const char* name = as_lm ? "lm" : "az_el";
    if (pairs.size() != 2 * d_config.n_beams)
        throw std::invalid_argument(std::string(name) + " must have 2 * n_beams = " +
                                    std::to_string(2 * d_config.n_beams) +
                                    " values, got " + std::to_string(pairs.size()));
    geometry g;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        if (!d_geometry)
            throw std::invalid_argument(
                std::string(name) +
                ": pointing needs the array geometry; call set_geometry() first");
        g = *d_geometry;
    }
    return as_lm ? steering_weights_lm(
                       g.positions, pairs, g.frequencies, g.gains, g.conjugate)
                 : steering_weights(
                       g.positions, pairs, g.frequencies, g.gains, g.conjugate);
}

void tensor_beamformer_impl::set_pointing_az_el(const std::vector<double>& az_el)
{
    set_weights(steer(az_el, false));
}

void tensor_beamformer_impl::set_pointing_lm(const std::vector<double>& lm)
{
    set_weights(steer(lm, true));
}

uint64_t tensor_beamformer_impl::weight_updates_applied() const
{
    return d_queued_weights.applied();
}

void tensor_beamformer_impl::handle_weights_message(const pmt::pmt_t& msg)
{
    try {
        // A dict {"weights": ...} or the weights themselves (a vector, a list).
        pmt::pmt_t value = msg;
        if (pmt::is_dict(msg) && !pmt::is_null(msg)) {
            check_message_keys(msg, { "weights" });
            if (!pmt::dict_has_key(msg, weights_port))
                throw std::invalid_argument("message has no key \"weights\"");
            value = pmt::dict_ref(msg, weights_port, pmt::PMT_NIL);
        }
        set_weights(nonempty(complexes_from_pmt(value, "weights"), "weights"));
    } catch (const std::exception& e) {
        d_rejected.reject(d_logger, "weights", e.what());
    }
}

void tensor_beamformer_impl::handle_pointing_message(const pmt::pmt_t& msg)
{
    try {
        check_message_keys(msg, { "az_el", "lm" });
        const pmt::pmt_t az_el = pmt::dict_ref(msg, pmt::mp("az_el"), pmt::PMT_NIL);
        const pmt::pmt_t lm = pmt::dict_ref(msg, pmt::mp("lm"), pmt::PMT_NIL);
        if (!pmt::is_null(az_el) && !pmt::is_null(lm))
            throw std::invalid_argument("message has both \"az_el\" and \"lm\"");
        if (!pmt::is_null(az_el))
            set_pointing_az_el(nonempty(reals_from_pmt(az_el, "az_el"), "az_el"));
        else if (!pmt::is_null(lm))
            set_pointing_lm(nonempty(reals_from_pmt(lm, "lm"), "lm"));
        else
            throw std::invalid_argument(
                "pointing: expected a dict with key \"az_el\" or \"lm\"");
    } catch (const std::exception& e) {
        d_rejected.reject(d_logger, "pointing", e.what());
    }
}

uint64_t tensor_beamformer_impl::messages_rejected() const { return d_rejected.count(); }

void tensor_beamformer_impl::count_float16_range(const void* in, uint64_t n_times)
{
    // cpu and emu input is host memory; a GPU engine counts its own input.
    if (d_config.precision != beam_precision::float16 ||
        (placement().kind != backend::cpu && placement().kind != backend::emu))
        return;
    const uint64_t n_complex = n_times * d_config.n_channels * d_config.n_receivers;
    report_float16_range(
        beamform::count_float16_range(static_cast<const gr_complex*>(in), n_complex),
        2 * n_complex);
}

void tensor_beamformer_impl::report_gpu_float16_range(bool include_latest)
{
    if (d_config.precision != beam_precision::float16 || placement().kind == backend::cpu ||
        placement().kind == backend::emu)
        return;
    // The engine's totals; what this block has not reported yet is new.
    const auto totals = engine().input_range(include_latest);
    float16_range_counts fresh;
    fresh.overflow = totals.overflow - d_overflows.load();
    fresh.underflow = totals.underflow - d_underflows.load();
    // Counts a call or more late: this call's size stands for those calls'.
    report_float16_range(fresh, d_gpu_values_per_call);
}

bool tensor_beamformer_impl::stop()
{
    const bool stopped = engine_block::stop(); // synchronizes the stream
    try {
        report_gpu_float16_range(true);
    } catch (const std::exception& e) {
        d_logger->error("{:s}", e.what());
    }
    return stopped;
}

void tensor_beamformer_impl::report_float16_range(const float16_range_counts& range,
                                                  uint64_t values)
{
    d_overflows += range.overflow;
    d_underflows += range.underflow;
    // Every overflow is logged (inf or NaN beams). Underflow only where it is
    // at least 1 % of the values: noise puts a few values of any large input
    // near 0, and losing those changes nothing. Both are always counted.
    if (range.overflow == 0 && (range.underflow == 0 || range.underflow * 100 < values))
        return;
    // Logged at the 1st, 2nd, 4th, 8th, ... such call: seen, but not flooding.
    d_calls_out_of_range++;
    if ((d_calls_out_of_range & (d_calls_out_of_range - 1)) == 0)
        d_logger->warn(
            "float16 input out of range in {:d} work call(s) so far: now "
            "{:d} values >= 65520 became inf (beams inf or NaN) and {:d} nonzero "
            "values <= 2^-25 became 0 (totals {:d} and {:d}); scale the input "
            "into [6.1e-5, 65504], e.g. with convert's per-receiver scale",
            d_calls_out_of_range,
            range.overflow,
            range.underflow,
            d_overflows.load(),
            d_underflows.load());
}

int tensor_beamformer_impl::work(int noutput_items,
                                 gr_vector_const_void_star& input_items,
                                 gr_vector_void_star& output_items)
{
    apply_queued(
        d_queued_weights,
        update_tag_key,
        [this](const std::vector<gr_complex>& w) { engine().set_weights(w); },
        [](const std::vector<gr_complex>&, uint64_t number) {
            return pmt::from_uint64(number);
        });
    const uint64_t n_in = static_cast<uint64_t>(noutput_items) * d_config.n_int;
    count_float16_range(input_items[0], n_in);
    run_engine(noutput_items, input_items[0], output_items[0], n_in);
    d_gpu_values_per_call = 2 * n_in * d_config.n_channels * d_config.n_receivers;
    report_gpu_float16_range(false);
    // Every input tag goes to the output item made from its time step (the
    // same offset in voltage mode).
    move_tags_decimated(n_in, d_config.n_int);
    return noutput_items;
}

} // namespace beamform
} // namespace gr
