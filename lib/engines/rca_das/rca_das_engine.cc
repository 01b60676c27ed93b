/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rca_das: configuration checks, derived geometry, and the CPU reference of the
 * dual-stage and conventional RCA beamformers, written from the paper's
 * equations (eqs. 1-5, 18, 21, 22) and Algorithms 1, 2 and 5.
 */
#include "rca_das_gpu.h"
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace gr {
namespace beamform {

namespace {

constexpr double pi = 3.14159265358979323846;

std::string num(double v)
{
    std::ostringstream s;
    s << std::setprecision(6) << v;
    return s.str();
}

void require(bool ok, const std::string& message)
{
    if (!ok)
        throw std::invalid_argument(message);
}

void check_positive(const char* name, double v, double hi = 1e300)
{
    require(std::isfinite(v) && v > 0 && v <= hi,
            std::string(name) + " must be a finite number in (0, " + num(hi) + "], got " +
                num(v));
}

void check_count_range(const char* name, size_t v, size_t lo, size_t hi)
{
    require(v >= lo && v <= hi,
            std::string(name) + " must be in [" + std::to_string(lo) + ", " +
                std::to_string(hi) + "], got " + std::to_string(v));
}

//! Runs f(i) for i in [0, n), split over the machine's cores.
template <typename F>
void parallel_for(size_t n, const F& f)
{
    const size_t workers =
        std::max<size_t>(1, std::min<size_t>(n, std::thread::hardware_concurrency()));
    if (workers <= 1) {
        for (size_t i = 0; i < n; i++)
            f(i);
        return;
    }
    std::vector<std::thread> threads;
    for (size_t w = 0; w < workers; w++)
        threads.emplace_back([&, w] {
            for (size_t i = w; i < n; i += workers)
                f(i);
        });
    for (auto& t : threads)
        t.join();
}

//! The four weights of cubic Lagrange interpolation on nodes 0..3 (Algorithm 5).
inline void lagrange_weights(double tau, double w[4])
{
    w[0] = -(tau - 1) * (tau - 2) * (tau - 3) / 6;
    w[1] = tau * (tau - 2) * (tau - 3) / 2;
    w[2] = -tau * (tau - 1) * (tau - 3) / 2;
    w[3] = tau * (tau - 1) * (tau - 2) / 6;
}

/*!
 * Cubic interpolation of samples s[0..n) at fractional index fa, or false when
 * fa lies outside [0, n - 1] (the early exit that prevents extrapolation,
 * Appendix C). The first of the four samples is floor(clamp(fa - 1, 0, n - 4)).
 */
template <typename T>
inline bool interpolate(const T* s, size_t n, double fa, std::complex<double>& out)
{
    if (!(fa >= 0.0 && fa <= double(n - 1)))
        return false;
    const double first = std::floor(std::min(std::max(fa - 1.0, 0.0), double(n - 4)));
    const auto k = static_cast<size_t>(first);
    double w[4];
    lagrange_weights(fa - first, w);
    out = std::complex<double>(s[k]) * w[0] + std::complex<double>(s[k + 1]) * w[1] +
          std::complex<double>(s[k + 2]) * w[2] + std::complex<double>(s[k + 3]) * w[3];
    return true;
}

//! Hann window A(u) = cos^2(pi u) on |u| <= 0.5 (eq. 2).
inline double hann(double u) { return std::cos(pi * u) * std::cos(pi * u); }

/*!
 * The transmit path from virtual source \p j to the point (y, z) of the
 * elevation plane: offsets dy, dz, aperture coordinate u and length r.
 * Returns false where the point lies outside the transmit f-number aperture.
 */
struct source_path {
    double dy, dz, u, r;
};
inline bool
path_from_source(const rca_das_geometry& g, size_t j, double y, double z, source_path& p)
{
    p.dy = y - g.source_elev[j];
    p.dz = z - g.source_z[j];
    p.u = g.f_number * p.dy / p.dz;
    if (std::fabs(p.u) > 0.5)
        return false;
    p.r = std::sqrt(p.dy * p.dy + p.dz * p.dz);
    return true;
}

//! exp(2 pi i cycles), with the whole cycles removed first for accuracy.
inline std::complex<double> rotation(double cycles)
{
    const double frac = cycles - std::round(cycles);
    return { std::cos(2 * pi * frac), std::sin(2 * pi * frac) };
}

//! The -36 dB band [f_lo, f_hi] of |F(f)|^2 of the real taps, on [0, fs/2].
void filter_band(const std::vector<float>& taps, double fs, double& f_lo, double& f_hi)
{
    const int n_freq = 2048;
    std::vector<double> power(n_freq + 1);
    double peak = 0;
    for (int k = 0; k <= n_freq; k++) {
        const double f = 0.5 * fs * k / n_freq;
        std::complex<double> acc = 0;
        for (size_t m = 0; m < taps.size(); m++)
            acc += double(taps[m]) * std::polar(1.0, -2 * pi * f * double(m) / fs);
        power[k] = std::norm(acc);
        peak = std::max(peak, power[k]);
    }
    const double threshold = peak * std::pow(10.0, -36.0 / 20.0);
    int lo = n_freq, hi = 0;
    for (int k = 0; k <= n_freq; k++)
        if (power[k] >= threshold) {
            lo = std::min(lo, k);
            hi = std::max(hi, k);
        }
    f_lo = 0.5 * fs * lo / n_freq;
    f_hi = 0.5 * fs * hi / n_freq;
}

} // namespace

// ---------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------

size_t rca_das_config::input_item_bytes() const
{
    return n_elements * n_samples * (input == rca_sample_type::int16 ? 2 : 4);
}

size_t rca_das_config::output_item_bytes() const
{
    return n_voxels() * (output == rca_output::iq ? 8 : 4);
}

void rca_das_config::validate(const std::function<void(const std::string&)>& warn) const
{
    check_count_range("n_elements", n_elements, 4, 16384);
    check_positive("pitch", pitch, 1.0);
    check_positive("center_frequency", center_frequency, 1e12);
    check_positive("sampling_frequency", sampling_frequency, 1e12);
    check_positive("speed_of_sound", speed_of_sound, 1e5);
    require(std::isfinite(t_start) && std::fabs(t_start) <= 1.0,
            "t_start must be a finite time in [-1, 1] s, got " + num(t_start));
    check_count_range("n_samples", n_samples, 4, size_t(1) << 20);

    check_count_range("source_positions (number of emissions)",
                      source_positions.size(),
                      1,
                      4096);
    require(source_depths.size() == source_positions.size(),
            "source_depths must have one entry per emission (" +
                std::to_string(source_positions.size()) + "), got " +
                std::to_string(source_depths.size()));
    for (double p : source_positions)
        require(std::isfinite(p) && std::fabs(p) <= 1.0,
                "source_positions must be finite positions in [-1, 1] m, got " + num(p));
    for (double d : source_depths)
        require(std::isfinite(d) && d <= 0.0 && d >= -1.0,
                "source_depths must be in [-1, 0] m (defocused emissions, virtual sources "
                "behind the array, as eq. 22 requires), got " +
                    num(d));

    const std::pair<const char*, const rca_grid_axis*> axes[] = { { "x", &x },
                                                                 { "y", &y },
                                                                 { "z", &z } };
    for (const auto& [name, axis] : axes) {
        const std::string n(name);
        check_count_range((n + "_count").c_str(), axis->count, 1, 8192);
        check_positive((n + "_step").c_str(), axis->step, 1.0);
        require(std::isfinite(axis->start) && std::fabs(axis->start) <= 1.0,
                n + "_start must be a finite position in [-1, 1] m, got " + num(axis->start));
    }
    require(z.start > 0.0,
            "z_start must be > 0 m (the dynamic apodization divides by the depth), got " +
                num(z.start));
    require(n_voxels() <= (size_t(1) << 28),
            "x_count * y_count * z_count must be at most 2^28 voxels, got " +
                std::to_string(n_voxels()));

    check_positive("f_number", f_number, 100.0);
    check_count_range("filter_taps (number of taps)", filter_taps.size(), 1, 1024);
    for (float t : filter_taps)
        require(std::isfinite(t), "filter_taps must be finite numbers");
    require(std::any_of(filter_taps.begin(), filter_taps.end(), [](float t) { return t != 0; }),
            "filter_taps must not be all zero");
    if (processing == rca_processing::iq)
        require(filter_taps.size() >= 3,
                "filter_taps must have at least 3 taps for iq processing (the Hilbert "
                "transform of the filter gives the quadrature part), got " +
                    std::to_string(filter_taps.size()));
    check_count_range("decimation", decimation, 1, 64);
    const size_t n_t = (n_samples + filter_taps.size() - 1 + decimation - 1) / decimation;
    require(n_t >= 4,
            "decimation leaves " + std::to_string(n_t) +
                " samples per receiver; cubic interpolation needs at least 4 "
                "(n_samples + taps - 1) / decimation >= 4");
    require(std::isfinite(demodulation_frequency) && demodulation_frequency >= 0 &&
                demodulation_frequency < 0.5 * sampling_frequency,
            "demodulation_frequency must be in [0, sampling_frequency / 2) Hz (0: "
            "center_frequency), got " +
                num(demodulation_frequency));
    if (demodulation_frequency == 0)
        require(center_frequency < 0.5 * sampling_frequency,
                "center_frequency must be below sampling_frequency / 2 = " +
                    num(0.5 * sampling_frequency) + " Hz, got " + num(center_frequency));
    require(std::isfinite(db_reference) && db_reference >= 0,
            "db_reference must be >= 0 (0: the maximum of each volume), got " +
                num(db_reference));
    require(lri_z_count == 0 || (lri_z_count >= z.count && lri_z_count <= 65536),
            "lri_z_count must be 0 (automatic) or in [z_count, 65536], got " +
                std::to_string(lri_z_count));

    if (warn)
        for (const auto& w : sampling_warnings())
            warn(w);
}

std::vector<std::string> rca_das_config::sampling_warnings() const
{
    std::vector<std::string> out;
    double f_lo = 0, f_hi = 0;
    filter_band(filter_taps, sampling_frequency, f_lo, f_hi);
    const double bw = std::max(f_hi - f_lo, 1.0);
    const bool iq = processing == rca_processing::iq;
    const double f_nyquist = iq ? bw : 2 * f_hi;
    const double c = speed_of_sound;
    const std::string band = "(the matched filter's -36 dB band is " + num(f_lo * 1e-6) +
                             " to " + num(f_hi * 1e-6) + " MHz, so f_N = " +
                             num(f_nyquist * 1e-6) + " MHz for " +
                             (iq ? "I/Q" : "real") + " data)";
    const double lateral_limit = c / f_nyquist * std::sqrt(4 * f_number * f_number + 1);
    const double axial_limit = c / (2 * f_nyquist);
    if (x.count > 1 && x.step >= lateral_limit)
        out.push_back("x_step = " + num(x.step) +
                      " m violates the sampling criterion of eq. 7: it must be below "
                      "c / f_N * sqrt((2 F#)^2 + 1) = " +
                      num(lateral_limit) + " m " + band);
    if (y.count > 1 && y.step >= lateral_limit)
        out.push_back("y_step = " + num(y.step) +
                      " m violates the sampling criterion of eq. 7: it must be below "
                      "c / f_N * sqrt((2 F#)^2 + 1) = " +
                      num(lateral_limit) + " m " + band);
    if (z.count > 1 && z.step >= axial_limit)
        out.push_back("z_step = " + num(z.step) +
                      " m violates the sampling criterion of eq. 7: it must be below "
                      "c / (2 f_N) = " +
                      num(axial_limit) + " m " + band);
    const double fs_data = sampling_frequency / double(decimation);
    if (fs_data < f_nyquist)
        out.push_back("decimation = " + std::to_string(decimation) +
                      " aliases the signal: sampling_frequency / decimation = " +
                      num(fs_data * 1e-6) + " MHz is below f_N " + band);
    return out;
}

// ---------------------------------------------------------------------------
// Derived geometry
// ---------------------------------------------------------------------------

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
            for (size_t e = 0; e < g.n_elev; e++) {
                const double dy = g.elev.at(e) - g.source_elev[j];
                for (size_t iz = 0; iz < g.n_z; iz++) {
                    const double z = g.z.at(iz);
                    const double dz = z - g.source_z[j];
                    if (std::fabs(g.f_number * dy / dz) > 0.5)
                        continue;
                    const double r = std::sqrt(dy * dy + dz * dz);
                    const double fval = z + 0.5 * dy * dy / (r + dz);
                    max_fa = std::max(max_fa, (fval - g.z.start) / g.z.step);
                }
            }
        const double z_data_end = 0.5 * g.c * (g.t0 + double(g.n_t - 1) / g.fs);
        const double fa_data_end = (z_data_end - g.z.start) / g.z.step + 2.0;
        max_fa = std::min(max_fa, std::max(fa_data_end, double(g.n_z - 1)));
        g.n_z_lri = std::max<size_t>(g.n_z, size_t(std::floor(max_fa)) + 2);
        g.n_z_lri = std::max<size_t>(g.n_z_lri, 4);
    }
    return g;
}

