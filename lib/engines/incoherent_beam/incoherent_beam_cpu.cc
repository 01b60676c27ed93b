/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engines/common/thread_pool.h"
#include <gnuradio/beamform/engines/incoherent_beam_engine.h>
#include <vector>

namespace gr {
namespace beamform {

namespace {

using cfloat = std::complex<float>;

/*!
 * \brief The CPU incoherent beam: per (output, channel), the receivers'
 * powers (or the Stokes terms of their X/Y pairs) summed in double over the
 * n_int spectra, rounded to float once. Outputs are shared by a thread_pool
 * of config.threads workers.
 */
class incoherent_beam_cpu final : public incoherent_beam_engine
{
public:
    explicit incoherent_beam_cpu(const incoherent_beam_config& config)
        : d_config(config), d_pool(config.threads)
    {
    }

    void execute(const cfloat* in, float* out, size_t n_out, stream_handle) override
    {
        const size_t nc = d_config.n_channels, na = d_config.n_receivers;
        const size_t n_int = d_config.n_int, ns = d_config.n_stokes();
        const bool pairs = d_config.polarization == polarization_layout::xy_pairs;
        d_pool.parallel_for(n_out * nc, [&](size_t job, size_t) {
            const size_t o = job / nc, c = job % nc;
            double i_sum = 0, q_sum = 0, u_sum = 0, v_sum = 0;
            for (size_t t = o * n_int; t < (o + 1) * n_int; t++) {
                const cfloat* x = in + (t * nc + c) * na;
                if (!pairs || ns == 1) {
                    for (size_t a = 0; a < na; a++)
                        i_sum += double(x[a].real()) * x[a].real() +
                                 double(x[a].imag()) * x[a].imag();
                    continue;
                }
                for (size_t a = 0; a < na; a += 2) {
                    const double xr = x[a].real(), xi = x[a].imag();
                    const double yr = x[a + 1].real(), yi = x[a + 1].imag();
                    const double xx = xr * xr + xi * xi, yy = yr * yr + yi * yi;
                    i_sum += xx + yy;
                    q_sum += xx - yy;
                    u_sum += 2.0 * (xr * yr + xi * yi); // 2 Re(X Y*)
                    v_sum += 2.0 * (xi * yr - xr * yi); // 2 Im(X Y*)
                }
            }
            float* y = out + o * ns * nc + c;
            y[0] = float(i_sum);
            if (ns == 4) {
                y[nc] = float(q_sum);
                y[2 * nc] = float(u_sum);
                y[3 * nc] = float(v_sum);
            }
        });
    }

private:
    const incoherent_beam_config d_config;
    thread_pool d_pool;
};

} // namespace

std::unique_ptr<incoherent_beam_engine>
make_incoherent_beam_cpu(const incoherent_beam_config& config)
{
    config.validate();
    return std::make_unique<incoherent_beam_cpu>(config);
}

} // namespace beamform
} // namespace gr
