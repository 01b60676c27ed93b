/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "half_float.h"
#include "runtime/backends.h"
#include "tensor_beamformer_expand.h"
#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <initializer_list>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace gr {
namespace beamform {

BEAMFORM_DECLARE_GPU_MAKER(tensor_beamformer_engine,
                           make_tensor_beamformer_gpu,
                           const tensor_beamformer_config&,
                           const std::vector<std::complex<float>>&,
                           const device_spec&)


namespace {

constexpr size_t max_channels = 1u << 16;
constexpr size_t max_receivers = 1u << 20;
constexpr size_t max_beams = 1u << 20;
constexpr size_t max_n_int = 1u << 20;

void check_range(const char* name, size_t value, size_t lo, size_t hi)
{
    if (value < lo || value > hi)
        throw std::invalid_argument(std::string(name) + " must be in [" +
                                    std::to_string(lo) + ", " + std::to_string(hi) +
                                    "], got " + std::to_string(value));
}

/*!
 * Python may pass any integer for an enum: accept only the named values,
 * listed in \p names by their number, so that no switch meets an unknown one.
 */
template <typename Enum>
void check_enum(const char* name, Enum value, std::initializer_list<const char*> names)
{
    const int v = static_cast<int>(value);
    if (v >= 0 && v < static_cast<int>(names.size()))
        return;
    std::string accepted;
    int i = 0;
    for (const char* n : names) {
        accepted += (i ? ", " : "") + std::string(n) + " (" + std::to_string(i) + ")";
        i++;
    }
    throw std::invalid_argument(std::string(name) + " must be one of " + accepted +
                                ", got " + std::to_string(v));
}

} // namespace

void tensor_beamformer_config::validate() const
{
    check_enum("precision", precision, { "float16", "int1" });
    check_enum("output", output, { "voltage", "power" });
    check_enum("polarization", polarization, { "single", "xy_pairs" });
    check_enum("stokes", stokes, { "I", "IQUV" });
    check_range("n_channels", n_channels, 1, max_channels);
    check_range("n_receivers", n_receivers, 1, max_receivers);
    check_range("n_beams", n_beams, 1, max_beams);
    check_range("n_int", n_int, 1, max_n_int);
    if (output == beam_output::voltage && n_int != 1)
        throw std::invalid_argument("n_int must be 1 with voltage output (integration "
                                    "needs power output), got " +
                                    std::to_string(n_int));
    if (polarization == polarization_layout::xy_pairs && n_receivers % 2 != 0)
        throw std::invalid_argument(
            "n_receivers must be even with polarization xy_pairs (receivers 2k, 2k+1 "
            "are X and Y of one antenna), got " +
            std::to_string(n_receivers));
    if (stokes == stokes_mode::IQUV && polarization != polarization_layout::xy_pairs)
        throw std::invalid_argument(
            "stokes IQUV needs polarization xy_pairs (single polarization has only I)");
}

size_t tensor_beamformer_config::input_item_bytes() const
{
    if (precision == beam_precision::int1)
        return n_channels * 2 * words_per_channel() * sizeof(uint32_t);
    return n_channels * n_receivers * sizeof(std::complex<float>);
}

size_t tensor_beamformer_config::output_item_bytes() const
{
    if (output == beam_output::power)
        return n_stokes() * n_beams * n_channels * sizeof(float);
    const size_t n_pol = polarization == polarization_layout::xy_pairs ? 2 : 1;
    return n_channels * n_beams * n_pol * sizeof(std::complex<float>);
}

void check_tensor_beamformer_weights(const tensor_beamformer_config& config,
                                     const std::vector<std::complex<float>>& weights)
{
    if (weights.size() != config.weight_count())
        throw std::invalid_argument(
            "weights must have n_channels * n_beams * n_receivers = " +
            std::to_string(config.n_channels) + " * " + std::to_string(config.n_beams) +
            " * " + std::to_string(config.n_receivers) + " = " +
            std::to_string(config.weight_count()) +
            " entries ([channels][beams]"
            "[receivers]), got " +
            std::to_string(weights.size()));
    for (size_t i = 0; i < weights.size(); i++)
        if (!std::isfinite(weights[i].real()) || !std::isfinite(weights[i].imag()))
            throw std::invalid_argument("weights must be finite, entry " +
                                        std::to_string(i) + " is not");
    if (config.precision == beam_precision::float16) {
        // float16 rounds these to inf: every beam using them would be inf or NaN.
        const auto range = count_float16_range(weights.data(), weights.size());
        if (range.overflow > 0)
            throw std::invalid_argument(
                "weights must stay below 65520 in magnitude (real and imaginary parts; "
                "float16's largest value is 65504) with precision float16, " +
                std::to_string(range.overflow) +
                " parts are not; scale the weights down (the beams scale with them)");
    }
}

namespace {

//! +1 for value >= 0, else -1: the 1-bit sign convention of bit_packer.
inline int8_t sign_of(float value) { return value >= 0.0f ? 1 : -1; }

/*!
 * \brief The reference beamformer: plain loops over time, channel, beam and
 * receiver (innermost, contiguous).
 *
 * Beam sums run over the receivers of one polarization ("pol"): all receivers
 * for single polarization, receivers 2k + pol for xy_pairs. Weights and the
 * samples of one time step are rearranged per polarization into separate real
 * and imaginary arrays so that every beam sum reads contiguous memory.
 *
 * float16: samples and weights are rounded to fp16 (round to nearest even),
 * products and sums are fp32. int1: signs as int8, integer sums (exact).
 * Power: |beam|^2 (or the Stokes parameters) summed over n_int steps in
 * double and rounded to float once, so int1 powers are exact up to float's
 * 24-bit mantissa.
 */
class tensor_beamformer_cpu final : public tensor_beamformer_engine
{
public:
    tensor_beamformer_cpu(const tensor_beamformer_config& config,
                          const std::vector<std::complex<float>>& weights)
        : tensor_beamformer_engine(config),
          d_n_pol(config.polarization == polarization_layout::xy_pairs ? 2 : 1),
          d_per_pol(config.n_receivers / d_n_pol)
    {
        config.validate();
        set_weights(weights);
        const size_t per_time = d_n_pol * d_per_pol;
        d_sample_re.resize(per_time);
        d_sample_im.resize(per_time);
        d_sign_re.resize(per_time);
        d_sign_im.resize(per_time);
        d_beams.resize(d_n_pol * config.n_beams);
    }