// ---------------------------------------------------------------------------
// Counting interpolations (Table IV)
// ---------------------------------------------------------------------------

rca_das_counts rca_count_interpolations(const rca_das_config& cfg, bool conventional)
{
    cfg.validate();
    const rca_das_geometry g = rca_das_geometry::from(cfg);
    rca_das_counts counts;
    counts.flop_per_interpolation = g.iq ? 22 : 8;
    const double t_end = g.t0 + double(g.n_t - 1) / g.fs;

    // Stage 1: the same count for every emission (eq. 21 does not depend on it).
    uint64_t per_image = 0;
    for (size_t l = 0; l < g.n_lat; l++)
        for (size_t iz = 0; iz < g.n_z_lri; iz++) {
            const double z = g.z.at(iz);
            for (size_t i = 0; i < g.n_rx; i++) {
                const double dx = g.lat.at(l) - g.receiver_position(i);
                if (std::fabs(g.f_number * dx / z) > 0.5)
                    continue;
                const double tof = (z + std::sqrt(dx * dx + z * z)) / g.c;
                per_image += (tof >= g.t0 && tof <= t_end);
            }
        }
    counts.stage1 = per_image * g.n_tx;

    // Stage 2: the same count for every lateral plane.
    uint64_t per_plane = 0;
    for (size_t e = 0; e < g.n_elev; e++)
        for (size_t iz = 0; iz < g.n_z; iz++)
            for (size_t j = 0; j < g.n_tx; j++) {
                const double z = g.z.at(iz);
                const double dy = g.elev.at(e) - g.source_elev[j];
                const double dz = z - g.source_z[j];
                if (std::fabs(g.f_number * dy / dz) > 0.5)
                    continue;
                const double fval = z + 0.5 * dy * dy / (std::sqrt(dy * dy + dz * dz) + dz);
                const double fa = (fval - g.z.start) / g.z.step;
                per_plane += (fa >= 0 && fa <= double(g.n_z_lri - 1));
            }
    counts.stage2 = per_plane * g.n_lat;

    if (conventional) {
        // Pairs of a transmit path (elevation, emission) and a receive path
        // (lateral, receiver) with non-zero apodizations whose sum lies in the
        // data: per depth, sort the receive paths and count by binary search.
        for (size_t iz = 0; iz < g.n_z; iz++) {
            const double z = g.z.at(iz);
            std::vector<double> rx;
            for (size_t l = 0; l < g.n_lat; l++)
                for (size_t i = 0; i < g.n_rx; i++) {
                    const double dx = g.lat.at(l) - g.receiver_position(i);
                    if (std::fabs(g.f_number * dx / z) <= 0.5)
                        rx.push_back(std::sqrt(dx * dx + z * z));
                }
            std::sort(rx.begin(), rx.end());
            for (size_t e = 0; e < g.n_elev; e++)
                for (size_t j = 0; j < g.n_tx; j++) {
                    const double dy = g.elev.at(e) - g.source_elev[j];
                    const double dz = z - g.source_z[j];
                    if (std::fabs(g.f_number * dy / dz) > 0.5)
                        continue;
                    const double tx = std::sqrt(dy * dy + dz * dz) + g.source_z[j];
                    const auto lo = std::lower_bound(rx.begin(), rx.end(), g.t0 * g.c - tx);
                    const auto hi = std::upper_bound(rx.begin(), rx.end(), t_end * g.c - tx);
                    counts.conventional += uint64_t(hi - lo);
                }
        }
    }
    return counts;
}

