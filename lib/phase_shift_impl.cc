/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "block_support/block_params.h"
#include "block_support/message_checks.h"
#include "block_support/pmt_values.h"
#include "phase_shift_impl.h"
#include <gnuradio/beamform/engines/array_geometry.h>
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace beamform {

namespace {

const pmt::pmt_t port_delays = pmt::mp("delays");
const pmt::pmt_t tag_update = pmt::mp("phase_shift_update");
const pmt::pmt_t key_delays = pmt::mp("delays");
const pmt::pmt_t key_rates = pmt::mp("rates");
const pmt::pmt_t key_gains = pmt::mp("gains");
const pmt::pmt_t key_t0 = pmt::mp("t0");
const pmt::pmt_t key_az_el = pmt::mp("az_el");

/*!
 * The bandwidth a per-channel phase has to cover: the smallest spacing between
 * distinct channel frequencies, or the item rate with a single channel.
 */
double channel_bandwidth(const phase_shift_config& config)
{
    std::vector<double> f = config.channel_frequencies;
    std::sort(f.begin(), f.end());
    double spacing = 0.0;
    for (size_t i = 1; i < f.size(); i++) {
        const double d = f[i] - f[i - 1];
        if (d > 0 && (spacing == 0.0 || d < spacing))
            spacing = d;
    }
    return spacing > 0 ? spacing : 1.0 / config.item_period;
}

pmt::pmt_t describe(const phase_shift_delays& m)
{
    pmt::pmt_t d = pmt::make_dict();
    d = pmt::dict_add(d, key_delays, pmt::init_f64vector(m.delays.size(), m.delays));
    d = pmt::dict_add(d, key_rates, pmt::init_f64vector(m.rates.size(), m.rates));
    d = pmt::dict_add(d, key_gains, pmt::init_c32vector(m.gains.size(), m.gains));
    d = pmt::dict_add(d, key_t0, pmt::from_double(m.t0));
    return d;
}

} // namespace

phase_shift::sptr phase_shift::make(int n_channels,
                                    int n_receivers,
                                    const std::vector<double>& channel_frequencies,
                                    double item_period,
                                    const std::vector<double>& delays,
                                    const std::vector<double>& rates,
                                    const std::vector<gr_complex>& gains,
                                    double t0,
                                    const std::string& device,
                                    int threads)
{
    phase_shift_config config;
    config.n_channels = check_count("n_channels", n_channels, 1, 1 << 20);
    config.n_receivers = check_count("n_receivers", n_receivers, 1, 1 << 20);
    config.channel_frequencies = channel_frequencies;
    config.item_period = item_period;
    config.threads = check_count("threads", threads, 0, 1024);
    config.validate();
    phase_shift_delays model;
    model.delays = expand_per_receiver("delays", delays, config.n_receivers, 0.0);
    model.rates = expand_per_receiver("rates", rates, config.n_receivers, 0.0);
    model.gains =
        expand_per_receiver("gains", gains, config.n_receivers, gr_complex(1.0f, 0.0f));
    model.t0 = t0;
    check_phase_shift_model(config, model);
    return gnuradio::make_block_sptr<phase_shift_impl>(
        config, model, select_device(device));
}

phase_shift_impl::phase_shift_impl(const phase_shift_config& config,
                                   const phase_shift_delays& delays,
                                   const device_spec& device)
    : gr::sync_block(
          "phase_shift",
          device_block::signature(
              1, 1, config.n_channels * config.n_receivers * sizeof(gr_complex), device),
          device_block::signature(
              1, 1, config.n_channels * config.n_receivers * sizeof(gr_complex), device)),
      engine_block(device,
                   config.n_channels * config.n_receivers * sizeof(gr_complex),
                   phase_shift_engine::make(config, delays, device)),
      d_config(config),
      d_max_delay(gr::beamform::max_representable_delay(channel_bandwidth(config))),
      d_model(delays)
{
    warn_if_unrepresentable(delays.delays);
    message_port_register_in(port_delays);
    set_msg_handler(port_delays,
                    [this](const pmt::pmt_t& msg) { handle_delays_message(msg); });
}

void phase_shift_impl::warn_if_unrepresentable(const std::vector<double>& delays)
{
    const std::string warning =
        check_representable_delays(delays, channel_bandwidth(d_config), 0.25);
    if (!warning.empty())
        d_logger->warn("{:s}", warning);
}

void phase_shift_impl::queue_update(const phase_shift_delays& next,
                                    const pmt::pmt_t& description)
{
    check_phase_shift_model(d_config, next);
    warn_if_unrepresentable(next.delays);
    d_model = next;
    d_update.queue({ next, description });
}

void phase_shift_impl::set_delays(const std::vector<double>& delays,
                                  const std::vector<double>& rates,
                                  const std::vector<gr_complex>& gains,
                                  double t0)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    const size_t n = d_config.n_receivers;
    phase_shift_delays next = d_model;
    if (!delays.empty())
        next.delays = expand_per_receiver("delays", delays, n, 0.0);
    if (!rates.empty())
        next.rates = expand_per_receiver("rates", rates, n, 0.0);
    if (!gains.empty())
        next.gains = expand_per_receiver("gains", gains, n, gr_complex(1.0f, 0.0f));
    next.t0 = t0;
    queue_update(next, describe(next));
}

