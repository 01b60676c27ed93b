/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rfi_flagger's GPU engine against its CPU engine on a real GPU (skipped
 * where there is none): masks and outputs bit-identical, odd and station
 * sizes, both replacements and criteria, poisoned outputs.
 */
#include "test_util.h"
#include <gnuradio/beamform/engines/rfi_flagger_engine.h>
#include <gtest/gtest.h>
#include <cstring>
#include <random>

using namespace gr::beamform;
using cf = std::complex<float>;

namespace {

std::vector<cf> noisy_spectra(size_t n_items, size_t n, unsigned seed)
{
    std::mt19937 gen(seed);
    std::normal_distribution<float> g;
    std::vector<cf> x(n_items * n);
    for (size_t t = 0; t < n_items; t++)
        for (size_t j = 0; j < n; j++) {
            x[t * n + j] = cf(g(gen), g(gen)) * (1.0f + float(j % 5));
            if (j % 11 == 3)
                x[t * n + j] += std::polar(4.0f, 0.2f * float(t)); // CW
            if (j % 13 == 6 && t % 9 == 0)
                x[t * n + j] *= 30.0f; // bursts
            if (j % 17 == 8)
                x[t * n + j] *= 20.0f; // power outliers
        }
    return x;
}

void check(size_t channels,
           size_t receivers,
           size_t m,
           size_t n_blocks,
           rfi_replacement r,
           double mad)
{
    REQUIRE_GPU(gpu);
    rfi_flagger_config c;
    c.n_channels = channels;
    c.n_receivers = receivers;
    c.block_size = m;
    c.replacement = r;
    c.mad_threshold = mad;
    c.seed = 77;
    const size_t n = channels * receivers, n_items = m * n_blocks;
    const uint64_t first_item = 123456789;
    const auto in = noisy_spectra(n_items, n, 5);
    std::vector<cf> expected(in.size());
    std::vector<uint8_t> expected_mask(n_blocks * n), mask(n_blocks * n, 0xee);
    make_rfi_flagger_cpu(c)->execute(
        in.data(), expected.data(), n_items, first_item, expected_mask.data(), nullptr);

    auto engine = rfi_flagger_engine::make(c, gpu);
    auto d_in = beamform_test::to_device(gpu, in);
    device_memory d_out(gpu, in.size() * sizeof(cf));
    beamform_test::poison(gpu, d_out);
    engine->execute(
        d_in.as<cf>(), d_out.as<cf>(), n_items, first_item, mask.data(), nullptr);
    gpu_api_for(gpu.kind).synchronize(gpu.index, nullptr);
    const auto got = beamform_test::to_host<cf>(gpu, d_out, in.size());
    ASSERT_EQ(mask, expected_mask);
    ASSERT_EQ(0, std::memcmp(got.data(), expected.data(), got.size() * sizeof(cf)));
    size_t flagged = 0;
    for (auto f : mask)
        flagged += f;
    EXPECT_GT(flagged, 0u);
    EXPECT_LT(flagged, mask.size() / 2);
}

} // namespace

TEST(RfiFlaggerGpu, OddSizesZeros) { check(7, 5, 17, 9, rfi_replacement::zeros, 0.0); }
TEST(RfiFlaggerGpu, OddSizesNoiseAndOutliers)
{
    check(7, 5, 17, 9, rfi_replacement::noise, 4.0);
}
TEST(RfiFlaggerGpu, StationSizeNoiseAndOutliers)
{
    check(256, 96, 64, 12, rfi_replacement::noise, 6.0); // fused path and patch
}
// The fused path alone (replace=zeros, no MAD criterion: one kernel).
TEST(RfiFlaggerGpu, StationSizeZeros)
{
    check(256, 96, 64, 12, rfi_replacement::zeros, 0.0);
}
// The fused path's largest blocks (16 segments, 512 threads), noise patch.
TEST(RfiFlaggerGpu, LargestFusedBlocksNoise)
{
    check(37, 9, 256, 4, rfi_replacement::noise, 0.0);
}
// Blocks past the fused path's limit: the segment path (four kernels, groups
// of about 24 MiB: 300 x 24576 x 8 bytes per block, groups of one).
TEST(RfiFlaggerGpu, LongBlocksSegmentPath)
{
    check(256, 96, 300, 3, rfi_replacement::noise, 5.0);
}
