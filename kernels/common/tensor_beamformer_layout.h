/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Operand layout and index arithmetic of the tensor-core beamformer (row of a
 * beam, XOR swizzle, fragment rows, block -> tile map) and kernel_args, for
 * host and device. Included by every tensor-beamformer kernel header (CUDA
 * and HIP), by the engines that lay out the operands and plan the launches
 * (lib/engines/tensor_beamformer/) and, through those, by the tests.
 *
 * Vocabulary (one channel c, one polarization p):
 *   A  expanded weights, real [rows][row_bytes]; 16-row tiles of 8 beams:
 *      rows 0-7 give the real parts of beams 0-7, rows 8-15 the imaginary
 *      parts, so that the accumulator fragment of an mma.sync holds the real
 *      and imaginary part of one beam in one thread (rows g and g+8).
 *   B  the samples, [time][k]: for fp16 the interleaved (re, im) pairs of the
 *      receivers converted to half, for int1 the packed words of bit_packer.
 *   One mma.sync step consumes 32 bytes of k per row in both precisions
 *   (m16n8k16 fp16 = 16 halves; m16n8k256 b1 = 256 bits).
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_LAYOUT_H
#define INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_LAYOUT_H

#if defined(__CUDACC__) || defined(__HIPCC__)
#define BF_HD __host__ __device__ inline
#else
#define BF_HD inline
#endif

#include <cstddef>

