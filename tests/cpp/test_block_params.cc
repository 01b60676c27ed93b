/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Host output buffers of odd item sizes: sized so that GNU Radio's double-mapped
 * buffers need no rounding warning, within 16 MiB.
 */
#include "block_support/block_params.h"
#include <gtest/gtest.h>

using gr::beamform::cpu_buffer_items;
using gr::beamform::host_buffer_items;

TEST(HostBufferItems, OddItemSizesGetWholePages)
{
    // 181 beam powers: 724 B = 4 x 181, a page holds no whole number of them;
    // 1024 items = 181 pages.
    EXPECT_EQ(host_buffer_items(724, 4096), 1024u);
    EXPECT_EQ((host_buffer_items(724, 4096) * 724) % 4096, 0u);
    // 3240 beam powers (12960 B = 32 x 405): 128 items.
    EXPECT_EQ(host_buffer_items(12960, 4096), 128u);
}

TEST(HostBufferItems, NoChangeWhereGnuRadioNeedsNoRounding)
{
    EXPECT_EQ(host_buffer_items(64, 4096), 0u);        // power of two
    EXPECT_EQ(host_buffer_items(73728, 4096), 0u);     // 18 whole pages
    EXPECT_EQ(host_buffer_items(40, 4096), 0u);        // 512 items: under 2 x 1638
    EXPECT_EQ(host_buffer_items(4 * 100001, 4096), 0u); // would be 400 MB: keep the warning
    EXPECT_EQ(host_buffer_items(0, 4096), 0u);
}

TEST(CpuBufferItems, AboutEightMegabytesInWholePages)
{
    // The station's spectra (48 receivers x 128 channels x 8 B = 48 KiB): 171
    // items of 12 pages each.
    EXPECT_EQ(cpu_buffer_items(49152, 4096), 171u);
    // Raw sc16 samples of 48 receivers (192 B = 3 x 64): a multiple of 64 items.
    EXPECT_EQ(cpu_buffer_items(192, 4096), 43712u);
    EXPECT_EQ((cpu_buffer_items(192, 4096) * 192) % 4096, 0u);
    // 181 beam powers (724 B): whole pages, 1024 items each.
    EXPECT_EQ(cpu_buffer_items(724, 4096) % 1024, 0u);
    EXPECT_GE(cpu_buffer_items(724, 4096) * 724, size_t(8) << 20);
    // At least 2 items, however large.
    EXPECT_EQ(cpu_buffer_items(64 << 20, 4096), 2u);
    // Whole pages would be 400 MB: the odd-size rule (none) instead.
    EXPECT_EQ(cpu_buffer_items(4 * 100001, 4096), 0u);
    EXPECT_EQ(cpu_buffer_items(0, 4096), 0u);
}
