/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Single-polarization float16 voltage of the warp-specialised
 * resident-samples kernels (tensor_beamformer_ws_resident_kernel.cuh),
 * stored by TMA from shared memory.
 *
 * Why: a short-k voltage tile does little but store (3/rx64 writes 2.1 GB
 * for 0.14 TFLOP). From the accumulators each warp store instruction writes
 * 64-byte pieces of four time steps (3.8 TB/s on an H200 where whole rows
 * reach 4.1-4.5), and the warps issue every store themselves, so that a
 * tile's stores and the next tile's multiplies take turns. Here a consumer
 * group writes 32 time steps of its beams into one of its shared buffers and
 * one thread hands them to TMA as boxes of 32 beams (256-byte rows) x 32
 * steps (ws_voltage_box), which are written while the warps go on
 * (apps/beamform_bench.md, "Voltage stored by TMA" and session 24).
 *
 *   per chunk q (4 n8 fragments): the issuing thread waits until chunk
 *   q - buffers's boxes have left the buffer; group barrier; the fragments into
 *   the buffer (the boxes' 128-byte swizzle: the four t4 rows of a store
 *   instruction fall in other banks); fence to the async proxy; group
 *   barrier; the issuing thread stores the boxes as one bulk group.
 * The consumers call ws_voltage_drain() before they return.
 * Compiled for sm_90a only (the wgmma object library).
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_WS_VOLTAGE_STORE_CUH
#define INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_WS_VOLTAGE_STORE_CUH

#include "hopper_async.cuh"
#include "tensor_beamformer_wgmma_kernel.cuh"
#include <common/tensor_beamformer_layout.h>
#include <cstdint>

namespace gr {
namespace beamform {
namespace cuda {
namespace tb_kernels {

/*!
 * The voltage of rows m0 .. m0 + BM - 1 (BM / 2 beams) and the BN = 8 NT
 * time steps from n0 of channel c, held by the THREADS threads of one
 * consumer group (Sync its barrier) as wgmma accumulators: warp w's
 * acc[j][r] is row warp_row0 + (r < 2 ? g : g + 8) (beam (warp_row0 - m0) / 2
 * + g, real then imaginary part), step n0 + 8 j + 2 t4 + r % 2. \p stage:
 * the group's tb::voltage_stage_buffers buffers (tb::voltage_stage_bytes(BM / 2)
 * each), 1024-byte aligned; \p map: ws_voltage_box; \p n_beams: the output's.
 */
template <int NT, int BM, int THREADS, class Sync>
__device__ __forceinline__ void ws_store_voltage(const tensor_map* map,
                                                 int n_beams,
                                                 const float (&acc)[NT][4],
                                                 unsigned char* stage,
                                                 int c,
                                                 int m0,
                                                 int n0,
                                                 int warp_row0)
{
#ifdef BF_TB_HAVE_WGMMA
    constexpr int STEPS = tb::voltage_stage_steps;
    constexpr int FRAGMENTS = STEPS / 8; // n8 fragments per chunk
    constexpr int CHUNKS = NT / FRAGMENTS;
    constexpr int BUFFERS = tb::voltage_stage_buffers;
    static_assert(NT % FRAGMENTS == 0 && CHUNKS % BUFFERS == 0,
                  "whole chunks, the buffers taken in turn within a tile");
    constexpr int BOX_BEAMS = tb::voltage_box_beams;
    constexpr int G = BOX_BEAMS / 16; // 128-byte groups of 16 beams in a box row
    constexpr int BOXES = BM / 2 / BOX_BEAMS;
    constexpr uint32_t BOX = STEPS * G * 128;
    constexpr uint32_t BUFFER = BOXES * BOX;
    static_assert(BM / 2 % BOX_BEAMS == 0 && BUFFER == tb::voltage_stage_bytes(BM / 2),
                  "whole boxes fill one buffer");
    const int lane = int(threadIdx.x & 31);
    const int g = lane >> 2, t4 = lane & 3;
    const bool issuer = threadIdx.x % THREADS == 0;
    // This thread's beam b: its box, its 16-byte unit in the box's rows (rows
    // (step, group of 16), 128-byte swizzle) and its half. Step s of its
    // beam is row s G + (b / 16) % G, and 8 steps on keep the row % 8.
    const int b = (warp_row0 - m0) / 2 + g;
    const uint32_t group = uint32_t(b >> 4) % G;
    const uint32_t unit = uint32_t(b & 15) >> 1;
    const uint32_t half = uint32_t(b & 1) * 8u;
    unsigned char* const box_of_b = stage + uint32_t(b / BOX_BEAMS) * BOX + half;
    BF_UNROLL
    for (int q = 0; q < CHUNKS; q++) {
        const uint32_t buf = uint32_t(q % BUFFERS) * BUFFER;
        if (issuer)
            bulk_wait_read<BUFFERS - 1>(); // chunk q - BUFFERS's boxes have left buf
        Sync::sync();
        BF_UNROLL
        for (int jj = 0; jj < FRAGMENTS; jj++)
            BF_UNROLL
        for (int h = 0; h < 2; h++) {
            const uint32_t row = uint32_t(jj * 8 + 2 * t4 + h) * G + group;
            *reinterpret_cast<float2*>(box_of_b + buf + row * 128u +
                                       ((unit ^ (row & 7u)) << 4)) =
                make_float2(acc[FRAGMENTS * q + jj][h], acc[FRAGMENTS * q + jj][2 + h]);
        }
        fence_proxy_async(); // st.shared -> TMA
        Sync::sync();
        if (issuer) {
            BF_UNROLL
            for (int x = 0; x < BOXES; x++) {
                const int beam = m0 / 2 + BOX_BEAMS * x; // the box's first
                if (beam < n_beams) // (else it would land in the next channel)
                    tma_store_3d(map,
                                 0,
                                 c * (n_beams / 16) + beam / 16,
                                 n0 + q * STEPS,
                                 smem_u32(stage + buf + x * BOX));
            }
            bulk_commit();
        }
    }
#endif
}

//! Before a consumer thread returns: its TMA stores have been written.
__device__ __forceinline__ void ws_voltage_drain()
{
#ifdef BF_TB_HAVE_WGMMA
    bulk_wait<0>();
#endif
}

} // namespace tb_kernels
} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
