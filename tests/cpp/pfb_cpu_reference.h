/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pfb_channelizer's plain CPU reference, for tests only.
 */
#ifndef INCLUDED_BEAMFORM_TESTS_PFB_CPU_REFERENCE_H
#define INCLUDED_BEAMFORM_TESTS_PFB_CPU_REFERENCE_H

#include <gnuradio/beamform/engines/pfb_channelizer_engine.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace beamform {
namespace pfb_cpu_reference {

/*!
 * The plain reference channelizer (the CPU engine before it was vectorised
 * and batched), used only by tests: plain loops, one receiver and one output
 * step at a time, and a direct backward DFT in double (exp(+i...),
 * unnormalized, as GNU Radio's fft_complex_rev) for the despin, where the
 * engine used FFTW.
 */
class pfb_channelizer_reference final : public pfb_channelizer_engine
{
public:
    explicit pfb_channelizer_reference(const pfb_channelizer_config& c)
        : d_config(c),
          d_taps(c.prototype()),
          d_step(c.input_per_output()),
          d_history_len(c.n_channels * c.taps_per_branch - d_step),
          d_history(c.n_receivers * d_history_len),
          d_fft_in(c.n_channels),
          d_fft_out(c.n_channels)
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
                std::complex<float>* fft_in = d_fft_in.data();
                for (size_t p = 0; p < n_ch; p++) {
                    std::complex<float> acc(0.0f, 0.0f);
                    for (size_t k = 0; k < n_taps; k++)
                        acc += d_taps[p + k * n_ch] * stream[newest - p - k * n_ch];
                    fft_in[(p + n_ch - rotation) % n_ch] = acc;
                }
                backward_dft();
                const std::complex<float>* spectrum = d_fft_out.data();
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
    std::vector<std::complex<float>> d_fft_in, d_fft_out;

    //! d_fft_out[k] = sum_p d_fft_in[p] exp(+2 pi i p k / N), in double.
    void backward_dft()
    {
        const size_t n = d_fft_in.size();
        for (size_t k = 0; k < n; k++) {
            std::complex<double> sum(0.0, 0.0);
            for (size_t p = 0; p < n; p++) {
                const double angle = 2.0 * M_PI * double((p * k) % n) / double(n);
                sum += std::complex<double>(d_fft_in[p]) *
                       std::complex<double>(std::cos(angle), std::sin(angle));
            }
            d_fft_out[k] = std::complex<float>(sum);
        }
    }
};

inline std::unique_ptr<pfb_channelizer_engine> make(const pfb_channelizer_config& config)
{
    config.validate();
    return std::make_unique<pfb_channelizer_reference>(config);
}

} // namespace pfb_cpu_reference
} // namespace beamform
} // namespace gr

#endif
