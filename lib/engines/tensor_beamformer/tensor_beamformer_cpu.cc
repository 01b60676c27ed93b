/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "engines/common/thread_pool.h"
#include "half_float.h"
#include "tensor_beamformer_expand.h"
#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <algorithm>
#include <cblas.h>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace beamform {

namespace {

using cfloat = std::complex<float>;

//! Bits of 64 receivers each: bit r of word r / 64 is receiver r.
constexpr size_t bits_per_word = 64;

/*!
 * The int1 beams of one time step and channel, through 64-bit popcount.
 * With s = +-1 encoded as a bit (set = +1), s_a s_b = 1 - 2 (bit_a xor bit_b),
 * so over the K receivers of one polarization (mask m):
 *   re = sum(wr xr - wi xi) = 2 (popc(wi ^ xi) - popc(wr ^ xr))
 *   im = sum(wr xi + wi xr) = 2 K - 2 (popc(wr ^ xi) + popc(wi ^ xr)).
 * Exact: |re|, |im| <= 2^21 < 2^24.
 * w: [beams][2][words] (real bits, imaginary bits); x: [2][words];
 * mask: [pols][words], the receivers of each polarization; out: [pols][beams].
 */
__attribute__((target_clones("popcnt", "default"))) void
beams_int1(const uint64_t* w,
           const uint64_t* x,
           const uint64_t* mask,
           size_t n_pol,
           size_t n_beams,
           size_t words,
           int k_per_pol,
           cfloat* out)
{
    const uint64_t* xr = x;
    const uint64_t* xi = x + words;
    for (size_t pol = 0; pol < n_pol; pol++) {
        const uint64_t* m = mask + pol * words;
        for (size_t b = 0; b < n_beams; b++) {
            const uint64_t* wr = w + b * 2 * words;
            const uint64_t* wi = wr + words;
            int rr = 0, ii = 0, ri = 0, ir = 0;
            for (size_t k = 0; k < words; k++) {
                rr += __builtin_popcountll((wr[k] ^ xr[k]) & m[k]);
                ii += __builtin_popcountll((wi[k] ^ xi[k]) & m[k]);
                ri += __builtin_popcountll((wr[k] ^ xi[k]) & m[k]);
                ir += __builtin_popcountll((wi[k] ^ xr[k]) & m[k]);
            }
            out[pol * n_beams + b] = { float(2 * (ii - rr)),
                                       float(2 * k_per_pol - 2 * (ri + ir)) };
        }
    }
}

// Detection of one time step's beams, added to double sums; compiled also for
// AVX2 + FMA and picked at run time. Exact for int1 beams (integers below
// 2^22: squares and their sums below 2^53).

//! sum[b] += |v_b|^2, v: [beams] complex as floats.
__attribute__((target_clones("avx2,fma", "default"))) void
detect_single(const float* v, double* sum, size_t nb)
{
    for (size_t b = 0; b < nb; b++) {
        const double re = v[2 * b], im = v[2 * b + 1];
        sum[b] += re * re + im * im;
    }
}

//! Stokes I (and Q, U, V with iquv) of X beams v and Y beams u into
//! sum [stokes][beams].
__attribute__((target_clones("avx2,fma", "default"))) void
detect_xy(const float* v, const float* u, double* sum, size_t nb, bool iquv)
{
    for (size_t b = 0; b < nb; b++) {
        const double xr = v[2 * b], xi = v[2 * b + 1];
        const double yr = u[2 * b], yi = u[2 * b + 1];
        const double xx = xr * xr + xi * xi, yy = yr * yr + yi * yi;
        sum[b] += xx + yy; // I
        if (iquv) {
            sum[nb + b] += xx - yy;                       // Q
            sum[2 * nb + b] += 2.0 * (xr * yr + xi * yi); // U
            sum[3 * nb + b] += 2.0 * (xi * yr - xr * yi); // V
        }
    }
}

/*!
 * \brief The CPU beamformer: per channel, one complex matrix product in BLAS
 * (cblas_cgemm) per polarization over a chunk of time steps; int1 through
 * 64-bit popcount; detection, Stokes and integration as plain loops.
 *
 * Numerics: samples and weights are rounded to float16 (round to nearest
 * even, as the GPU engines' inputs are) and multiplied and summed in float32
 * by the BLAS. Products of two float16 values are exact in float32, so the
 * result differs from the plain reference (tests/cpp/tb_cpu_reference.h) and
 * from the GPU's fp32 accumulation only by the order of the float32 sums.
 * Powers are summed over n_int in double and rounded to float once (int1
 * powers are exact up to float's 24-bit mantissa).
 *
 * Single-polarization float16 power with few receivers, many beams and long
 * integrations (direction finding: 5 receivers, 360 beams, n_int 256) goes
 * through each integration's receiver covariance instead (power_by_covariance).
 *
 * Work: items of (channel, time chunk) are shared by a thread_pool of
 * config.threads workers; each item calls the BLAS single-threaded
 * (execute() sets OpenBLAS to one thread for the process).
 */
class tensor_beamformer_cpu final : public tensor_beamformer_engine
{
public:
    tensor_beamformer_cpu(const tensor_beamformer_config& config,
                          const std::vector<cfloat>& weights)
        : tensor_beamformer_engine(config),
          d_n_pol(config.polarization == polarization_layout::xy_pairs ? 2 : 1),
          d_per_pol(config.n_receivers / d_n_pol),
          d_words((config.n_receivers + bits_per_word - 1) / bits_per_word),
          d_pool(config.threads)
    {
        config.validate();
        const auto& c = d_config;
        // cblas_cgemm takes int sizes: the output's leading dimension is the
        // largest (single-polarization voltage is written in place).
        if (c.n_channels * c.n_beams * d_n_pol > size_t(std::numeric_limits<int>::max()))
            throw std::invalid_argument(
                "n_channels * n_beams (* 2 with xy_pairs) must be below 2^31 on the CPU "
                "(BLAS sizes are int), got " +
                std::to_string(c.n_channels * c.n_beams * d_n_pol));
        set_weights(weights);
        // A chunk of time steps per BLAS call: its samples and beams (about
        // 64 kB each at most) stay in the core's L2 cache.
        const size_t row = std::max(c.n_receivers, d_n_pol * c.n_beams);
        d_chunk = std::clamp<size_t>(8192 / row, 8, 256);
        // Single-polarization float16 power through the covariance of each
        // integration where that is less work (few receivers, many beams,
        // long integrations): R^2 (n_int + beams) against n_int beams R
        // multiply-adds, the latter at BLAS speed (taken as 4x).
        const double R = double(c.n_receivers);
        d_covariance = c.output == beam_output::power && d_n_pol == 1 &&
                       c.precision == beam_precision::float16 &&
                       4.0 * R * (double(c.n_int) + double(c.n_beams)) <
                           double(c.n_int) * double(c.n_beams);
        d_scratch.resize(d_pool.size());
        for (auto& s : d_scratch) {
            s.x.resize(d_chunk * c.n_receivers);
            s.row.resize(c.n_receivers);
            s.y.resize(d_chunk * d_n_pol * c.n_beams);
            s.bits.resize(2 * d_words);
            if (c.output == beam_output::power)
                s.sum.resize(c.n_stokes() * c.n_beams);
            if (d_covariance)
                s.cov.resize(2 * c.n_receivers * c.n_receivers);
        }
        d_mask.assign(d_n_pol * d_words, 0);
        for (size_t r = 0; r < c.n_receivers; r++)
            d_mask[(r % d_n_pol) * d_words + r / bits_per_word] |= uint64_t(1)
                                                                  << (r % bits_per_word);
    }

