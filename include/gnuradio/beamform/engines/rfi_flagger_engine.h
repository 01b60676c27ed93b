/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_RFI_FLAGGER_ENGINE_H
#define INCLUDED_BEAMFORM_ENGINES_RFI_FLAGGER_ENGINE_H

#include <gnuradio/beamform/runtime/gpu_api.h>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>

namespace gr {
namespace beamform {

//! What replaces a flagged value.
enum class rfi_replacement : int {
    zeros = 0, //!< 0 + 0i
    noise = 1, //!< complex noise with the mean power of the receiver's unflagged channels
};

//! "zeros" or "noise" (std::invalid_argument naming \p parameter otherwise).
rfi_replacement rfi_replacement_from_string(const std::string& name,
                                            const char* parameter = "replace");
const char* to_string(rfi_replacement r);

//! What does not change while the engine runs.
struct rfi_flagger_config {
    size_t n_channels = 1;
    size_t n_receivers = 1;
    //! M: consecutive spectra per spectral-kurtosis estimate, in [2, 65536].
    size_t block_size = 64;
    //! False-alarm probability of each side (SK below the lower or above the
    //! upper threshold) for Gaussian noise, in [1e-7, 0.25]; 0.0013499 is the
    //! one-sided tail of 3 sigma.
    double pfa = 0.0013499;
    /*!
     * The second criterion: a (channel, receiver) block is also flagged when
     * its mean power exceeds the median over that receiver's channels by more
     * than mad_threshold median absolute deviations. 0 (the default) turns it
     * off; otherwise in (0, 1e6].
     */
    double mad_threshold = 0.0;
    rfi_replacement replacement = rfi_replacement::zeros;
    //! Seed of the replacement noise (counter-based: the same noise for the
    //! same seed, item and value on every device).
    uint64_t seed = 0;
    //! CPU engine only: worker threads, 0 = every core. GPU engines ignore it.
    size_t threads = 0;

    //! std::invalid_argument naming the parameter, its value and the accepted range.
    void validate() const;
};

//! SK thresholds: values in [lower, upper] are not flagged.
struct sk_thresholds {
    double lower;
    double upper;
};

/*!
 * The thresholds of SK for Gaussian noise with \p pfa on each side, for blocks
 * of \p block_size spectra: the pfa and 1 - pfa quantiles of SK, computed once
 * per (block_size, pfa) per process (lib/engines/rfi_flagger/
 * rfi_flagger_thresholds.cc says how, and why not from a moment fit).
 */
sk_thresholds sk_thresholds_for(size_t block_size, double pfa);

/*!
 * \brief Spectral-kurtosis RFI flagging of spectra (Nita & Gary 2010).
 *
 * Spectra are [n_items][n_channels][n_receivers] complex float where the
 * engine runs (host memory for cpu and emu, device memory for cuda and hip);
 * n_items is a multiple of block_size; in == out is allowed. For each block b
 * of block_size items and each (channel c, receiver a): P = |x|^2 over the
 * block, S1 = sum P, S2 = sum P^2, SK = (M + 1) / (M - 1) (M S2 / S1^2 - 1);
 * flagged when SK is outside the thresholds (or, with mad_threshold, when S1
 * is a power outlier among the receiver's channels). The block's M values of
 * a flagged (c, a) are replaced (zeros, or noise of the mean power per value
 * of that receiver's unflagged channels in block b, 0 if all are flagged);
 * the others are copied.
 *
 * mask: host memory of n_items / block_size * n_channels * n_receivers bytes,
 * [block][channel][receiver], 1 = flagged; written by the time the stream has
 * been synchronized. execute() enqueues on \p stream and returns.
 */
class rfi_flagger_engine
{
public:
    virtual ~rfi_flagger_engine() = default;

    /*!
     * \param first_item absolute index of in[0] (the replacement noise of an
     *        item depends on it, so it does not repeat from call to call)
     */
    virtual void execute(const std::complex<float>* in,
                         std::complex<float>* out,
                         size_t n_items,
                         uint64_t first_item,
                         uint8_t* mask,
                         stream_handle stream) = 0;

    static std::unique_ptr<rfi_flagger_engine> make(const rfi_flagger_config& config,
                                                    const device_spec& device);
};

std::unique_ptr<rfi_flagger_engine>
make_rfi_flagger_cpu(const rfi_flagger_config& config);

} // namespace beamform
} // namespace gr

#endif
