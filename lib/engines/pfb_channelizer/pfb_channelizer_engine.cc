/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/beamform/engines/pfb_channelizer_engine.h>
#include "fftw_backward.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include "runtime/backends.h"

namespace gr {
namespace beamform {

BEAMFORM_DECLARE_GPU_MAKER(pfb_channelizer_engine,
                           make_pfb_channelizer_gpu,
                           const pfb_channelizer_config&,
                           const device_spec&)


namespace {
// Limits that keep every index of the engines (host and device) in range.
constexpr size_t max_channels = 1u << 16;
constexpr size_t max_taps_per_branch = 1024;
constexpr size_t max_prototype = 1u << 24;
constexpr size_t max_receivers = 1u << 20;

void require(bool ok, const std::string& message)
{
    if (!ok)
        throw std::invalid_argument(message);
}
} // namespace

void pfb_channelizer_config::validate() const
{
    check_sample_format(input, "input_format");
    require(n_channels >= 2 && n_channels <= max_channels,
            "n_channels must be in [2, 65536], got " + std::to_string(n_channels));
    require(taps_per_branch >= 1 && taps_per_branch <= max_taps_per_branch,
            "taps_per_branch must be in [1, 1024], got " +
                std::to_string(taps_per_branch));
    require(n_channels * taps_per_branch <= max_prototype,
            "n_channels * taps_per_branch must be at most 16777216, got " +
                std::to_string(n_channels * taps_per_branch));
    require(n_receivers >= 1 && n_receivers <= max_receivers,
            "n_receivers must be in [1, 1048576], got " + std::to_string(n_receivers));
    require(oversample == 1 || oversample == 2,
            "oversample must be 1 or 2, got " + std::to_string(oversample));
    require(n_channels % oversample == 0,
            "oversample = 2 needs an even n_channels, got " + std::to_string(n_channels));
    require(taps.size() <= n_channels * taps_per_branch,
            "taps must have at most n_channels * taps_per_branch = " +
                std::to_string(n_channels * taps_per_branch) + " entries, got " +
                std::to_string(taps.size()) + " (raise taps_per_branch)");
    for (float t : taps)
        require(std::isfinite(t), "taps must be finite numbers");
    if (!taps.empty()) {
        bool any_nonzero = false;
        for (float t : taps)
            any_nonzero = any_nonzero || t != 0.0f;
        require(any_nonzero, "taps must not be all zero");
    }
}

std::vector<float> pfb_channelizer_config::prototype() const
{
    if (taps.empty())
        return default_pfb_taps(n_channels, taps_per_branch);
    std::vector<float> padded(taps);
    padded.resize(n_channels * taps_per_branch, 0.0f);
    return padded;
}

namespace {
//! Zeroth-order modified Bessel function of the first kind (power series).
double bessel_i0(double x)
{
    double term = 1.0, sum = 1.0;
    const double q = x * x / 4.0;
    for (int k = 1; k < 200 && term > 1e-17 * sum; k++) {
        term *= q / (double(k) * double(k));
        sum += term;
    }
    return sum;
}
} // namespace

std::vector<float> default_pfb_taps(size_t n_channels, size_t taps_per_branch)
{
    const double beta = 6.0;
    const size_t length = n_channels * taps_per_branch;
    const double centre = (double(length) - 1.0) / 2.0;
    const double norm = bessel_i0(beta);
    std::vector<double> h(length);
    double sum = 0.0;
    for (size_t n = 0; n < length; n++) {
        const double x = (double(n) - centre) / double(n_channels);
        const double sinc = x == 0.0 ? 1.0 : std::sin(M_PI * x) / (M_PI * x);
        // Kaiser window, as numpy.kaiser(length, beta).
        const double ratio =
            length > 1 ? 2.0 * double(n) / double(length - 1) - 1.0 : 0.0;
        const double window =
            bessel_i0(beta * std::sqrt(std::max(0.0, 1.0 - ratio * ratio))) / norm;
        h[n] = sinc * window;
        sum += h[n];
    }
    std::vector<float> taps(length);
    for (size_t n = 0; n < length; n++)
        taps[n] = float(h[n] / sum);
    return taps;
}

namespace {

/*!
 * The reference: plain loops, one receiver and one output step at a time,
 * FFTW backward (exp(+i...), unnormalized, as GNU Radio's fft_complex_rev) for
 * the despin.
 */
class pfb_channelizer_cpu final : public pfb_channelizer_engine
{
public:
    explicit pfb_channelizer_cpu(const pfb_channelizer_config& c)
        : d_config(c),
          d_taps(c.prototype()),
          d_step(c.input_per_output()),
          d_history_len(c.n_channels * c.taps_per_branch - d_step),
          d_history(c.n_receivers * d_history_len),
          d_fft(c.n_channels)
    {
    }

