/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The wgmma peak micro-benchmark, built for sm_90a only (like the engine's
 * wgmma kernels; tests/CMakeLists.txt).
 */
#include "../tensor_beamformer_tiles_cuda.h"
#include "tensor_beamformer_testing.h"
#include <cuda/tensor_beamformer_wgmma_kernel.cuh>
#include <algorithm>
#include <vector>

namespace gr {
namespace beamform {
namespace cuda {

namespace {

/*!
 * Peak of the wgmma unit: 2 warpgroups per block keep issuing
 * m64n256 multiplies (4 per group, one group in flight) on a 64 x 128-byte A
 * tile and a 256 x 128-byte B tile in shared memory, filled once; no global
 * memory in the loop.
 */
template <bool B1>
__global__ void __launch_bounds__(256, 1) wgmma_peak_kernel(float* out, int iters)
{
#ifdef BF_TB_HAVE_WGMMA
    using namespace tb_kernels;
    unsigned char* const raw = dynamic_smem();
    unsigned char* const smem = raw + ((1024u - (smem_u32(raw) & 1023u)) & 1023u);
    for (int i = threadIdx.x; i < (64 + 256) * 128 / 4; i += blockDim.x)
        reinterpret_cast<uint32_t*>(smem)[i] =
            B1 ? 0x5a5a0ff0u ^ uint32_t(i) : 0x3c003800u;
    fence_proxy_async();
    __syncthreads();
    const uint64_t desc_a = smem_descriptor(smem_u32(smem));
    const uint64_t desc_b = smem_descriptor(smem_u32(smem) + 64 * 128);
    using acc_t = typename std::conditional<B1, int, float>::type;
    acc_t acc[32][4] = {};
    for (int i = 0; i < iters; i++) {
        fence_accumulators(acc);
        wgmma_fence();
        for (int ks = 0; ks < 4; ks++) {
            if constexpr (B1)
                wgmma_b1<256>(acc, desc_a + 2 * ks, desc_b + 2 * ks);
            else
                wgmma_f16<256>(acc, desc_a + 2 * ks, desc_b + 2 * ks);
        }
        wgmma_commit();
        wgmma_wait<1>();
        fence_accumulators(acc);
    }
    wgmma_wait<0>();
    fence_accumulators(acc);
    float sum = 0.0f;
    for (int j = 0; j < 32; j++)
        for (int r = 0; r < 4; r++)
            sum += float(acc[j][r]);
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
#endif
}

} // namespace

double wgmma_peak_tops_impl(int device, bool int1)
{
    if (!tb_wgmma_available(device))
        return 0.0;
    BF_GPU_CHECK(cudaSetDevice(device));
    int sms = 0;
    BF_GPU_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const int threads = 256, iters = 2048;
    const size_t smem = (64 + 256) * 128 + 1024;
    auto kernel = int1 ? wgmma_peak_kernel<true> : wgmma_peak_kernel<false>;
    BF_GPU_CHECK(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    float* out = nullptr;
    BF_GPU_CHECK(cudaMalloc(&out, size_t(sms) * threads * sizeof(float)));
    cudaEvent_t start, stop;
    BF_GPU_CHECK(cudaEventCreate(&start));
    BF_GPU_CHECK(cudaEventCreate(&stop));
    std::vector<float> ms;
    for (int run = 0; run < 8; run++) {
        BF_GPU_CHECK(cudaEventRecord(start));
        kernel<<<sms, threads, smem>>>(out, iters);
        BF_GPU_CHECK_LAUNCH("wgmma_peak_kernel");
        BF_GPU_CHECK(cudaEventRecord(stop));
        BF_GPU_CHECK(cudaEventSynchronize(stop));
        float t = 0;
        BF_GPU_CHECK(cudaEventElapsedTime(&t, start, stop));
        if (run >= 2) // warm-up
            ms.push_back(t);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(out);
    std::sort(ms.begin(), ms.end());
    const double per_wgmma = int1 ? 2.0 * 64 * 256 * 256 : 2.0 * 64 * 256 * 16;
    const double wgmmas = double(sms) * (threads / 128) * iters * 4;
    return wgmmas * per_wgmma / (ms[ms.size() / 2] * 1e-3) / 1e12;
}

} // namespace cuda

double tb_testing::wgmma_peak_tops(int device, bool int1)
{
    return cuda::wgmma_peak_tops_impl(device, int1);
}

} // namespace beamform
} // namespace gr
