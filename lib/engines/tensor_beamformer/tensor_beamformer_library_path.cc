/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "tensor_beamformer_library_path.h"
#include <common/tensor_beamformer_layout.h>
#include <climits>
#include <stdexcept>

namespace gr {
namespace beamform {

const char* const tb_library_path_name = "cublas";

tb_library_gemm_shape tb_library_gemm(const tensor_beamformer_config& c)
{
    const size_t npol = c.polarization == polarization_layout::xy_pairs ? 2 : 1;
    tb_library_gemm_shape g;
    g.m = 2 * npol * c.n_beams;
    g.k = 2 * c.n_receivers;
    g.k_padded = (g.k + 7) / 8 * 8;
    g.lda = (g.m + 7) / 8 * 8;
    g.ldb = c.n_channels * g.k_padded;
    g.ldc = c.n_channels * g.m;
    return g;
}

bool tb_library_path_covers(const tensor_beamformer_config& c)
{
    if (c.precision != beam_precision::float16 || c.output != beam_output::voltage)
        return false;
    const auto g = tb_library_gemm(c);
    const size_t limit = size_t(INT_MAX);
    return g.lda <= limit && g.k_padded <= limit && g.ldb <= limit && g.ldc <= limit &&
           c.n_channels <= limit;
}

namespace {
const char* name_of(beam_precision p)
{
    return p == beam_precision::int1 ? "int1" : "float16";
}
const char* name_of(beam_output o)
{
    return o == beam_output::power ? "power" : "voltage";
}
} // namespace

void tb_check_library_path(const tensor_beamformer_config& c,
                           const std::string& accepted_tiles)
{
    if (tb_library_path_covers(c))
        return;
    std::string msg = std::string("tile '") + tb_library_path_name +
                      "' (the cuBLAS library path) needs precision float16 and output "
                      "voltage";
    if (c.precision == beam_precision::float16 && c.output == beam_output::voltage)
        msg += " and a GEMM whose leading dimensions fit 32-bit ints (n_channels x 2 x "
               "n_receivers and n_channels x 2 x n_beams x polarizations at most 2^31 "
               "- 1); got n_channels " +
               std::to_string(c.n_channels) + ", n_receivers " +
               std::to_string(c.n_receivers) + ", n_beams " + std::to_string(c.n_beams);
    else
        msg += std::string(", got precision ") + name_of(c.precision) + ", output " +
               name_of(c.output);
    msg += "; accepted for this configuration: the kernel tiles";
    msg += accepted_tiles.empty() ? " (BMxBNxBKB/WMxWN/STAGES)" : " " + accepted_tiles;
    throw std::invalid_argument(msg);
}

size_t tb_library_path_min_receivers(int cc_major)
{
    // Hopper (measured on an H100, beamform_bench configs 3/rx64..512: the fused
    // wgmma kernel at 0.83x, 0.70x, 0.50x of convert + cuBLAS) and later GPUs,
    // whose cuBLAS uses tensor-core instructions our mma.sync kernels do not.
    // Ampere/Ada: cuBLAS runs mma.sync like our kernels, so only the fused
    // kernel's per-k-tile overhead separates them; taken from 128 receivers
    // (unmeasured: a tuning file settles it per GPU).
    return cc_major >= 9 ? 64 : 128;
}

bool tb_library_path_fused_first(const tensor_beamformer_config& c, bool wgmma)
{
    // Hopper's warp-specialised kernel with its TMA voltage store, measured
    // on an H200 (beamform_bench 3/rx64 and 3/rx128, 1024 beams: 0.72-0.73
    // and 0.82 ms against this path's 0.74-0.75 and 0.84-0.85; 3/rx512 stays
    // here, 2.10 ms against 2.57 for the fused kernel; at 129-160 receivers
    // no resident tile fits beside the TMA buffers, 3/rx160 0.94 ms here
    // against 1.19: apps/beamform_bench.md, sessions 24 and 25). An output that is not
    // 16-byte aligned falls back to the warps' stores (the module's GPU
    // buffers hold items of C x B x 8 bytes, so theirs are aligned).
    return wgmma && c.n_beams % tb::voltage_box_beams == 0 && c.n_receivers <= 128;
}

bool tb_library_path_small_first(const tensor_beamformer_config& c, int cc_major)
{
    // Shapes too small to fill the fused kernel's tiles (128 rows = 64 beams,
    // or 32 X/Y beams; k tiles of 64 = 32 receivers), measured on an H200
    // (beamform_bench --cases, apps/beamform_bench.md, session 34): single
    // polarization, 1x5x181x65536 (C x R x B x T) 0.055 ms here against 0.071
    // for the fused kernel, 256x16x64x1024 0.067 against 0.093, 64x12x100x4096
    // 0.092 against 0.127, 256x48x64x1024 0.103 against 0.107; X/Y pairs,
    // 256x16x8x1024 0.039 against 0.153, 488x192x8x256 0.112 against 0.123.
    // The fused kernel stays ahead from 128 beams (256x32x128x1024 level,
    // 256x16x1024x1024 3 % behind) and from 32 X/Y beams (488x192x32x256).
    if (cc_major < 9)
        return false; // Ampere / Ada: not measured
    if (c.polarization == polarization_layout::xy_pairs)
        return c.n_beams < 32;
    return c.n_receivers < 16 || c.n_beams < 128;
}

bool tb_library_path_preferred(const tensor_beamformer_config& c,
                               int cc_major,
                               bool wgmma)
{
    if (!tb_library_path_covers(c))
        return false;
    // xy_pairs otherwise stays fused: its library GEMM multiplies by the other
    // polarization's zero weights (2x the products; LOFAR's 155 beams x 128
    // receivers: 0.507 ms against the fused 0.280).
    if (c.polarization == polarization_layout::single &&
        c.n_receivers >= tb_library_path_min_receivers(cc_major))
        return !tb_library_path_fused_first(c, wgmma);
    return tb_library_path_small_first(c, cc_major);
}

} // namespace beamform
} // namespace gr
