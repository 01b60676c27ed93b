/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * phase_shift engines: the GPU engine against the CPU reference (random data,
 * odd sizes, outputs poisoned with NaN before every run), the phase after
 * 10^7 and 10^10 items against an independent quad-precision evaluation, and the
 * rule that set_delays() applies from the next execute(). The CPU tests run
 * everywhere; the GPU tests skip with their reason where there is no GPU.
 */
#include <gnuradio/beamform/engines/phase_shift_engine.h>
#include "test_util.h"
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace {

using namespace beamform_test;
using gr::beamform::phase_shift_config;
using gr::beamform::phase_shift_delays;
using gr::beamform::phase_shift_engine;
using cf = std::complex<float>;

constexpr double pi = 3.14159265358979323846;

phase_shift_config make_config(size_t n_channels, size_t n_receivers, unsigned seed)
{
    phase_shift_config c;
    c.n_channels = n_channels;
    c.n_receivers = n_receivers;
    c.channel_frequencies = random_vector<double>(n_channels, seed, 1.1e8, 1.9e8);
    c.item_period = 5.12e-6;
    return c;
}

phase_shift_delays make_delays(size_t n_receivers, unsigned seed)
{
    phase_shift_delays d;
    d.delays = random_vector<double>(n_receivers, seed + 1, -3e-7, 3e-7);
    d.rates = random_vector<double>(n_receivers, seed + 2, -4e-9, 4e-9);
    d.gains = random_vector<cf>(n_receivers, seed + 3, -1.5, 1.5);
    d.t0 = 0.37;
    return d;
}

//! Runs an engine on host data (copying through the device for GPU engines).
std::vector<cf> run_engine(phase_shift_engine& engine,
                           const device_spec& dev,
                           const std::vector<cf>& in,
                           size_t n_items,
                           uint64_t first_item)
{
    if (dev.kind == backend::cpu) {
        std::vector<cf> out(in.size(), cf(NAN, NAN));
        engine.execute(in.data(), out.data(), n_items, first_item, nullptr);
        return out;
    }
    auto d_in = to_device(dev, in);
    device_memory d_out(dev, in.size() * sizeof(cf));
    poison(dev, d_out);
    gr::beamform::gpu_stream stream(dev);
    engine.execute(d_in.as<cf>(), d_out.as<cf>(), n_items, first_item, stream.get());
    stream.synchronize();
    return to_host<cf>(dev, d_out, in.size());
}

bool all_finite(const std::vector<cf>& v)
{
    for (const auto& x : v)
        if (!std::isfinite(x.real()) || !std::isfinite(x.imag()))
            return false;
    return true;
}

#ifdef __SIZEOF_FLOAT128__
using wide = __float128; // 113-bit significand (GCC, software arithmetic)
#else
using wide = long double;
#endif

/*!
 * The phase in radians of the reference model at absolute item n, evaluated
 * in quad precision (long double where __float128 is missing), independently
 * of the engines' fma-based reduction: -2 pi frac(f (delay + rate (n P - t0))).
 */
double
reference_phase(double f, double delay, double rate, double period, double t0, uint64_t n)
{
    const wide t = wide(n) * wide(period) - wide(t0);
    const wide cycles = wide(f) * (wide(delay) + wide(rate) * t);
    const long double whole = std::rint(static_cast<long double>(cycles));
    const double frac = static_cast<double>(cycles - wide(whole));
    return -2.0 * pi * std::remainder(frac, 1.0);
}

double wrapped(double a) { return std::remainder(a, 2 * pi); }

/*!
 * Largest phase error (radians) of an engine's output for unit input and unit
 * gains at items [first, first + n_items), against reference_phase.
 */
double long_run_phase_error(const device_spec& dev, uint64_t first)
{
    phase_shift_config c;
    c.n_channels = 3;
    c.n_receivers = 2;
    c.channel_frequencies = { 1.42e9 + 0.123, 1.37e9 - 7.77, 0.15e9 + 0.5 };
    c.item_period = 5.12e-6;
    phase_shift_delays d;
    // 2.9e-6 s/s: a fast satellite; the rate phase reaches ~2e8 cycles at 1e10 items.
    d.delays = { 3.7e-6, -1.234567e-6 };
    d.rates = { 2.9e-6, -1.7e-9 };
    d.gains = { cf(1, 0), cf(1, 0) };
    d.t0 = 7.3;
    auto engine = phase_shift_engine::make(c, d, dev);
    const size_t n_items = 257;
    std::vector<cf> ones(n_items * 6, cf(1.0f, 0.0f));
    const auto out = run_engine(*engine, dev, ones, n_items, first);
    if (!all_finite(out))
        return NAN;
    double worst = 0;
    for (size_t t = 0; t < n_items; t++)
        for (size_t ch = 0; ch < 3; ch++)
            for (size_t a = 0; a < 2; a++) {
                const cf v = out[(t * 3 + ch) * 2 + a];
                const double want = reference_phase(c.channel_frequencies[ch],
                                                    d.delays[a],
                                                    d.rates[a],
                                                    c.item_period,
                                                    d.t0,
                                                    first + t);
                worst = std::max(
                    worst, std::abs(wrapped(std::arg(std::complex<double>(v)) - want)));
            }
    return worst;
}

// ---------------------------------------------------------------------------
// CPU reference (runs everywhere)

TEST(PhaseShiftCpu, LongRunPhaseAgainstQuadPrecision)
{
    const device_spec cpu{ backend::cpu, 0 };
    for (uint64_t first : { uint64_t(0), uint64_t(10000000), uint64_t(10000000000ull) }) {
        const double err = long_run_phase_error(cpu, first);
        std::cout << "cpu: phase error from item " << first << ": " << err << " rad\n";
        EXPECT_LT(err, 1e-6) << "start item " << first;
    }
}

TEST(PhaseShiftCpu, PhaseCyclesExactAtLargeItemIndex)
{
    // The double evaluation of the phase (before any float rounding) against quad
    // precision, to 1e-14 cycles: a plain double product would be off by ~4e-8
    // cycles at n = 1e10 here (2e8 accumulated cycles).
    phase_shift_config c;
    c.n_channels = 1;
    c.n_receivers = 1;
    c.channel_frequencies = { 1.42e9 + 0.123 };
    c.item_period = 5.12e-6;
    phase_shift_delays d;
    d.delays = { 3.7e-6 };
    d.rates = { 2.9e-6 };
    d.gains = { cf(1, 0) };
    d.t0 = 7.3;
    const auto k = gr::beamform::phase_shift_coefficients::build(c, d);
    double worst = 0;
    for (uint64_t n : { uint64_t(0),
                        uint64_t(1),
                        uint64_t(10000000),
                        uint64_t(10000000000ull),
                        uint64_t(1) << 40 }) {
        const double got =
            gr::beamform::phase_cycles(k.offset[0], k.step_hi[0], k.step_lo[0], n);
        const double want = -reference_phase(c.channel_frequencies[0],
                                             d.delays[0],
                                             d.rates[0],
                                             c.item_period,
                                             d.t0,
                                             n) /
                            (2 * pi);
        const double diff = std::abs(std::remainder(got - want, 1.0));
        worst = std::max(worst, diff);
        EXPECT_LT(diff, 1e-14) << "item " << n;
    }
    std::cout << "cpu: phase_cycles vs quad precision up to item 2^40: " << worst
              << " cycles\n";
}

TEST(PhaseShiftCpu, BadConfigurationNamesTheParameter)
{
    const device_spec cpu{ backend::cpu, 0 };
    auto expect_message = [&](phase_shift_config c,
                              phase_shift_delays d,
                              const char* name) {
        try {
            phase_shift_engine::make(c, d, cpu);
            ADD_FAILURE() << "no exception for bad " << name;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
        }
    };
    const auto good_c = make_config(4, 3, 1);
    const auto good_d = make_delays(3, 1);
    auto c = good_c;
    c.n_channels = 0;
    expect_message(c, good_d, "n_channels");
    c = good_c;
    c.channel_frequencies.pop_back();
    expect_message(c, good_d, "channel_frequencies");
    c = good_c;
    c.item_period = -1;
    expect_message(c, good_d, "item_period");
    auto d = good_d;
    d.rates.push_back(0);
    expect_message(good_c, d, "rates");
    d = good_d;
    d.gains[1] = cf(NAN, 0);
    expect_message(good_c, d, "gains");
}

// ---------------------------------------------------------------------------
// GPU against the CPU reference

struct shape {
    size_t channels, receivers, items;
};

TEST(PhaseShiftGpu, MatchesCpuOnRandomData)
{
    REQUIRE_GPU(gpu);
    const device_spec cpu{ backend::cpu, 0 };
    const shape shapes[] = { { 1, 1, 1 },   { 3, 5, 17 },    { 7, 13, 101 },
                             { 33, 97, 9 }, { 256, 96, 64 }, { 1024, 96, 19 } };
    unsigned seed = 10;
    for (const auto& s : shapes) {
        const auto c = make_config(s.channels, s.receivers, seed);
        const auto d = make_delays(s.receivers, seed);
        const auto in = random_vector<cf>(s.items * s.channels * s.receivers, seed + 7);
        const uint64_t first = 123456789;
        auto cpu_engine = phase_shift_engine::make(c, d, cpu);
        auto gpu_engine = phase_shift_engine::make(c, d, gpu);
        const auto want = run_engine(*cpu_engine, cpu, in, s.items, first);
        const auto got = run_engine(*gpu_engine, gpu, in, s.items, first);
        const double err = relative_error(got, want);
        std::cout << "gpu vs cpu, " << s.channels << " channels x " << s.receivers
                  << " receivers x " << s.items << " items: relative error " << err
                  << "\n";
        EXPECT_TRUE(all_finite(got));
        EXPECT_LT(err, 1e-5);
        seed += 10;
    }
}

TEST(PhaseShiftGpu, InPlaceMatchesCpu)
{
    REQUIRE_GPU(gpu);
    const device_spec cpu{ backend::cpu, 0 };
    const auto c = make_config(5, 7, 3);
    const auto d = make_delays(7, 3);
    const size_t n_items = 33;
    const auto in = random_vector<cf>(n_items * 35, 99);
    auto cpu_engine = phase_shift_engine::make(c, d, cpu);
    const auto want = run_engine(*cpu_engine, cpu, in, n_items, 5);
    auto gpu_engine = phase_shift_engine::make(c, d, gpu);
    auto buf = to_device(gpu, in);
    gr::beamform::gpu_stream stream(gpu);
    gpu_engine->execute(buf.as<cf>(), buf.as<cf>(), n_items, 5, stream.get());
    stream.synchronize();
    const double err = relative_error(to_host<cf>(gpu, buf, in.size()), want);
    std::cout << "gpu in place vs cpu: relative error " << err << "\n";
    EXPECT_LT(err, 1e-5);
}

TEST(PhaseShiftGpu, LongRunPhaseAgainstQuadPrecision)
{
    REQUIRE_GPU(gpu);
    for (uint64_t first : { uint64_t(0), uint64_t(10000000), uint64_t(10000000000ull) }) {
        const double err = long_run_phase_error(gpu, first);
        std::cout << "gpu: phase error from item " << first << ": " << err << " rad\n";
        EXPECT_LT(err, 1e-6) << "start item " << first;
    }
}

TEST(PhaseShiftGpu, WritesExactlyTheItemsAsked)
{
    REQUIRE_GPU(gpu);
    // Poisoned output: the items asked for come back finite, the rest stays NaN.
    const auto c = make_config(9, 11, 5);
    const auto d = make_delays(11, 5);
    const size_t capacity = 40, n_items = 29, n = 99;
    const auto in = random_vector<cf>(capacity * n, 7);
    auto engine = phase_shift_engine::make(c, d, gpu);
    const auto out = run_engine(*engine, gpu, in, n_items, 77);
    size_t finite = 0, poisoned = 0;
    for (size_t i = 0; i < out.size(); i++) {
        const bool ok = std::isfinite(out[i].real()) && std::isfinite(out[i].imag());
        if (i < n_items * n)
            finite += ok;
        else
            poisoned += !ok;
    }
    EXPECT_EQ(finite, n_items * n);
    EXPECT_EQ(poisoned, (capacity - n_items) * n);
}

TEST(PhaseShiftGpu, SetDelaysTakesEffectAtTheNextExecute)
{
    REQUIRE_GPU(gpu);
    // Two batches enqueued on one stream without a host sync in between: the
    // first keeps the old model even though set_delays ran before it finished.
    const device_spec cpu{ backend::cpu, 0 };
    const auto c = make_config(64, 96, 8);
    const auto old_model = make_delays(96, 8);
    const auto new_model = make_delays(96, 80);
    const size_t n_items = 512, n = 64 * 96;
    const auto in = random_vector<cf>(2 * n_items * n, 17);

    auto cpu_engine = phase_shift_engine::make(c, old_model, cpu);
    std::vector<cf> want(in.size());
    cpu_engine->execute(in.data(), want.data(), n_items, 1000, nullptr);
    cpu_engine->set_delays(new_model);
    cpu_engine->execute(in.data() + n_items * n,
                        want.data() + n_items * n,
                        n_items,
                        1000 + n_items,
                        nullptr);

    auto gpu_engine = phase_shift_engine::make(c, old_model, gpu);
    auto d_in = to_device(gpu, in);
    device_memory d_out(gpu, in.size() * sizeof(cf));
    poison(gpu, d_out);
    gr::beamform::gpu_stream stream(gpu);
    gpu_engine->execute(d_in.as<cf>(), d_out.as<cf>(), n_items, 1000, stream.get());
    gpu_engine->set_delays(new_model);
    gpu_engine->execute(d_in.as<cf>() + n_items * n,
                        d_out.as<cf>() + n_items * n,
                        n_items,
                        1000 + n_items,
                        stream.get());
    stream.synchronize();
    const auto got = to_host<cf>(gpu, d_out, in.size());
    const std::vector<cf> got_first(got.begin(), got.begin() + n_items * n);
    const std::vector<cf> got_second(got.begin() + n_items * n, got.end());
    const std::vector<cf> want_first(want.begin(), want.begin() + n_items * n);
    const std::vector<cf> want_second(want.begin() + n_items * n, want.end());
    const double e1 = relative_error(got_first, want_first);
    const double e2 = relative_error(got_second, want_second);
    std::cout << "gpu update at batch boundary: before " << e1 << ", after " << e2
              << "\n";
    EXPECT_LT(e1, 1e-5);
    EXPECT_LT(e2, 1e-5);
}

} // namespace
