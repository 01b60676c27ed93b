/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "tensor_beamformer_expand.h"
#include "tensor_beamformer_library_path.h"
#include <common/half_bits.h>
#include <common/tensor_beamformer_layout.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace gr {
namespace beamform {

namespace {
size_t round_up(size_t v, size_t m) { return (v + m - 1) / m * m; }
} // namespace

// The one float16 rounding of the module, shared with the kernels' emulation.
uint16_t float_to_half_bits(float f) { return half_bits::from_float(f); }

float half_bits_to_float(uint16_t h) { return half_bits::to_float(h); }

tb_operand_layout make_operand_layout(const tensor_beamformer_config& c,
                                      size_t block_m,
                                      size_t block_k_bytes)
{
    if (block_m == 0 || block_m % 16 != 0)
        throw std::invalid_argument("block_m must be a positive multiple of 16");
    if (block_k_bytes == 0 || block_k_bytes % 32 != 0)
        throw std::invalid_argument("block_k_bytes must be a positive multiple of 32");
    const bool xy = c.polarization == polarization_layout::xy_pairs;
    tb_operand_layout l;
    l.precision = c.precision;
    l.n_channels = c.n_channels;
    l.n_beams = c.n_beams;
    l.n_receivers = c.n_receivers;
    l.npol = xy ? 2 : 1;
    l.rows = round_up(2 * c.n_beams, block_m);
    if (c.precision == beam_precision::float16) {
        // Two halves per complex sample of every receiver of the polarization.
        const size_t rx_per_pol = xy ? c.n_receivers / 2 : c.n_receivers;
        l.k_bytes = rx_per_pol * 2 * sizeof(uint16_t);
        l.k_valid = 2 * rx_per_pol;
    } else {
        l.k_bytes = 2 * c.words_per_channel() * sizeof(uint32_t);
        l.k_valid = xy ? c.n_receivers : 2 * c.n_receivers;
    }
    l.row_bytes = round_up(l.k_bytes, block_k_bytes);
    return l;
}

tb_operand_layout make_library_layout(const tensor_beamformer_config& c)
{
    tb_check_library_path(c);
    const auto g = tb_library_gemm(c);
    tb_operand_layout l;
    l.precision = c.precision;
    l.n_channels = c.n_channels;
    l.n_beams = c.n_beams;
    l.n_receivers = c.n_receivers;
    l.npol = 1; // both polarizations' rows in one matrix
    l.rows = g.lda; // column-major: k_padded columns of lda halves
    l.row_bytes = g.k_padded * sizeof(uint16_t);
    l.k_bytes = g.k * sizeof(uint16_t);
    l.k_valid = g.k;
    l.library_rows = true;
    return l;
}

namespace {

//! The library layout, column-major (element (row, k) at k lda + row): rows
//! 2 npol b + 2 p + q, k = 2 r + q over all receivers.
void expand_library_rows(const tb_operand_layout& l,
                         const tensor_beamformer_config& c,
                         const std::vector<std::complex<float>>& w,
                         uint16_t* dst)
{
    const size_t npol = c.polarization == polarization_layout::xy_pairs ? 2 : 1;
    const size_t matrix_halves = l.matrix_bytes() / sizeof(uint16_t);
    for (size_t ch = 0; ch < c.n_channels; ch++) {
        uint16_t* m = dst + ch * matrix_halves;
        const auto at = [&](size_t row, size_t k) -> uint16_t& {
            return m[k * l.rows + row];
        };
        // Receivers outside, beams inside: the writes run down the columns.
        for (size_t r = 0; r < c.n_receivers; r++) {
            const size_t p = r % npol; // xy_pairs: receiver 2a + p
            for (size_t b = 0; b < c.n_beams; b++) {
                const std::complex<float> v = w[(ch * c.n_beams + b) * c.n_receivers + r];
                const size_t re = 2 * npol * b + 2 * p, im = re + 1;
                const uint16_t wr = float_to_half_bits(v.real());
                const uint16_t wi = float_to_half_bits(v.imag());
                at(re, 2 * r) = wr; // Re = Wr xr - Wi xi
                at(im, 2 * r) = wi; // Im = Wi xr + Wr xi
                at(re, 2 * r + 1) = uint16_t(wi ^ 0x8000u);
                at(im, 2 * r + 1) = wr;
            }
        }
    }
}

} // namespace

void expand_weights_fp16(const tb_operand_layout& l,
                         const tensor_beamformer_config& c,
                         const std::vector<std::complex<float>>& w,
                         uint16_t* dst)
{
    if (w.size() != c.weight_count())
        throw std::invalid_argument(
            "weights must have n_channels*n_beams*n_receivers = " +
            std::to_string(c.weight_count()) + " entries, got " +
            std::to_string(w.size()));
    std::memset(dst, 0, l.total_bytes());
    if (l.library_rows) {
        expand_library_rows(l, c, w, dst);
        return;
    }
    const size_t row_halves = l.row_bytes / sizeof(uint16_t);
    const size_t step = l.npol; // receiver stride inside one polarization
    const size_t rx_per_pol = c.n_receivers / step;
    for (size_t ch = 0; ch < c.n_channels; ch++)
        for (size_t p = 0; p < l.npol; p++) {
            uint16_t* m = dst + (ch * l.npol + p) * l.rows * row_halves;
            for (size_t b = 0; b < c.n_beams; b++) {
                uint16_t* re_row = m + size_t(tb::a_row_of(int(b), 0)) * row_halves;
                uint16_t* im_row = m + size_t(tb::a_row_of(int(b), 1)) * row_halves;
                const std::complex<float>* wb = &w[(ch * c.n_beams + b) * c.n_receivers];
                for (size_t a = 0; a < rx_per_pol; a++) {
                    const std::complex<float> v = wb[a * step + p];
                    const uint16_t wr = float_to_half_bits(v.real());
                    const uint16_t wi = float_to_half_bits(v.imag());
                    const uint16_t minus_wi = uint16_t(wi ^ 0x8000u);
                    re_row[2 * a] = wr;
                    re_row[2 * a + 1] = minus_wi;
                    im_row[2 * a] = wi;
                    im_row[2 * a + 1] = wr;
                }
            }
        }
}

void expand_weights_int1(const tb_operand_layout& l,
                         const tensor_beamformer_config& c,
                         const std::vector<std::complex<float>>& w,
                         uint32_t* dst,
                         int32_t* row_popc)
{
    if (w.size() != c.weight_count())
        throw std::invalid_argument(
            "weights must have n_channels*n_beams*n_receivers = " +
            std::to_string(c.weight_count()) + " entries, got " +
            std::to_string(w.size()));
    std::memset(dst, 0, l.total_bytes());
    std::memset(row_popc, 0, l.total_rows() * sizeof(int32_t));
    const size_t row_words = l.row_bytes / sizeof(uint32_t);
    const size_t words = c.words_per_channel();
    for (size_t ch = 0; ch < c.n_channels; ch++)
        for (size_t p = 0; p < l.npol; p++) {
            const size_t matrix = ch * l.npol + p;
            uint32_t* m = dst + matrix * l.rows * row_words;
            int32_t* pc = row_popc + matrix * l.rows;
            for (size_t b = 0; b < c.n_beams; b++) {
                const size_t re = size_t(tb::a_row_of(int(b), 0));
                const size_t im = size_t(tb::a_row_of(int(b), 1));
                const std::complex<float>* wb = &w[(ch * c.n_beams + b) * c.n_receivers];
                for (size_t r = p; r < c.n_receivers; r += l.npol) {
                    const uint32_t bit = 1u << (r % 32);
                    const size_t wd = r / 32;
                    const bool wr_pos = wb[r].real() >= 0.0f;
                    const bool wi_pos = wb[r].imag() >= 0.0f;
                    // real row: (Wr, -Wi); imaginary row: (Wi, Wr)
                    if (wr_pos)
                        m[re * row_words + wd] |= bit;
                    if (!wi_pos)
                        m[re * row_words + words + wd] |= bit;
                    if (wi_pos)
                        m[im * row_words + wd] |= bit;
                    if (wr_pos)
                        m[im * row_words + words + wd] |= bit;
                    pc[re] += int32_t(wr_pos) + int32_t(!wi_pos);
                    pc[im] += int32_t(wi_pos) + int32_t(wr_pos);
                }
            }
        }
}

size_t power_windows(int block_n, size_t n_int)
{
    const size_t w = (size_t(block_n) - 1) / n_int + 2;
    return w < size_t(block_n) ? w : size_t(block_n);
}

size_t
power_reduce_smem_bytes(const tensor_beamformer_config& c, int block_m, int block_n)
{
    if (c.output != beam_output::power)
        return 0;
    return c.n_stokes() * size_t(block_m / 2) * power_windows(block_n, c.n_int) *
           sizeof(float);
}

size_t ws_voltage_stage_smem_bytes(const tensor_beamformer_config& c, int block_m)
{
    if (c.output != beam_output::voltage ||
        c.polarization != polarization_layout::single ||
        c.precision != beam_precision::float16 || c.n_beams % tb::voltage_box_beams != 0)
        return 0;
    // In ping-pong two groups of block_m / 4 beams, else one of block_m / 2:
    // the same bytes. Plus the alignment.
    return 2 * tb::voltage_stage_buffers * tb::voltage_stage_bytes(block_m / 4) + 1024;
}

tb_launch_plan plan_launch(const tensor_beamformer_config& c,
                           const tb_operand_layout& l,
                           int block_m,
                           int block_n,
                           int block_k_bytes,
                           size_t n_times,
                           const void* weights,
                           const void* in,
                           void* out,
                           const int* row_popc,
                           const int* col_popc)
{
    const bool power = c.output == beam_output::power;
    tb_launch_plan plan;
    tb::kernel_args& a = plan.args;
    a = tb::kernel_args{};
    a.weights = static_cast<const unsigned char*>(weights);
    a.input = in;
    a.out = out;
    a.row_popc = row_popc;
    a.col_popc = col_popc;
    a.n_channels = int(c.n_channels);
    a.n_beams = int(c.n_beams);
    a.n_times = int(n_times);
    a.n_receivers = int(c.n_receivers);
    a.rows = int(l.rows);
    a.row_bytes = int(l.row_bytes);
    a.k_tiles = int(l.row_bytes / size_t(block_k_bytes));
    a.in_row_words = int(2 * c.words_per_channel());
    a.m_tiles = int(l.rows / size_t(block_m));
    a.n_tiles = int((n_times + size_t(block_n) - 1) / size_t(block_n));
    // Block order (tb::map_block). Voltage: 8 channels side by side, so that
    // neighbouring blocks fill each output sector together. Power (its output
    // is 1/n_int of the product's): one channel at a time with all its row
    // tiles together, so that the blocks running at once share one channel's
    // weights and samples in L2; 8 channels at once kept 8 channels' operands
    // live (28 MB at 512 receivers) and the kernel was L2-bound
    // (apps/beamform_bench.md, "Block order").
    a.channel_group = power ? 1 : int(std::min<size_t>(c.n_channels, 8));
    a.m_group = power ? std::min(a.m_tiles, 16) : 8;
    // The resident kernels' items (tb::map_item): for single-polarization
    // power 8 channels side by side, so that the blocks running at once fill
    // the output's 32-byte sectors of 8 channels together (H200: 3-5 % faster
    // at n_int 16 than the time tiles of one channel together; the tiled
    // kernels' channel_group 8 was 10 % slower at 512 receivers, as above);
    // voltage and X/Y pairs (not measured with it) keep one channel's time
    // tiles together (apps/beamform_bench.md, "Power at small n_int").
    a.item_channel_group = power && c.polarization == polarization_layout::single ? 8 : 1;
    a.power_channel_major = power_channel_major(c) ? 1 : 0;
    a.power = power ? 1 : 0;
    a.iquv = c.n_stokes() == 4 ? 1 : 0;
    a.n_int = int(power ? c.n_int : 1);
    a.windows = int(power_windows(block_n, power ? c.n_int : 1));
    a.k_valid = int(l.k_valid);
    plan.blocks = c.n_channels * size_t(a.m_tiles) * size_t(a.n_tiles);
    if (power && size_t(block_n) % c.n_int != 0)
        plan.zero_output_bytes =
            (n_times / c.n_int) * c.n_stokes() * c.n_beams * c.n_channels * sizeof(float);
    return plan;
}

bool power_channel_major(const tensor_beamformer_config& c)
{
    // H200 (apps/beamform_bench.md, "Power at small n_int"): single
    // polarization, 96 receivers x 1024 beams x 256 channels, n_int 8 0.56 ms
    // against 1.02 written straight, n_int 1 2x faster; at n_int 16 (67 MB of
    // output) level within 4 % either way, so the output's own layout from 16
    // on. X/Y pairs: the short windows (n_int 1, 2, 4) that write at least
    // half a value per time step (Stokes I at n_int 1, 2; IQUV at 1, 2, 4):
    // LOFAR's shape with the "+sw" kernel (session 34) IQUV n_int 2 0.59 ms
    // against 1.76, n_int 4 0.52 against 0.82, n_int 1 0.95 either way (3.15
    // against 5.3 with the shared sums, session 33); Stokes I n_int 4 0.267
    // against 0.246, so not there. One channel: the two layouts are the same.
    if (c.output != beam_output::power || c.n_channels < 2)
        return false;
    if (c.polarization == polarization_layout::single)
        return c.n_int < 16;
    return tb::short_window(int(c.n_int)) && c.n_int <= 2 * c.n_stokes();
}

size_t resident_blocks(const tb::kernel_args& a, size_t max_blocks)
{
    const size_t items = size_t(a.n_channels) * size_t(a.m_tiles);
    return std::min(items, std::max<size_t>(max_blocks, 1));
}

void check_tensor_beamformer_times(const tensor_beamformer_config& c, size_t n_times)
{
    if (c.output == beam_output::power && n_times % c.n_int != 0)
        throw std::invalid_argument("n_times must be a multiple of n_int = " +
                                    std::to_string(c.n_int) + " in power mode, got " +
                                    std::to_string(n_times));
}

void check_gpu_tensor_beamformer_times(const tensor_beamformer_config& c, size_t n_times)
{
    check_tensor_beamformer_times(c, n_times);
    if (n_times > size_t(1) << 30)
        throw std::invalid_argument("n_times must be at most 2^30 per execute(), got " +
                                    std::to_string(n_times));
}

} // namespace beamform
} // namespace gr
