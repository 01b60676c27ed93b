/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engines/common/thread_pool.h"
#include "fftw_batched.h"
#include <gnuradio/beamform/engines/pfb_channelizer_engine.h>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gr {
namespace beamform {

namespace {

using cfloat = std::complex<float>;

/*!
 * acc[j] for j in [j0, j0 + L): the sum over k < taps of tap[k * tap_stride] *
 * x[j - k * x_stride], in L registers' worth of independent sums (so that the
 * additions of successive taps overlap instead of waiting for each other).
 */
template <size_t L>
inline void fir_lanes(const float* tap, size_t tap_stride, const float* x, size_t x_stride,
                      size_t taps, float* acc, size_t j0)
{
    float a[L] = {};
    for (size_t k = 0; k < taps; k++) {
        const float t = tap[k * tap_stride];
        const float* row = x - k * x_stride + j0;
        for (size_t l = 0; l < L; l++)
            a[l] += t * row[l];
    }
    for (size_t l = 0; l < L; l++)
        acc[j0 + l] = a[l];
}

/*!
 * acc[j] = sum over k < taps of tap[k * tap_stride] * x[j - k * x_stride],
 * j < n (x_stride in floats, x pointing at the newest row): one branch of the
 * polyphase FIR over a row of receivers, 64, 32, 16, 8 and then 1 outputs at a
 * time. Compiled also for AVX2 + FMA and picked at run time.
 */
__attribute__((target_clones("avx2,fma", "default"))) void
branch_fir(const float* tap, size_t tap_stride, const float* x, size_t x_stride,
           size_t taps, float* acc, size_t n)
{
    size_t j = 0;
    for (; j + 64 <= n; j += 64)
        fir_lanes<64>(tap, tap_stride, x, x_stride, taps, acc, j);
    for (; j + 32 <= n; j += 32)
        fir_lanes<32>(tap, tap_stride, x, x_stride, taps, acc, j);
    for (; j + 16 <= n; j += 16)
        fir_lanes<16>(tap, tap_stride, x, x_stride, taps, acc, j);
    for (; j + 8 <= n; j += 8)
        fir_lanes<8>(tap, tap_stride, x, x_stride, taps, acc, j);
    for (; j < n; j++)
        fir_lanes<1>(tap, tap_stride, x, x_stride, taps, acc, j);
}

/*!
 * \brief The CPU channelizer: the polyphase FIR vectorised over receivers and
 * one batched FFTW plan per output step for all receivers.
 *
 * Each call's history and input are widened to fc32 rows of [receivers] and
 * stored phase-major (sample q at row (q mod N, q / N)), so that the taps of
 * one branch, N samples apart, are adjacent rows and every tap is one
 * multiply-add over a contiguous row of receivers. The FFT input of an output
 * step, [N][receivers], is what one batched FFTW plan (howmany = receivers,
 * stride = receivers) transforms. Blocks of output steps are shared by a
 * thread_pool of config.threads workers, each with its own FFT arrays. The
 * sums are the reference's (tests/cpp/pfb_cpu_reference.h), in the same
 * order: taps k = 0, 1, ... of branch p, in float32 (fused multiply-adds where
 * the processor has them).
 */
class pfb_channelizer_cpu final : public pfb_channelizer_engine
{
public:
    explicit pfb_channelizer_cpu(const pfb_channelizer_config& c)
        : d_config(c),
          d_taps(c.prototype()),
          d_step(c.input_per_output()),
          d_history_len(c.n_channels * c.taps_per_branch - d_step),
          d_history(d_history_len * c.n_receivers),
          d_pool(c.threads),
          d_fft(c.n_channels, c.n_receivers, d_pool.size() * block_steps)
    {
    }

    void reset() override
    {
        std::fill(d_history.begin(), d_history.end(), cfloat(0.0f, 0.0f));
        d_steps_done = 0;
    }

