/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rfi_flagger's GPU kernels (kernels/gpu/rfi_flagger.cuh) run on the host
 * through kernels/emulation/gpu_emulation.h, planned and launched as the GPU
 * engine does (lib/engines/rfi_flagger/rfi_flagger_gpu_plan.h: scratch, group
 * arguments, groups, launch sequence), against the CPU engine:
 * masks and outputs must be bit-identical (both use rfi_flagger_math.h), on
 * odd sizes, with RFI injected so that both criteria flag, with poisoned
 * output buffers, in place and not, zeros and noise replacement.
 */
#include <emulation/gpu_emulation.h>
// The kernels and the engine's planning, compiled for the emulation
// (namespace gr::beamform::emulated).
#include "engines/rfi_flagger/rfi_flagger_gpu_plan.h"

#include <gnuradio/beamform/engines/rfi_flagger_engine.h>
#include <gtest/gtest.h>
#include "test_util.h"
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace gr::beamform;
using namespace gr::beamform::emulated;
using cfloat = std::complex<float>;

namespace {

/*!
 * The GPU engine's execute(), with host memory and emulated launches: the
 * engine's scratch sizes, group arguments and launch sequence, on groups of
 * \p group blocks over the whole call (the engine also splits a call into
 * chunks for its mask copies, which changes only where groups start), on
 * \p path (the engine takes rfi_path_for(M); the test also runs the segment
 * path on short blocks). Scratch starts as NaN. When \p s1_record is given
 * and the kernels keep S1, the S1 of every (block, element) is appended to
 * it (what the receiver step reads).
 */
void emulated_execute(const rfi_flagger_config& c,
                      const cfloat* in,
                      cfloat* out,
                      size_t n_items,
                      uint64_t first_item,
                      uint8_t* mask,
                      size_t group,
                      rfi_path path,
                      std::vector<double>* s1_record = nullptr)
{
    const size_t n = c.n_channels * c.n_receivers;
    const size_t n_blocks = n_items / c.block_size;
    const rfi_scratch_sizes sizes = rfi_scratch_for(c, path, group);
    const double nan = std::nan("");
    std::vector<double> seg_s1(sizes.seg_sums, nan), seg_s2 = seg_s1;
    std::vector<double> s1(sizes.s1, nan), scale(sizes.scale, -1.0);
    std::vector<double> scratch(sizes.scratch, nan);
    // Null where the engine allocates nothing.
    auto data = [](std::vector<double>& v) { return v.empty() ? nullptr : v.data(); };
    const rfi_group_args shared = rfi_group_plan(
        c, path, data(seg_s1), data(seg_s2), data(s1), data(scale), data(scratch));
    rfi_for_each_group(0, n_blocks, group, [&](size_t b0, size_t nb) {
        launch_rfi_flagger_group(rfi_group_at(shared, in, out, mask, first_item, b0, nb),
                                 nullptr);
        if (s1_record && !s1.empty())
            s1_record->insert(s1_record->end(), s1.begin(), s1.begin() + nb * n);
    });
}

void emulated_execute(const rfi_flagger_config& c,
                      const cfloat* in,
                      cfloat* out,
                      size_t n_items,
                      uint64_t first_item,
                      uint8_t* mask,
                      size_t group)
{
    emulated_execute(
        c, in, out, n_items, first_item, mask, group, rfi_path_for(c.block_size));
}

/*!
 * Gaussian noise of a power that differs per receiver, with a CW tone in one
 * (channel, receiver), bursts in another, a strong steady-noise channel (a
 * power outlier that SK does not see), a block of zeros and one NaN.
 */
std::vector<cfloat> test_input(const rfi_flagger_config& c, size_t n_items, unsigned seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> g(0.0f, 1.0f);
    const size_t nc = c.n_channels, na = c.n_receivers, n = nc * na;
    std::vector<cfloat> x(n_items * n);
    for (size_t t = 0; t < n_items; t++)
        for (size_t ch = 0; ch < nc; ch++)
            for (size_t a = 0; a < na; a++) {
                float sigma = 1.0f + 0.3f * float(a);
                if (ch == 4 % nc)
                    sigma *= 40.0f; // power outlier, Gaussian: SK does not flag it
                x[t * n + ch * na + a] = cfloat(sigma * g(rng), sigma * g(rng));
            }
    for (size_t t = 0; t < n_items; t++) {
        x[t * n + (1 % nc) * na + 2 % na] += std::polar(30.0f, 0.7f * float(t)); // CW
        if (t % 13 == 5) // bursts: added pulses (a scaled noise sample can be small)
            x[t * n + (2 % nc) * na + 1 % na] += cfloat(60.0f, -20.0f);
    }
    for (size_t t = 0; t < c.block_size; t++)
        x[t * n + (3 % nc) * na] = cfloat(0.0f, 0.0f); // a block of zeros
    x[(c.block_size + 3) * n + n - 1] = cfloat(std::nanf(""), 1.0f);
    return x;
}

void check_case(
    rfi_flagger_config c, size_t n_blocks, size_t group, bool in_place, rfi_path path)
{
    c.validate();
    const size_t n = c.n_channels * c.n_receivers, n_items = n_blocks * c.block_size;
    const uint64_t first_item = 1000003;
    const auto input = test_input(c, n_items, 7);
    const cfloat poison(std::nanf(""), -1e30f);

    auto cpu = make_rfi_flagger_cpu(c);
    std::vector<cfloat> expected(n_items * n, poison);
    std::vector<uint8_t> expected_mask(n_blocks * n, 0xee);
    cpu->execute(input.data(),
                 expected.data(),
                 n_items,
                 first_item,
                 expected_mask.data(),
                 nullptr);

    std::vector<cfloat> got = in_place ? input : std::vector<cfloat>(n_items * n, poison);
    std::vector<uint8_t> mask(n_blocks * n, 0xee);
    std::vector<double> s1;
    emulated_execute(c,
                     in_place ? got.data() : input.data(),
                     got.data(),
                     n_items,
                     first_item,
                     mask.data(),
                     group,
                     path,
                     &s1);

    ASSERT_EQ(mask, expected_mask);
    ASSERT_EQ(0, std::memcmp(got.data(), expected.data(), got.size() * sizeof(cfloat)));
    // S1, where the kernels keep it (the receiver step's input), equals a sum
    // written here in the documented order: segments of 16 spectra, each from
    // 0, added in order (the last bits of a sum depend on its order).
    if (path == rfi_path::segments || c.mad_threshold > 0.0 ||
        c.replacement == rfi_replacement::noise) {
        ASSERT_EQ(s1.size(), n_blocks * n);
        for (size_t b = 0; b < n_blocks; b++)
            for (size_t j = 0; j < n; j++) {
                double total = 0.0;
                for (size_t t0 = 0; t0 < c.block_size; t0 += 16) {
                    double segment = 0.0;
                    for (size_t t = t0; t < std::min(t0 + 16, c.block_size); t++) {
                        const cfloat x = input[(b * c.block_size + t) * n + j];
                        segment +=
                            double(x.real()) * x.real() + double(x.imag()) * x.imag();
                    }
                    total += segment;
                }
                const double k = s1[b * n + j];
                ASSERT_EQ(0, std::memcmp(&total, &k, sizeof k)) << b << " " << j;
            }
    }

    // The injected RFI is flagged in every block, and something stays unflagged.
    size_t flagged = 0;
    for (size_t b = 0; b < n_blocks; b++) {
        const uint8_t* mk = mask.data() + b * n;
        EXPECT_EQ(mk[(1 % c.n_channels) * c.n_receivers + 2 % c.n_receivers], 1) << b;
        EXPECT_EQ(mk[(2 % c.n_channels) * c.n_receivers + 1 % c.n_receivers], 1) << b;
        if (c.mad_threshold > 0) {
            EXPECT_EQ(mk[(4 % c.n_channels) * c.n_receivers], 1) << b;
        }
        for (size_t j = 0; j < n; j++)
            flagged += mk[j];
    }
    EXPECT_EQ(mask[(3 % c.n_channels) * c.n_receivers], 0); // zeros: not flagged
    EXPECT_EQ(mask[n + n - 1], 1);                          // the NaN
    EXPECT_LT(flagged, n_blocks * n / 2);
    // Unflagged values are copied, flagged ones replaced.
    for (size_t t = 0; t < n_items; t++)
        for (size_t j = 0; j < n; j++) {
            const cfloat y = got[t * n + j], x = input[t * n + j];
            if (!mask[(t / c.block_size) * n + j])
                ASSERT_EQ(0, std::memcmp(&y, &x, sizeof y));
            else if (c.replacement == rfi_replacement::zeros)
                ASSERT_EQ(y, cfloat(0.0f, 0.0f));
            else
                ASSERT_TRUE(std::isfinite(y.real()) && std::isfinite(y.imag()));
        }
}

void check_case(rfi_flagger_config c, size_t n_blocks, size_t group, bool in_place)
{
    check_case(c, n_blocks, group, in_place, rfi_path_for(c.block_size));
}

rfi_flagger_config odd_config(rfi_replacement r, double mad)
{
    rfi_flagger_config c;
    c.n_channels = 7;
    c.n_receivers = 5;
    c.block_size = 17;
    c.replacement = r;
    c.mad_threshold = mad;
    c.seed = 12345;
    c.threads = 3;
    return c;
}

} // namespace