// ---------------------------------------------------------------------------
// CPU reference
// ---------------------------------------------------------------------------

void rca_das_engine::execute(const void* in, void* out, size_t n_volumes, stream_handle stream)
{
    const size_t in_bytes = d_config.input_item_bytes() * d_config.n_emissions();
    const size_t out_bytes = d_config.output_item_bytes();
    for (size_t v = 0; v < n_volumes; v++) {
        add_emissions(static_cast<const uint8_t*>(in) + v * in_bytes,
                      0,
                      d_config.n_emissions(),
                      stream);
        finish_volume(static_cast<uint8_t*>(out) + v * out_bytes, stream);
    }
}

namespace {

class rca_das_cpu final : public rca_das_engine
{
public:
    explicit rca_das_cpu(const rca_das_config& c) : rca_das_engine(c)
    {
        const auto& g = d_geometry;
        d_filtered.assign(g.n_tx * g.n_rx * g.n_t, 0);
        if (c.method == rca_method::dual_stage)
            d_lri.assign(g.n_lat * g.n_tx * g.n_z_lri, 0);
        d_volume.assign(c.n_voxels(), 0);
    }

    std::string describe() const override
    {
        return std::string("cpu reference, ") +
               (d_config.method == rca_method::dual_stage ? "dual-stage" : "conventional") +
               (d_geometry.iq ? ", I/Q" : ", real") + ", LRI depth samples " +
               std::to_string(d_geometry.n_z_lri);
    }

