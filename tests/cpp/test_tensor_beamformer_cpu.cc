/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CPU reference engines of tensor_beamformer and bit_packer, checked
 * against each other and against identities that need no numpy: fp16 rounding
 * by hand, int1 == float16 on +-1 data, power == |voltage|^2 summed, Stokes
 * from the X/Y voltages, weight updates only between execute() calls, and
 * the parameter checks. The numpy comparisons are in tests/python.
 */
#include <gnuradio/beamform/engines/bit_packer_engine.h>
#include "engines/tensor_beamformer/half_float.h"
#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include "test_util.h"
#include <gnuradio/beamform/engines/steering.h>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>

namespace {

using namespace gr::beamform;
using cf = std::complex<float>;
using beamform_test::random_vector;

const device_spec cpu{ backend::cpu, 0 };

tensor_beamformer_config
make_config(size_t channels,
            size_t receivers,
            size_t beams,
            beam_precision precision = beam_precision::float16,
            beam_output output = beam_output::voltage,
            size_t n_int = 1,
            polarization_layout pol = polarization_layout::single,
            stokes_mode stokes = stokes_mode::I)
{
    tensor_beamformer_config c;
    c.n_channels = channels;
    c.n_receivers = receivers;
    c.n_beams = beams;
    c.precision = precision;
    c.output = output;
    c.n_int = n_int;
    c.polarization = pol;
    c.stokes = stokes;
    return c;
}

//! +-1 +-1j values.
std::vector<cf> random_signs(size_t n, unsigned seed)
{
    auto v = random_vector<cf>(n, seed);
    for (auto& x : v)
        x = { x.real() >= 0 ? 1.0f : -1.0f, x.imag() >= 0 ? 1.0f : -1.0f };
    return v;
}

std::vector<uint32_t> pack(const std::vector<cf>& x, size_t channels, size_t receivers)
{
    bit_packer_config pc;
    pc.n_channels = channels;
    pc.n_receivers = receivers;
    const size_t n_times = x.size() / (channels * receivers);
    std::vector<uint32_t> packed(n_times * pc.packed_item_words());
    bit_packer_engine::make(pc, cpu)->execute(x.data(), packed.data(), n_times, nullptr);
    return packed;
}

//! The message of the std::invalid_argument that \p f throws ("" if none).
template <typename F>
std::string invalid_argument_message(F f)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

TEST(HalfFloat, RoundsToNearestEvenLikeIeeeBinary16)
{
    EXPECT_EQ(round_to_half(1.0f), 1.0f);
    EXPECT_EQ(round_to_half(1.0f + std::ldexp(1.0f, -11)), 1.0f); // tie -> even
    EXPECT_EQ(round_to_half(1.0f + 3 * std::ldexp(1.0f, -11)),    // tie -> even
              1.0f + std::ldexp(1.0f, -9));
    EXPECT_EQ(round_to_half(1.0f + std::ldexp(1.2f, -11)), 1.0f + std::ldexp(1.0f, -10));
    EXPECT_EQ(round_to_half(-3.14159265f), -3.140625f);
    EXPECT_EQ(round_to_half(65504.0f), 65504.0f); // largest half
    EXPECT_EQ(round_to_half(65519.0f), 65504.0f);
    EXPECT_EQ(round_to_half(65520.0f), std::numeric_limits<float>::infinity());
    EXPECT_EQ(round_to_half(-1e6f), -std::numeric_limits<float>::infinity());
    EXPECT_EQ(round_to_half(std::ldexp(1.0f, -14)), std::ldexp(1.0f, -14)); // min normal
    EXPECT_EQ(round_to_half(std::ldexp(1.0f, -25)), 0.0f);                  // tie -> 0
    EXPECT_EQ(round_to_half(std::ldexp(3.0f, -25)), std::ldexp(1.0f, -23)); // tie -> even
    EXPECT_EQ(round_to_half(std::ldexp(1.4f, -24)), std::ldexp(1.0f, -24)); // subnormal
    EXPECT_TRUE(std::signbit(round_to_half(-0.0f)));
    EXPECT_TRUE(std::isnan(round_to_half(std::numeric_limits<float>::quiet_NaN())));
}

TEST(TensorBeamformerCpu, Int1EqualsFloat16OnSignData)
{
    // Odd sizes; 70 receivers leave 26 padding bits in the last word.
    const size_t T = 7, C = 3, R = 70, B = 13;
    const auto x = random_signs(T * C * R, 1);
    const auto w = random_signs(C * B * R, 2);
    std::vector<cf> out16(T * C * B), out1(T * C * B);
    tensor_beamformer_engine::make(make_config(C, R, B), w, cpu)
        ->execute(x.data(), out16.data(), T, nullptr);
    auto packed = pack(x, C, R);
    tensor_beamformer_engine::make(make_config(C, R, B, beam_precision::int1), w, cpu)
        ->execute(packed.data(), out1.data(), T, nullptr);
    for (size_t i = 0; i < out1.size(); i++)
        ASSERT_EQ(out1[i], out16[i]) << "element " << i;
    // Set padding bits: the result must not change.
    const size_t words = (R + 31) / 32;
    for (size_t row = 0; row < T * C * 2; row++)
        packed[row * words + words - 1] |= ~((1u << (R % 32)) - 1);
    std::vector<cf> out1_padded(T * C * B);
    tensor_beamformer_engine::make(make_config(C, R, B, beam_precision::int1), w, cpu)
        ->execute(packed.data(), out1_padded.data(), T, nullptr);
    EXPECT_EQ(out1_padded, out1);
}

TEST(TensorBeamformerCpu, Int1UsesOnlyTheSigns)
{
    // int1 on arbitrary data equals float16 on the signs of that data.
    const size_t T = 5, C = 2, R = 33, B = 4;
    const auto x = random_vector<cf>(T * C * R, 3);
    const auto w = random_vector<cf>(C * B * R, 4);
    std::vector<cf> x_signs(x.size()), w_signs(w.size());
    auto sign = [](cf z) {
        return cf(z.real() >= 0 ? 1.0f : -1.0f, z.imag() >= 0 ? 1.0f : -1.0f);
    };
    for (size_t i = 0; i < x.size(); i++)
        x_signs[i] = sign(x[i]);
    for (size_t i = 0; i < w.size(); i++)
        w_signs[i] = sign(w[i]);
    std::vector<cf> out1(T * C * B), out16(T * C * B);
    const auto packed = pack(x, C, R);
    tensor_beamformer_engine::make(make_config(C, R, B, beam_precision::int1), w, cpu)
        ->execute(packed.data(), out1.data(), T, nullptr);
    tensor_beamformer_engine::make(make_config(C, R, B), w_signs, cpu)
        ->execute(x_signs.data(), out16.data(), T, nullptr);
    EXPECT_EQ(out1, out16);
}

TEST(TensorBeamformerCpu, PowerIsVoltageSquaredSummedOverNInt)
{
    const size_t T = 12, C = 3, R = 17, B = 5, n_int = 4;
    const auto x = random_vector<cf>(T * C * R, 5);
    const auto w = random_vector<cf>(C * B * R, 6);
    std::vector<cf> volts(T * C * B);
    std::vector<float> power(T / n_int * B * C);
    tensor_beamformer_engine::make(make_config(C, R, B), w, cpu)
        ->execute(x.data(), volts.data(), T, nullptr);
    tensor_beamformer_engine::make(
        make_config(C, R, B, beam_precision::float16, beam_output::power, n_int), w, cpu)
        ->execute(x.data(), power.data(), T, nullptr);
    double max_rel = 0;
    for (size_t k = 0; k < T / n_int; k++)
        for (size_t b = 0; b < B; b++)
            for (size_t c = 0; c < C; c++) {
                double expected = 0;
                for (size_t t = k * n_int; t < (k + 1) * n_int; t++)
                    expected +=
                        std::norm(std::complex<double>(volts[(t * C + c) * B + b]));
                const double got =
                    power[(k * B + b) * C + c]; // [T/n_int][beams][channels]
                max_rel = std::max(max_rel, std::abs(got - expected) / expected);
            }
    std::cout << "power vs |voltage|^2: max relative difference " << max_rel << "\n";
    EXPECT_LT(max_rel, 1e-6);
}

TEST(TensorBeamformerCpu, StokesFromXyVoltages)
{
    const size_t T = 6, C = 2, R = 10, B = 3, n_int = 3;
    const auto x = random_vector<cf>(T * C * R, 7);
    const auto w = random_vector<cf>(C * B * R, 8);
    std::vector<cf> volts(T * C * B * 2);
    std::vector<float> iquv(T / n_int * 4 * B * C), stokes_i(T / n_int * B * C);
    tensor_beamformer_engine::make(make_config(C,
                                               R,
                                               B,
                                               beam_precision::float16,
                                               beam_output::voltage,
                                               1,
                                               polarization_layout::xy_pairs),
                                   w,
                                   cpu)
        ->execute(x.data(), volts.data(), T, nullptr);
    for (auto stokes : { stokes_mode::IQUV, stokes_mode::I }) {
        auto config = make_config(C,
                                  R,
                                  B,
                                  beam_precision::float16,
                                  beam_output::power,
                                  n_int,
                                  polarization_layout::xy_pairs,
                                  stokes);
        EXPECT_EQ(config.n_stokes(), stokes == stokes_mode::IQUV ? 4u : 1u);
        auto& out = stokes == stokes_mode::IQUV ? iquv : stokes_i;
        tensor_beamformer_engine::make(config, w, cpu)
            ->execute(x.data(), out.data(), T, nullptr);
    }
    for (size_t k = 0; k < T / n_int; k++)
        for (size_t b = 0; b < B; b++)
            for (size_t c = 0; c < C; c++) {
                double s[4] = {};
                for (size_t t = k * n_int; t < (k + 1) * n_int; t++) {
                    const std::complex<double> X(volts[((t * C + c) * B + b) * 2]);
                    const std::complex<double> Y(volts[((t * C + c) * B + b) * 2 + 1]);
                    s[0] += std::norm(X) + std::norm(Y);
                    s[1] += std::norm(X) - std::norm(Y);
                    s[2] += 2 * (X * std::conj(Y)).real();
                    s[3] += 2 * (X * std::conj(Y)).imag();
                }
                const double scale = s[0];
                for (size_t p = 0; p < 4; p++)
                    EXPECT_NEAR(iquv[((k * 4 + p) * B + b) * C + c], s[p], 1e-6 * scale)
                        << "stokes "
                        << "IQUV"[p];
                EXPECT_NEAR(stokes_i[(k * B + b) * C + c], s[0], 1e-6 * scale);
            }
}

TEST(TensorBeamformerCpu, XyPairsFormsXAndYBeamsOverAlternateReceivers)
{
    // X beam = sum over even receivers, Y beam = sum over odd ones.
    const size_t C = 1, R = 6, B = 1;
    std::vector<cf> x = { { 1, 0 }, { 0, 1 }, { 2, 0 }, { 0, 2 }, { 4, 0 }, { 0, 4 } };
    std::vector<cf> w(R, cf(1, 0));
    std::vector<cf> out(2);
    tensor_beamformer_engine::make(make_config(C,
                                               R,
                                               B,
                                               beam_precision::float16,
                                               beam_output::voltage,
                                               1,
                                               polarization_layout::xy_pairs),
                                   w,
                                   cpu)
        ->execute(x.data(), out.data(), 1, nullptr);
    EXPECT_EQ(out[0], cf(7, 0));
    EXPECT_EQ(out[1], cf(0, 7));
}

TEST(TensorBeamformerCpu, WeightUpdateTakesEffectAtTheNextExecute)
{
    const size_t T = 8, C = 2, R = 9, B = 3;
    const auto x = random_vector<cf>(T * C * R, 9);
    const auto w_old = random_vector<cf>(C * B * R, 10);
    const auto w_new = random_vector<cf>(C * B * R, 11);
    auto engine = tensor_beamformer_engine::make(make_config(C, R, B), w_old, cpu);
    auto fresh_new = tensor_beamformer_engine::make(make_config(C, R, B), w_new, cpu);
    const size_t item = C * B;
    std::vector<cf> out(T * item), expected_old(T * item), expected_new(T * item);
    make_tensor_beamformer_cpu(make_config(C, R, B), w_old)
        ->execute(x.data(), expected_old.data(), T, nullptr);
    fresh_new->execute(x.data(), expected_new.data(), T, nullptr);
    // First half with the old weights, then set_weights, then the rest.
    engine->execute(x.data(), out.data(), T / 2, nullptr);
    engine->set_weights(w_new);
    engine->execute(x.data() + T / 2 * C * R, out.data() + T / 2 * item, T / 2, nullptr);
    for (size_t i = 0; i < out.size(); i++)
        ASSERT_EQ(out[i], i < T / 2 * item ? expected_old[i] : expected_new[i]) << i;
}

TEST(TensorBeamformerCpu, ItemSizesFollowTheDataContract)
{
    auto c = make_config(4, 70, 5, beam_precision::int1);
    EXPECT_EQ(c.input_item_bytes(), 4u * 2 * 3 * 4);
    EXPECT_EQ(c.output_item_bytes(), 4u * 5 * 8);
    c = make_config(4,
                    70,
                    5,
                    beam_precision::float16,
                    beam_output::power,
                    8,
                    polarization_layout::xy_pairs,
                    stokes_mode::IQUV);
    EXPECT_EQ(c.input_item_bytes(), 4u * 70 * 8);
    EXPECT_EQ(c.output_item_bytes(), 4u * 5 * 4 * 4);
    c.output = beam_output::voltage;
    c.n_int = 1;
    EXPECT_EQ(c.output_item_bytes(), 4u * 5 * 2 * 8);
}

TEST(TensorBeamformerCpu, BadParametersNameTheParameter)
{
    auto expect_names = [](tensor_beamformer_config c, const std::string& name) {
        const std::string msg = invalid_argument_message([&] { c.validate(); });
        EXPECT_NE(msg.find(name), std::string::npos) << "message: '" << msg << "'";
    };
    expect_names(make_config(0, 4, 4), "n_channels");
    expect_names(make_config(1, 0, 4), "n_receivers");
    expect_names(make_config(1, 4, 0), "n_beams");
    auto c = make_config(1, 4, 4);
    c.n_int = 0;
    expect_names(c, "n_int");
    c.n_int = 2; // voltage output
    expect_names(c, "n_int");
    expect_names(make_config(1,
                             5,
                             4,
                             beam_precision::float16,
                             beam_output::power,
                             1,
                             polarization_layout::xy_pairs),
                 "n_receivers");
    expect_names(make_config(1,
                             4,
                             4,
                             beam_precision::float16,
                             beam_output::power,
                             1,
                             polarization_layout::single,
                             stokes_mode::IQUV),
                 "stokes");
    // Python may pass any integer for an enum: only the named values pass.
    c = make_config(1, 4, 4);
    c.output = static_cast<beam_output>(2);
    expect_names(c, "output must be one of voltage (0), power (1), got 2");
    c = make_config(1, 4, 4);
    c.precision = static_cast<beam_precision>(-1);
    expect_names(c, "precision");
    c = make_config(1, 4, 4);
    c.polarization = static_cast<polarization_layout>(7);
    expect_names(c, "polarization");
    c = make_config(1, 4, 4);
    c.stokes = static_cast<stokes_mode>(255);
    expect_names(c, "stokes");
    const auto good = make_config(2, 3, 4);
    std::string msg = invalid_argument_message(
        [&] { tensor_beamformer_engine::make(good, std::vector<cf>(23), cpu); });
    EXPECT_NE(msg.find("weights"), std::string::npos) << msg;
    std::vector<cf> nan_weights(24, cf(1, 0));
    nan_weights[5] = cf(NAN, 0);
    msg = invalid_argument_message(
        [&] { tensor_beamformer_engine::make(good, nan_weights, cpu); });
    EXPECT_NE(msg.find("weights"), std::string::npos) << msg;
    auto engine = tensor_beamformer_engine::make(good, std::vector<cf>(24), cpu);
    msg = invalid_argument_message([&] { engine->set_weights(std::vector<cf>(25)); });
    EXPECT_NE(msg.find("weights"), std::string::npos) << msg;
    auto power_engine = tensor_beamformer_engine::make(
        make_config(1, 2, 2, beam_precision::float16, beam_output::power, 4),
        std::vector<cf>(4),
        cpu);
    std::vector<cf> in(6 * 2);
    std::vector<float> out(4);
    msg = invalid_argument_message(
        [&] { power_engine->execute(in.data(), out.data(), 6, nullptr); });
    EXPECT_NE(msg.find("n_int"), std::string::npos) << msg;
}

TEST(BitPackerCpu, PackUnpackRoundTripAndZeroPadding)
{
    const size_t T = 4, C = 3, R = 45;
    const auto x = random_vector<cf>(T * C * R, 12);
    const auto packed = pack(x, C, R);
    ASSERT_EQ(packed.size(), T * C * 2 * 2);
    for (size_t row = 0; row < T * C * 2; row++)
        EXPECT_EQ(packed[row * 2 + 1] >> (R - 32), 0u) << "padding bits of row " << row;
    bit_packer_config pc;
    pc.n_channels = C;
    pc.n_receivers = R;
    std::vector<cf> back(x.size());
    bit_unpacker_engine::make(pc, cpu)->execute(packed.data(), back.data(), T, nullptr);
    for (size_t i = 0; i < x.size(); i++) {
        EXPECT_EQ(back[i].real(), x[i].real() >= 0 ? 1.0f : -1.0f);
        EXPECT_EQ(back[i].imag(), x[i].imag() >= 0 ? 1.0f : -1.0f);
    }
    pc.n_receivers = 0;
    EXPECT_NE(invalid_argument_message([&] { pc.validate(); }).find("n_receivers"),
              std::string::npos);
}

TEST(Steering, TwoElementsByHand)
{
    // r1 a quarter wavelength east of r0 at 150 MHz; source on the east
    // horizon: w1 = exp(-i pi/2) = -i.
    const double f = 150e6, d = 0.25 * speed_of_light / f;
    const std::vector<std::array<double, 3>> positions = { { 0, 0, 0 }, { d, 0, 0 } };
    const auto w = steering_weights(positions, { 90.0, 0.0 }, { f });
    ASSERT_EQ(w.size(), 2u);
    EXPECT_NEAR(std::abs(w[0] - cf(1, 0)), 0.0, 1e-7);
    EXPECT_NEAR(std::abs(w[1] - cf(0, -1)), 0.0, 1e-7);
    const auto tau = geometric_delays(positions, 90.0, 0.0);
    EXPECT_DOUBLE_EQ(tau[1], d / speed_of_light);
}

TEST(TensorBeamformerCpu, SteeredBeamAddsAPlaneWaveCoherently)
{
    // 24 receivers on a line, a plane wave from (az 60, el 30): the steered
    // beam's voltage is n_receivers times the wave at receiver 0.
    const size_t R = 24;
    std::vector<std::array<double, 3>> positions;
    for (size_t a = 0; a < R; a++)
        positions.push_back({ 0.7 * a, 0.3 * a, 0.0 });
    const std::vector<double> freqs = { 150e6 };
    const auto tau = geometric_delays(positions, 60.0, 30.0);
    std::vector<cf> x(R);
    for (size_t a = 0; a < R; a++)
        x[a] = cf(std::polar(1.0, 2 * M_PI * freqs[0] * tau[a]) *
                  std::complex<double>(0.6, -0.8));
    const auto w = steering_weights(positions, { 60.0, 30.0 }, freqs);
    std::vector<cf> out(1);
    tensor_beamformer_engine::make(make_config(1, R, 1), w, cpu)
        ->execute(x.data(), out.data(), 1, nullptr);
    std::cout << "coherent gain " << std::abs(out[0]) << " for " << R << " receivers\n";
    EXPECT_NEAR(std::abs(out[0]) / R, 1.0, 0.01);
}

TEST(TensorBeamformerCpu, StationSizeRunsInReasonableTime)
{
    // 256 channels x 96 receivers x 288 beams. Reported, not asserted beyond
    // finiteness (no timed assertions); apps/cpu_bench measures the rates.
    const size_t T = 4, C = 256, R = 96, B = 288;
    const auto x = random_vector<cf>(T * C * R, 13);
    const auto w = random_vector<cf>(C * B * R, 14);
    std::vector<float> power(B * C);
    auto engine = tensor_beamformer_engine::make(
        make_config(C, R, B, beam_precision::float16, beam_output::power, T), w, cpu);
    const auto start = std::chrono::steady_clock::now();
    engine->execute(x.data(), power.data(), T, nullptr);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "CPU engine, 256 ch x 96 rx x 288 beams: " << 1e3 * seconds / T
              << " ms per time step (" << 8.0 * C * R * B * T / seconds / 1e9
              << " GOP/s)\n";
    for (float p : power)
        ASSERT_TRUE(std::isfinite(p));
}

} // namespace