    void reset() override
    {
        std::fill(d_history.begin(), d_history.end(), std::complex<float>(0.0f, 0.0f));
        d_steps_done = 0;
    }

    void execute(const void* in,
                 std::complex<float>* out,
                 size_t n_out_items,
                 stream_handle) override
    {
        switch (d_config.input) {
        case sample_format::sc8:
            run(static_cast<const int8_t*>(in), out, n_out_items);
            break;
        case sample_format::sc16:
            run(static_cast<const int16_t*>(in), out, n_out_items);
            break;
        case sample_format::fc32:
            run(static_cast<const float*>(in), out, n_out_items);
            break;
        }
        d_steps_done += n_out_items;
    }

private:
    template <typename T>
    void run(const T* in, std::complex<float>* out, size_t n_out)
    {
        const size_t n_ch = d_config.n_channels;
        const size_t n_taps = d_config.taps_per_branch;
        const size_t n_rx = d_config.n_receivers;
        const size_t n_in = n_out * d_step;
        // One receiver's stream: its history followed by this call's input.
        std::vector<std::complex<float>> stream(d_history_len + n_in);
        for (size_t r = 0; r < n_rx; r++) {
            std::complex<float>* hist = &d_history[r * d_history_len];
            std::copy(hist, hist + d_history_len, stream.begin());
            for (size_t s = 0; s < n_in; s++) {
                const size_t i = s * n_rx + r;
                stream[d_history_len + s] = { static_cast<float>(in[2 * i]),
                                              static_cast<float>(in[2 * i + 1]) };
            }
            for (size_t t = 0; t < n_out; t++) {
                // Newest sample of this step, as an index into `stream`.
                const size_t newest = d_history_len + (t + 1) * d_step - 1;
                // Where branch 0 lands in the FFT input: (p - t*M) mod N.
                const size_t global_t = d_steps_done + t;
                const size_t rotation = (global_t % d_config.oversample) * d_step % n_ch;
                std::complex<float>* fft_in = d_fft.buffer();
                for (size_t p = 0; p < n_ch; p++) {
                    std::complex<float> acc(0.0f, 0.0f);
                    for (size_t k = 0; k < n_taps; k++)
                        acc += d_taps[p + k * n_ch] * stream[newest - p - k * n_ch];
                    fft_in[(p + n_ch - rotation) % n_ch] = acc;
                }
                d_fft.execute();
                const std::complex<float>* spectrum = d_fft.buffer();
                std::complex<float>* item = out + t * n_ch * n_rx;
                for (size_t k = 0; k < n_ch; k++) {
                    const size_t c =
                        d_config.fft_shift ? (k + n_ch - n_ch / 2) % n_ch : k;
                    item[k * n_rx + r] = spectrum[c];
                }
            }
            std::copy(stream.end() - d_history_len, stream.end(), hist);
        }
    }

    pfb_channelizer_config d_config;
    std::vector<float> d_taps;
    size_t d_step;
    size_t d_history_len;
    //! [receiver][d_history_len] the newest input samples, oldest first.
    std::vector<std::complex<float>> d_history;
    size_t d_steps_done = 0;
    fftw_backward d_fft;
};

} // namespace

std::unique_ptr<pfb_channelizer_engine>
make_pfb_channelizer_cpu(const pfb_channelizer_config& config)
{
    return std::make_unique<pfb_channelizer_cpu>(config);
}

std::unique_ptr<pfb_channelizer_engine>
pfb_channelizer_engine::make(const pfb_channelizer_config& config,
                             const device_spec& device)
{
    config.validate();
    return make_for_device(
        "pfb_channelizer",
        device,
        [&] { return make_pfb_channelizer_cpu(config); },
        BEAMFORM_GPU_MAKERS(make_pfb_channelizer_gpu),
        config, device);
}

} // namespace beamform
} // namespace gr
