/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fast CPU tensor beamformer (BLAS, popcount, worker threads) against the
 * plain reference (tb_cpu_reference.h) on random inputs and odd sizes, for
 * every output mode and both precisions; and the vectorised float16 rounding
 * against the scalar one.
 */
#include "tb_cpu_reference.h"
#include "test_util.h"
#include <gnuradio/beamform/engines/bit_packer_engine.h>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>

namespace {

using namespace gr::beamform;
using cf = std::complex<float>;
using beamform_test::random_vector;

const device_spec cpu{ backend::cpu, 0 };

struct mode {
    beam_precision precision;
    beam_output output;
    size_t n_int;
    polarization_layout pol;
    stokes_mode stokes;
};

std::string describe(const tensor_beamformer_config& c)
{
    std::ostringstream s;
    s << "C=" << c.n_channels << " R=" << c.n_receivers << " B=" << c.n_beams
      << (c.precision == beam_precision::int1 ? " int1" : " float16")
      << (c.output == beam_output::power ? " power n_int=" : " voltage n_int=") << c.n_int
      << (c.polarization == polarization_layout::xy_pairs ? " xy" : " single")
      << (c.stokes == stokes_mode::IQUV ? " IQUV" : " I") << " threads=" << c.threads;
    return s.str();
}

//! Output floats of fast and reference engines on the same random input.
void compare(const tensor_beamformer_config& c, size_t n_times, unsigned seed)
{
    SCOPED_TRACE(describe(c));
    const auto w = random_vector<cf>(c.weight_count(), seed);
    const auto x = random_vector<cf>(n_times * c.n_channels * c.n_receivers, seed + 1);
    std::vector<uint32_t> packed;
    const void* in = x.data();
    if (c.precision == beam_precision::int1) {
        bit_packer_config pc;
        pc.n_channels = c.n_channels;
        pc.n_receivers = c.n_receivers;
        packed.resize(n_times * pc.packed_item_words());
        bit_packer_engine::make(pc, cpu)->execute(x.data(), packed.data(), n_times, nullptr);
        in = packed.data();
    }
    const size_t out_floats = c.output_item_bytes() / sizeof(float) * n_times / c.n_int;
    std::vector<float> fast(out_floats, std::numeric_limits<float>::quiet_NaN());
    std::vector<float> ref(out_floats, -1.0f);
    tensor_beamformer_engine::make(c, w, cpu)->execute(in, fast.data(), n_times, nullptr);
    tb_cpu_reference::make(c, w)->execute(in, ref.data(), n_times, nullptr);

    // float16: the same float16 products summed in another order (float32);
    // |w x| <= 2 per term, so a beam's rounding error is about R * 2 * 2^-24
    // per sum step. int1: integers, exact in both.
    const double R = double(c.n_receivers);
    double tol = c.precision == beam_precision::int1 ? 0.0 : 4.0 * R * 1e-6;
    if (c.output == beam_output::power) // |b|^2: about 2 |b| (<= 4R) times that, n_int times
        tol *= 2.0 * 2.0 * R * double(c.n_int) * 2.0;
    size_t bad = 0;
    for (size_t i = 0; i < out_floats; i++) {
        ASSERT_TRUE(std::isfinite(fast[i])) << "output " << i << " not written";
        if (std::fabs(double(fast[i]) - double(ref[i])) > tol && bad++ < 5)
            ADD_FAILURE() << "output " << i << ": fast " << fast[i] << " reference "
                          << ref[i] << " tolerance " << tol;
    }
    EXPECT_EQ(bad, 0u);
}

TEST(TensorBeamformerCpuFast, MatchesTheReferenceInEveryMode)
{
    const mode modes[] = {
        { beam_precision::float16, beam_output::voltage, 1, polarization_layout::single, stokes_mode::I },
        { beam_precision::float16, beam_output::voltage, 1, polarization_layout::xy_pairs, stokes_mode::I },
        { beam_precision::float16, beam_output::power, 1, polarization_layout::single, stokes_mode::I },
        { beam_precision::float16, beam_output::power, 3, polarization_layout::single, stokes_mode::I },
        { beam_precision::float16, beam_output::power, 5, polarization_layout::xy_pairs, stokes_mode::I },
        { beam_precision::float16, beam_output::power, 2, polarization_layout::xy_pairs, stokes_mode::IQUV },
        { beam_precision::int1, beam_output::voltage, 1, polarization_layout::single, stokes_mode::I },
        { beam_precision::int1, beam_output::voltage, 1, polarization_layout::xy_pairs, stokes_mode::I },
        { beam_precision::int1, beam_output::power, 3, polarization_layout::single, stokes_mode::I },
        { beam_precision::int1, beam_output::power, 2, polarization_layout::xy_pairs, stokes_mode::IQUV },
    };
    // Odd sizes: receivers across the 32- and 64-bit word edges, one beam,
    // many beams, one channel; threads 1 and 3 (more items than workers).
    const size_t shapes[][3] = { { 3, 38, 7 }, { 1, 66, 1 }, { 5, 130, 29 }, { 2, 2, 300 } };
    unsigned seed = 100;
    for (const auto& m : modes)
        for (const auto& s : shapes)
            for (size_t threads : { 1, 3 }) {
                tensor_beamformer_config c;
                c.n_channels = s[0];
                c.n_receivers = s[1];
                c.n_beams = s[2];
                c.precision = m.precision;
                c.output = m.output;
                c.n_int = m.n_int;
                c.polarization = m.pol;
                c.stokes = m.stokes;
                c.threads = threads;
                // 601 steps cross several time chunks; a multiple of n_int.
                compare(c, 601 / m.n_int * m.n_int, seed++);
            }
}

TEST(TensorBeamformerCpuFast, LongIntegrationSpansChunks)
{
    // n_int above the engine's time chunk: one integration covers many BLAS
    // calls.
    tensor_beamformer_config c;
    c.n_channels = 3;
    c.n_receivers = 9;
    c.n_beams = 5;
    c.output = beam_output::power;
    c.n_int = 700;
    c.threads = 2;
    compare(c, 1400, 7);
}

TEST(TensorBeamformerCpuFast, CovarianceRouteMatchesTheReference)
{
    // Few receivers, many beams, long integrations: power through each
    // integration's covariance (4 R (n_int + beams) < n_int beams).
    const size_t shapes[][4] = { { 1, 5, 360, 256 }, { 3, 3, 41, 64 }, { 2, 1, 17, 200 } };
    unsigned seed = 500;
    for (const auto& s : shapes)
        for (size_t threads : { 1, 3 }) {
            tensor_beamformer_config c;
            c.n_channels = s[0];
            c.n_receivers = s[1];
            c.n_beams = s[2];
            c.output = beam_output::power;
            c.n_int = s[3];
            c.threads = threads;
            ASSERT_LT(4 * c.n_receivers * (c.n_int + c.n_beams), c.n_int * c.n_beams);
            compare(c, 3 * c.n_int, seed++);
        }
}

TEST(HalfFloatArray, EqualsScalarRounding)
{
    // Random magnitudes from 2^-30 to 2^17 (subnormal, normal, overflow),
    // both signs, plus the special values; lengths not a multiple of 8.
    std::mt19937 gen(3);
    std::uniform_real_distribution<float> mant(1.0f, 2.0f);
    std::uniform_int_distribution<int> expo(-30, 17);
    std::vector<float> x(100003);
    for (auto& v : x)
        v = std::ldexp(mant(gen), expo(gen)) * (gen() % 2 ? 1.0f : -1.0f);
    x[0] = 0.0f;
    x[1] = -0.0f;
    x[2] = std::numeric_limits<float>::infinity();
    x[3] = 65519.0f;
    x[4] = 65520.0f;
    x[5] = std::ldexp(3.0f, -25);
    std::vector<float> fast(x.size());
    round_to_half_array(x.data(), fast.data(), x.size());
    for (size_t i = 0; i < x.size(); i++) {
        const float expect = round_to_half(x[i]);
        ASSERT_EQ(fast[i], expect) << "x = " << x[i];
        ASSERT_EQ(std::signbit(fast[i]), std::signbit(expect)) << "x = " << x[i];
    }
    const float nan = std::numeric_limits<float>::quiet_NaN();
    float nans[9] = { nan, nan, nan, nan, nan, nan, nan, nan, nan };
    round_to_half_array(nans, nans, 9);
    for (float v : nans)
        EXPECT_TRUE(std::isnan(v));
}

} // namespace
