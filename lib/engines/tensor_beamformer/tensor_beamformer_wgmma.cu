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
#include "tensor_beamformer_variants.cuh"
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
