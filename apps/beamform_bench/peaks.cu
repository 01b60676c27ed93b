/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tensor cores' own mma.sync rate from loops that touch no memory (the
 * method of Table I of the Tensor-Core Beamformer paper).
 */
#include "beamform_bench.h"

namespace bf_bench {

constexpr int PEAK_CHAINS = 8; // independent accumulators per warp

__global__ void peak_fp16_kernel(float* out, int iters)
{
    const uint32_t a[4] = {
        0x3c003c00u ^ threadIdx.x, 0x3c003800u, 0x38003c00u, 0x3c003c00u
    };
    const uint32_t b[2] = { 0x3c003c00u, 0x38003800u ^ threadIdx.x };
    float acc[PEAK_CHAINS][4] = {};
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int c = 0; c < PEAK_CHAINS; c++)
            asm volatile(
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    float s = 0;
    for (int c = 0; c < PEAK_CHAINS; c++)
        s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void peak_b1_and_kernel(int* out, int iters)
{
    const uint32_t a[4] = {
        0x5a5a5a5au ^ threadIdx.x, 0xf0f0f0f0u, 0x12345678u, 0x9abcdef0u
    };
    const uint32_t b[2] = { 0x0f0f0f0fu, 0xa5a5a5a5u ^ threadIdx.x };
    int acc[PEAK_CHAINS][4] = {};
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int c = 0; c < PEAK_CHAINS; c++)
            asm volatile(
                "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
                "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                : "+r"(acc[c][0]), "+r"(acc[c][1]), "+r"(acc[c][2]), "+r"(acc[c][3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    int s = 0;
    for (int c = 0; c < PEAK_CHAINS; c++)
        s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

double time_peak_fp16(cudaStream_t s)
{
    int sms = 0;
    BF_GPU_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int blocks = sms * 4, threads = 256, iters = 4096;
    device_array out(size_t(blocks) * threads * sizeof(float));
    const auto t = bench::time_gpu(
        [&] { peak_fp16_kernel<<<blocks, threads, 0, s>>>(out.as<float>(), iters); },
        s,
        10,
        2);
    const double mmas = double(blocks) * (threads / 32) * iters * PEAK_CHAINS;
    return mmas * 2.0 * 16 * 8 * 16 / (t.median_ms * 1e-3) / 1e12;
}

double time_peak_b1(cudaStream_t s)
{
    int sms = 0;
    BF_GPU_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int blocks = sms * 4, threads = 256, iters = 4096;
    device_array out(size_t(blocks) * threads * sizeof(int));
    const auto t = bench::time_gpu(
        [&] { peak_b1_and_kernel<<<blocks, threads, 0, s>>>(out.as<int>(), iters); },
        s,
        10,
        2);
    const double mmas = double(blocks) * (threads / 32) * iters * PEAK_CHAINS;
    return mmas * 2.0 * 16 * 8 * 256 / (t.median_ms * 1e-3) / 1e12;
}

} // namespace bf_bench
