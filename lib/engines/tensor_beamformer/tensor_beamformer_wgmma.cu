/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The wgmma (sm_90a) kernels of the CUDA tensor-core beamformer: opt-in tile
 * variants, never the built-in choice (a tuning file that beamform_bench
 * --tune wrote after checking their output selects them). This file is built
 * for sm_90a only, in its own object library (lib/CMakeLists.txt), so no
 * plain sm_90 image of these kernels exists; on other GPUs their launch fails
 * cleanly and tb_wgmma_available() says no.
 */
#include <cuda/tensor_beamformer_variants.cuh>
#include <cuda/tensor_beamformer_wgmma_kernel.cuh>
#include <algorithm>
#include <map>
#include <mutex>

namespace gr {
namespace beamform {
namespace cuda {

namespace {

template <class W, class Op, class L>
void wgmma_launch(const void* args, unsigned blocks, size_t smem, void* stream)
{
    tb_kernels::tensor_beamformer_wgmma_kernel<W, Op, L>
        <<<blocks, W::threads, smem, static_cast<cudaStream_t>(stream)>>>(
            *static_cast<const tb_kernels::kernel_args*>(args));
    BF_GPU_CHECK_LAUNCH("tensor_beamformer_wgmma_kernel");
}

template <class W, class Op, class L>
void wgmma_allow_smem(int bytes)
{
    BF_GPU_CHECK(
        cudaFuncSetAttribute(tb_kernels::tensor_beamformer_wgmma_kernel<W, Op, L>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             bytes));
}

template <class W, class Op, class L>
tb_variant wgmma_variant(beam_precision precision, tb_input input)
{
    tb_variant v;
    v.tile = std::to_string(W::BM) + "x" + std::to_string(W::BN) + "x" +
             std::to_string(W::BKB) + "/wgmma/" + std::to_string(W::STAGES);
    v.precision = precision;
    v.polarization = polarization_layout::single;
    v.input = input;
    v.block_m = W::BM;
    v.block_n = W::BN;
    v.block_k_bytes = W::BKB;
    v.threads = W::threads;
    v.pipeline_smem_bytes = tb_kernels::wgmma_pipeline_smem_bytes<W, L>();
    v.launch = &wgmma_launch<W, Op, L>;
    v.allow_smem = &wgmma_allow_smem<W, Op, L>;
    v.opt_in = true;
    v.needs_sm90a = true;
    return v;
}

} // namespace

void tb_register_wgmma_variants(std::vector<tb_variant>& v)
{
    using namespace tb_kernels;
#define BF_TB_ADD_WGMMA_FP16(BM, BN, ST)                             \
    {                                                                \
        using W = wgmma_shape<BM, BN, ST>;                           \
        v.push_back(wgmma_variant<W, op_fp16, loader_fc32<W, 2>>(    \
            beam_precision::float16, tb_input::fc32_vec2));          \
        v.push_back(wgmma_variant<W, op_fp16, loader_fc32<W, 1>>(    \
            beam_precision::float16, tb_input::fc32_vec1));          \
        v.push_back(wgmma_variant<W, op_fp16, loader_fp16_input<W>>( \
            beam_precision::float16, tb_input::fp16));               \
    }
#define BF_TB_ADD_WGMMA_INT1(BM, BN, ST)                              \
    {                                                                 \
        using W = wgmma_shape<BM, BN, ST>;                            \
        v.push_back(wgmma_variant<W, op_int1, loader_bits<W, true>>(  \
            beam_precision::int1, tb_input::bits_wide));              \
        v.push_back(wgmma_variant<W, op_int1, loader_bits<W, false>>( \
            beam_precision::int1, tb_input::bits_narrow));            \
    }
    BF_TB_WGMMA_FP16_TILES(BF_TB_ADD_WGMMA_FP16)
    BF_TB_WGMMA_INT1_TILES(BF_TB_ADD_WGMMA_INT1)
#undef BF_TB_ADD_WGMMA_FP16
#undef BF_TB_ADD_WGMMA_INT1
}

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

double tb_wgmma_peak_tops(int device, bool int1)
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

bool tb_wgmma_available(int device)
{
    static std::mutex lock;
    static std::map<int, bool> known;
    std::lock_guard<std::mutex> guard(lock);
    const auto it = known.find(device);
    if (it != known.end())
        return it->second;
    bool ok = false;
    cudaDeviceProp prop;
    BF_GPU_CHECK(cudaGetDeviceProperties(&prop, device));
    if (prop.major == 9 && prop.minor == 0) {
        // Ask the image the runtime loads for this device (a failed launch
        // here, "no kernel image", is not sticky).
        int* flag = nullptr;
        BF_GPU_CHECK(cudaSetDevice(device));
        if (cudaMalloc(&flag, sizeof(int)) == cudaSuccess) {
            cudaMemset(flag, 0, sizeof(int));
            tb_kernels::wgmma_image_probe<><<<1, 1>>>(flag);
            int host = 0;
            if (cudaGetLastError() == cudaSuccess &&
                cudaMemcpy(&host, flag, sizeof(int), cudaMemcpyDeviceToHost) ==
                    cudaSuccess)
                ok = host == 1;
            (void)cudaGetLastError();
            cudaFree(flag);
        }
    }
    known[device] = ok;
    return ok;
}

} // namespace cuda
} // namespace beamform
} // namespace gr