    void set_weights(const std::vector<std::complex<float>>& weights) override
    {
        check_tensor_beamformer_weights(d_config, weights);
        const auto& c = d_config;
        const size_t n = c.weight_count();
        d_weight_re.assign(n, 0.0f);
        d_weight_im.assign(n, 0.0f);
        d_weight_sign_re.assign(n, 0);
        d_weight_sign_im.assign(n, 0);
        for (size_t ch = 0; ch < c.n_channels; ch++)
            for (size_t b = 0; b < c.n_beams; b++)
                for (size_t r = 0; r < c.n_receivers; r++) {
                    const std::complex<float> w =
                        weights[(ch * c.n_beams + b) * c.n_receivers + r];
                    const size_t i = weight_index(ch, r % d_n_pol, b, r / d_n_pol);
                    const std::complex<float> w16 = round_to_half(w);
                    d_weight_re[i] = w16.real();
                    d_weight_im[i] = w16.imag();
                    d_weight_sign_re[i] = sign_of(w.real());
                    d_weight_sign_im[i] = sign_of(w.imag());
                }
    }

    void execute(const void* in, void* out, size_t n_times, stream_handle) override
    {
        const auto& c = d_config;
        check_tensor_beamformer_times(c, n_times);
        auto* voltage = static_cast<std::complex<float>*>(out);
        auto* power = static_cast<float*>(out);
        const size_t power_item = c.n_stokes() * c.n_beams * c.n_channels;
        std::vector<double> power_sum(c.output == beam_output::power ? power_item : 0);

        for (size_t t = 0; t < n_times; t++) {
            for (size_t ch = 0; ch < c.n_channels; ch++) {
                if (c.precision == beam_precision::int1)
                    beams_int1(static_cast<const uint32_t*>(in), t, ch);
                else
                    beams_float16(static_cast<const std::complex<float>*>(in), t, ch);

                if (c.output == beam_output::voltage) {
                    // [T][channels][beams] or [T][channels][beams][2]
                    std::complex<float>* dst =
                        voltage + (t * c.n_channels + ch) * c.n_beams * d_n_pol;
                    for (size_t b = 0; b < c.n_beams; b++)
                        for (size_t pol = 0; pol < d_n_pol; pol++)
                            dst[b * d_n_pol + pol] = d_beams[pol * c.n_beams + b];
                } else {
                    accumulate_power(power_sum, ch);
                }
            }
            if (c.output == beam_output::power && (t + 1) % c.n_int == 0) {
                float* dst = power + (t / c.n_int) * power_item;
                for (size_t i = 0; i < power_item; i++)
                    dst[i] = static_cast<float>(power_sum[i]);
                std::fill(power_sum.begin(), power_sum.end(), 0.0);
            }
        }
    }

private:
    //! Index into the rearranged weights [channels][pol][beams][receivers of pol].
    size_t weight_index(size_t ch, size_t pol, size_t b, size_t k) const
    {
        return ((ch * d_n_pol + pol) * d_config.n_beams + b) * d_per_pol + k;
    }

