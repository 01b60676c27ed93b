/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "array_source_impl.h"
#include "block_support/block_params.h"
#include "block_support/rx_time.h"
#include "engines/common/number_text.h"
#include "engines/phase_shift/phase_cycles.h" // cos_sin_of_cycles
#include <gnuradio/beamform/engines/array_geometry.h>
#include <gnuradio/beamform/engines/phase_shift_engine.h> // phase_cycles: exact fractional cycles
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer.h>
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace gr {
namespace beamform {

namespace {

constexpr double two_pi = 6.28318530717958647692;

void check_finite_values(const char* name, const std::vector<double>& values)
{
    for (double v : values)
        if (!std::isfinite(v))
            throw std::invalid_argument(std::string(name) + " must be finite numbers");
}

void check_finite_positive(const char* name, double value)
{
    if (!(value > 0) || !std::isfinite(value))
        throw std::invalid_argument(std::string(name) + " must be a finite number > 0");
}

//! Fractional part in [-0.5, 0.5] of a * b: a b - rint(a b) in one fma.
double fraction_of_product(double a, double b)
{
    const double x = std::fma(a, b, -std::rint(a * b));
    return x - std::rint(x);
}

/*!
 * out[t][a] += phasor[a] * tone[t] for n items of n_receivers complex values
 * (written out: std::complex's operator* adds NaN checks). Compiled also for
 * AVX2 + FMA, picked at run time.
 */
__attribute__((target_clones("avx2,fma", "default"))) void
add_tone(float* out,
         size_t n,
         size_t n_receivers,
         const float* phasor_re,
         const float* phasor_im,
         const float* tone_re,
         const float* tone_im)
{
    for (size_t t = 0; t < n; t++) {
        const float tr = tone_re[t], ti = tone_im[t];
        float* row = out + 2 * t * n_receivers;
        for (size_t a = 0; a < n_receivers; a++) {
            row[2 * a] += phasor_re[a] * tr - phasor_im[a] * ti;
            row[2 * a + 1] += phasor_re[a] * ti + phasor_im[a] * tr;
        }
    }
}

/*!
 * out[i] = round(scale * x[i]) (to nearest, ties to even, in double)
 * saturated to T's range. Clamping first and rounding by adding and removing
 * 1.5 * 2^52 (exact for |v| < 2^51 in the default rounding mode) gives the
 * same integers as rounding first. Four values at a time in GCC's vector
 * types: written as a plain loop, the compiler turns the clamp into branches
 * (to store the limits as constants) and the loop is not vectorized.
 */
template <typename T>
inline void round_to_integers(const float* x, T* out, size_t n, double scale)
{
    typedef double double4 __attribute__((vector_size(32)));
    typedef int32_t int4 __attribute__((vector_size(16)));
    constexpr double lo = std::numeric_limits<T>::min(),
                     hi = std::numeric_limits<T>::max();
    constexpr double round_shift = 6755399441055744.0; // 1.5 * 2^52
    const double4 lo4 = { lo, lo, lo, lo }, hi4 = { hi, hi, hi, hi };
    const double4 shift4 = { round_shift, round_shift, round_shift, round_shift };
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        double4 v = {
            double(x[i]), double(x[i + 1]), double(x[i + 2]), double(x[i + 3])
        };
        v *= scale;
        v = v < lo4 ? lo4 : v;
        v = v > hi4 ? hi4 : v;
        const int4 r = __builtin_convertvector((v + shift4) - shift4, int4);
        for (int k = 0; k < 4; k++)
            out[i + k] = T(r[k]);
    }
    for (; i < n; i++) {
        const double v = std::min(std::max(scale * double(x[i]), lo), hi);
        out[i] = T(int32_t((v + round_shift) - round_shift));
    }
}

__attribute__((target_clones("avx2,fma", "default"))) void
round_to_int16(const float* x, int16_t* out, size_t n, double scale)
{
    round_to_integers(x, out, n, scale);
}

__attribute__((target_clones("avx2,fma", "default"))) void
round_to_int8(const float* x, int8_t* out, size_t n, double scale)
{
    round_to_integers(x, out, n, scale);
}

} // namespace

void array_source_config::validate_and_complete()
{
    check_sample_format(output_format, "output_format");
    if (positions.empty() || positions.size() > 65536)
        throw std::invalid_argument(
            "positions must hold 1 to 65536 (east, north, up) triples, got " +
            std::to_string(positions.size()));
    for (const auto& p : positions)
        for (double x : p)
            if (!std::isfinite(x))
                throw std::invalid_argument("positions must be finite numbers (metres)");
    check_finite_positive("sample_rate", sample_rate);
    if (!std::isfinite(center_freq))
        throw std::invalid_argument("center_freq must be a finite number (Hz)");
    const size_t n = azimuths.size();
    if (elevations.size() != n || frequency_offsets.size() != n)
        throw std::invalid_argument(
            "azimuths, elevations and frequency_offsets must have one entry per source "
            "(got " +
            std::to_string(azimuths.size()) + ", " + std::to_string(elevations.size()) +
            ", " + std::to_string(frequency_offsets.size()) + ")");
    check_finite_values("azimuths", azimuths);
    check_finite_values("elevations", elevations);
    for (double el : elevations)
        if (el < -90.0 || el > 90.0)
            throw std::invalid_argument("elevations must be in [-90, 90] degrees");
    check_finite_values("frequency_offsets", frequency_offsets);
    for (double f : frequency_offsets)
        if (std::abs(f) > sample_rate / 2)
            throw std::invalid_argument(
                "frequency_offsets must be in [-sample_rate/2, sample_rate/2] Hz, got " +
                number_text(f));
    if (amplitudes.empty())
        amplitudes.assign(n, 1.0);
    else if (amplitudes.size() == 1)
        amplitudes.assign(n, amplitudes[0]);
    if (amplitudes.size() != n)
        throw std::invalid_argument(
            "amplitudes must be empty, one value, or one per source (" +
            std::to_string(n) + "), got " + std::to_string(amplitudes.size()));
    check_finite_values("amplitudes", amplitudes);
    if (phases.empty())
        phases.assign(n, 0.0);
    else if (phases.size() == 1)
        phases.assign(n, phases[0]);
    if (phases.size() != n)
        throw std::invalid_argument(
            "phases must be empty, one value, or one per source (" + std::to_string(n) +
            "), got " + std::to_string(phases.size()));
    check_finite_values("phases", phases);
    if (!(noise_amplitude >= 0) || !std::isfinite(noise_amplitude))
        throw std::invalid_argument("noise_amplitude must be a finite number >= 0");
    check_finite_positive("scale", scale);
    if (reference_index < 0 || size_t(reference_index) >= positions.size())
        throw std::invalid_argument("reference_index must be in [0, " +
                                    std::to_string(positions.size() - 1) + "], got " +
                                    std::to_string(reference_index));
    check_finite_positive("propagation_speed", propagation_speed);
    // rx_time holds whole seconds as uint64 and must stay exact in double: 2^53 s
    // (285 million years) leaves room for any run.
    constexpr double max_start_time = 9007199254740992.0;
    if (!(start_time >= 0) || !(start_time <= max_start_time))
        throw std::invalid_argument("start_time must be in [0, 2^53] seconds, got " +
                                    number_text(start_time));
}

array_source::sptr array_source::make(const std::vector<std::array<double, 3>>& positions,
                                      double sample_rate,
                                      double center_freq,
                                      const std::vector<double>& azimuths,
                                      const std::vector<double>& elevations,
                                      const std::vector<double>& frequency_offsets,
                                      const std::vector<double>& amplitudes,
                                      const std::vector<double>& phases,
                                      double noise_amplitude,
                                      sample_format output_format,
                                      double scale,
                                      uint64_t seed,
                                      int reference_index,
                                      double propagation_speed,
                                      double start_time)
{
    array_source_config c;
    c.positions = positions;
    c.sample_rate = sample_rate;
    c.center_freq = center_freq;
    c.azimuths = azimuths;
    c.elevations = elevations;
    c.frequency_offsets = frequency_offsets;
    c.amplitudes = amplitudes;
    c.phases = phases;
    c.noise_amplitude = noise_amplitude;
    c.output_format = output_format;
    c.scale = scale;
    c.seed = seed;
    c.reference_index = reference_index;
    c.propagation_speed = propagation_speed;
    c.start_time = start_time;
    c.validate_and_complete();
    return gnuradio::make_block_sptr<array_source_impl>(c);
}

array_source_impl::array_source_impl(const array_source_config& config)
    : gr::sync_block(
          "array_source",
          gr::io_signature::make(0, 0, 0),
          gr::io_signature::make(
              1, 1, config.positions.size() * sample_size(config.output_format))),
      d_config(config),
      d_n_receivers(config.positions.size()),
      d_n_sources(config.azimuths.size()),
      // About 2048 complex values (16 KiB of fc32) at a time: they stay in L1
      // while the noise is drawn, the tones added and the integers written.
      d_tile_items(std::max<size_t>(1, 2048 / config.positions.size())),
      d_noise(config.seed)
{
    d_delays.resize(d_n_sources * d_n_receivers);
    d_phasor_re.resize(d_n_sources * d_n_receivers);
    d_phasor_im.resize(d_n_sources * d_n_receivers);
    d_cycles_per_sample.resize(d_n_sources);
    for (size_t k = 0; k < d_n_sources; k++) {
        const auto tau = geometric_delays(config.positions,
                                          config.azimuths[k],
                                          config.elevations[k],
                                          config.reference_index,
                                          config.propagation_speed);
        const double sky_freq = config.center_freq + config.frequency_offsets[k];
        d_cycles_per_sample[k] = config.frequency_offsets[k] / config.sample_rate;
        for (size_t a = 0; a < d_n_receivers; a++) {
            d_delays[k * d_n_receivers + a] = tau[a];
            // Receiver a sees the wavefront tau earlier: phase + 2 pi f_sky tau.
            const double cycles = fraction_of_product(sky_freq, tau[a]);
            const auto phasor =
                std::polar(config.amplitudes[k], two_pi * cycles + config.phases[k]);
            d_phasor_re[k * d_n_receivers + a] = float(phasor.real());
            d_phasor_im[k * d_n_receivers + a] = float(phasor.imag());
        }
    }
    // An output buffer as large as the CPU engines' (cpu_buffer_items): the
    // channelizer downstream pays a fixed cost per call.
    size_output_buffers(*this, output_signature()->sizeof_stream_item(0), device_spec{});
    d_tone_re.resize(d_tile_items);
    d_tone_im.resize(d_tile_items);
    if (config.output_format != sample_format::fc32)
        d_tile.resize(2 * d_tile_items * d_n_receivers);
}

bool array_source_impl::start()
{
    std::string buffer;
    const auto detail = this->detail();
    if (detail && detail->noutputs() > 0 && detail->output(0))
        buffer =
            ", output buffer " + std::to_string(detail->output(0)->bufsize()) + " items";
    d_logger->info("on cpu: {:d} receivers, {:d} sources, items of {:d} B out{:s}",
                   d_n_receivers,
                   d_n_sources,
                   output_signature()->sizeof_stream_item(0),
                   buffer);
    return true;
}

bool array_source_impl::stop()
{
    forget_allocated_max_output_buffers(*this); // as the engine blocks do
    return true;
}

void array_source_impl::evaluate_tone(size_t k, uint64_t first, size_t n)
{
    // Exact from the integer sample index at the start and at every 64th
    // sample, advanced in between by the one-sample phasor in double: after
    // fewer than 64 steps the phase is off by about 1e-14 cycles, far below the
    // float output's rounding, and nothing accumulates beyond 64 samples.
    constexpr uint64_t exact_every = 64;
    const double cycles_per_sample = d_cycles_per_sample[k];
    double step_re, step_im;
    cos_sin_of_cycles(cycles_per_sample, step_re, step_im);
    double re = 1.0, im = 0.0;
    for (size_t t = 0; t < n; t++) {
        if (t == 0 || (first + t) % exact_every == 0)
            cos_sin_of_cycles(
                phase_cycles(0.0, cycles_per_sample, 0.0, first + t), re, im);
        d_tone_re[t] = float(re);
        d_tone_im[t] = float(im);
        const double next_re = re * step_re - im * step_im;
        im = re * step_im + im * step_re;
        re = next_re;
    }
}

void array_source_impl::simulate(uint64_t first, size_t n, float* out)
{
    const size_t n_values = 2 * n * d_n_receivers;
    if (d_config.noise_amplitude > 0)
        d_noise.fill(out, n_values, float(d_config.noise_amplitude / std::sqrt(2.0)));
    else
        std::fill(out, out + n_values, 0.0f);
    for (size_t k = 0; k < d_n_sources; k++) {
        evaluate_tone(k, first, n);
        add_tone(out,
                 n,
                 d_n_receivers,
                 d_phasor_re.data() + k * d_n_receivers,
                 d_phasor_im.data() + k * d_n_receivers,
                 d_tone_re.data(),
                 d_tone_im.data());
    }
}

int array_source_impl::work(int noutput_items,
                            gr_vector_const_void_star&,
                            gr_vector_void_star& output_items)
{
    const uint64_t first = nitems_written(0);
    if (first == 0) {
        const pmt::pmt_t src = alias_pmt();
        add_item_tag(0,
                     0,
                     rx_time_key(),
                     make_rx_time(shifted(rx_time{}, d_config.start_time)),
                     src);
        add_item_tag(
            0, 0, pmt::mp("rx_freq"), pmt::from_double(d_config.center_freq), src);
        add_item_tag(
            0, 0, pmt::mp("rx_rate"), pmt::from_double(d_config.sample_rate), src);
    }

    const size_t n_items = size_t(noutput_items);
    for (size_t t0 = 0; t0 < n_items; t0 += d_tile_items) {
        const size_t n = std::min(d_tile_items, n_items - t0);
        const size_t offset = 2 * t0 * d_n_receivers; // real values before this tile
        const size_t n_values = 2 * n * d_n_receivers;
        switch (d_config.output_format) {
        case sample_format::fc32:
            simulate(first + t0, n, static_cast<float*>(output_items[0]) + offset);
            break;
        case sample_format::sc16:
            simulate(first + t0, n, d_tile.data());
            round_to_int16(d_tile.data(),
                           static_cast<int16_t*>(output_items[0]) + offset,
                           n_values,
                           d_config.scale);
            break;
        case sample_format::sc8:
            simulate(first + t0, n, d_tile.data());
            round_to_int8(d_tile.data(),
                          static_cast<int8_t*>(output_items[0]) + offset,
                          n_values,
                          d_config.scale);
            break;
        }
    }
    return noutput_items;
}

} // namespace beamform
} // namespace gr
