/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engines/common/thread_pool.h"
#include "rfi_flagger_receiver_stats.h"
#include <gnuradio/beamform/engines/rfi_flagger_engine.h>
#include <common/rfi_flagger_math.h>
#include <algorithm>
#include <vector>

namespace gr {
namespace beamform {

namespace {

using cfloat = std::complex<float>;

/*!
 * \brief The CPU rfi_flagger, in three passes over each call's blocks of M
 * spectra (each pass shared by a thread_pool of config.threads workers):
 * S1, S2 (summed by segments, rfi_math::sum_segment) and the SK flag per
 * (block, channel, receiver); the per-receiver
 * step (power outliers, noise power); the copy with replacement. The
 * arithmetic is rfi_math's, so the GPU engine gives the same bits.
 */
class rfi_flagger_cpu final : public rfi_flagger_engine
{
public:
    explicit rfi_flagger_cpu(const rfi_flagger_config& config)
        : d_config(config),
          d_n(config.n_channels * config.n_receivers),
          d_thresholds(sk_thresholds_for(config.block_size, config.pfa)),
          d_pool(config.threads),
          d_scratch(d_pool.size())
    {
    }

    void execute(const cfloat* in,
                 cfloat* out,
                 size_t n_items,
                 uint64_t first_item,
                 uint8_t* mask,
                 stream_handle) override
    {
        const size_t m = d_config.block_size, nc = d_config.n_channels,
                     na = d_config.n_receivers;
        const size_t n_blocks = n_items / m;
        d_s1.resize(n_blocks * d_n);
        d_scale.resize(n_blocks * na);
        const double md = double(m);

        d_pool.parallel_for(n_blocks * nc, [&](size_t job, size_t worker) {
            const size_t b = job / nc, c = job % nc;
            auto& w = d_scratch[worker];
            w.s2.assign(na, 0.0);
            w.seg_s1.resize(na);
            w.seg_s2.resize(na);
            double* s1 = d_s1.data() + b * d_n + c * na;
            std::fill(s1, s1 + na, 0.0);
            // Segments of rfi_math::sum_segment spectra, each summed from 0 and
            // then added to the totals in order (the GPU kernels' order).
            for (size_t t0 = b * m; t0 < (b + 1) * m; t0 += rfi_math::sum_segment) {
                const size_t t1 = std::min((b + 1) * m, t0 + rfi_math::sum_segment);
                std::fill(w.seg_s1.begin(), w.seg_s1.end(), 0.0);
                std::fill(w.seg_s2.begin(), w.seg_s2.end(), 0.0);
                for (size_t t = t0; t < t1; t++) {
                    const cfloat* x = in + t * d_n + c * na;
                    for (size_t a = 0; a < na; a++)
                        rfi_math::accumulate(w.seg_s1[a],
                                             w.seg_s2[a],
                                             rfi_math::power(x[a].real(), x[a].imag()));
                }
                for (size_t a = 0; a < na; a++) {
                    s1[a] = s1[a] + w.seg_s1[a];
                    w.s2[a] = w.s2[a] + w.seg_s2[a];
                }
            }
            uint8_t* flags = mask + b * d_n + c * na;
            for (size_t a = 0; a < na; a++)
                flags[a] = rfi_math::sk_flagged(
                    s1[a], w.s2[a], md, d_thresholds.lower, d_thresholds.upper);
        });

        if (d_config.mad_threshold > 0.0 ||
            d_config.replacement == rfi_replacement::noise)
            d_pool.parallel_for(n_blocks * na, [&](size_t job, size_t worker) {
                const size_t b = job / na, a = job % na;
                d_scale[job] = receiver_step(d_s1.data() + b * d_n,
                                             mask + b * d_n,
                                             nc,
                                             na,
                                             a,
                                             m,
                                             d_config.mad_threshold,
                                             d_scratch[worker].values);
            });

        const bool noise = d_config.replacement == rfi_replacement::noise;
        d_pool.parallel_for(n_blocks * nc, [&](size_t job, size_t) {
            const size_t b = job / nc, c = job % nc;
            const uint8_t* flags = mask + b * d_n + c * na;
            for (size_t t = b * m; t < (b + 1) * m; t++) {
                const cfloat* x = in + t * d_n + c * na;
                cfloat* y = out + t * d_n + c * na;
                for (size_t a = 0; a < na; a++) {
                    if (!flags[a]) {
                        y[a] = x[a];
                    } else if (noise) {
                        float re, im;
                        rfi_math::noise_value(d_config.seed,
                                              first_item + t,
                                              c * na + a,
                                              d_scale[b * na + a],
                                              re,
                                              im);
                        y[a] = cfloat(re, im);
                    } else {
                        y[a] = cfloat(0.0f, 0.0f);
                    }
                }
            }
        });
    }

private:
    struct scratch {
        std::vector<double> s2;             // S2 of one channel's receivers
        std::vector<double> seg_s1, seg_s2; // one segment's sums
        std::vector<double> values;         // the receiver step's medians
    };

    const rfi_flagger_config d_config;
    const size_t d_n; // values per spectrum
    const sk_thresholds d_thresholds;
    thread_pool d_pool;
    std::vector<scratch> d_scratch;
    std::vector<double> d_s1;    // [block][channel][receiver]
    std::vector<double> d_scale; // [block][receiver] noise scale
};

} // namespace

std::unique_ptr<rfi_flagger_engine> make_rfi_flagger_cpu(const rfi_flagger_config& config)
{
    config.validate();
    return std::make_unique<rfi_flagger_cpu>(config);
}

} // namespace beamform
} // namespace gr
