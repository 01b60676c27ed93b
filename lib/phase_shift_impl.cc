/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "phase_shift_impl.h"
#include "block_support/block_params.h"
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

//! A list, tuple, vector or single number of reals from a message.
std::vector<double> reals_from_pmt(const pmt::pmt_t& v, const std::string& key)
{
    std::vector<double> out;
    auto one = [&](const pmt::pmt_t& x) {
        if (!pmt::is_real(x) && !pmt::is_integer(x))
            throw std::invalid_argument("message key \"" + key +
                                        "\" must hold real numbers");
        out.push_back(pmt::to_double(x));
    };
    if (pmt::is_f64vector(v)) {
        out = pmt::f64vector_elements(v);
    } else if (pmt::is_f32vector(v)) {
        for (float x : pmt::f32vector_elements(v))
            out.push_back(x);
    } else if (pmt::is_tuple(v)) {
        for (size_t i = 0; i < pmt::length(v); i++)
            one(pmt::tuple_ref(v, i));
    } else if (pmt::is_vector(v)) {
        for (size_t i = 0; i < pmt::length(v); i++)
            one(pmt::vector_ref(v, i));
    } else if (pmt::is_pair(v)) {
        if (pmt::is_null(pmt::cdr(v)) || pmt::is_pair(pmt::cdr(v))) {
            for (size_t i = 0; i < pmt::length(v); i++)
                one(pmt::nth(i, v));
        } else { // a cons (a . b)
            one(pmt::car(v));
            one(pmt::cdr(v));
        }
    } else {
        one(v);
    }
    return out;
}

std::vector<gr_complex> complexes_from_pmt(const pmt::pmt_t& v, const std::string& key)
{
    std::vector<gr_complex> out;
    auto one = [&](const pmt::pmt_t& x) {
        if (!pmt::is_number(x))
            throw std::invalid_argument("message key \"" + key + "\" must hold numbers");
        out.push_back(gr_complex(pmt::to_complex(x)));
    };
    if (pmt::is_c32vector(v)) {
        out = pmt::c32vector_elements(v);
    } else if (pmt::is_c64vector(v)) {
        for (const auto& x : pmt::c64vector_elements(v))
            out.push_back(gr_complex(x));
    } else if (pmt::is_f32vector(v) || pmt::is_f64vector(v)) {
        for (double x : reals_from_pmt(v, key))
            out.push_back(gr_complex(float(x), 0.0f));
    } else if (pmt::is_tuple(v)) {
        for (size_t i = 0; i < pmt::length(v); i++)
            one(pmt::tuple_ref(v, i));
    } else if (pmt::is_vector(v)) {
        for (size_t i = 0; i < pmt::length(v); i++)
            one(pmt::vector_ref(v, i));
    } else if (pmt::is_pair(v)) {
        for (size_t i = 0; i < pmt::length(v); i++)
            one(pmt::nth(i, v));
    } else {
        one(v);
    }
    return out;
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
                                    const std::string& device)
{
    phase_shift_config config;
    config.n_channels = check_count("n_channels", n_channels, 1, 1 << 20);
    config.n_receivers = check_count("n_receivers", n_receivers, 1, 1 << 20);
    config.channel_frequencies = channel_frequencies;
    config.item_period = item_period;
    config.validate();
    phase_shift_delays model;
    model.delays = expand_per_receiver("delays", delays, config.n_receivers, 0.0);
    model.rates = expand_per_receiver("rates", rates, config.n_receivers, 0.0);
    model.gains =
        expand_per_receiver("gains", gains, config.n_receivers, gr_complex(1.0f, 0.0f));
    model.t0 = t0;
    model.validate(config.n_receivers);
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
      device_block(device),
      d_config(config),
      d_max_delay(gr::beamform::max_representable_delay(channel_bandwidth(config))),
      d_engine(phase_shift_engine::make(config, delays, device)),
      d_model(delays)
{
    size_output_buffers(
        *this, config.n_channels * config.n_receivers * sizeof(gr_complex), device);
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
    next.validate(d_config.n_receivers);
    warn_if_unrepresentable(next.delays);
    d_model = next;
    d_pending = true;
    d_pending_description = description;
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
        if (!pmt::is_dict(msg))
            throw std::invalid_argument("message must be a PMT dict");
        std::lock_guard<std::mutex> lock(d_mutex);
        const size_t n = d_config.n_receivers;
        phase_shift_delays next = d_model;
        const bool has_delays = pmt::dict_has_key(msg, key_delays);
        const bool has_az_el = pmt::dict_has_key(msg, key_az_el);
        if (has_delays && has_az_el)
            throw std::invalid_argument("message has both \"delays\" and \"az_el\"");
        if (has_delays)
            next.delays = expand_per_receiver(
                "delays",
                reals_from_pmt(pmt::dict_ref(msg, key_delays, pmt::PMT_NIL), "delays"),
                n,
                0.0);
        if (pmt::dict_has_key(msg, key_rates))
            next.rates = expand_per_receiver(
                "rates",
                reals_from_pmt(pmt::dict_ref(msg, key_rates, pmt::PMT_NIL), "rates"),
                n,
                0.0);
        if (pmt::dict_has_key(msg, key_gains))
            next.gains = expand_per_receiver(
                "gains",
                complexes_from_pmt(pmt::dict_ref(msg, key_gains, pmt::PMT_NIL), "gains"),
                n,
                gr_complex(1.0f, 0.0f));
        if (pmt::dict_has_key(msg, key_t0)) {
            const auto t0 =
                reals_from_pmt(pmt::dict_ref(msg, key_t0, pmt::PMT_NIL), "t0");
            if (t0.size() != 1)
                throw std::invalid_argument("message key \"t0\" must be one real number");
            next.t0 = t0[0];
        }
        if (has_az_el) {
            const auto az_el =
                reals_from_pmt(pmt::dict_ref(msg, key_az_el, pmt::PMT_NIL), "az_el");
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
        d_logger->error("ignored a message on port \"delays\": {:s}", e.what());
    }
}

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
uint64_t phase_shift_impl::updates_applied() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_updates_applied;
}

int phase_shift_impl::work(int noutput_items,
                           gr_vector_const_void_star& input_items,
                           gr_vector_void_star& output_items)
{
    {
        // Updates land on the first item of a work call, never inside a batch.
        std::lock_guard<std::mutex> lock(d_mutex);
        if (d_pending) {
            d_engine->set_delays(d_model);
            add_item_tag(
                0, nitems_written(0), tag_update, d_pending_description, alias_pmt());
            d_pending = false;
            d_pending_description = pmt::PMT_NIL;
            d_updates_applied++;
        }
    }
    d_engine->execute(static_cast<const gr_complex*>(input_items[0]),
                      static_cast<gr_complex*>(output_items[0]),
                      static_cast<size_t>(noutput_items),
                      nitems_read(0),
                      stream());
    finish_work();
    return noutput_items;
}

} // namespace beamform
} // namespace gr
