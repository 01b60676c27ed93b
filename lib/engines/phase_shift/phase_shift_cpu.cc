/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engines/common/thread_pool.h"
#include "phase_cycles.h"
#include <gnuradio/beamform/engines/phase_shift_engine.h>
#include <volk/volk.h>
#include <algorithm>
#include <vector>

namespace gr {
namespace beamform {

namespace {

using cfloat = std::complex<float>;

/*!
 * out[j] = in[j] * float(z[j]), then z[j] *= step[j] (in double), for one item
 * of n (channel, receiver) pairs: the phasors are held as separate real and
 * imaginary double arrays. Compiled also for AVX2 + FMA, picked at run time.
 */
__attribute__((target_clones("avx2,fma", "default"))) void
rotate_and_advance(const cfloat* in,
                   cfloat* out,
                   double* z_re,
                   double* z_im,
                   const double* step_re,
                   const double* step_im,
                   size_t n)
{
    const float* x = reinterpret_cast<const float*>(in);
    float* y = reinterpret_cast<float*>(out);
    for (size_t j = 0; j < n; j++) {
        const float zr = float(z_re[j]), zi = float(z_im[j]);
        const float xr = x[2 * j], xi = x[2 * j + 1];
        y[2 * j] = xr * zr - xi * zi;
        y[2 * j + 1] = xr * zi + xi * zr;
        const double nr = z_re[j] * step_re[j] - z_im[j] * step_im[j];
        const double ni = z_re[j] * step_im[j] + z_im[j] * step_re[j];
        z_re[j] = nr;
        z_im[j] = ni;
    }
}

/*!
 * \brief The CPU phase shift. With delay rates, the phasor of every (channel,
 * receiver) is evaluated exactly from the absolute item index (as the
 * reference, tests/cpp/phase_shift_cpu_reference.h, does for every item) at
 * the first item of each block of block_items items, and advanced within the
 * block by multiplying with exp(-2 pi i step) in double: after m < 64 steps
 * the phase is off by about m * 1e-16 cycles, far below the float32 rounding
 * of the output (6e-8), and nothing accumulates from block to block. Without
 * rates the phasors are one table. Blocks of items are shared by a
 * thread_pool of config.threads workers.
 */
class phase_shift_cpu final : public phase_shift_engine
{
public:
    phase_shift_cpu(const phase_shift_config& config, const phase_shift_delays& delays)
        : d_config(config),
          d_n(config.n_channels * config.n_receivers),
          d_table(d_n),
          d_step_re(d_n),
          d_step_im(d_n),
          d_pool(config.threads),
          d_scratch(d_pool.size())
    {
        set_delays(delays);
        for (auto& s : d_scratch) {
            s.z_re.resize(d_n);
            s.z_im.resize(d_n);
        }
    }

    void set_delays(const phase_shift_delays& delays) override
    {
        d_coeff = phase_shift_coefficients::build(d_config, delays);
        d_static = true;
        for (size_t j = 0; j < d_n; j++) {
            if (d_coeff.step_hi[j] != 0.0 || d_coeff.step_lo[j] != 0.0)
                d_static = false;
            double c, s;
            cos_sin_of_cycles(d_coeff.step_hi[j] + d_coeff.step_lo[j], c, s);
            d_step_re[j] = c; // exp(-2 pi i step)
            d_step_im[j] = -s;
        }
        if (d_static) {
            for (size_t j = 0; j < d_n; j++) {
                double re, im;
                phasor(j, 0, re, im);
                d_table[j] = cfloat(float(re), float(im));
            }
        }
    }

    void execute(const cfloat* in,
                 cfloat* out,
                 size_t n_items,
                 uint64_t first_item,
                 stream_handle) override
    {
        const size_t blocks = (n_items + block_items - 1) / block_items;
        d_pool.parallel_for(blocks, [&](size_t b, size_t worker) {
            const size_t t0 = b * block_items;
            const size_t t1 = std::min(n_items, t0 + block_items);
            if (d_static) {
                for (size_t t = t0; t < t1; t++)
                    volk_32fc_x2_multiply_32fc(
                        out + t * d_n, in + t * d_n, d_table.data(), d_n);
                return;
            }
            auto& s = d_scratch[worker];
            for (size_t j = 0; j < d_n; j++)
                phasor(j, first_item + t0, s.z_re[j], s.z_im[j]);
            for (size_t t = t0; t < t1; t++)
                rotate_and_advance(in + t * d_n,
                                   out + t * d_n,
                                   s.z_re.data(),
                                   s.z_im.data(),
                                   d_step_re.data(),
                                   d_step_im.data(),
                                   d_n);
        });
    }

private:
    //! g exp(-2 pi i phase_cycles(n)) of pair j, in double.
    void phasor(size_t j, uint64_t n, double& re, double& im) const
    {
        const double x =
            phase_cycles(d_coeff.offset[j], d_coeff.step_hi[j], d_coeff.step_lo[j], n);
        double c, s;
        cos_sin_of_cycles(x, c, s);
        // g (c - i s), written out (std::complex's operator* adds NaN checks).
        const double gr = d_coeff.gains[j].real(), gi = d_coeff.gains[j].imag();
        re = gr * c + gi * s;
        im = gi * c - gr * s;
    }

    struct scratch {
        std::vector<double> z_re, z_im; // the phasors of the current item
    };

    static constexpr size_t block_items = 64;

    const phase_shift_config d_config;
    const size_t d_n; // (channel, receiver) pairs
    phase_shift_coefficients d_coeff;
    std::vector<cfloat> d_table;           // static phasors (no rates)
    std::vector<double> d_step_re, d_step_im; // exp(-2 pi i step) per pair
    bool d_static = true;
    thread_pool d_pool;
    std::vector<scratch> d_scratch;
};

} // namespace

std::unique_ptr<phase_shift_engine> make_phase_shift_cpu(const phase_shift_config& config,
                                                         const phase_shift_delays& delays)
{
    return std::make_unique<phase_shift_cpu>(config, delays);
}

} // namespace beamform
} // namespace gr
