/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CPU engines' thread pool: every item once, worker ids in range, the
 * first exception rethrown, and the pool usable after it.
 */
#include "engines/common/thread_pool.h"
#include <gtest/gtest.h>
#include <atomic>
#include <stdexcept>
#include <vector>

namespace {

using gr::beamform::thread_pool;

TEST(ThreadPool, RunsEveryItemOnceOnKnownWorkers)
{
    for (size_t threads : { 1, 2, 5 }) {
        thread_pool pool(threads);
        ASSERT_EQ(pool.size(), threads);
        for (size_t n : { 0, 1, 7, 1000 }) {
            std::vector<std::atomic<int>> seen(n);
            std::atomic<bool> worker_ok{ true };
            pool.parallel_for(n, [&](size_t item, size_t worker) {
                seen[item]++;
                if (worker >= pool.size())
                    worker_ok = false;
            });
            for (size_t i = 0; i < n; i++)
                EXPECT_EQ(seen[i].load(), 1) << "item " << i << " of " << n;
            EXPECT_TRUE(worker_ok);
        }
    }
}

TEST(ThreadPool, ZeroMeansEveryCore)
{
    EXPECT_GE(thread_pool(0).size(), 1u);
    EXPECT_EQ(gr::beamform::resolve_thread_count(3), 3u);
}

TEST(ThreadPool, RethrowsTheFirstErrorAndStaysUsable)
{
    thread_pool pool(3);
    EXPECT_THROW(pool.parallel_for(100,
                                   [](size_t item, size_t) {
                                       if (item == 17)
                                           throw std::runtime_error("item 17");
                                   }),
                 std::runtime_error);
    std::atomic<size_t> count{ 0 };
    pool.parallel_for(50, [&](size_t, size_t) { count++; });
    EXPECT_EQ(count.load(), 50u);
}

} // namespace
