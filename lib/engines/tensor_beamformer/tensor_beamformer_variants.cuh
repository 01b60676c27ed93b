/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The glue between the tensor-core beamformer's kernels and the engine's
 * variant registry: turns one (tile, precision, input) combination of the
 * compiled tile lists into a tb_variant entry.
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_VARIANTS_CUH
#define INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_VARIANTS_CUH

#include "tensor_beamformer_tiles_cuda.h"
#include <cuda/tensor_beamformer_mma_kernel.cuh>
#include <cuda/tensor_beamformer_compiled_tiles.h>
#include <string>

namespace gr {
namespace beamform {
namespace cuda {

template <class S, class Op, class L, int NPA>
void tb_launch(const void* args, unsigned blocks, size_t smem, void* stream)
{
    tb_kernels::tensor_beamformer_kernel<S, Op, L, NPA>
        <<<blocks, S::threads, smem, static_cast<cudaStream_t>(stream)>>>(
            *static_cast<const tb_kernels::kernel_args*>(args));
    BF_GPU_CHECK_LAUNCH("tensor_beamformer_kernel");
}

template <class S, class Op, class L, int NPA>
void tb_allow_smem(int bytes)
{
    BF_GPU_CHECK(cudaFuncSetAttribute(tb_kernels::tensor_beamformer_kernel<S, Op, L, NPA>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      bytes));
}

template <class S>
std::string tb_tile_name()
{
    return std::to_string(S::BM) + "x" + std::to_string(S::BN) + "x" +
           std::to_string(S::BKB) + "/" + std::to_string(S::WM) + "x" +
           std::to_string(S::WN) + "/" + std::to_string(S::STAGES) +
           (S::MIN_BLOCKS > 1 ? "+" + std::to_string(S::MIN_BLOCKS) + "b" : "");
}

template <class S, class Op, class L, int NPA>
tb_variant tb_make_variant(beam_precision precision, tb_input input)
{
    tb_variant v;
    v.tile = tb_tile_name<S>();
    v.precision = precision;
    v.polarization =
        NPA == 2 ? polarization_layout::xy_pairs : polarization_layout::single;
    v.input = input;
    v.block_m = S::BM;
    v.block_n = S::BN;
    v.block_k_bytes = S::BKB;
    v.threads = S::threads;
    v.pipeline_smem_bytes = tb_kernels::pipeline_smem_bytes<S, L, NPA>();
    v.launch = &tb_launch<S, Op, L, NPA>;
    v.allow_smem = &tb_allow_smem<S, Op, L, NPA>;
    return v;
}

} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