    //! d_beams[pol][b] for channel ch of time step t, float16 mode.
    void beams_float16(const std::complex<float>* in, size_t t, size_t ch)
    {
        const auto& c = d_config;
        const std::complex<float>* x = in + (t * c.n_channels + ch) * c.n_receivers;
        for (size_t r = 0; r < c.n_receivers; r++) {
            const std::complex<float> x16 = round_to_half(x[r]);
            const size_t i = (r % d_n_pol) * d_per_pol + r / d_n_pol;
            d_sample_re[i] = x16.real();
            d_sample_im[i] = x16.imag();
        }
        for (size_t pol = 0; pol < d_n_pol; pol++) {
            const float* xr = &d_sample_re[pol * d_per_pol];
            const float* xi = &d_sample_im[pol * d_per_pol];
            for (size_t b = 0; b < c.n_beams; b++) {
                const float* wr = &d_weight_re[weight_index(ch, pol, b, 0)];
                const float* wi = &d_weight_im[weight_index(ch, pol, b, 0)];
                // fp32 partial sums in 8 lanes (lane k takes receivers k, k+8,
                // ...) so that the compiler can vectorize without reordering
                // any single sum; the lanes are added at the end.
                constexpr size_t lanes = 8;
                float re[lanes] = {}, im[lanes] = {};
                size_t k = 0;
                for (; k + lanes <= d_per_pol; k += lanes)
                    for (size_t l = 0; l < lanes; l++) {
                        re[l] += wr[k + l] * xr[k + l] - wi[k + l] * xi[k + l];
                        im[l] += wr[k + l] * xi[k + l] + wi[k + l] * xr[k + l];
                    }
                for (size_t l = 0; k < d_per_pol; k++, l++) {
                    re[l] += wr[k] * xr[k] - wi[k] * xi[k];
                    im[l] += wr[k] * xi[k] + wi[k] * xr[k];
                }
                float sum_re = 0.0f, sum_im = 0.0f;
                for (size_t l = 0; l < lanes; l++) {
                    sum_re += re[l];
                    sum_im += im[l];
                }
                d_beams[pol * c.n_beams + b] = { sum_re, sum_im };
            }
        }
    }

