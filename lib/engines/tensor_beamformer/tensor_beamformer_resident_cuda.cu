/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The short-k kernels of the CUDA tensor-core beamformer (resident weights,
 * kernels/cuda/tensor_beamformer_resident_kernel.cuh): one variant per tile
 * of BF_TB_FP16_RESIDENT_TILES and input kind. Tile names end in
 * "/resident" where the pipelined kernels' give their stage count.
 */
#include "tensor_beamformer_tiles_cuda.h"
#include <cuda/tensor_beamformer_compiled_tiles.h>
#include <cuda/tensor_beamformer_resident_kernel.cuh>
#include <string>

namespace gr {
namespace beamform {
namespace cuda {

namespace {

template <class S, class L>
void resident_launch(const void* args, unsigned blocks, size_t smem, void* stream)
{
    tb_kernels::tensor_beamformer_resident_kernel<S, L>
        <<<blocks, S::threads, smem, static_cast<cudaStream_t>(stream)>>>(
            *static_cast<const tb_kernels::kernel_args*>(args));
    BF_GPU_CHECK_LAUNCH("tensor_beamformer_resident_kernel");
}

template <class S, class L>
void resident_allow_smem(int bytes)
{
    BF_GPU_CHECK(cudaFuncSetAttribute(tb_kernels::tensor_beamformer_resident_kernel<S, L>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      bytes));
}

//! Blocks of this kernel one SM holds with \p smem bytes each (at least 1).
template <class S, class L>
int resident_blocks_per_sm(size_t smem)
{
    int n = 0;
    BF_GPU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &n, tb_kernels::tensor_beamformer_resident_kernel<S, L>, S::threads, smem));
    return n > 0 ? n : 1;
}

template <class S, class L>
tb_variant resident_variant(tb_input input)
{
    tb_variant v;
    v.tile = std::to_string(S::BM) + "x" + std::to_string(S::BN) + "x" +
             std::to_string(S::BKB) + "/" + std::to_string(S::WM) + "x" +
             std::to_string(S::WN) + "/resident";
    v.precision = beam_precision::float16;
    v.polarization = polarization_layout::single;
    v.input = input;
    v.block_m = S::BM;
    v.block_n = S::BN;
    v.block_k_bytes = S::BKB;
    v.threads = S::threads;
    v.pipeline_smem_bytes = 0; // depends on k: tb_smem_for
    v.launch = &resident_launch<S, L>;
    v.allow_smem = &resident_allow_smem<S, L>;
    v.blocks_per_sm = &resident_blocks_per_sm<S, L>;
    v.max_k_bytes = S::MAX_K_BYTES;
    return v;
}

} // namespace

void tb_register_resident_variants(std::vector<tb_variant>& v)
{
    using namespace tb_kernels;
#define BF_TB_ADD_RESIDENT(BM, BN, WM, WN, MIN_BLOCKS)                                \
    {                                                                                 \
        using S = resident_shape<BM, BN, WM, WN, MIN_BLOCKS>;                         \
        v.push_back(resident_variant<S, loader_fc32<S, 2>>(tb_input::fc32_vec2));     \
        v.push_back(resident_variant<S, loader_fc32<S, 1>>(tb_input::fc32_vec1));     \
        v.push_back(resident_variant<S, loader_fp16_input<S>>(tb_input::fp16));       \
    }
    BF_TB_FP16_RESIDENT_TILES(BF_TB_ADD_RESIDENT)
#undef BF_TB_ADD_RESIDENT
}

} // namespace cuda
} // namespace beamform
} // namespace gr