namespace gr {
namespace beamform {
namespace tb {

//! Row of the expanded weight matrix that holds part (0 real, 1 imaginary) of a beam.
BF_HD int a_row_of(int beam, int part)
{
    return (beam >> 3) * 16 + part * 8 + (beam & 7);
}

/*!
 * Byte offset of (row, byte) in a shared-memory tile whose rows are
 * row_bytes long (32, 64 or 128). The 16-byte chunks of a row are permuted
 * (XOR swizzle) so that the 8 row addresses of one ldmatrix phase, 8
 * consecutive rows at the same logical chunk, land in 8 different 16-byte
 * bank groups: no bank conflicts, no padding.
 */
BF_HD int swizzle_offset(int row, int byte, int row_bytes)
{
    const int chunks = row_bytes >> 4; // 2, 4 or 8
    const int rows_per_line =
        chunks >= 8 ? 1 : 8 / chunks; // rows sharing one 128-byte line
    const int x = (row / rows_per_line) % chunks;
    return row * row_bytes + (((byte >> 4) ^ x) << 4) + (byte & 15);
}

/*!
 * ldmatrix.x4 row addresses. Lane L supplies the address of row L%8 of matrix
 * L/8. For an A fragment (16 rows x 32 bytes) the matrices are
 * (rows 0-7, bytes 0-15), (rows 8-15, bytes 0-15), (rows 0-7, bytes 16-31),
 * (rows 8-15, bytes 16-31), which become registers a0..a3 of mma.sync.
 */
BF_HD int a_frag_row(int lane) { return ((lane >> 3) & 1) * 8 + (lane & 7); }
BF_HD int a_frag_byte(int lane) { return (lane >> 4) * 16; }
/*!
 * For B (two n8 tiles j, j+1, [n][k] in shared memory, 32 bytes of k) the
 * matrices are (n 0-7, bytes 0-15), (n 0-7, bytes 16-31), (n 8-15, bytes
 * 0-15), (n 8-15, bytes 16-31): registers b[j][0], b[j][1], b[j+1][0], b[j+1][1].
 */
BF_HD int b_frag_row(int lane) { return (lane >> 4) * 8 + (lane & 7); }
BF_HD int b_frag_byte(int lane) { return ((lane >> 3) & 1) * 16; }

//! Accumulator register r (0..3) of lane L: row and column inside the m16n8 tile.
BF_HD int acc_row(int lane, int r) { return (lane >> 2) + 8 * (r >> 1); }
BF_HD int acc_col(int lane, int r) { return 2 * (lane & 3) + (r & 1); }

//! Everything a launch of the beamformer kernel needs (filled by plan_launch).
struct kernel_args {
    const unsigned char* weights; //!< [C][npol][rows][row_bytes]
    const void* input;
    void* out;
    const int* row_popc; //!< int1: [C][npol][rows]
    const int* col_popc; //!< int1: [T][C][npol]
    int n_channels;
    int n_beams;
    int n_times;
    int n_receivers;
    int rows;         //!< padded rows per matrix (multiple of BM)
    int row_bytes;    //!< padded k bytes per row (multiple of BKB)
    int k_tiles;      //!< row_bytes / BKB
    int in_row_words; //!< int1: uint32 words per (t, c) row of the input
    int m_tiles;
    int n_tiles;
    int channel_group;
    int m_group;
    //! The resident kernels' item order (tb::map_item): channels side by side
    //! in groups of this many (0 or 1: the time tiles of one channel together).
    int item_channel_group;
    int power; //!< 0: voltage output, 1: power
    /*!
     * Power written channel-major, [C][T / n_int][n_stokes][B], into a
     * workspace that the engine then transposes to the output's
     * [T / n_int][n_stokes][B][C] (tb::power_layout). A block computes one
     * channel, so in the output's own layout its values are 4 bytes in
     * every 4 * C: at small n_int, where the output is large, such writes
     * ran at 3 % of the memory's rate (apps/beamform_bench.md, "Power at
     * small n_int").
     */
    int power_channel_major;
    int iquv;  //!< power with xy_pairs: 4 Stokes instead of I
    int n_int;
    int windows; //!< power: integration windows a block's time range can touch
    int k_valid; //!< int1: ±1 terms per output value
    /*!
     * fc32 input, kernels that convert each value exactly once (the
     * resident-samples kernel): [0] += values float16 rounds to inf, [1] += to
     * 0 (kernels/gpu/float16_range.cuh). nullptr: not counted here.
     */
    unsigned long long* range_counts;
    /*!
     * The in-kernel pass ("+ipass", tensor_beamformer_ws_inline_pass.cuh):
     * the fc32 samples [T][C][pass_receivers] that spare warps convert into
     * the fp16 rows at `input` while the product runs; pass_ready: one
     * counter per (channel, time tile) of the parts converted, then the
     * highest tile a block has started (all zero at the launch); the workers
     * convert at most pass_lead_channels channels past the tiles the blocks
     * take next (inline_pass_lead_channels).
     */
    const void* pass_input;
    int pass_receivers;
    unsigned* pass_ready;
    int pass_lead_channels;
};

/*!
 * How far the in-kernel pass converts past the channel group of the tiles
 * that the blocks take next: not at all. On an H200 (beamform_bench
 * 4/rx512) 1 channel further took 1.86-1.87 ms against 1.83, 2 channels
 * 1.91-1.94 (apps/beamform_bench.md, session 29).
 */
constexpr int inline_pass_lead_channels = 0;

/*!
 * Voltage output through shared memory (the warp-specialised resident
 * kernels, kernels/cuda/tensor_beamformer_ws_voltage_store.cuh): a group of
 * consumer threads writes voltage_stage_steps time steps of its beams into
 * a buffer, which TMA stores. Bytes of one buffer for \p beams beams.
 */
constexpr int voltage_stage_steps = 32;
//! Buffers per consumer group: a group fills one while TMA still stores the
//! others (4 measured 1 % faster at 64 receivers and left no room for the
//! resident samples at 128: apps/beamform_bench.md, session 23).
constexpr int voltage_stage_buffers = 2;
BF_HD constexpr size_t voltage_stage_bytes(int beams)
{
    return size_t(voltage_stage_steps) * size_t(beams) * 8u;
}
/*!
 * Beams in one row of a TMA voltage box: 32 (256 bytes), so the output's
 * beam count must be a multiple of 32 for TMA to store it. Why: TMA stores
 * the voltage layout from shared memory at 3.8 TB/s in boxes of 128-byte
 * rows and at 4.2 in boxes of 256-byte rows on an H200, where memset writes
 * 4.5 (apps/beamform_bench.md, session 24).
 */
constexpr int voltage_box_beams = 32;

//! Which channel and which (m, n) tile a thread block computes.
struct tile_coord {
    int channel;
    int m_tile;
    int n_tile;
};

/*!
 * Block order: channels in groups of channel_group (so that the power output,
 * [..][beams][channels], is written by neighbouring blocks at about the same
 * time and its sectors fill in L2), and inside a channel the tiles in bands
 * of m_group m-tiles (so that concurrently running blocks share A and B
 * slices in L2).
 */
BF_HD tile_coord map_block(long long block,
                           int n_channels,
                           int m_tiles,
                           int n_tiles,
                           int channel_group,
                           int m_group)
{
    const long long tiles = (long long)m_tiles * n_tiles;
    const long long group_blocks = (long long)channel_group * tiles;
    const int cg = int(block / group_blocks);
    const int c_first = cg * channel_group;
    const int c_left = n_channels - c_first;
    const int c_count = c_left < channel_group ? c_left : channel_group;
    const long long rem = block - (long long)cg * group_blocks;
    const long long tile = rem / c_count;
    tile_coord tc;
    tc.channel = c_first + int(rem % c_count);
    const long long width = (long long)m_group * n_tiles;
    const int band = int(tile / width);
    const int first_m = band * m_group;
    const int m_left = m_tiles - first_m;
    const int band_m = m_left < m_group ? m_left : m_group;
    const long long in_band = tile - (long long)band * width;
    tc.m_tile = first_m + int(in_band % band_m);
    tc.n_tile = int(in_band / band_m);
    return tc;
}

//! Power windows that fit inside one 8-column fragment (n_int 1, 2, 4): the
//! epilogue sums them in registers (single polarization, X/Y in "+sw"), and
//! the engine's rules (shared memory, layout, tile) key on the same test.
BF_HD bool short_window(int n_int) { return n_int < 8 && 8 % n_int == 0; }

/*!
 * Where the power values of channel c go: at(w, s, beam) is the index of
 * (window w, Stokes s, beam) in the output's [W][n_stokes][B][C], or with
 * a.power_channel_major in [C][W][n_stokes][B] (W = n_times / n_int windows
 * in the call). Made once per epilogue, so that a store costs no division.
 */
struct power_layout {
    size_t base, window, stokes, beam;
    BF_HD size_t at(size_t w, int s, int b) const
    {
        return base + w * window + size_t(s) * stokes + size_t(b) * beam;
    }
};

BF_HD power_layout power_layout_of(const kernel_args& a, int n_stokes, int c)
{
    const size_t B = size_t(a.n_beams), C = size_t(a.n_channels), S = size_t(n_stokes);
    if (a.power_channel_major) {
        const size_t windows = size_t(a.n_times / a.n_int);
        return { size_t(c) * windows * S * B, S * B, B, 1 };
    }
    return { size_t(c), S * B * C, B * C, C };
}

//! A resident kernel's work item: one channel x one time tile.
struct item_coord {
    int channel;
    int n_tile;
};

/*!
 * Item order of the resident kernels: map_block's order with one row tile
 * (a resident block loops over the row tiles itself). channel_group 1 puts
 * the time tiles of one channel side by side (its weights shared in L2);
 * larger groups put that many channels side by side, so that the blocks
 * running at once write neighbouring channels of the channel-fastest power
 * output together and its sectors fill in L2 before they leave.
 */
BF_HD item_coord map_item(long long item, int n_channels, int n_tiles, int channel_group)
{
    const tile_coord tc =
        map_block(item, n_channels, 1, n_tiles, channel_group > 1 ? channel_group : 1, 1);
    return { tc.channel, tc.n_tile };
}

/*!
 * Two sign bits (bit 0: Re >= 0, bit 1: Im >= 0) of the random weight
 * (c, b, r) that the int1 benchmark draws on the device; the host recomputes
 * them to check sampled outputs.
 */
BF_HD unsigned random_weight_bits(unsigned long long seed,
                                  unsigned long long c,
                                  unsigned long long b,
                                  unsigned long long r)
{
    unsigned long long z =
        seed + 0x9e3779b97f4a7c15ull * (1 + r + 0x100000000ull * (b + 0x10000ull * c));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return unsigned(z >> 62);
}

} // namespace tb
} // namespace beamform
} // namespace gr

#endif