    void set_weights(const std::vector<cfloat>& weights) override
    {
        check_tensor_beamformer_weights(d_config, weights);
        const auto& c = d_config;
        if (c.precision == beam_precision::int1) {
            // [channels][beams][2][words], bit set for a part >= 0.
            d_weight_bits.assign(c.n_channels * c.n_beams * 2 * d_words, 0);
            for (size_t cb = 0; cb < c.n_channels * c.n_beams; cb++)
                for (size_t r = 0; r < c.n_receivers; r++) {
                    const cfloat w = weights[cb * c.n_receivers + r];
                    const uint64_t bit = uint64_t(1) << (r % bits_per_word);
                    uint64_t* words = &d_weight_bits[cb * 2 * d_words];
                    if (w.real() >= 0.0f)
                        words[r / bits_per_word] |= bit;
                    if (w.imag() >= 0.0f)
                        words[d_words + r / bits_per_word] |= bit;
                }
            return;
        }
        // [channels][pol][beams][receivers of pol], rounded to float16.
        d_weights.resize(c.weight_count());
        for (size_t ch = 0; ch < c.n_channels; ch++)
            for (size_t b = 0; b < c.n_beams; b++)
                for (size_t r = 0; r < c.n_receivers; r++) {
                    const size_t pol = r % d_n_pol, k = r / d_n_pol;
                    d_weights[((ch * d_n_pol + pol) * c.n_beams + b) * d_per_pol + k] =
                        round_to_half(weights[(ch * c.n_beams + b) * c.n_receivers + r]);
                }
    }