    void execute(const void* in, cfloat* out, size_t n_out_items, stream_handle) override
    {
        if (n_out_items == 0)
            return;
        const size_t R = d_config.n_receivers;
        const size_t n_in = n_out_items * d_step;
        // The history and this call's input as one stream of samples q,
        // stored phase-major: sample q at row (q mod N, q / N) of d_phased, so
        // that the taps of one branch (samples N apart) are adjacent rows.
        const size_t N = d_config.n_channels, total = d_history_len + n_in;
        d_blocks = (total + N - 1) / N;
        d_phased.resize(N * d_blocks * R);
        for (size_t q = 0; q < d_history_len; q++)
            std::memcpy(row(q), &d_history[q * R], R * sizeof(cfloat));
        for (size_t s = 0; s < n_in; s++) {
            cfloat* dst = row(d_history_len + s);
            switch (d_config.input) {
            case sample_format::sc8:
                widen(static_cast<const int8_t*>(in) + 2 * s * R, dst, R);
                break;
            case sample_format::sc16:
                widen(static_cast<const int16_t*>(in) + 2 * s * R, dst, R);
                break;
            case sample_format::fc32:
                std::memcpy(dst, static_cast<const cfloat*>(in) + s * R, R * sizeof(cfloat));
                break;
            }
        }
        // Blocks of up to block_steps output steps, smaller when there are
        // too few steps to keep every worker busy.
        const size_t per_worker = (n_out_items + d_pool.size() - 1) / d_pool.size();
        const size_t block = std::clamp<size_t>(per_worker, 1, block_steps);
        const size_t blocks = (n_out_items + block - 1) / block;
        d_pool.parallel_for(blocks, [&](size_t i, size_t worker) {
            const size_t t0 = i * block;
            output_block(t0, std::min(block, n_out_items - t0), worker, out);
        });
        for (size_t q = 0; q < d_history_len; q++)
            std::memcpy(&d_history[q * R], row(n_in + q), R * sizeof(cfloat));
        d_steps_done += n_out_items;
    }

private:
    //! Sample q's [receivers] row in d_phased.
    cfloat* row(size_t q)
    {
        return &d_phased[((q % d_config.n_channels) * d_blocks + q / d_config.n_channels) *
                         d_config.n_receivers];
    }

    template <typename T>
    static void widen(const T* in, cfloat* out, size_t n)
    {
        float* o = reinterpret_cast<float*>(out);
        for (size_t i = 0; i < 2 * n; i++)
            o[i] = static_cast<float>(in[i]);
    }

    //! Output items [t0, t0 + n) of this call (n <= block_steps), on worker's
    //! FFT arrays. Branch by branch for all n steps: the rows of one branch
    //! overlap from step to step (a row feeds taps_per_branch steps), so they
    //! are read from memory once per block rather than once per step.
    void output_block(size_t t0, size_t n, size_t worker, cfloat* out) const
    {
        const size_t N = d_config.n_channels, taps = d_config.taps_per_branch;
        const size_t R = d_config.n_receivers;
        for (size_t p = 0; p < N; p++)
            for (size_t i = 0; i < n; i++) {
                const size_t t = t0 + i;
                // Newest sample of this step, as a sample index q, and where
                // branch p's newest sample lies in d_phased.
                const size_t newest = d_history_len + (t + 1) * d_step - 1;
                const size_t q = newest - p;
                const size_t newest_row = (q % N) * d_blocks + q / N;
                // Where branch 0 lands in the FFT input: (p - t*M) mod N.
                const size_t rotation =
                    ((d_steps_done + t) % d_config.oversample) * d_step % N;
                cfloat* fft = d_fft.buffer(worker * block_steps + i);
                branch_fir(&d_taps[p],
                           N,
                           reinterpret_cast<const float*>(&d_phased[newest_row * R]),
                           2 * R,
                           taps,
                           reinterpret_cast<float*>(fft + ((p + N - rotation) % N) * R),
                           2 * R);
            }
        for (size_t i = 0; i < n; i++) {
            const size_t b = worker * block_steps + i;
            cfloat* item = out + (t0 + i) * N * R;
            if (!d_config.fft_shift && d_fft.can_write_to(item)) {
                d_fft.execute_to(b, item); // GNU Radio's order: straight out
                continue;
            }
            d_fft.execute(b);
            const cfloat* fft = d_fft.buffer(b);
            for (size_t k = 0; k < N; k++) {
                const size_t c = d_config.fft_shift ? (k + N - N / 2) % N : k;
                std::memcpy(item + k * R, fft + c * R, R * sizeof(cfloat));
            }
        }
    }

    //! Output steps per work item.
    static constexpr size_t block_steps = 8;

    const pfb_channelizer_config d_config;
    const std::vector<float> d_taps;
    const size_t d_step;
    const size_t d_history_len;
    //! [d_history_len][receivers]: the newest input samples, oldest first.
    std::vector<cfloat> d_history;
    //! History and this call's input, phase-major: [N][d_blocks][receivers],
    //! sample q (0 = the oldest of the history) at row (q mod N, q / N).
    std::vector<cfloat> d_phased;
    size_t d_blocks = 0;
    size_t d_steps_done = 0;
    thread_pool d_pool;
    fftw_batched d_fft;
};

} // namespace

std::unique_ptr<pfb_channelizer_engine>
make_pfb_channelizer_cpu(const pfb_channelizer_config& config)
{
    return std::make_unique<pfb_channelizer_cpu>(config);
}

} // namespace beamform
} // namespace gr
