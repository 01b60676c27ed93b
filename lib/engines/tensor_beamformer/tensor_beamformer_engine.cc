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
constexpr size_t max_threads = 1024;

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
    check_range("threads", threads, 0, max_threads);
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