    void add_emissions(const void* in, size_t first, size_t count, stream_handle) override
    {
        if (first + count > d_geometry.n_tx)
            throw std::out_of_range("rca_das: emissions " + std::to_string(first) + ".." +
                                    std::to_string(first + count) + " exceed the sequence of " +
                                    std::to_string(d_geometry.n_tx));
        const size_t item = d_config.n_elements * d_config.n_samples;
        for (size_t k = 0; k < count; k++) {
            if (d_config.input == rca_sample_type::int16)
                preprocess(static_cast<const int16_t*>(in) + k * item, first + k);
            else
                preprocess(static_cast<const float*>(in) + k * item, first + k);
            if (d_config.method == rca_method::dual_stage)
                stage1(first + k);
        }
    }

    void finish_volume(void* out, stream_handle) override
    {
        if (d_config.method == rca_method::dual_stage)
            stage2();
        else
            conventional();
        write_output(out);
    }

private:
    //! Section IV-D.1: convert, filter (eq. 18), demodulate, decimate.
    template <typename T>
    void preprocess(const T* rf, size_t emission)
    {
        const auto& g = d_geometry;
        const size_t ns = d_config.n_samples;
        const double fs = d_config.sampling_frequency;
        parallel_for(g.n_rx, [&](size_t i) {
            const T* r = rf + i * ns;
            std::complex<float>* q = &d_filtered[(emission * g.n_rx + i) * g.n_t];
            for (size_t k = 0; k < g.n_t; k++) {
                const long n = long(k * g.decimation);
                std::complex<double> acc = 0;
                for (size_t m = 0; m < g.n_taps; m++) {
                    const long idx = n - long(m);
                    if (idx >= 0 && idx < long(ns))
                        acc += double(r[idx]) * std::complex<double>(g.taps[m]);
                }
                if (g.iq) {
                    // Base band: exp(-2 pi i f_d t_n), t_n the time of this output.
                    const double t_n = g.t0 + double(k) / g.fs;
                    acc *= rotation(-g.demod_frequency * t_n);
                }
                q[k] = std::complex<float>(acc);
            }
        });
        (void)fs;
    }

