/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_PFB_CHANNELIZER_ENGINE_H
#define INCLUDED_BEAMFORM_ENGINES_PFB_CHANNELIZER_ENGINE_H

#include <gnuradio/beamform/runtime/gpu_api.h>
#include <gnuradio/beamform/engines/sample_format.h>
#include <complex>
#include <memory>
#include <vector>

namespace gr {
namespace beamform {

struct pfb_channelizer_config {
    //! Channels N (= FFT size = polyphase branches), >= 2; powers of two are fast.
    size_t n_channels = 256;
    //! Taps of each polyphase branch T; the prototype has N*T taps.
    size_t taps_per_branch = 16;
    /*!
     * Prototype low-pass filter, at most N*T taps (shorter ones are padded with
     * zeros at the end, as GNU Radio's polyphase_filterbank does). Empty: the
     * default design, default_pfb_taps(N, T).
     */
    std::vector<float> taps;
    sample_format input = sample_format::fc32;
    size_t n_receivers = 1;
    //! 1: critically sampled (one output per N inputs); 2: one output per N/2.
    unsigned oversample = 1;
    //! false: GNU Radio's order (0 = DC, positive, then negative frequencies);
    //! true: ascending frequency (numpy.fft.fftshift order).
    bool fft_shift = false;
    //! CPU engine only: worker threads, 0 = every core (the default). GPU
    //! engines ignore it.
    size_t threads = 0;

    //! std::invalid_argument naming the parameter and its accepted range.
    void validate() const;
    //! Input items consumed per output item: N / oversample.
    size_t input_per_output() const { return n_channels / oversample; }
    //! The prototype in use: \p taps zero-padded to N*T, or the default design.
    std::vector<float> prototype() const;
};

/*!
 * \brief The default prototype: a Kaiser-windowed sinc (beta 6) of N*T taps
 * with its cutoff at the channel edge (fs / (2N)), normalized to unit DC gain
 * (sum of taps = 1, so a tone at a channel centre keeps its amplitude).
 *
 * With T = 16: passband |f| <= 0.375 channel widths flat within 0.011 dB
 * (peak to peak), -6.02 dB at the channel edge, >= 61.9 dB rejection for
 * |f| >= 0.625 channel widths (the adjacent channels' passbands and beyond).
 * python/beamform/pfb_taps.py designs the same filter (windowed_sinc()).
 */
std::vector<float> default_pfb_taps(size_t n_channels, size_t taps_per_branch);

/*!
 * \brief Polyphase filter-bank channelizer for an array: raw array samples
 * [receivers] (sc8, sc16, fc32) -> spectra [channels][receivers] fc32, one
 * output item per N/oversample input items, every receiver through the same
 * filter bank.
 *
 * The output equals GNU Radio's pfb_channelizer_ccf fed with the same taps
 * (one receiver at a time, channel map identity): for output step t (counted
 * from construction or reset()) with newest input sample m_t = (t+1)*M - 1,
 * M = N/oversample,
 *
 *   X_c(t) = sum_{q=0}^{N*T-1} h[q] x[m_t - q] exp(+2 pi i ((q - t M) mod N) c / N)
 *
 * i.e. the inverse DFT (unnormalized) of the polyphase branch outputs
 * y_p = sum_k h[p + kN] x[m_t - p - kN] placed at index (p - tM) mod N.
 * Channel c is centred at +c fs/N; samples before the first call are zero.
 *
 * The filter state (the last N*T - M input samples of every receiver) lives in
 * the engine, so the output does not depend on how the input is split into
 * execute() calls. Pointers live where the engine runs: host memory for cpu
 * and emu, device memory for cuda and hip. execute() enqueues on \p stream and
 * returns; the caller synchronizes.
 */
class pfb_channelizer_engine
{
public:
    virtual ~pfb_channelizer_engine() = default;

    /*!
     * Consume n_out_items * N / oversample input items of [receivers] samples
     * and write n_out_items output items of [N][receivers] fc32.
     */
    virtual void execute(const void* in,
                         std::complex<float>* out,
                         size_t n_out_items,
                         stream_handle stream) = 0;

    //! Forget the filter state (as if no input had been seen).
    virtual void reset() = 0;

    static std::unique_ptr<pfb_channelizer_engine>
    make(const pfb_channelizer_config& config, const device_spec& device);
};

std::unique_ptr<pfb_channelizer_engine>
make_pfb_channelizer_cpu(const pfb_channelizer_config& config);

} // namespace beamform
} // namespace gr

#endif