    void execute(const void* in, void* out, size_t n_times, stream_handle) override
    {
        const auto& c = d_config;
        check_tensor_beamformer_times(c, n_times);
        if (n_times == 0)
            return;
        // The engine parallelises over channels and time itself; OpenBLAS's
        // own threads would compete with its workers. The setting is
        // process-wide (OpenBLAS 0.3.21 has no per-call one), so it is made
        // before every call; numpy in the same process shares it.
        openblas_set_num_threads(1);
        // Items: (channel, span of time steps); a power span holds whole
        // integrations.
        const size_t span = c.output == beam_output::power
                                ? c.n_int * std::max<size_t>(1, d_chunk / c.n_int)
                                : d_chunk;
        const size_t spans = (n_times + span - 1) / span;
        d_pool.parallel_for(c.n_channels * spans, [&](size_t item, size_t worker) {
            const size_t ch = item / spans;
            const size_t t0 = (item % spans) * span;
            run_span(in, out, ch, t0, std::min(n_times, t0 + span), d_scratch[worker]);
        });
    }

private:
    struct scratch {
        std::vector<cfloat> x;      // [chunk][pol][receivers of pol], float16 values
        std::vector<cfloat> row;    // one time step of one channel, rounded
        std::vector<cfloat> y;      // [chunk][pol][beams]
        std::vector<uint64_t> bits; // [2][words]: one time step's signs
        std::vector<double> sum;    // [stokes][beams], power only
        std::vector<double> cov;    // [receivers][receivers][re, im], covariance route
    };

    /*!
     * Power of time steps [t0, t1) (whole integrations) of channel ch through
     * the covariance: C_rs = sum over the integration of x_r conj(x_s), then
     * p_b = sum_rs W_br C_rs conj(W_bs) = sum_t |sum_r W_br x_r|^2 exactly,
     * all in double from the float16-rounded samples and weights (closer to
     * exact than the float32 beam sums it replaces).
     */
    void power_by_covariance(
        const cfloat* in, float* out, size_t ch, size_t t0, size_t t1, scratch& s) const
    {
        const auto& c = d_config;
        const size_t R = c.n_receivers, nb = c.n_beams, nc = c.n_channels;
        double* cov = s.cov.data();
        for (size_t o = t0 / c.n_int; o < t1 / c.n_int; o++) {
            std::fill(s.cov.begin(), s.cov.end(), 0.0);
            for (size_t t = o * c.n_int; t < (o + 1) * c.n_int; t++) {
                round_to_half_array(
                    reinterpret_cast<const float*>(in + (t * nc + ch) * R),
                    reinterpret_cast<float*>(s.row.data()),
                    2 * R);
                const float* x = reinterpret_cast<const float*>(s.row.data());
                for (size_t r = 0; r < R; r++) {
                    const double ar = x[2 * r], ai = x[2 * r + 1];
                    double* row = cov + 2 * r * R;
                    for (size_t k = 0; k < R; k++) { // x_r conj(x_k)
                        const double br = x[2 * k], bi = x[2 * k + 1];
                        row[2 * k] += ar * br + ai * bi;
                        row[2 * k + 1] += ai * br - ar * bi;
                    }
                }
            }
            float* dst = out + o * nb * nc + ch;
            const cfloat* w = &d_weights[ch * nb * R];
            for (size_t b = 0; b < nb; b++) {
                const float* wb = reinterpret_cast<const float*>(w + b * R);
                double p = 0.0;
                for (size_t r = 0; r < R; r++) {
                    // u = sum_s C_rs conj(W_bs); p += Re(W_br u)
                    double ur = 0.0, ui = 0.0;
                    const double* row = cov + 2 * r * R;
                    for (size_t k = 0; k < R; k++) {
                        const double cr = row[2 * k], ci = row[2 * k + 1];
                        const double wr = wb[2 * k], wi = -double(wb[2 * k + 1]);
                        ur += cr * wr - ci * wi;
                        ui += cr * wi + ci * wr;
                    }
                    p += double(wb[2 * r]) * ur - double(wb[2 * r + 1]) * ui;
                }
                dst[b * nc] = static_cast<float>(p);
            }
        }
    }