    //! Algorithm 1: the low-resolution xz image of one emission (eq. 1, 21).
    void stage1(size_t emission)
    {
        const auto& g = d_geometry;
        parallel_for(g.n_lat, [&](size_t l) {
            const double x = g.lat.at(l);
            std::complex<float>* image = &d_lri[(l * g.n_tx + emission) * g.n_z_lri];
            for (size_t iz = 0; iz < g.n_z_lri; iz++) {
                const double z = g.z.at(iz);
                std::complex<double> sum = 0;
                for (size_t i = 0; i < g.n_rx; i++) {
                    const double dx = x - g.receiver_position(i);
                    const double u = g.f_number * dx / z;
                    if (std::fabs(u) > 0.5)
                        continue; // early exit: zero apodization
                    const double r = std::sqrt(dx * dx + z * z);
                    const double tof = (z + r) / g.c;
                    std::complex<double> delayed;
                    if (!interpolate(&d_filtered[(emission * g.n_rx + i) * g.n_t],
                                     g.n_t,
                                     (tof - g.t0) * g.fs,
                                     delayed))
                        continue; // early exit: outside the data
                    if (g.iq) // back to f_d, relative to the reference time 2 z / c
                        delayed *= rotation(g.demod_frequency / g.c * dx * dx / (r + z));
                    sum += hann(u) * delayed;
                }
                image[iz] = std::complex<float>(sum);
            }
        });
    }

