/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CPU pfb_channelizer (FIR vectorised over receivers, batched FFTW, worker
 * threads) against the plain reference (pfb_cpu_reference.h: one receiver at
 * a time, direct DFT in double) on random inputs, odd sizes, every input
 * format, oversample 1 and 2, fft_shift, calls of uneven length and reset().
 */
#include "pfb_cpu_reference.h"
#include "pfb_test_input.h"
#include <gtest/gtest.h>
#include <cmath>
#include <limits>
#include <sstream>

namespace {

using namespace gr::beamform;
using cf = std::complex<float>;

const device_spec cpu{ backend::cpu, 0 };

std::string describe(const pfb_channelizer_config& c)
{
    std::ostringstream s;
    s << "N=" << c.n_channels << " taps=" << c.taps_per_branch << " R=" << c.n_receivers
      << " input=" << int(c.input) << " oversample=" << c.oversample
      << " fft_shift=" << c.fft_shift << " threads=" << c.threads;
    return s.str();
}

//! Run both engines over calls of the given output lengths and compare.
void compare(const pfb_channelizer_config& c, const std::vector<size_t>& calls, unsigned seed)
{
    SCOPED_TRACE(describe(c));
    auto fast = pfb_channelizer_engine::make(c, cpu);
    auto ref = pfb_cpu_reference::make(c);
    const size_t in_item = sample_size(c.input) * c.n_receivers;
    for (int round = 0; round < 2; round++) { // the second after reset()
        for (size_t n_out : calls) {
            const auto x = beamform_test::random_input(c, n_out * c.input_per_output(), seed++);
            ASSERT_EQ(x.size(), n_out * c.input_per_output() * in_item);
            const size_t n = n_out * c.n_channels * c.n_receivers;
            std::vector<cf> a(n, cf(std::numeric_limits<float>::quiet_NaN(), 0.0f));
            std::vector<cf> b(n);
            fast->execute(x.data(), a.data(), n_out, nullptr);
            ref->execute(x.data(), b.data(), n_out, nullptr);
            double scale = 0.0;
            for (const auto& v : b)
                scale = std::max(scale, double(std::abs(v)));
            ASSERT_GT(scale, 0.0);
            // float32 FIR in the same order; FFTW float against a double DFT.
            const double tol = 1e-5 * scale;
            size_t bad = 0;
            for (size_t i = 0; i < n; i++)
                if (!(std::abs(a[i] - b[i]) <= tol) && bad++ < 5)
                    ADD_FAILURE() << "output " << i << ": fast " << a[i] << " reference "
                                  << b[i] << " tolerance " << tol;
            EXPECT_EQ(bad, 0u);
        }
        fast->reset();
        ref->reset();
    }
}

TEST(PfbChannelizerCpuFast, MatchesTheReference)
{
    struct shape {
        size_t n, taps, receivers;
        sample_format input;
        unsigned oversample;
        bool shift;
    };
    const shape shapes[] = {
        { 6, 3, 5, sample_format::fc32, 1, false },
        { 15, 2, 3, sample_format::sc8, 1, true },
        { 16, 4, 1, sample_format::sc16, 2, true },
        { 32, 5, 33, sample_format::fc32, 2, false },
        { 2, 1, 7, sample_format::sc16, 1, false },
        // 120-byte items: every other one is not 16-byte aligned, so FFTW
        // writes some items directly and the engine copies the others.
        { 5, 2, 3, sample_format::sc16, 1, false },
    };
    unsigned seed = 1;
    for (const auto& s : shapes)
        for (size_t threads : { 1, 3 }) {
            pfb_channelizer_config c;
            c.n_channels = s.n;
            c.taps_per_branch = s.taps;
            c.n_receivers = s.receivers;
            c.input = s.input;
            c.oversample = s.oversample;
            c.fft_shift = s.shift;
            c.threads = threads;
            compare(c, { 5, 1, 7 }, seed);
            seed += 10;
        }
}

TEST(PfbChannelizerCpuFast, ShortPrototypeIsPaddedAsTheReference)
{
    pfb_channelizer_config c;
    c.n_channels = 8;
    c.taps_per_branch = 3;
    c.n_receivers = 4;
    c.taps = { 0.1f, -0.3f, 0.7f, 1.0f, 0.5f, 0.25f, -0.05f, 0.02f, 0.3f, 0.6f, 0.11f };
    c.threads = 2;
    compare(c, { 4, 9 }, 99);
}

} // namespace