    //! Time steps [t0, t1) of channel ch, in chunks of d_chunk.
    void run_span(
        const void* in, void* out, size_t ch, size_t t0, size_t t1, scratch& s) const
    {
        const auto& c = d_config;
        const size_t nb = c.n_beams;
        const bool direct = c.output == beam_output::voltage && d_n_pol == 1;
        if (d_covariance) {
            power_by_covariance(static_cast<const cfloat*>(in),
                                static_cast<float*>(out), ch, t0, t1, s);
            return;
        }
        if (c.output == beam_output::power)
            std::fill(s.sum.begin(), s.sum.end(), 0.0);
        for (size_t t = t0; t < t1; t += d_chunk) {
            const size_t n = std::min(d_chunk, t1 - t);
            // Beams of this chunk: straight into the output for single
            // voltage ([T][channels][beams]), else into s.y [t][pol][beams].
            cfloat* y = s.y.data();
            size_t ld_y = d_n_pol * nb;
            if (direct) {
                y = static_cast<cfloat*>(out) + (t * c.n_channels + ch) * nb;
                ld_y = c.n_channels * nb;
            }
            if (c.precision == beam_precision::int1)
                beams_int1_chunk(static_cast<const uint32_t*>(in), ch, t, n, y, ld_y, s);
            else
                beams_float16_chunk(static_cast<const cfloat*>(in), ch, t, n, y, ld_y, s);
            if (c.output == beam_output::voltage) {
                if (!direct)
                    interleave_xy(s.y.data(), static_cast<cfloat*>(out), ch, t, n);
            } else {
                detect(s, static_cast<float*>(out), ch, t, n);
            }
        }
    }

    //! Beams of time steps [t, t + n) of channel ch: row i at y + i * ld_y,
    //! [pol][beams].
    void beams_float16_chunk(const cfloat* in,
                             size_t ch,
                             size_t t,
                             size_t n,
                             cfloat* y,
                             size_t ld_y,
                             scratch& s) const
    {
        const auto& c = d_config;
        const size_t R = c.n_receivers;
        for (size_t i = 0; i < n; i++) {
            const cfloat* src = in + ((t + i) * c.n_channels + ch) * R;
            cfloat* dst = &s.x[i * R];
            if (d_n_pol == 1) {
                round_to_half_array(reinterpret_cast<const float*>(src),
                                    reinterpret_cast<float*>(dst),
                                    2 * R);
                continue;
            }
            round_to_half_array(reinterpret_cast<const float*>(src),
                                reinterpret_cast<float*>(s.row.data()),
                                2 * R);
            for (size_t k = 0; k < d_per_pol; k++) { // receivers 2k (X), 2k + 1 (Y)
                dst[k] = s.row[2 * k];
                dst[d_per_pol + k] = s.row[2 * k + 1];
            }
        }
        // Row-major: Y_pol^T (n x beams) = X_pol^T (n x K) . W_pol^T (K x beams).
        const cfloat one(1.0f, 0.0f), zero(0.0f, 0.0f);
        for (size_t pol = 0; pol < d_n_pol; pol++)
            cblas_cgemm(CblasRowMajor,
                        CblasNoTrans,
                        CblasTrans,
                        int(n),
                        int(c.n_beams),
                        int(d_per_pol),
                        &one,
                        &s.x[pol * d_per_pol],
                        int(R),
                        &d_weights[(ch * d_n_pol + pol) * c.n_beams * d_per_pol],
                        int(d_per_pol),
                        &zero,
                        y + pol * c.n_beams,
                        int(ld_y));
    }

