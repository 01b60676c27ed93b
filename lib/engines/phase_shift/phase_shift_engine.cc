/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engines/common/number_text.h"
#include "engines/common/spectrum_shape.h"
#include "runtime/backends.h"
#include <gnuradio/beamform/engines/phase_shift_engine.h>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace beamform {

BEAMFORM_DECLARE_GPU_MAKER(phase_shift_engine,
                           make_phase_shift_gpu,
                           const phase_shift_config&,
                           const phase_shift_delays&,
                           const device_spec&)


namespace {


void check_per_receiver(const char* name, size_t got, size_t n_receivers)
{
    if (got != n_receivers)
        throw std::invalid_argument(std::string(name) + " must have n_receivers = " +
                                    std::to_string(n_receivers) + " entries, got " +
                                    std::to_string(got));
}

void check_all_finite(const char* name, const std::vector<double>& values)
{
    for (double v : values)
        if (!std::isfinite(v))
            throw std::invalid_argument(std::string(name) + " must be finite numbers");
}

/*!
 * a * b as an unevaluated sum hi + lo (exact). hi comes from an explicit fma
 * too, so that no compiler contraction can fuse a later "hi - x" with the
 * product and count lo twice.
 */
inline void two_product(double a, double b, double& hi, double& lo)
{
    hi = std::fma(a, b, 0.0);
    lo = std::fma(a, b, -hi);
}

//! Fractional part in [-0.5, 0.5] of a * b * c, good to ~1e-16 cycles whatever
//! the magnitudes: a b = p + e exactly, then p c - rint(p c) in one fma.
double fraction_of_product(double a, double b, double c)
{
    double p, e;
    two_product(a, b, p, e);
    const double whole = std::rint(p * c);
    const double x = std::fma(p, c, -whole) + e * c;
    return x - std::rint(x);
}

} // namespace

void phase_shift_config::validate() const
{
    validate_spectrum_shape(n_channels, n_receivers);
    if (channel_frequencies.size() != n_channels)
        throw std::invalid_argument(
            "channel_frequencies must have n_channels = " + std::to_string(n_channels) +
            " entries (Hz), got " + std::to_string(channel_frequencies.size()));
    check_all_finite("channel_frequencies", channel_frequencies);
    if (!(item_period > 0) || !std::isfinite(item_period))
        throw std::invalid_argument("item_period must be a finite number > 0 (seconds)");
    if (threads > 1024)
        throw std::invalid_argument("threads must be in [0, 1024], got " +
                                    std::to_string(threads));
}

void phase_shift_delays::validate(size_t n_receivers) const
{
    check_per_receiver("delays", delays.size(), n_receivers);
    check_per_receiver("rates", rates.size(), n_receivers);
    check_per_receiver("gains", gains.size(), n_receivers);
    check_all_finite("delays", delays);
    check_all_finite("rates", rates);
    // A delay cannot change faster than time passes; larger rates are typos
    // (and would leave no fraction of a cycle in the phase steps).
    for (size_t a = 0; a < rates.size(); a++)
        if (!(std::fabs(rates[a]) < 1.0))
            throw std::invalid_argument("rates must be in (-1, 1) seconds per second, "
                                        "rates[" +
                                        std::to_string(a) +
                                        "] = " + number_text(rates[a]));
    for (const auto& g : gains)
        if (!std::isfinite(g.real()) || !std::isfinite(g.imag()))
            throw std::invalid_argument("gains must be finite complex numbers");
    if (!std::isfinite(t0))
        throw std::invalid_argument("t0 must be a finite number (seconds)");
}

void check_phase_shift_model(const phase_shift_config& config,
                             const phase_shift_delays& d)
{
    config.validate();
    d.validate(config.n_receivers);
    double f_max = 0.0;
    for (double f : config.channel_frequencies)
        f_max = std::max(f_max, std::fabs(f));
    constexpr double max_cycles = 9007199254740992.0; // 2^53
    auto check = [&](const char* term, double cycles, size_t a) {
        if (!(cycles < max_cycles))
            throw std::invalid_argument(
                std::string(term) + " of receiver " + std::to_string(a) + " is " +
                number_text(cycles) + " cycles at the highest channel frequency " +
                number_text(f_max) + " Hz; it must stay below 2^53 cycles (delays = " +
                number_text(d.delays[a]) + " s, rates = " + number_text(d.rates[a]) +
                " s/s, t0 = " + number_text(d.t0) + " s)");
    };
    for (size_t a = 0; a < d.delays.size(); a++) {
        check("f * delays", f_max * std::fabs(d.delays[a]), a);
        check("f * rates * t0", f_max * std::fabs(d.rates[a]) * std::fabs(d.t0), a);
        check("f * rates * item_period",
              f_max * std::fabs(d.rates[a]) * config.item_period,
              a);
    }
}

phase_shift_coefficients phase_shift_coefficients::build(const phase_shift_config& config,
                                                         const phase_shift_delays& d)
{
    check_phase_shift_model(config, d);
    const size_t nc = config.n_channels, na = config.n_receivers;
    phase_shift_coefficients k;
    k.offset.resize(nc * na);
    k.step_hi.resize(nc * na);
    k.step_lo.resize(nc * na);
    k.gains.resize(nc * na);
    for (size_t c = 0; c < nc; c++) {
        const double f = config.channel_frequencies[c];
        for (size_t a = 0; a < na; a++) {
            const size_t j = c * na + a;
            // cycles(n) = f delay + f rate (n P - t0)
            //           = [f delay - f rate t0] + [f rate P] n
            const double x = fraction_of_product(f, d.delays[a], 1.0) -
                             fraction_of_product(f, d.rates[a], d.t0);
            k.offset[j] = x - std::rint(x);
            // f rate P as hi + lo, exact to ~1e-32 relative (the error of the
            // step is multiplied by n); hi reduced mod 1, which is exact and
            // leaves the phase at every integer n unchanged.
            double p, e;
            two_product(f, d.rates[a], p, e);
            double q, e2;
            two_product(p, config.item_period, q, e2);
            k.step_hi[j] = q - std::rint(q);
            k.step_lo[j] = e2 + e * config.item_period;
            k.gains[j] = d.gains[a];
        }
    }
    return k;
}

std::unique_ptr<phase_shift_engine>
phase_shift_engine::make(const phase_shift_config& config,
                         const phase_shift_delays& delays,
                         const device_spec& device)
{
    config.validate();
    delays.validate(config.n_receivers);
    return make_for_device(
        "phase_shift",
        device,
        [&] { return make_phase_shift_cpu(config, delays); },
        BEAMFORM_GPU_MAKERS(make_phase_shift_gpu),
        config, delays, device);
}

} // namespace beamform
} // namespace gr
