/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The library voltage path of the CUDA tensor beamformer (the "cublas" entry
 * of the tile choice, tensor_beamformer_tiles_cuda.h): for float16 precision
 * and voltage output, an fc32 -> fp16 conversion into an engine-owned
 * workspace and one cuBLAS strided-batched GEMM over the channels, written
 * straight into the engine's output (tensor_beamformer_cublas_cuda.h). Power
 * output and int1 never take it (their detection and bit products stay fused
 * in our kernels). Here: what needs no GPU (the name, which configurations it
 * can compute, the built-in rule, the check of an explicit choice), so that
 * CPU tests reach it.
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_LIBRARY_PATH_H
#define INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_LIBRARY_PATH_H

#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <string>

namespace gr {
namespace beamform {

//! The library path's name where tiles are named (tuning file, benchmark).
extern const char* const tb_library_path_name; // "cublas"

/*!
 * The leading dimensions and sizes of the library path's GEMM (column-major,
 * cuBLAS's convention; tensor_beamformer_cublas_cuda.h says how they map):
 *   m = 2 beams x npol rows (beam b, polarization p, part q at m = 2 npol b + 2 p + q),
 *   k = 2 receivers (all of them; xy_pairs: the other polarization's weights are 0),
 *   k_padded = k rounded up to 8 halves (16-byte aligned rows and columns; the
 *     padding is 0 in both operands, and the GEMM runs over k_padded, which
 *     lets cuBLAS take its aligned kernels),
 *   lda = m rounded up to 8 halves (the weights are stored column-major,
 *     [k_padded][lda] per channel, so that cuBLAS runs the same "NN" kernel as
 *     a user's HGEMM on column-major weights; the padding rows are 0),
 *   ldb = channels x k_padded (the fp16 workspace [T][C][k_padded]),
 *   ldc = channels x m (the output [T][C][m] floats: the documented voltage layout).
 */
struct tb_library_gemm_shape {
    size_t m = 0, k = 0, k_padded = 0, lda = 0, ldb = 0, ldc = 0;
};
tb_library_gemm_shape tb_library_gemm(const tensor_beamformer_config& config);

//! Whether the library path computes this configuration: float16, voltage
//! output, and every GEMM dimension within cuBLAS's 32-bit int arguments.
bool tb_library_path_covers(const tensor_beamformer_config& config);

/*!
 * An explicit choice of the library path (a tile or tuning value of
 * "cublas"): std::invalid_argument naming the parameter, the value and what
 * is accepted where tb_library_path_covers is false. \p accepted_tiles lists
 * the kernel tiles the caller could take instead ("" to leave them out).
 */
void tb_check_library_path(const tensor_beamformer_config& config,
                           const std::string& accepted_tiles = "");

/*!
 * The built-in rule (no tuning file, BEAMFORM_TB_VARIANT unset): the library
 * path for float16 voltage output, single polarization with at least
 * tb_library_path_min_receivers(cc_major) receivers on a GPU of compute
 * capability \p cc_major, except where tb_library_path_fused_first, and
 * wherever tb_library_path_small_first; the fused kernels everywhere else.
 * \p wgmma: the GPU runs the sm_90a kernels.
 */
bool tb_library_path_preferred(const tensor_beamformer_config& config,
                               int cc_major,
                               bool wgmma);
//! Shapes that leave the fused kernel's tiles mostly empty, where the library
//! path is faster (measured on Hopper; compute capability 9 on): single
//! polarization with fewer than 16 receivers or fewer than 128 beams, X/Y
//! pairs with fewer than 32 beams.
bool tb_library_path_small_first(const tensor_beamformer_config& config, int cc_major);
//! Where the fused kernel is faster than the library path although it
//! covers the shape: a GPU that runs the sm_90a kernels (\p wgmma), at most
//! 128 receivers, beams a multiple of tb::voltage_box_beams (the
//! warp-specialised kernel's TMA voltage store).
bool tb_library_path_fused_first(const tensor_beamformer_config& config, bool wgmma);
//! 64 from compute capability 9 (Hopper, where it was measured) on, 128 before.
size_t tb_library_path_min_receivers(int cc_major);

} // namespace beamform
} // namespace gr

#endif