    //! As beams_float16_chunk, from bit_packer's [T][channels][2][words32].
    void beams_int1_chunk(const uint32_t* in,
                          size_t ch,
                          size_t t,
                          size_t n,
                          cfloat* y,
                          size_t ld_y,
                          scratch& s) const
    {
        const auto& c = d_config;
        const size_t words32 = c.words_per_channel();
        const uint64_t* w = &d_weight_bits[ch * c.n_beams * 2 * d_words];
        for (size_t i = 0; i < n; i++) {
            const uint32_t* bits = in + ((t + i) * c.n_channels + ch) * 2 * words32;
            for (size_t part = 0; part < 2; part++)
                for (size_t k = 0; k < d_words; k++) {
                    const size_t lo = 2 * k, hi = 2 * k + 1;
                    const uint64_t low = bits[part * words32 + lo];
                    const uint64_t high = hi < words32 ? bits[part * words32 + hi] : 0;
                    s.bits[part * d_words + k] = low | (high << 32);
                }
            beams_int1(w,
                       s.bits.data(),
                       d_mask.data(),
                       d_n_pol,
                       c.n_beams,
                       d_words,
                       int(d_per_pol),
                       y + i * ld_y);
        }
    }

    //! s.y [t][pol][beams] -> [T][channels][beams][2].
    void interleave_xy(const cfloat* y, cfloat* out, size_t ch, size_t t, size_t n) const
    {
        const auto& c = d_config;
        const size_t nb = c.n_beams;
        for (size_t i = 0; i < n; i++) {
            const cfloat* x_beams = y + i * 2 * nb;
            const cfloat* y_beams = x_beams + nb;
            cfloat* dst = out + ((t + i) * c.n_channels + ch) * nb * 2;
            for (size_t b = 0; b < nb; b++) {
                dst[2 * b] = x_beams[b];
                dst[2 * b + 1] = y_beams[b];
            }
        }
    }

    //! Add the powers of s.y's n rows (time steps t...) to s.sum; write each
    //! integration that ends to [T/n_int][stokes][beams][channels].
    void detect(scratch& s, float* out, size_t ch, size_t t, size_t n) const
    {
        const auto& c = d_config;
        const size_t nb = c.n_beams, nc = c.n_channels;
        const bool iquv = c.n_stokes() == 4;
        double* sum = s.sum.data();
        for (size_t i = 0; i < n; i++) {
            const float* v = reinterpret_cast<const float*>(&s.y[i * d_n_pol * nb]);
            if (d_n_pol == 1)
                detect_single(v, sum, nb);
            else
                detect_xy(v, v + 2 * nb, sum, nb, iquv);
            if ((t + i + 1) % c.n_int == 0) {
                float* dst = out + (t + i) / c.n_int * c.n_stokes() * nb * nc + ch;
                for (size_t j = 0; j < s.sum.size(); j++)
                    dst[j * nc] = static_cast<float>(sum[j]);
                std::fill(s.sum.begin(), s.sum.end(), 0.0);
            }
        }
    }

    const size_t d_n_pol;   // 1 (single) or 2 (xy_pairs)
    const size_t d_per_pol; // receivers in one beam sum
    const size_t d_words;   // 64-bit words of one channel's signs (int1)
    size_t d_chunk = 1;     // time steps per BLAS call
    bool d_covariance = false; // power through each integration's covariance
    thread_pool d_pool;
    std::vector<cfloat> d_weights; // [channels][pol][beams][receivers of pol]
    std::vector<uint64_t> d_weight_bits; // int1: [channels][beams][2][words]
    std::vector<uint64_t> d_mask;        // int1: [pol][words], receivers of pol
    std::vector<scratch> d_scratch;      // one per worker
};

} // namespace

std::unique_ptr<tensor_beamformer_engine>
make_tensor_beamformer_cpu(const tensor_beamformer_config& config,
                           const std::vector<std::complex<float>>& weights)
{
    return std::make_unique<tensor_beamformer_cpu>(config, weights);
}

} // namespace beamform
} // namespace gr
