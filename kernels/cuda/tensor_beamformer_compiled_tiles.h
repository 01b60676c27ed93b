/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tile shapes compiled for the tensor-core beamformer, as X-macro lists.
 * Included by the kernel-variant registry (tensor_beamformer_variants.cuh:
 * the CUDA engine instantiates each) and by the emulated test (which runs
 * each once). Each list is
 * X(BM, BN, WM, WN, BKB, STAGES): BM rows per polarization (2 per beam) and
 * BN time steps per thread block, WM x WN per warp, BKB bytes of k per
 * pipeline stage (64 = 32 halves = 16 complex receivers, or 512 bits).
 * Every thread block runs BM/WM * BN/WN warps.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_COMPILED_TILES_H
#define INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_COMPILED_TILES_H

// float16, single polarization: large GEMMs (256x128, 128x256), mid-size
// products (128x128) and few beams (64 rows = 32 beams, LOFAR's 155 beams).
#define BF_TB_FP16_SINGLE_TILES(X) \
    X(256, 128, 64, 64, 64, 3)     \
    X(128, 256, 64, 64, 64, 4)     \
    X(256, 128, 64, 64, 128, 3)    \
    X(128, 128, 64, 64, 64, 4)     \
    X(128, 128, 64, 32, 64, 4)     \
    X(64, 128, 32, 64, 64, 4)

// float16, xy_pairs: two accumulator sets (X and Y) per warp. The last
// column: blocks per SM that the registers are capped for; "+2b" in the
// name: two blocks of 8 warps at 128 registers without spills, for the
// memory-bound voltage shapes (64x128 spills 200 bytes that way, 128x64 with
// 3 blocks 444: not compiled).
#define BF_TB_FP16_XY_TILES(X)    \
    X(128, 128, 32, 64, 64, 3, 1) \
    X(128, 64, 32, 32, 64, 4, 1)  \
    X(64, 128, 32, 32, 64, 4, 1)  \
    X(128, 64, 32, 32, 64, 4, 2)

// int1 (k tile of 1024 or 512 bits).
#define BF_TB_INT1_SINGLE_TILES(X) \
    X(256, 128, 64, 64, 128, 3)    \
    X(128, 256, 64, 64, 128, 3)    \
    X(128, 128, 64, 64, 128, 4)    \
    X(64, 128, 32, 64, 64, 4)

#define BF_TB_INT1_XY_TILES(X)  \
    X(128, 128, 32, 64, 128, 3) \
    X(64, 64, 32, 32, 64, 4)

// float16, single polarization, short k (2 x receivers <= 256, i.e. at most
// 512 bytes per weight row): the resident-weights kernel
// (tensor_beamformer_resident_kernel.cuh). X(BM, BN, WM, WN, MIN_BLOCKS):
// 64-byte k tiles, two sample stages, registers capped for MIN_BLOCKS blocks
// per SM. Shared memory (BM + 2 BN) x row bytes: 256x128 covers up to 96
// receivers, 256x64 up to 128 (two blocks per SM up to 64), 512x64 up to 80.
#define BF_TB_FP16_RESIDENT_TILES(X) \
    X(256, 128, 64, 64, 1)           \
    X(256, 64, 64, 32, 2)            \
    X(512, 64, 64, 64, 1)

// wgmma (sm_90a, single polarization; opt-in: never the built-in choice, the
// tuner keeps one only where it checked its output). X(BM, BN, STAGES), 128-byte
// k tiles, BM / 64 warpgroups.
#define BF_TB_WGMMA_FP16_TILES(X) \
    X(128, 256, 4)                \
    X(256, 128, 4)                \
    X(128, 128, 4)

/*
 * The warp-specialised Hopper tiles (tensor_beamformer_ws_kernel.cuh):
 * (BM, BN, STAGES, producer registers). float16 tiles serve fc32 samples
 * (converted by the producer, hence its 104 registers) and fp16 samples
 * (TMA); int1 tiles packed bits with 16-byte rows (TMA).
 */
#define BF_TB_WS_FP16_TILES(X) \
    X(128, 256, 4, 104)        \
    X(128, 128, 6, 104)

// The same kernel with the fc32 -> fp16 pass run by the producer's spare
// warps beside the product ("+ipass", tensor_beamformer_ws_inline_pass.cuh):
// the shape of the many-receiver power tile "128x256x128/ws/4+pass".
#define BF_TB_WS_INLINE_PASS_TILES(X) X(128, 256, 4, 104)

#define BF_TB_WS_INT1_TILES(X) \
    X(128, 256, 4, 40)

/*
 * The warp-specialised tiles with resident samples
 * (tensor_beamformer_ws_resident_kernel.cuh, "+rs", short k: at most 5 k
 * tiles = 160 receivers): (BM, BN, STAGES of the weights' ring, producer
 * registers, ping-pong consumers: 64-row ring stages); float16, fc32 samples
 * converted by every warpgroup or fp16 by TMA. Ping-pong for power output
 * with 8 stages where they fit, 6 where the power sums leave no room for 8
 * (129-160 receivers) and for voltage.
 */
#define BF_TB_WS_RESIDENT_TILES(X) \
    X(128, 256, 3, 104, false)     \
    X(128, 256, 8, 104, true)      \
    X(128, 256, 6, 104, true)

/*
 * The same kernel for float16 X/Y pairs from fc32 (BM, BN, STAGES, producer
 * registers, short windows): BN = 128, so that a consumer's two accumulator
 * sets (X and Y, 2 x 64 registers) fit; both polarizations' samples resident
 * (at most 5 k tiles each: 160 antennas). The second ("+sw") sums power
 * windows of 1, 2 and 4 steps in registers, for the antennas that two sample
 * sets (below) do not hold.
 */
#define BF_TB_WS_RESIDENT_XY_TILES(X) \
    X(128, 128, 4, 104, false)        \
    X(128, 128, 4, 104, true)

// The same with two sample sets ("+db", at most 64 antennas), filled from
// TMA-staged fc32 while the consumers multiply (BM, BN, STAGES, producer
// registers, ping-pong, short windows): a ring of 2 stages of 128 rows leaves
// room for them (3 measured the same on LOFAR's voltage shape, H200); in
// ping-pong 4 stages of 64 rows, the same bytes. The last ("+sw") is the
// ping-pong kernel with power windows of 1, 2 and 4 steps in registers, a
// kernel of its own so that the others keep their shorter code.
#define BF_TB_WS_RESIDENT_XY_DB_TILES(X) \
    X(128, 128, 2, 104, false, false)    \
    X(128, 128, 4, 104, true, false)     \
    X(128, 128, 4, 104, true, true)

/*
 * float16 X/Y pairs with their samples streamed through the ring from the
 * fp16 planes of the engine's pass (tensor_beamformer_ws_xy_kernel.cuh,
 * "+pass"), for more antennas than the resident tiles hold: (BM, BN, STAGES,
 * producer registers, short windows). A stage holds both polarizations (64 KB
 * at 128 x 128), so 3 stages; the second sums power windows of 1, 2 and 4
 * steps in registers ("+sw").
 */
#define BF_TB_WS_XY_TILES(X)      \
    X(128, 128, 3, 104, false)    \
    X(128, 128, 3, 104, true)

#define BF_TB_WGMMA_INT1_TILES(X) \
    X(128, 256, 4)                \
    X(256, 128, 4)                \
    X(128, 128, 4)

#endif
