/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The phase_shift engine's plain CPU reference, for tests only.
 */
#ifndef INCLUDED_BEAMFORM_TESTS_PHASE_SHIFT_CPU_REFERENCE_H
#define INCLUDED_BEAMFORM_TESTS_PHASE_SHIFT_CPU_REFERENCE_H

#include <gnuradio/beamform/engines/phase_shift_engine.h>
#include "engines/phase_shift/phase_cycles.h"
#include <complex>
#include <memory>
#include <vector>

namespace gr {
namespace beamform {
namespace phase_shift_cpu_reference {

/*!
 * The plain reference phase shift (the CPU engine before it was threaded and
 * evaluated phasors by recurrence), used only by tests: for every item, the phasor of every (channel, receiver) is
 * evaluated afresh from the absolute item index in double precision (nothing
 * accumulates from item to item), then applied with one complex multiply.
 * Without delay rates the phasors do not change, so they are computed once.
 */
class phase_shift_reference final : public phase_shift_engine
{
public:
    phase_shift_reference(const phase_shift_config& config, const phase_shift_delays& delays)
        : d_config(config), d_table(config.n_channels * config.n_receivers)
    {
        set_delays(delays);
    }

    void set_delays(const phase_shift_delays& delays) override
    {
        d_coeff = phase_shift_coefficients::build(d_config, delays);
        d_static = true;
        for (size_t j = 0; j < d_coeff.step_hi.size(); j++)
            if (d_coeff.step_hi[j] != 0.0 || d_coeff.step_lo[j] != 0.0)
                d_static = false;
        if (d_static)
            fill_table(0);
    }

    void execute(const std::complex<float>* in,
                 std::complex<float>* out,
                 size_t n_items,
                 uint64_t first_item,
                 stream_handle) override
    {
        const size_t n_cr = d_table.size();
        for (size_t t = 0; t < n_items; t++) {
            if (!d_static)
                fill_table(first_item + t);
            for (size_t j = 0; j < n_cr; j++) // what the engine did through VOLK
                out[t * n_cr + j] = in[t * n_cr + j] * d_table[j];
        }
    }

private:
    //! g_a exp(-2 pi i phase_cycles(n)) for every (channel, receiver), in double.
    void fill_table(uint64_t n)
    {
        for (size_t j = 0; j < d_table.size(); j++) {
            const double x = phase_cycles(
                d_coeff.offset[j], d_coeff.step_hi[j], d_coeff.step_lo[j], n);
            double c, s;
            cos_sin_of_cycles(x, c, s);
            // g (c - i s), written out (std::complex's operator* adds NaN checks).
            const double gr = d_coeff.gains[j].real(), gi = d_coeff.gains[j].imag();
            d_table[j] =
                std::complex<float>(float(gr * c + gi * s), float(gi * c - gr * s));
        }
    }

    phase_shift_config d_config;
    phase_shift_coefficients d_coeff;
    std::vector<std::complex<float>> d_table;
    bool d_static = true;
};

inline std::unique_ptr<phase_shift_engine> make(const phase_shift_config& config,
                                                const phase_shift_delays& delays)
{
    return std::make_unique<phase_shift_reference>(config, delays);
}

} // namespace phase_shift_cpu_reference
} // namespace beamform
} // namespace gr

#endif
