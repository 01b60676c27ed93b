/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The host model of the GPU built-ins (kernels/emulation/gpu_emulation.h) and
 * its fibers (kernels/emulation/fiber_context.h), which every emulated kernel
 * test stands on: each thread keeps its own stack and floating-point state
 * across switches, a missing barrier shows as a wrong result, and exceptions,
 * deadlocks and unfinished work end a launch with an error instead of a
 * crash or a hang.
 */
#include <emulation/gpu_emulation.h>

#include <gtest/gtest.h>
#include <cfenv>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// Locals on each thread's own stack, in frames of a recursion whose deepest
// call switches to the other threads, must hold their values afterwards.
TEST(GpuEmulation, ThreadsKeepTheirStacksAcrossSwitches)
{
    constexpr unsigned blocks = 5, threads = 96, rounds = 50, depth = 8;
    std::vector<unsigned> bad(blocks * threads, 1000u);
    std::function<unsigned(unsigned, unsigned)> frames = [&](unsigned level, unsigned seed) {
        volatile unsigned frame[32];
        for (unsigned i = 0; i < 32; i++)
            frame[i] = seed * 31u + i;
        unsigned wrong = 0;
        if (level == 0) {
            __syncthreads(); // the other threads run and write their own frames
            __syncwarp();
        } else {
            wrong += frames(level - 1, seed * 7u + 1u);
        }
        for (unsigned i = 0; i < 32; i++)
            wrong += frame[i] != seed * 31u + i;
        return wrong;
    };
    emu::launch(blocks, 1, threads, 0, [&] {
        const unsigned me = blockIdx.x * threads + threadIdx.x;
        unsigned wrong = 0;
        for (unsigned r = 0; r < rounds; r++)
            wrong += frames(depth, me * 1000u + r);
        bad[me] = wrong;
    });
    for (unsigned i = 0; i < blocks * threads; i++)
        ASSERT_EQ(bad[i], 0u) << "thread " << i;
}

// Each thread keeps its own rounding mode (the SSE control word) across
// switches, and the launching thread's mode comes back after the launch.
TEST(GpuEmulation, RoundingModeIsPerThread)
{
    const int outer = std::fegetround();
    std::vector<float> sums(64);
    emu::launch(1, 1, 64, 0, [&] {
        const unsigned t = threadIdx.x;
        std::fesetround(t % 2 ? FE_DOWNWARD : FE_UPWARD);
        __syncthreads(); // every other thread sets its own mode here
        volatile float x = 1.0f;
        x += 0x1p-30f; // inexact: upward gives the next float above 1, downward 1
        sums[t] = x;
    });
    EXPECT_EQ(std::fegetround(), outer);
    for (unsigned t = 0; t < 64; t++)
        EXPECT_EQ(sums[t], t % 2 ? 1.0f : std::nextafter(1.0f, 2.0f)) << "thread " << t;
}

// Without the barrier between writing and reading shared data, the shuffled
// order of the threads gives a wrong sum; with it, the right one.
TEST(GpuEmulation, MissingBarrierShows)
{
    auto run = [](bool barrier) {
        std::vector<int> shared(128, 0), seen(128, 0);
        emu::launch(1, 1, 128, 0, [&] {
            const unsigned t = threadIdx.x;
            shared[t] = int(t) + 1;
            if (barrier)
                __syncthreads();
            seen[t] = shared[(t + 37) % 128];
        });
        int wrong = 0;
        for (unsigned t = 0; t < 128; t++)
            wrong += seen[t] != int((t + 37) % 128) + 1;
        return wrong;
    };
    EXPECT_EQ(run(true), 0);
    EXPECT_GT(run(false), 0);
}

TEST(GpuEmulation, ExceptionsEndTheLaunchWithTheirMessage)
{
    try {
        emu::launch(3, 1, 64, 0, [&] {
            __syncthreads();
            if (blockIdx.x == 1 && threadIdx.x == 40)
                throw std::runtime_error("thread 40 failed");
            __syncthreads();
        });
        FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("thread 40 failed"), std::string::npos) << e.what();
    }
    try {
        emu::launch(1, 1, 32, 0, [&] {
            if (threadIdx.x == 3)
                throw 42;
        });
        FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("not a std::exception"), std::string::npos)
            << e.what();
    }
    // The model is usable again after an aborted block.
    std::vector<int> ok(64, 0);
    emu::launch(1, 1, 64, 0, [&] {
        __syncthreads();
        ok[threadIdx.x] = 1;
    });
    for (int v : ok)
        EXPECT_EQ(v, 1);
}

TEST(GpuEmulation, DeadlockIsReported)
{
    // Half the block waits on a named barrier that expects the whole block.
    try {
        emu::launch(1, 1, 64, 0, [&] {
            if (threadIdx.x < 32)
                emu::named_barrier_sync(1, 64);
        });
        FAIL() << "no exception";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos) << e.what();
    }
}

} // namespace
