/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs the portable kernels (kernels/gpu/*.cuh) on the host, so that their
 * index arithmetic and barrier placement are tested on machines without a
 * GPU: every GPU thread of a block is a std::thread, __syncthreads() is a
 * barrier over the block's threads, shared memory is one host array, blocks
 * run one after another. Include this BEFORE the kernel header; it stands in
 * for kernels/common/gpu_portable.h and compiles the kernels into namespace
 * gr::beamform::emulated. It does not model timing, warps, or memory spaces:
 * a kernel that passes here can still be slow or have a race that only
 * hardware shows; the GPU tests run the real thing.
 */
#ifndef INCLUDED_BEAMFORM_TESTS_GPU_EMULATION_H
#define INCLUDED_BEAMFORM_TESTS_GPU_EMULATION_H

#ifdef INCLUDED_BEAMFORM_GPU_PORTABLE_H
#error "gpu_emulation.h must come before any GPU header"
#endif
#define INCLUDED_BEAMFORM_GPU_PORTABLE_H // the kernels' portability header, replaced
#define BF_GPU_NS emulated

#include <pthread.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__
#define __launch_bounds__(...)

struct float2 {
    float x, y;
};
struct short2 {
    short x, y;
};
struct char2 {
    signed char x, y;
};
inline float2 make_float2(float x, float y) { return float2{ x, y }; }

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    dim3() = default;
    dim3(unsigned a, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};

namespace gr {
namespace beamform {
namespace emulated {

using std::fmaf;
using std::max;
using std::min;

inline thread_local dim3 threadIdx;
inline thread_local dim3 blockIdx;
inline dim3 blockDim;
inline dim3 gridDim;
inline pthread_barrier_t block_barrier;

//! Shared memory of the block being run (one block at a time).
constexpr size_t shared_floats = size_t(1) << 17; // 1 MiB
inline float2 pfb_smem[shared_floats / 2];

inline void __syncthreads() { pthread_barrier_wait(&block_barrier); }

/*!
 * Run \p kernel (a callable without arguments that calls the kernel) over
 * \p grid blocks of \p block threads, with \p shared_bytes of shared memory.
 */
inline void
launch(dim3 grid, dim3 block, size_t shared_bytes, const std::function<void()>& kernel)
{
    if (shared_bytes > sizeof(pfb_smem))
        throw std::runtime_error("emulated launch: more shared memory than emulated");
    if (block.y != 1 || block.z != 1 || grid.z != 1)
        throw std::runtime_error("emulated launch: 1-D blocks and 2-D grids only");
    blockDim = block;
    gridDim = grid;
    for (unsigned by = 0; by < grid.y; by++)
        for (unsigned bx = 0; bx < grid.x; bx++) {
            // Garbage in shared memory, as on a GPU.
            std::fill(reinterpret_cast<uint8_t*>(pfb_smem),
                      reinterpret_cast<uint8_t*>(pfb_smem) + shared_bytes,
                      uint8_t(0xff));
            pthread_barrier_init(&block_barrier, nullptr, block.x);
            std::vector<std::thread> threads;
            threads.reserve(block.x);
            for (unsigned tx = 0; tx < block.x; tx++)
                threads.emplace_back([&, tx] {
                    threadIdx = dim3(tx);
                    blockIdx = dim3(bx, by);
                    kernel();
                });
            for (auto& t : threads)
                t.join();
            pthread_barrier_destroy(&block_barrier);
        }
}

} // namespace emulated
} // namespace beamform
} // namespace gr

#endif