TEST(RfiFlaggerEmulated, ZerosOddSizes)
{
    check_case(odd_config(rfi_replacement::zeros, 0.0), 5, 64, false);
}

TEST(RfiFlaggerEmulated, NoiseOddSizesSeveralGroups)
{
    check_case(odd_config(rfi_replacement::noise, 0.0), 5, 2, false);
}

TEST(RfiFlaggerEmulated, NoiseAndPowerOutliersInPlace)
{
    check_case(odd_config(rfi_replacement::noise, 5.0), 4, 3, true);
}

TEST(RfiFlaggerEmulated, ZerosAndPowerOutliersEvenChannels)
{
    auto c = odd_config(rfi_replacement::zeros, 3.0);
    c.n_channels = 8; // even count: the median of two middle values
    c.n_receivers = 3;
    c.block_size = 32;
    check_case(c, 3, 1, false);
}

TEST(RfiFlaggerEmulated, OneChannelOneReceiver)
{
    auto c = odd_config(rfi_replacement::noise, 0.0);
    c.n_channels = 1;
    c.n_receivers = 1;
    c.block_size = 2;
    c.validate();
    const size_t n_items = 40;
    std::mt19937 rng(3);
    std::normal_distribution<float> g;
    std::vector<cfloat> in(n_items);
    for (auto& v : in)
        v = cfloat(g(rng), g(rng));
    std::vector<cfloat> a(n_items, cfloat(-7.0f, 7.0f)), b = a;
    std::vector<uint8_t> ma(n_items / 2, 9), mb = ma;
    make_rfi_flagger_cpu(c)->execute(in.data(), a.data(), n_items, 5, ma.data(), nullptr);
    emulated_execute(c, in.data(), b.data(), n_items, 5, mb.data(), 4);
    EXPECT_EQ(ma, mb);
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(cfloat)));
}