void phase_shift_impl::set_geometry(const std::vector<std::array<double, 3>>& positions,
                                    int reference_index,
                                    double propagation_speed)
{
    if (positions.size() != d_config.n_receivers)
        throw std::invalid_argument(
            "positions must have n_receivers = " + std::to_string(d_config.n_receivers) +
            " (east, north, up) triples, got " + std::to_string(positions.size()));
    // Checks everything else (finite, reference_index range, speed > 0).
    geometric_delays(positions, 0.0, 90.0, reference_index, propagation_speed);
    std::lock_guard<std::mutex> lock(d_mutex);
    d_positions = positions;
    d_reference_index = reference_index;
    d_propagation_speed = propagation_speed;
}

void phase_shift_impl::point_at(double azimuth_deg, double elevation_deg)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (d_positions.empty())
        throw std::invalid_argument(
            "point_at needs receiver positions: call set_geometry(positions) first");
    phase_shift_delays next = d_model;
    next.delays = geometric_delays(
        d_positions, azimuth_deg, elevation_deg, d_reference_index, d_propagation_speed);
    next.rates.assign(d_config.n_receivers, 0.0);
    queue_update(next, describe(next));
}

void phase_shift_impl::handle_delays_message(const pmt::pmt_t& msg)
{
    try {
        // The whole message is checked (into next) before any of it is queued.
        check_message_keys(msg, { "delays", "rates", "gains", "t0", "az_el" });
        std::lock_guard<std::mutex> lock(d_mutex);
        const size_t n = d_config.n_receivers;
        phase_shift_delays next = d_model;
        const bool has_delays = pmt::dict_has_key(msg, key_delays);
        const bool has_az_el = pmt::dict_has_key(msg, key_az_el);
        if (has_delays && has_az_el)
            throw std::invalid_argument("message has both \"delays\" and \"az_el\"");
        auto reals = [&](const pmt::pmt_t& key, const char* name) {
            return nonempty(reals_from_pmt(pmt::dict_ref(msg, key, pmt::PMT_NIL), name),
                            name);
        };
        if (has_delays)
            next.delays =
                expand_per_receiver("delays", reals(key_delays, "delays"), n, 0.0);
        if (pmt::dict_has_key(msg, key_rates))
            next.rates = expand_per_receiver("rates", reals(key_rates, "rates"), n, 0.0);
        if (pmt::dict_has_key(msg, key_gains))
            next.gains = expand_per_receiver(
                "gains",
                nonempty(complexes_from_pmt(pmt::dict_ref(msg, key_gains, pmt::PMT_NIL),
                                            "gains"),
                         "gains"),
                n,
                gr_complex(1.0f, 0.0f));
        if (pmt::dict_has_key(msg, key_t0)) {
            const auto t0 = reals(key_t0, "t0");
            if (t0.size() != 1)
                throw std::invalid_argument("message key \"t0\" must be one real number");
            next.t0 = t0[0];
        }
        if (has_az_el) {
            const auto az_el = reals(key_az_el, "az_el");
            if (az_el.size() != 2)
                throw std::invalid_argument(
                    "message key \"az_el\" must hold (azimuth_deg, elevation_deg)");
            if (d_positions.empty())
                throw std::invalid_argument("message key \"az_el\" needs receiver "
                                            "positions: call set_geometry first");
            next.delays = geometric_delays(
                d_positions, az_el[0], az_el[1], d_reference_index, d_propagation_speed);
            // A fixed pointing, like point_at(): no rates unless the message gives them.
            if (!pmt::dict_has_key(msg, key_rates))
                next.rates.assign(n, 0.0);
        }
        queue_update(next, msg);
    } catch (const std::exception& e) {
        d_rejected.reject(d_logger, "delays", e.what());
    }
}

uint64_t phase_shift_impl::messages_rejected() const { return d_rejected.count(); }

std::vector<double> phase_shift_impl::delays() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_model.delays;
}
std::vector<double> phase_shift_impl::rates() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_model.rates;
}
std::vector<gr_complex> phase_shift_impl::gains() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_model.gains;
}
double phase_shift_impl::t0() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_model.t0;
}
uint64_t phase_shift_impl::updates_applied() const { return d_update.applied(); }

int phase_shift_impl::work(int noutput_items,
                           gr_vector_const_void_star& input_items,
                           gr_vector_void_star& output_items)
{
    apply_queued(
        d_update,
        tag_update,
        [this](const auto& update) { engine().set_delays(update.first); },
        [](const auto& update, uint64_t) { return update.second; });
    run_engine(noutput_items, static_cast<const gr_complex*>(input_items[0]),
               static_cast<gr_complex*>(output_items[0]),
               static_cast<size_t>(noutput_items),
               nitems_read(0));
    return noutput_items;
}

} // namespace beamform
} // namespace gr
