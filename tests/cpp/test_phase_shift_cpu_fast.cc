/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CPU phase shift (phasors advanced by recurrence within blocks of items,
 * worker threads) against the plain reference (phase_shift_cpu_reference.h:
 * every phasor evaluated afresh for every item) on random spectra, delays,
 * rates and gains, odd sizes, a large absolute item index, calls crossing
 * blocks, in-place operation and a delay update.
 */
#include "phase_shift_cpu_reference.h"
#include "test_util.h"
#include <cmath>
#include <limits>
#include <random>

namespace {

using namespace gr::beamform;
using cf = std::complex<float>;
using beamform_test::random_vector;

const device_spec cpu{ backend::cpu, 0 };

phase_shift_delays random_delays(size_t receivers, bool with_rates, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    phase_shift_delays d;
    for (size_t a = 0; a < receivers; a++) {
        d.delays.push_back(3e-6 * u(gen));
        d.rates.push_back(with_rates ? 2e-7 * u(gen) : 0.0);
        d.gains.push_back(cf(float(1.0 + 0.5 * u(gen)), float(0.5 * u(gen))));
    }
    d.t0 = 0.25;
    return d;
}

//! Largest |fast - reference| over the output, relative to |in| |g| <= 3.
void expect_close(const std::vector<cf>& fast, const std::vector<cf>& ref)
{
    ASSERT_EQ(fast.size(), ref.size());
    size_t bad = 0;
    for (size_t i = 0; i < fast.size(); i++)
        if (!(std::abs(fast[i] - ref[i]) <= 1e-6f) && bad++ < 5)
            ADD_FAILURE() << "output " << i << ": fast " << fast[i] << " reference "
                          << ref[i];
    EXPECT_EQ(bad, 0u);
}

TEST(PhaseShiftCpuFast, MatchesTheReference)
{
    const size_t shapes[][2] = { { 3, 5 }, { 1, 1 }, { 17, 2 }, { 2, 33 } };
    unsigned seed = 1;
    for (const auto& shape : shapes)
        for (bool with_rates : { true, false })
            for (size_t threads : { 1, 3 }) {
                SCOPED_TRACE("channels " + std::to_string(shape[0]) + " receivers " +
                             std::to_string(shape[1]) + " rates " +
                             std::to_string(with_rates) + " threads " +
                             std::to_string(threads));
                phase_shift_config c;
                c.n_channels = shape[0];
                c.n_receivers = shape[1];
                c.item_period = 1.0 / 781250.0;
                for (size_t ch = 0; ch < c.n_channels; ch++)
                    c.channel_frequencies.push_back(1.4e9 + 7.8125e5 * double(ch));
                c.threads = threads;
                const auto d = random_delays(c.n_receivers, with_rates, seed++);
                auto fast = phase_shift_engine::make(c, d, cpu);
                auto ref = phase_shift_cpu_reference::make(c, d);
                // Calls of 1, 63, 64, 65 and 200 items from a large item index.
                uint64_t first = (uint64_t(1) << 35) + 3;
                for (size_t n : { 1, 63, 64, 65, 200 }) {
                    const size_t m = n * c.n_channels * c.n_receivers;
                    auto x = random_vector<cf>(m, seed++);
                    std::vector<cf> a(m, cf(std::numeric_limits<float>::quiet_NaN(), 0)), b(m);
                    fast->execute(x.data(), a.data(), n, first, nullptr);
                    ref->execute(x.data(), b.data(), n, first, nullptr);
                    expect_close(a, b);
                    // In place.
                    fast->execute(x.data(), x.data(), n, first, nullptr);
                    expect_close(x, b);
                    first += n;
                }
                // A new delay model.
                const auto d2 = random_delays(c.n_receivers, true, seed++);
                fast->set_delays(d2);
                ref->set_delays(d2);
                const size_t m = 70 * c.n_channels * c.n_receivers;
                const auto x = random_vector<cf>(m, seed++);
                std::vector<cf> a(m), b(m);
                fast->execute(x.data(), a.data(), 70, first, nullptr);
                ref->execute(x.data(), b.data(), 70, first, nullptr);
                expect_close(a, b);
            }
}

} // namespace