TEST(RfiFlaggerEngine, BadConfigurationsNameTheParameter)
{
    auto expect_error = [](auto change, const char* word) {
        beamform_test::expect_invalid_config<rfi_flagger_config>(change, word);
    };
    expect_error([](auto& c) { c.block_size = 1; }, "block_size");
    expect_error([](auto& c) { c.block_size = 65537; }, "block_size");
    expect_error([](auto& c) { c.pfa = 0.0; }, "pfa");
    expect_error([](auto& c) { c.pfa = 0.5; }, "pfa");
    expect_error([](auto& c) { c.pfa = std::nan(""); }, "pfa");
    expect_error([](auto& c) { c.mad_threshold = -1.0; }, "mad_threshold");
    expect_error([](auto& c) { c.mad_threshold = std::nan(""); }, "mad_threshold");
    expect_error([](auto& c) { c.replacement = static_cast<rfi_replacement>(7); },
                 "replace");
    expect_error([](auto& c) { c.n_channels = 0; }, "n_channels");
    expect_error([](auto& c) { c.n_receivers = 0; }, "n_receivers");
    expect_error([](auto& c) { c.threads = 5000; }, "threads");
    EXPECT_THROW(rfi_replacement_from_string("random"), std::invalid_argument);
}

TEST(RfiFlaggerThresholds, BracketOneAndNarrowWithM)
{
    const auto small = sk_thresholds_for(16, 0.0013499);
    const auto large = sk_thresholds_for(256, 0.0013499);
    EXPECT_LT(small.lower, 1.0);
    EXPECT_GT(small.upper, 1.0);
    EXPECT_LT(small.lower, large.lower);
    EXPECT_GT(small.upper, large.upper);
    // Cached: the same values again.
    const auto again = sk_thresholds_for(16, 0.0013499);
    EXPECT_EQ(again.lower, small.lower);
    EXPECT_EQ(again.upper, small.upper);
}

