/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_RFI_FLAGGER_H
#define INCLUDED_BEAMFORM_RFI_FLAGGER_H

#include <gnuradio/beamform/api.h>
#include <gnuradio/beamform/device_block_info.h>
#include <gnuradio/sync_block.h>
#include <cstdint>
#include <string>

namespace gr {
namespace beamform {

/*!
 * \brief RFI excision by spectral kurtosis (Nita & Gary 2010, MNRAS 406, L60),
 * after the channelizer.
 * \ingroup beamform
 *
 * Item in and out: spectra [n_channels][n_receivers] gr_complex (the
 * pfb_channelizer's output). For every block of M = block_size consecutive
 * spectra and every (channel, receiver), with P = |x|^2 over the block:
 *   S1 = sum P, S2 = sum P^2, SK = (M + 1) / (M - 1) (M S2 / S1^2 - 1).
 * SK is 1 on average for Gaussian noise, near 0 for a steady tone (CW) and
 * well above 1 for bursts. The M values of that (channel, receiver) are
 * flagged when SK lies outside [lower_threshold(), upper_threshold()], the
 * pfa and 1 - pfa quantiles of SK for Gaussian noise (pfa per side, computed
 * at construction; docs/rfi_flagger.md says how), or is not a number (an inf
 * or NaN input). A block of exact zeros is not flagged. With mad_threshold
 * K > 0 a (channel, receiver) block is also flagged when S1 exceeds the median
 * over that receiver's channels by more than K median absolute deviations.
 *
 * Flagged values are replaced: replace = "zeros" (0 + 0i) or "noise" (complex
 * noise with the mean power per value of the same receiver's unflagged
 * channels in that block, from a counter-based generator seeded by \p seed:
 * the same on every device). Other values pass unchanged.
 *
 * Message port `flags` (output): one message per block of M spectra, a PMT
 * dict {"offset": u64 absolute index of the block's first item, "M":
 * block_size, "n_channels", "n_receivers", "mask": u8vector
 * [n_channels][n_receivers], 1 = flagged}.
 *
 * Items are processed in whole blocks (set_output_multiple(M)); tags pass
 * through (rate 1). flagged_count() / total_count() count values; the block
 * logs the flagged fraction at stop. On a GPU the spectra stay in GPU memory;
 * the masks come back to the host each work call (the block waits for its own
 * GPU work there).
 */
class BEAMFORM_API rfi_flagger : virtual public gr::sync_block,
                                 virtual public device_block_info
{
public:
    typedef std::shared_ptr<rfi_flagger> sptr;

    /*!
     * \param n_channels channels per item, >= 1
     * \param n_receivers receivers per channel, >= 1
     * \param block_size M, spectra per SK estimate, in [2, 65536]
     * \param pfa false-alarm probability per side for Gaussian noise, in
     *        [1e-7, 0.25] (0.0013499: 3 sigma)
     * \param mad_threshold K of the power-outlier criterion; 0 = off
     * \param replace "zeros" or "noise"
     * \param seed seed of the replacement noise
     * \param device "auto", "cpu", "cuda:N", "hip:N" (or "emu:N" for tests)
     * \param threads worker threads of the CPU engine, 0 = every core (GPU: ignored)
     */
    static sptr make(int n_channels,
                     int n_receivers,
                     int block_size = 64,
                     double pfa = 0.0013499,
                     double mad_threshold = 0.0,
                     const std::string& replace = "zeros",
                     uint64_t seed = 0,
                     const std::string& device = "auto",
                     int threads = 0);

    virtual int block_size() const = 0;
    virtual double pfa() const = 0;
    virtual double lower_threshold() const = 0;
    virtual double upper_threshold() const = 0;
    virtual double mad_threshold() const = 0;
    virtual std::string replace() const = 0;
    //! Values flagged so far (each flagged (block, channel, receiver) counts M).
    virtual uint64_t flagged_count() const = 0;
    //! Values seen so far.
    virtual uint64_t total_count() const = 0;
};

} // namespace beamform
} // namespace gr

#endif
