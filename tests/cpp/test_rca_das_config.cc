/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rca_das_config::gpu_precision on the CPU: the parser's and validate()'s
 * messages name the parameter, the value and the accepted values; the block's
 * make() reports exactly those messages; float16 without int16 input or the
 * dual-stage method is refused on the CPU too (a setup valid on one device is
 * valid on all); the log notice for devices that ignore it; and the CPU
 * engine's output does not depend on it (it always computes in float32).
 */
#include <gnuradio/beamform/engines/rca_das_engine.h>
#include <gnuradio/beamform/rca_das.h>
#include <gtest/gtest.h>
#include <complex>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gr::beamform;

namespace {

rca_das_config small_config()
{
    rca_das_config c;
    c.n_elements = 12;
    c.n_samples = 160;
    c.t_start = 1e-6;
    for (size_t j = 0; j < 5; j++) {
        c.source_positions.push_back(-0.4e-3 + 0.2e-3 * double(j));
        c.source_depths.push_back(-1.2e-3);
    }
    c.x = { -0.6e-3, 1.5e-4, 9 };
    c.y = { -0.5e-3, 1.7e-4, 7 };
    c.z = { 2.2e-3, 7e-5, 15 };
    c.f_number = 1.0;
    c.filter_taps = rca_gaussian_pulse_taps(6e6, 31.25e6, 0.5, 23);
    c.output = rca_output::iq;
    return c;
}

//! The std::invalid_argument message of \p f, or a failure if it does not throw one.
template <typename F>
std::string refusal(F f)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    ADD_FAILURE() << "accepted; expected std::invalid_argument";
    return "";
}

void expect_mentions(const std::string& message, const std::vector<std::string>& words)
{
    for (const auto& w : words)
        EXPECT_NE(message.find(w), std::string::npos)
            << "\"" << w << "\" missing from: " << message;
}

//! rca_das::make with small sizes on the CPU and the given strings.
void make_block(const std::string& input_type,
                const std::string& method,
                const std::string& gpu_precision,
                const std::string& device = "cpu")
{
    rca_das::make(12, 200e-6, 6e6, 31.25e6, 1540.0, 1e-6, 160, "rows", { 0.0, 2e-4 },
                  { -1.2e-3 }, -0.6e-3, 1.5e-4, 9, -0.5e-3, 1.7e-4, 7, 2.2e-3, 7e-5, 15, 1.0,
                  {}, 3, input_type, "iq", 0.0, "iq", method, 0.0, device, gpu_precision);
}

} // namespace

TEST(RcaDasConfig, GpuPrecisionNamesParse)
{
    EXPECT_EQ(rca_parse_gpu_precision("float32"), rca_gpu_precision::float32);
    EXPECT_EQ(rca_parse_gpu_precision("float16"), rca_gpu_precision::float16);
    EXPECT_EQ(rca_gpu_precision_name(rca_gpu_precision::float16), "float16");
    EXPECT_EQ(rca_das_config().gpu_precision, rca_gpu_precision::float32);
    for (const char* bad : { "fp16", "half", "Float16", "" }) {
        const std::string m = refusal([&] { rca_parse_gpu_precision(bad); });
        expect_mentions(m,
                        { "gpu_precision", "\"" + std::string(bad) + "\"",
                          "\"float32\", \"float16\"" });
    }
}

TEST(RcaDasConfig, Float16NeedsInt16InputAndDualStage)
{
    auto c = small_config();
    c.gpu_precision = rca_gpu_precision::float16;
    for (auto processing : { rca_processing::iq, rca_processing::real }) {
        c.processing = processing;
        EXPECT_NO_THROW(c.validate());
    }
    c.processing = rca_processing::iq;

    auto f32 = c;
    f32.input = rca_sample_type::float32;
    expect_mentions(refusal([&] { f32.validate(); }),
                    { "gpu_precision", "\"float16\"", "input_type \"float32\"",
                      "accepted gpu_precision values: \"float32\", \"float16\"" });
    auto conventional = c;
    conventional.method = rca_method::conventional;
    expect_mentions(refusal([&] { conventional.validate(); }),
                    { "gpu_precision", "\"float16\"", "method \"conventional\"",
                      "accepted gpu_precision values: \"float32\", \"float16\"" });

    // float32 takes every input type and method.
    f32.gpu_precision = conventional.gpu_precision = rca_gpu_precision::float32;
    EXPECT_NO_THROW(f32.validate());
    EXPECT_NO_THROW(conventional.validate());

    auto out_of_range = small_config();
    out_of_range.gpu_precision = static_cast<rca_gpu_precision>(7);
    expect_mentions(refusal([&] { out_of_range.validate(); }),
                    { "gpu_precision", "7", "\"float32\", \"float16\"" });
}

