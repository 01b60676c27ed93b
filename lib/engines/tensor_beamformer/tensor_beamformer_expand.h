/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The operand layouts of the tensor-core beamformer (CUDA and HIP engines):
 * static weights expanded once, at set_weights time, into a real matrix per
 * channel and polarization, so that the interleaved complex samples are used
 * directly as the k dimension of one real GEMM (the Tensor-Core Correlator's
 * trick; no transpose pass over the samples).
 *
 * float16: k = 2 r + q (q = 0 real, 1 imaginary part of receiver r). Row
 *   a_row_of(b, 0) (real part of beam b) holds (Wr, -Wi) at k = (2r, 2r+1),
 *   row a_row_of(b, 1) holds (Wi, Wr): one real product gives
 *   Re = sum Wr xr - Wi xi and Im = sum Wi xr + Wr xi.
 *   xy_pairs: one matrix per polarization over the antennas a (receiver 2a+p),
 *   k = 2 a + q; the kernel splits X and Y samples as it loads them.
 * int1: k = the bits of bit_packer's [2][words] row (real-part words, then
 *   imaginary-part words). Real row: bits of Wr >= 0 in the real slot and of
 *   -Wi >= 0 (i.e. Wi < 0) in the imaginary slot; imaginary row: Wi >= 0,
 *   then Wr >= 0. Bits past the last receiver are 0 in A, so with ±1 values
 *   a = 2A-1, x = 2X-1 the sum over the valid terms is
 *     4 popc(A & X) - 2 popc(A) - 2 popc(X) + k_valid        (one AND per term)
 *   xy_pairs: one matrix per polarization over the same packed row, with the
 *   bits of the other polarization 0 (and popc(X) counted over its own bits).
 * Rows are padded to the block's m, k to the block's k; padding is zero.
 *
 * The library voltage path (tensor_beamformer_library_path.h) reads its own
 * float16 layout (library_rows): one matrix per channel, rows m = 2 npol b +
 * 2 p + q (beam b, polarization p, q = 0 real / 1 imaginary part), so that
 * the GEMM's output column is the documented voltage item; k = 2 r + q over
 * all receivers r, padded to 8 halves; xy_pairs: row (b, p) is 0 at the
 * receivers of the other polarization. It is stored column-major, as cuBLAS
 * reads it without a transpose: element (row, k) at k x rows + row, with
 * `rows` = m padded to 8 (the GEMM's lda) and row_bytes = 2 k_padded.
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_EXPAND_H
#define INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_EXPAND_H

#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <common/tensor_beamformer_layout.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace beamform {

struct tb_operand_layout {
    beam_precision precision = beam_precision::float16;
    size_t n_channels = 0;
    size_t n_beams = 0;
    size_t n_receivers = 0;
    size_t npol = 1;      //!< weight matrices per channel (2 for xy_pairs)
    size_t rows = 0;      //!< rows per matrix, padded to a multiple of block_m
    size_t row_bytes = 0; //!< bytes per row, k padded to a multiple of block_k_bytes
    size_t k_bytes = 0;   //!< bytes of k that carry data (before padding)
    size_t k_valid = 0;   //!< int1: number of ±1 terms per output value
    bool library_rows = false; //!< the library path's layout (see above)

    size_t matrix_bytes() const { return rows * row_bytes; }
    size_t total_bytes() const { return n_channels * npol * rows * row_bytes; }
    size_t total_rows() const { return n_channels * npol * rows; }
};

/*!
 * The layout for \p config with thread blocks of \p block_m rows per
 * polarization (a multiple of 16) and k tiles of \p block_k_bytes.
 */
tb_operand_layout make_operand_layout(const tensor_beamformer_config& config,
                                      size_t block_m,
                                      size_t block_k_bytes);

//! The library voltage path's layout (float16, voltage output).
tb_operand_layout make_library_layout(const tensor_beamformer_config& config);

//! float16: \p dst gets total_bytes() of half-precision bit patterns (either
//! layout: library_rows chooses).
void expand_weights_fp16(const tb_operand_layout& layout,
                         const tensor_beamformer_config& config,
                         const std::vector<std::complex<float>>& weights,
                         uint16_t* dst);

/*!
 * int1: \p dst gets total_bytes() of packed bits (uint32 words, receiver
 * 32w+k in bit k), \p row_popc total_rows() population counts.
 */
void expand_weights_int1(const tb_operand_layout& layout,
                         const tensor_beamformer_config& config,
                         const std::vector<std::complex<float>>& weights,
                         uint32_t* dst,
                         int32_t* row_popc);

/*!
 * One launch of the beamformer kernel for \p n_times time steps with a tile
 * of block_m x block_n (x block_k_bytes): the kernel arguments, the number of
 * thread blocks, and whether the power output must be zeroed first (when
 * integration windows cross thread blocks their sums are atomic adds).
 */
struct tb_launch_plan {
    tb::kernel_args args;
    size_t blocks = 0;
    size_t zero_output_bytes = 0; //!< 0: no memset needed
};

/*!
 * Whether the kernels write power channel-major into a workspace that a
 * transpose then puts into the output's layout (tb::kernel_args::
 * power_channel_major): power with more than one channel at small n_int.
 */
bool power_channel_major(const tensor_beamformer_config& c);

tb_launch_plan plan_launch(const tensor_beamformer_config& config,
                           const tb_operand_layout& layout,
                           int block_m,
                           int block_n,
                           int block_k_bytes,
                           size_t n_times,
                           const void* weights,
                           const void* in,
                           void* out,
                           const int* row_popc,
                           const int* col_popc);

/*!
 * Thread blocks of a persistent launch (the resident-weights kernel): one per
 * (channel, m tile) item, at most \p max_blocks (SMs x blocks per SM); each
 * block then loops over items blockIdx.x, + gridDim.x, ... and over all
 * n_tiles time tiles of each.
 */
size_t resident_blocks(const tb::kernel_args& args, size_t max_blocks);

//! Integration windows that block_n consecutive time steps can touch.
size_t power_windows(int block_n, size_t n_int);

//! Shared memory of the power epilogue's sums ([stokes][beams][windows] floats).
size_t
power_reduce_smem_bytes(const tensor_beamformer_config& config, int block_m, int block_n);

/*!
 * Shared memory where the warp-specialised resident-samples kernels stage
 * float16 single-polarization voltage of a beam count that TMA stores (a
 * multiple of tb::voltage_box_beams): tb::voltage_stage_buffers buffers of
 * tb::voltage_stage_bytes per consumer group, 1024-byte aligned; 0 otherwise.
 */
size_t ws_voltage_stage_smem_bytes(const tensor_beamformer_config& config, int block_m);

//! What every engine's execute() requires of n_times: a multiple of n_int in
//! power mode (std::invalid_argument otherwise).
void check_tensor_beamformer_times(const tensor_beamformer_config& config,
                                   size_t n_times);

//! The GPU engines' check: the above, and at most 2^30 times per call (their
//! grids index time in 32 bits).
void check_gpu_tensor_beamformer_times(const tensor_beamformer_config& config,
                                       size_t n_times);

//! IEEE half from float, round to nearest even (what __float2half_rn does).
uint16_t float_to_half_bits(float f);
float half_bits_to_float(uint16_t h);

} // namespace beamform
} // namespace gr

#endif
