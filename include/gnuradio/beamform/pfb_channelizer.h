/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_PFB_CHANNELIZER_H
#define INCLUDED_BEAMFORM_PFB_CHANNELIZER_H

#include <gnuradio/beamform/api.h>
#include <gnuradio/beamform/device_block_info.h>
#include <gnuradio/beamform/engines/sample_format.h>
#include <gnuradio/sync_decimator.h>

namespace gr {
namespace beamform {

/*!
 * \brief Polyphase filter-bank channelizer for an antenna array.
 * \ingroup beamform
 *
 * Input item: [n_receivers] complex samples of \p input_format (raw array
 * samples). Output item: [n_channels][n_receivers] gr_complex, one spectrum
 * per N / oversample input items (a sync decimator). Every receiver goes
 * through the same filter bank; the result for each receiver equals GNU
 * Radio's pfb_channelizer_ccf with the same taps (channel 0 = DC, then the
 * positive, then the negative frequencies; fft_shift gives ascending
 * frequency). Channel k is centred at channel_frequencies()[k] =
 * center_freq + offset_k * sample_rate / n_channels; each channel's output
 * rate is oversample * sample_rate / n_channels.
 *
 * The filter state is kept inside the block (on the GPU for a GPU device),
 * so the output does not depend on how the scheduler splits the input.
 *
 * Tags: every input tag moves to output item floor(offset * oversample /
 * n_channels). An rx_time tag (pmt tuple (uint64 seconds, double fraction))
 * gets the time of the first input sample of that output item's block,
 * computed from \p sample_rate; other tags (rx_freq, user tags) keep their
 * value.
 *
 * On a GPU the output stays in GPU memory for the next beamform block; output
 * buffers hold at least 64 MiB and 8 * taps_per_branch spectra, so that one work
 * call carries enough steps to spread the reading of the filter history (N T
 * samples per receiver) over.
 */
class BEAMFORM_API pfb_channelizer : virtual public gr::sync_decimator,
                                     virtual public device_block_info
{
public:
    typedef std::shared_ptr<pfb_channelizer> sptr;

    /*!
     * \param n_channels channels N (FFT size), >= 2; powers of two up to 1024
     *                   take the fused GPU path
     * \param taps prototype low-pass filter, at most N * taps_per_branch taps
     *             (shorter is zero-padded); empty: the default design
     *             (Kaiser-windowed sinc, see pfb_taps.windowed_sinc)
     * \param taps_per_branch taps per polyphase branch T, >= 1 (default 16)
     * \param input_format sample format of the input (sc8, sc16, fc32)
     * \param n_receivers receivers per item, >= 1
     * \param oversample 1 (critically sampled) or 2 (2x oversampled)
     * \param fft_shift false: GNU Radio's channel order; true: ascending frequency
     * \param center_freq sky frequency of the input's DC (Hz)
     * \param sample_rate input sample rate (Hz), > 0
     * \param device "auto", "cpu", "cuda:N", "hip:N" (or "emu:N" for tests)
     * \param threads worker threads of the CPU engine, 0 = every core (GPU: ignored)
     */
    static sptr make(int n_channels,
                     const std::vector<float>& taps = {},
                     int taps_per_branch = 16,
                     sample_format input_format = sample_format::fc32,
                     int n_receivers = 1,
                     int oversample = 1,
                     bool fft_shift = false,
                     double center_freq = 0.0,
                     double sample_rate = 1.0,
                     const std::string& device = "auto",
                     int threads = 0);

    //! Sky frequency of every output channel (Hz), in output order.
    virtual std::vector<double> channel_frequencies() const = 0;
    //! The prototype filter in use (N * taps_per_branch taps).
    virtual std::vector<float> taps() const = 0;
    virtual int n_channels() const = 0;
    virtual int n_receivers() const = 0;
    virtual int oversample() const = 0;
};

} // namespace beamform
} // namespace gr

#endif
