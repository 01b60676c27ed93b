/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rca_das derived geometry and filter design: the analytic (I/Q) taps, the
 * axial Hilbert transformer, Gaussian pulse taps, and rca_das_geometry::from
 * (receivers, time reference of the filtered data, LRI depth samples).
 */
#include "rca_das_detail.h"
#include <gnuradio/beamform/engines/rca_das_engine.h>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace beamform {

using rca_detail::pi;

std::vector<std::complex<float>> rca_analytic_taps(const std::vector<float>& taps)
{
    // Analytic signal by the DFT: keep DC (and Nyquist), double the positive
    // frequencies, drop the negative ones.
    const size_t n = taps.size();
    std::vector<std::complex<double>> spectrum(n);
    for (size_t k = 0; k < n; k++)
        for (size_t m = 0; m < n; m++)
            spectrum[k] += double(taps[m]) * std::polar(1.0, -2 * pi * double(k * m % n) / n);
    for (size_t k = 1; k < n; k++) {
        if (2 * k < n)
            spectrum[k] *= 2.0;
        else if (2 * k > n)
            spectrum[k] = 0;
    }
    std::vector<std::complex<float>> out(n);
    for (size_t m = 0; m < n; m++) {
        std::complex<double> acc = 0;
        for (size_t k = 0; k < n; k++)
            acc += spectrum[k] * std::polar(1.0, 2 * pi * double(k * m % n) / n);
        out[m] = std::complex<float>(acc / double(n));
    }
    return out;
}

std::vector<float> rca_axial_hilbert_taps()
{
    // Ideal Hilbert transformer 2 / (pi k) on odd k, Blackman-windowed, 33 taps.
    const int half = 16;
    std::vector<float> taps(2 * half + 1, 0.0f);
    for (int k = -half; k <= half; k++) {
        if (k % 2 == 0)
            continue;
        const double n = double(k + half) / (2 * half);
        const double window = 0.42 - 0.5 * std::cos(2 * pi * n) + 0.08 * std::cos(4 * pi * n);
        taps[k + half] = float(2.0 / (pi * k) * window);
    }
    return taps;
}

std::vector<float> rca_gaussian_pulse_taps(double f0,
                                           double fs,
                                           double fractional_bandwidth,
                                           size_t n_taps)
{
    if (!(f0 > 0 && fs > 0 && fractional_bandwidth > 0 && n_taps >= 1))
        throw std::invalid_argument(
            "rca_gaussian_pulse_taps: f0, fs and fractional_bandwidth must be > 0, n_taps >= 1");
    // Envelope exp(-t^2 / (2 sigma^2)) has half amplitude in the spectrum at
    // +-sqrt(2 ln 2) / (2 pi sigma): that full width is fractional_bandwidth * f0.
    const double sigma = std::sqrt(2 * std::log(2.0)) / (pi * fractional_bandwidth * f0);
    std::vector<double> taps(n_taps);
    std::complex<double> gain = 0;
    for (size_t m = 0; m < n_taps; m++) {
        const double t = (double(m) - 0.5 * double(n_taps - 1)) / fs;
        taps[m] = std::exp(-t * t / (2 * sigma * sigma)) * std::cos(2 * pi * f0 * t);
        gain += taps[m] * std::polar(1.0, -2 * pi * f0 * double(m) / fs);
    }
    std::vector<float> out(n_taps);
    for (size_t m = 0; m < n_taps; m++)
        out[m] = float(taps[m] / std::abs(gain));
    return out;
}

rca_das_geometry rca_das_geometry::from(const rca_das_config& cfg)
{
    rca_das_geometry g;
    const bool rows = cfg.transmit == rca_transmit::rows;
    // Receivers are distributed along the lateral axis: x when rows transmit.
    g.lat = rows ? cfg.x : cfg.y;
    g.elev = rows ? cfg.y : cfg.x;
    g.z = cfg.z;
    g.n_lat = g.lat.count;
    g.n_elev = g.elev.count;
    g.n_z = g.z.count;
    if (rows) {
        g.stride_lat = cfg.y.count * cfg.z.count;
        g.stride_elev = cfg.z.count;
    } else {
        g.stride_lat = cfg.z.count;
        g.stride_elev = cfg.y.count * cfg.z.count;
    }
    g.n_rx = cfg.n_elements;
    g.n_tx = cfg.n_emissions();
    g.pitch = cfg.pitch;
    g.element_first = -0.5 * double(cfg.n_elements - 1) * cfg.pitch;
    g.c = cfg.speed_of_sound;
    g.f_number = cfg.f_number;
    g.demod_frequency =
        cfg.demodulation_frequency > 0 ? cfg.demodulation_frequency : cfg.center_frequency;
    g.iq = cfg.processing == rca_processing::iq;

    g.n_taps = cfg.filter_taps.size();
    g.decimation = cfg.decimation;
    g.n_t = (cfg.n_samples + g.n_taps - 1 + g.decimation - 1) / g.decimation;
    // Output n of the full convolution (eq. 18) is centred on input sample
    // n - (N_f - 1) / 2 for a linear-phase filter.
    g.t0 = cfg.t_start - 0.5 * double(g.n_taps - 1) / cfg.sampling_frequency;
    g.fs = cfg.sampling_frequency / double(g.decimation);
    if (g.iq) {
        g.taps = rca_analytic_taps(cfg.filter_taps);
    } else {
        g.taps.resize(g.n_taps);
        for (size_t m = 0; m < g.n_taps; m++)
            g.taps[m] = cfg.filter_taps[m];
    }

    g.source_elev = cfg.source_positions;
    g.source_z = cfg.source_depths;

    if (cfg.lri_z_count > 0) {
        g.n_z_lri = cfg.lri_z_count;
    } else {
        // Cover the deepest look-up of stage 2 that has a non-zero transmit
        // apodization, but no deeper than the data reaches on axis.
        double max_fa = double(g.n_z - 1);
        for (size_t j = 0; j < g.n_tx; j++)
            for (size_t e = 0; e < g.n_elev; e++)
                for (size_t iz = 0; iz < g.n_z; iz++) {
                    const double z = g.z.at(iz);
                    rca_detail::source_path tx;
                    if (!rca_detail::path_from_source(g, j, g.elev.at(e), z, tx))
                        continue;
                    const double fval = z + rca_detail::depth_shift(tx);
                    max_fa = std::max(max_fa, (fval - g.z.start) / g.z.step);
                }
        const double z_data_end = 0.5 * g.c * (g.t0 + double(g.n_t - 1) / g.fs);
        const double fa_data_end = (z_data_end - g.z.start) / g.z.step + 2.0;
        max_fa = std::min(max_fa, std::max(fa_data_end, double(g.n_z - 1)));
        g.n_z_lri = std::max<size_t>(g.n_z, size_t(std::floor(max_fa)) + 2);
        g.n_z_lri = std::max<size_t>(g.n_z_lri, 4);
    }
    return g;
}

} // namespace beamform
} // namespace gr
