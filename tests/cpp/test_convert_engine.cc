/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * convert engines: the CPU reference against the formula, and every GPU engine
 * against the CPU engine on random inputs, odd sizes and poisoned outputs.
 */
#include <gnuradio/beamform/engines/convert_engine.h>
#include "test_util.h"
#include <cstdint>
#include <iostream>

using namespace gr::beamform;
using namespace beamform_test;

namespace {

std::vector<uint8_t> random_raw(sample_format f, size_t n_samples, unsigned seed)
{
    std::vector<uint8_t> raw(n_samples * sample_size(f));
    std::mt19937 gen(seed);
    if (f == sample_format::fc32) {
        std::normal_distribution<float> g(0.f, 100.f);
        auto* p = reinterpret_cast<float*>(raw.data());
        for (size_t i = 0; i < 2 * n_samples; i++)
            p[i] = g(gen);
    } else {
        for (auto& b : raw)
            b = static_cast<uint8_t>(gen());
    }
    return raw;
}

double component(const std::vector<uint8_t>& raw, sample_format f, size_t i)
{
    switch (f) {
    case sample_format::sc8:
        return reinterpret_cast<const int8_t*>(raw.data())[i];
    case sample_format::sc16:
        return reinterpret_cast<const int16_t*>(raw.data())[i];
    default:
        return reinterpret_cast<const float*>(raw.data())[i];
    }
}

convert_config make_config(sample_format f, size_t n_rx)
{
    convert_config c;
    c.input = f;
    c.n_receivers = n_rx;
    c.scale = random_vector<float>(n_rx, 7 + n_rx, 0.5, 2.0);
    return c;
}

const sample_format all_formats[] = { sample_format::sc8,
                                      sample_format::sc16,
                                      sample_format::fc32 };

} // namespace

TEST(convert_cpu, matches_formula)
{
    for (auto f : all_formats)
        for (size_t n_rx : { 1, 5, 96 }) {
            const auto cfg = make_config(f, n_rx);
            const size_t n_items = 37;
            const auto raw = random_raw(f, n_items * n_rx, 11);
            std::vector<std::complex<float>> out(n_items * n_rx);
            convert_engine::make(cfg, device_spec{})->execute(
                raw.data(), out.data(), n_items, nullptr);
            for (size_t i = 0; i < out.size(); i++) {
                const float s = cfg.scale[i % n_rx];
                ASSERT_EQ(out[i].real(), s * float(component(raw, f, 2 * i)));
                ASSERT_EQ(out[i].imag(), s * float(component(raw, f, 2 * i + 1)));
            }
        }
}

TEST(convert_config, rejects_bad_parameters)
{
    convert_config c = make_config(sample_format::sc16, 4);
    c.scale.pop_back();
    EXPECT_THROW(c.validate(), std::invalid_argument);
    c.n_receivers = 0;
    EXPECT_THROW(c.validate(), std::invalid_argument);
}

TEST(convert_gpu, matches_cpu_on_random_odd_sizes)
{
    REQUIRE_GPU(gpu);
    for (auto f : all_formats)
        for (size_t n_rx : { 1, 3, 17, 96, 1001 })
            for (size_t n_items : { 1, 257, 4099 }) {
                const auto cfg = make_config(f, n_rx);
                const auto raw = random_raw(f, n_items * n_rx, unsigned(n_rx * n_items));
                std::vector<std::complex<float>> ref(n_items * n_rx);
                make_convert_cpu(cfg)->execute(raw.data(), ref.data(), n_items, nullptr);

                auto d_in = to_device(gpu, raw);
                device_memory d_out(gpu, ref.size() * sizeof(std::complex<float>));
                poison(gpu, d_out);
                auto engine = convert_engine::make(cfg, gpu);
                engine->execute(
                    d_in.get(), d_out.as<std::complex<float>>(), n_items, nullptr);
                gpu_api_for(gpu.kind).synchronize(gpu.index, nullptr);
                const auto out = to_host<std::complex<float>>(gpu, d_out, ref.size());
                const double err = relative_error(out, ref);
                std::cout << "convert " << to_string(f) << " rx=" << n_rx
                          << " items=" << n_items << " relative error " << err << "\n";
                ASSERT_EQ(err, 0.0) << "GPU convert must be exact (one multiply)";
            }
}
