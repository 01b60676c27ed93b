/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rca_das configuration: item sizes, validation of the parameters and the
 * sampling warnings (the criterion of eq. 7 of Praesius, Jorgensen and
 * Jensen, "Real-Time Full-Volume Row-Column Imaging").
 */
#include "rca_das_detail.h"
#include <gnuradio/beamform/engines/rca_das_engine.h>
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace beamform {

namespace {

using rca_detail::pi;

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

std::string rca_gpu_precision_choices() { return "\"float32\", \"float16\""; }

std::string rca_gpu_precision_name(rca_gpu_precision precision)
{
    switch (precision) {
    case rca_gpu_precision::float32:
        return "float32";
    case rca_gpu_precision::float16:
        return "float16";
    }
    return "(value " + std::to_string(int(precision)) + ")";
}

rca_gpu_precision rca_parse_gpu_precision(const std::string& name)
{
    for (auto p : { rca_gpu_precision::float32, rca_gpu_precision::float16 })
        if (name == rca_gpu_precision_name(p))
            return p;
    throw std::invalid_argument("gpu_precision must be one of " + rca_gpu_precision_choices() +
                                ", got \"" + name + "\"");
}

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
    // Before the filter taps: make() designs the default taps from these
    // frequencies, so an impossible pair would otherwise be blamed on the taps.
    require(std::isfinite(demodulation_frequency) && demodulation_frequency >= 0 &&
                demodulation_frequency < 0.5 * sampling_frequency,
            "demodulation_frequency must be in [0, sampling_frequency / 2) Hz (0: "
            "center_frequency), got " +
                num(demodulation_frequency));
    if (demodulation_frequency == 0)
        require(center_frequency < 0.5 * sampling_frequency,
                "center_frequency must be below sampling_frequency / 2 = " +
                    num(0.5 * sampling_frequency) + " Hz, got " + num(center_frequency));

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
    require(std::isfinite(db_reference) && db_reference >= 0,
            "db_reference must be >= 0 (0: the maximum of each volume), got " +
                num(db_reference));
    require(lri_z_count == 0 || (lri_z_count >= z.count && lri_z_count <= 65536),
            "lri_z_count must be 0 (automatic) or in [z_count, 65536], got " +
                std::to_string(lri_z_count));
    require(gpu_precision == rca_gpu_precision::float32 ||
                gpu_precision == rca_gpu_precision::float16,
            "gpu_precision must be one of " + rca_gpu_precision_choices() + ", got " +
                rca_gpu_precision_name(gpu_precision));
    // The half kernels' storage gains come from the int16 range, and only the
    // dual-stage stages have them. Refused on every device (the CPU ignores
    // the precision) so that switching the device never invalidates a setup.
    if (gpu_precision == rca_gpu_precision::float16)
        require(input == rca_sample_type::int16 && method == rca_method::dual_stage,
                "gpu_precision \"float16\" needs input_type \"int16\" and method "
                "\"dual_stage\" (the half kernels' scaling is derived from the int16 range), "
                "got input_type \"" +
                    std::string(input == rca_sample_type::int16 ? "int16" : "float32") +
                    "\" and method \"" +
                    (method == rca_method::dual_stage ? "dual_stage" : "conventional") +
                    "\"; accepted gpu_precision values: " + rca_gpu_precision_choices() +
                    " (float32 with any input_type and method)");

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

} // namespace beamform
} // namespace gr