    //! Algorithm 2: extrapolate and sum the images into the volume (eqs. 5, 22).
    void stage2()
    {
        const auto& g = d_geometry;
        parallel_for(g.n_lat, [&](size_t l) {
            for (size_t e = 0; e < g.n_elev; e++) {
                const double y = g.elev.at(e);
                for (size_t iz = 0; iz < g.n_z; iz++) {
                    const double z = g.z.at(iz);
                    std::complex<double> sum = 0;
                    for (size_t j = 0; j < g.n_tx; j++) {
                        source_path tx;
                        if (!path_from_source(g, j, y, z, tx))
                            continue;
                        // shift = f(y, z) - z
                        const double shift = 0.5 * tx.dy * tx.dy / (tx.r + tx.dz);
                        std::complex<double> delayed;
                        if (!interpolate(&d_lri[(l * g.n_tx + j) * g.n_z_lri],
                                         g.n_z_lri,
                                         (z + shift - g.z.start) / g.z.step,
                                         delayed))
                            continue;
                        if (g.iq)
                            delayed *= rotation(2 * g.demod_frequency / g.c * shift);
                        sum += hann(tx.u) * delayed;
                    }
                    d_volume[l * g.stride_lat + e * g.stride_elev + iz] =
                        std::complex<float>(sum);
                }
            }
        });
    }