TEST(RfiFlaggerEmulated, NoiseLongBlocksSeveralSegments)
{
    auto c = odd_config(rfi_replacement::noise, 6.0);
    c.block_size = 61; // 4 segments of the sums, the last one short
    check_case(c, 3, 2, false);
}

/*!
 * Both paths against the CPU engine: block sizes with a short last segment
 * (17, 61, 100), whole segments (64), the fused path's extremes (13: one
 * segment, tiles of 256 elements; 256: 16 segments, 512 threads) and the
 * first size past it (257, the segment path); element counts that fill no
 * tile (91 = 13 x 7; 333 = 37 x 9, two chunks of the patch kernel); zeros and
 * noise, with and without the MAD criterion, in place and into a poisoned
 * buffer.
 */
TEST(RfiFlaggerEmulated, FusedAndSegmentPathsMatchTheCpuEngine)
{
    struct shape {
        size_t channels, receivers, block_size, blocks, group;
    };
    const shape shapes[] = { { 13, 7, 17, 4, 3 }, { 13, 7, 61, 3, 2 },
                             { 37, 9, 64, 3, 8 }, { 13, 7, 100, 3, 1 },
                             { 37, 9, 13, 5, 2 }, { 13, 7, 256, 2, 2 },
                             { 13, 7, 257, 2, 1 } };
    for (const auto& sh : shapes)
        for (auto r : { rfi_replacement::zeros, rfi_replacement::noise })
            for (double mad : { 0.0, 4.0 })
                for (bool in_place : { false, true })
                    for (auto path : { rfi_path::fused, rfi_path::segments }) {
                        if (path == rfi_path::fused &&
                            rfi_path_for(sh.block_size) != rfi_path::fused)
                            continue; // blocks too long for one thread block
                        auto c = odd_config(r, mad);
                        c.n_channels = sh.channels;
                        c.n_receivers = sh.receivers;
                        c.block_size = sh.block_size;
                        SCOPED_TRACE(
                            testing::Message()
                            << sh.channels << "x" << sh.receivers
                            << " M=" << sh.block_size << " " << gr::beamform::to_string(r)
                            << " mad=" << mad << (in_place ? " in place" : "")
                            << (path == rfi_path::fused ? " fused" : " segments"));
                        check_case(c, sh.blocks, sh.group, in_place, path);
                        if (HasFatalFailure())
                            return;
                    }
}

TEST(RfiFlaggerEmulated, PathAndTileShapes)
{
    EXPECT_EQ(rfi_path_for(2), rfi_path::fused);
    EXPECT_EQ(rfi_path_for(256), rfi_path::fused);
    EXPECT_EQ(rfi_path_for(257), rfi_path::segments);
    for (unsigned m = 2; m <= 256; m++) {
        const auto s = rfi_fused_shape_for(m);
        EXPECT_EQ(s.segments, (m + 15) / 16) << m;
        EXPECT_EQ(s.elements % 32, 0u) << m;
        EXPECT_GE(s.threads(), 128u) << m;
        EXPECT_LE(s.threads(), rfi_fused_max_threads) << m;
        EXPECT_LE(s.shared_bytes(), size_t(48) << 10) << m;
    }
}

// More channels than the receiver kernel stages at a time (rfi_receiver_chunk):
// the noise power's sum runs over two chunks, still in channel order.
TEST(RfiFlaggerEmulated, NoiseOverMoreChannelsThanOneChunk)
{
    for (double mad : { 0.0, 4.0 }) {
        auto c = odd_config(rfi_replacement::noise, mad);
        c.n_channels = rfi_receiver_chunk + 77;
        c.n_receivers = 2;
        SCOPED_TRACE(mad);
        check_case(c, 2, 2, false);
    }
}