TEST(RcaDasConfig, EngineAndBlockReportTheConfigsMessages)
{
    // The engine factory validates: the same message as validate().
    auto c = small_config();
    c.gpu_precision = rca_gpu_precision::float16;
    c.method = rca_method::conventional;
    const std::string from_config = refusal([&] { c.validate(); });
    EXPECT_EQ(refusal([&] { rca_das_engine::make(c, device_spec{ backend::cpu, 0 }); }),
              from_config);

    // The block: unknown names as the parser says, combinations as validate()
    // says, on the CPU and on the emulated device alike.
    EXPECT_EQ(refusal([] { make_block("int16", "dual_stage", "float64"); }),
              refusal([] { rca_parse_gpu_precision("float64"); }));
    for (const char* device : { "cpu", "emu:0" }) {
        EXPECT_EQ(refusal([&] { make_block("int16", "conventional", "float16", device); }),
                  from_config);
        auto f32 = small_config();
        f32.gpu_precision = rca_gpu_precision::float16;
        f32.input = rca_sample_type::float32;
        EXPECT_EQ(refusal([&] { make_block("float32", "dual_stage", "float16", device); }),
                  refusal([&] { f32.validate(); }));
        EXPECT_NO_THROW(make_block("int16", "dual_stage", "float16", device));
        EXPECT_NO_THROW(make_block("float32", "conventional", "float32", device));
    }
}

TEST(RcaDasConfig, NoticeForDevicesThatIgnoreFloat16)
{
    auto c = small_config();
    EXPECT_EQ(rca_das_device_notice(c, device_spec{ backend::cpu, 0 }), "");
    c.gpu_precision = rca_gpu_precision::float16;
    expect_mentions(rca_das_device_notice(c, device_spec{ backend::cpu, 0 }),
                    { "gpu_precision", "float16", "no effect on cpu", "float32" });
    expect_mentions(rca_das_device_notice(c, device_spec{ backend::emu, 0 }),
                    { "no effect on emu:0" });
    // On a GPU the precision is applied: no notice (the device need not exist).
    EXPECT_EQ(rca_das_device_notice(c, device_spec{ backend::cuda, 0 }), "");
    EXPECT_EQ(rca_das_device_notice(c, device_spec{ backend::hip, 1 }), "");
}

TEST(RcaDasConfig, CpuEngineIgnoresGpuPrecision)
{
    for (auto processing : { rca_processing::iq, rca_processing::real }) {
        auto c = small_config();
        c.processing = processing;
        c.decimation = processing == rca_processing::real ? 1 : 3;
        std::vector<int16_t> rf(c.n_emissions() * c.n_elements * c.n_samples);
        std::mt19937 gen(5 + int(processing));
        std::uniform_int_distribution<int> u(-20000, 20000);
        for (auto& v : rf)
            v = int16_t(u(gen) | 1); // never zero
        std::vector<std::complex<float>> out32(c.n_voxels()), out16(c.n_voxels());
        const device_spec cpu{ backend::cpu, 0 };
        rca_das_engine::make(c, cpu)->execute(rf.data(), out32.data(), 1, nullptr);
        c.gpu_precision = rca_gpu_precision::float16;
        auto engine = rca_das_engine::make(c, cpu);
        EXPECT_NE(engine->describe().find("float32"), std::string::npos) << engine->describe();
        engine->execute(rf.data(), out16.data(), 1, nullptr);
        double energy = 0;
        for (const auto& v : out32)
            energy += std::norm(v);
        EXPECT_GT(energy, 0.0);
        EXPECT_EQ(std::memcmp(out32.data(), out16.data(), out32.size() * sizeof(out32[0])), 0);
    }
}