    //! The conventional 3D delay-and-sum (eq. 1 and 3 over the full volume).
    void conventional()
    {
        const auto& g = d_geometry;
        parallel_for(g.n_lat, [&](size_t l) {
            const double x = g.lat.at(l);
            for (size_t e = 0; e < g.n_elev; e++) {
                const double y = g.elev.at(e);
                for (size_t iz = 0; iz < g.n_z; iz++) {
                    const double z = g.z.at(iz);
                    std::complex<double> sum = 0;
                    for (size_t j = 0; j < g.n_tx; j++) {
                        source_path tx;
                        if (!path_from_source(g, j, y, z, tx))
                            continue;
                        const double big_r = tx.r;
                        const double apo_tx = hann(tx.u);
                        for (size_t i = 0; i < g.n_rx; i++) {
                            const double dx = x - g.receiver_position(i);
                            const double u_rx = g.f_number * dx / z;
                            if (std::fabs(u_rx) > 0.5)
                                continue;
                            const double r = std::sqrt(dx * dx + z * z);
                            const double tof = (big_r + g.source_z[j] + r) / g.c;
                            std::complex<double> delayed;
                            if (!interpolate(&d_filtered[(j * g.n_rx + i) * g.n_t],
                                             g.n_t,
                                             (tof - g.t0) * g.fs,
                                             delayed))
                                continue;
                            if (g.iq)
                                delayed *= rotation(g.demod_frequency / g.c *
                                                    (tx.dy * tx.dy / (big_r + tx.dz) +
                                                     dx * dx / (r + z)));
                            sum += apo_tx * hann(u_rx) * delayed;
                        }
                    }
                    d_volume[l * g.stride_lat + e * g.stride_elev + iz] =
                        std::complex<float>(sum);
                }
            }
        });
    }

    //! Complex base-band voxels: as beamformed (I/Q), or the axial analytic
    //! signal of the real volume demodulated by exp(-2 pi i (2 f_d / c) z).
    std::vector<std::complex<float>> baseband_volume() const
    {
        const auto& g = d_geometry;
        if (g.iq)
            return d_volume;
        const std::vector<float> h = rca_axial_hilbert_taps();
        const long half = long(h.size() / 2);
        std::vector<std::complex<float>> out(d_volume.size());
        for (size_t l = 0; l < g.n_lat; l++)
            for (size_t e = 0; e < g.n_elev; e++) {
                const std::complex<float>* line = &d_volume[l * g.stride_lat + e * g.stride_elev];
                std::complex<float>* o = &out[l * g.stride_lat + e * g.stride_elev];
                for (long iz = 0; iz < long(g.n_z); iz++) {
                    double quadrature = 0;
                    for (long k = -half; k <= half; k++) {
                        const long src = iz - k;
                        if (src >= 0 && src < long(g.n_z))
                            quadrature += double(h[k + half]) * line[src].real();
                    }
                    const std::complex<double> analytic(line[iz].real(), quadrature);
                    o[iz] = std::complex<float>(
                        analytic * rotation(-2 * g.demod_frequency / g.c * g.z.at(iz)));
                }
            }
        return out;
    }

    void write_output(void* out) const
    {
        const std::vector<std::complex<float>> volume = baseband_volume();
        const size_t n = volume.size();
        if (d_config.output == rca_output::iq) {
            std::copy(volume.begin(), volume.end(), static_cast<std::complex<float>*>(out));
            return;
        }
        auto* o = static_cast<float*>(out);
        for (size_t v = 0; v < n; v++)
            o[v] = std::abs(volume[v]);
        if (d_config.output == rca_output::db) {
            double reference = d_config.db_reference;
            if (reference <= 0)
                reference = *std::max_element(o, o + n);
            if (!(reference > 0))
                reference = 1;
            for (size_t v = 0; v < n; v++)
                o[v] = float(20.0 * std::log10(std::max(double(o[v]) / reference, 1e-15)));
        }
    }

    std::vector<std::complex<float>> d_filtered; //!< [emission][receiver][n_t]
    std::vector<std::complex<float>> d_lri;      //!< [lateral][emission][n_z_lri]
    std::vector<std::complex<float>> d_volume;   //!< as the output item, complex
};

} // namespace

std::unique_ptr<rca_das_engine> make_rca_das_cpu(const rca_das_config& config)
{
    config.validate();
    return std::make_unique<rca_das_cpu>(config);
}

std::unique_ptr<rca_das_engine> rca_das_engine::make(const rca_das_config& config,
                                                     const device_spec& device)
{
    config.validate();
    return make_for_device("rca_das",
                           device,
                           [&] { return make_rca_das_cpu(config); },
                           BEAMFORM_GPU_MAKERS(make_rca_das_gpu),
                           config,
                           device,
                           rca_das_gpu_tuning{});
}

} // namespace beamform
} // namespace gr