    //! d_beams[pol][b] for channel ch of time step t, int1 mode (exact).
    void beams_int1(const uint32_t* in, size_t t, size_t ch)
    {
        const auto& c = d_config;
        const size_t words = c.words_per_channel();
        // [T][channels][2][words]: part 0 real signs, part 1 imaginary signs.
        const uint32_t* bits = in + (t * c.n_channels + ch) * 2 * words;
        for (size_t r = 0; r < c.n_receivers; r++) { // padding bits are never read
            const bool re_set = (bits[r / 32] >> (r % 32)) & 1u;
            const bool im_set = (bits[words + r / 32] >> (r % 32)) & 1u;
            const size_t i = (r % d_n_pol) * d_per_pol + r / d_n_pol;
            d_sign_re[i] = re_set ? 1 : -1;
            d_sign_im[i] = im_set ? 1 : -1;
        }
        for (size_t pol = 0; pol < d_n_pol; pol++) {
            const int8_t* xr = &d_sign_re[pol * d_per_pol];
            const int8_t* xi = &d_sign_im[pol * d_per_pol];
            for (size_t b = 0; b < c.n_beams; b++) {
                const int8_t* wr = &d_weight_sign_re[weight_index(ch, pol, b, 0)];
                const int8_t* wi = &d_weight_sign_im[weight_index(ch, pol, b, 0)];
                int32_t re = 0, im = 0;
                for (size_t k = 0; k < d_per_pol; k++) {
                    re += wr[k] * xr[k] - wi[k] * xi[k];
                    im += wr[k] * xi[k] + wi[k] * xr[k];
                }
                // |re|, |im| <= 2 * 2^20 < 2^24: exact as float.
                d_beams[pol * c.n_beams + b] = { float(re), float(im) };
            }
        }
    }

    //! Add channel ch's detected beams to power_sum [n_stokes][beams][channels].
    void accumulate_power(std::vector<double>& power_sum, size_t ch) const
    {
        const auto& c = d_config;
        const size_t nb = c.n_beams, nc = c.n_channels;
        for (size_t b = 0; b < nb; b++) {
            if (d_n_pol == 1) {
                power_sum[b * nc + ch] += std::norm(std::complex<double>(d_beams[b]));
                continue;
            }
            const std::complex<double> x(d_beams[b]), y(d_beams[nb + b]);
            const double xx = std::norm(x), yy = std::norm(y);
            const std::complex<double> xy = x * std::conj(y);
            power_sum[b * nc + ch] += xx + yy; // I
            if (c.stokes == stokes_mode::IQUV) {
                power_sum[(1 * nb + b) * nc + ch] += xx - yy;         // Q
                power_sum[(2 * nb + b) * nc + ch] += 2.0 * xy.real(); // U
                power_sum[(3 * nb + b) * nc + ch] += 2.0 * xy.imag(); // V
            }
        }
    }

    const size_t d_n_pol;   // 1 (single) or 2 (xy_pairs)
    const size_t d_per_pol; // receivers in one beam sum
    // Weights [channels][pol][beams][receivers of pol], per precision.
    std::vector<float> d_weight_re, d_weight_im;
    std::vector<int8_t> d_weight_sign_re, d_weight_sign_im;
    // One time step of one channel, [pol][receivers of pol].
    std::vector<float> d_sample_re, d_sample_im;
    std::vector<int8_t> d_sign_re, d_sign_im;
    std::vector<std::complex<float>> d_beams; // [pol][beams]
};

} // namespace

std::unique_ptr<tensor_beamformer_engine>
make_tensor_beamformer_cpu(const tensor_beamformer_config& config,
                           const std::vector<std::complex<float>>& weights)
{
    return std::make_unique<tensor_beamformer_cpu>(config, weights);
}

std::unique_ptr<tensor_beamformer_engine>
tensor_beamformer_engine::make(const tensor_beamformer_config& config,
                               const std::vector<std::complex<float>>& weights,
                               const device_spec& device)
{
    config.validate();
    check_tensor_beamformer_weights(config, weights);
    return make_for_device(
        "tensor_beamformer",
        device,
        [&] { return make_tensor_beamformer_cpu(config, weights); },
        BEAMFORM_GPU_MAKERS(make_tensor_beamformer_gpu),
        config, weights, device);
}

} // namespace beamform
} // namespace gr
