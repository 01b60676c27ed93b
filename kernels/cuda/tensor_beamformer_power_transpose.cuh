/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Power written channel-major by the beamformer kernels (kernel_args::
 * power_channel_major: [C][W][n_stokes][B] floats) into the output's
 * [W][n_stokes][B][C]: the transpose of a C x (W n_stokes B) matrix, read
 * and written in 128-byte rows through a padded 32 x 32 shared-memory tile.
 * Why: a kernel block computes one channel, and at small n_int its power
 * values written straight into the channel-fastest output landed 4 bytes in
 * every 4 C (apps/beamform_bench.md, "Power at small n_int").
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_POWER_TRANSPOSE_CUH
#define INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_POWER_TRANSPOSE_CUH

#include "tensor_beamformer_ptx.cuh"

namespace gr {
namespace beamform {
namespace cuda {
namespace tb_kernels {

constexpr int power_transpose_tile = 32;
constexpr unsigned power_transpose_rows = 8; //!< blockDim.y (blockDim.x = 32)
constexpr size_t power_transpose_smem_bytes =
    size_t(power_transpose_tile) * (power_transpose_tile + 1) * sizeof(float);

//! Tiles of a \p rows x \p cols transpose (grid-stride: any grid covers them).
__host__ __device__ inline long long power_transpose_tiles(long long rows, long long cols)
{
    return (rows + power_transpose_tile - 1) / power_transpose_tile *
           ((cols + power_transpose_tile - 1) / power_transpose_tile);
}

/*!
 * out[j][i] = in[i][j] for i < rows (channels), j < cols (windows x Stokes x
 * beams). Blocks of (32, power_transpose_rows) threads,
 * power_transpose_smem_bytes of dynamic shared memory.
 */
__global__ void power_transpose_kernel(const float* __restrict__ in,
                                       float* __restrict__ out,
                                       long long rows,
                                       long long cols)
{
    constexpr int T = power_transpose_tile;
    float* const tile = reinterpret_cast<float*>(dynamic_smem()); // [T][T + 1]
    const long long col_tiles = (cols + T - 1) / T;
    const long long tiles = power_transpose_tiles(rows, cols);
    const int tx = int(threadIdx.x), ty = int(threadIdx.y);
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        const long long i0 = t / col_tiles * T, j0 = t % col_tiles * T;
        // rows i0 ... of the input, 32 consecutive columns per warp
        for (int y = ty; y < T; y += int(blockDim.y))
            if (i0 + y < rows && j0 + tx < cols)
                tile[y * (T + 1) + tx] = in[(i0 + y) * cols + j0 + tx];
        __syncthreads();
        // rows j0 ... of the output, 32 consecutive channels per warp
        for (int y = ty; y < T; y += int(blockDim.y))
            if (j0 + y < cols && i0 + tx < rows)
                out[(j0 + y) * rows + i0 + tx] = tile[tx * (T + 1) + y];
        __syncthreads();
    }
}

} // namespace tb_kernels
} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
