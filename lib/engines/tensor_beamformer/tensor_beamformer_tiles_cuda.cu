/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "tensor_beamformer_expand.h"
#include "tensor_beamformer_library_path.h"
#include "tensor_beamformer_tiles_cuda.h"
#include "tensor_beamformer_tuning.h"
#include <gnuradio/beamform/runtime/log.h>
#include <common/gpu_portable.h>
#include <common/tensor_beamformer_layout.h>
#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace gr {
namespace beamform {
namespace cuda {

const std::vector<tb_variant>& tb_variants()
{
    static const std::vector<tb_variant> all = [] {
        std::vector<tb_variant> v;
        tb_register_fp16_variants(v);
        tb_register_int1_variants(v);
        tb_register_wgmma_variants(v);
        tb_register_resident_variants(v);
        tb_register_ws_variants(v);
        return v;
    }();
    return all;
}

tb_input tb_input_kind(const tensor_beamformer_config& c)
{
    if (c.precision == beam_precision::int1)
        return (2 * c.words_per_channel()) % 4 == 0 ? tb_input::bits_wide
                                                    : tb_input::bits_narrow;
    if (c.polarization == polarization_layout::xy_pairs)
        return tb_input::fc32_xy;
    return c.n_receivers % 2 == 0 ? tb_input::fc32_vec2 : tb_input::fc32_vec1;
}

namespace {
//! Shared memory per block of an H100/H200 (227 KB, opt-in): what the
//! Hopper rule and the resident-weights choice require of a tile.
constexpr size_t hopper_smem_bytes = 227 * 1024;

//! Bytes of one padded weight row of this configuration for variant v.
size_t row_bytes_for(const tb_variant& v, const tensor_beamformer_config& c)
{
    return make_operand_layout(c, size_t(v.block_m), size_t(v.block_k_bytes)).row_bytes;
}
} // namespace

bool tb_covers(const tb_variant& v, const tensor_beamformer_config& c)
{
    // fp16 sample rows are R x 4 bytes; packed-bit rows of bits_wide are
    // multiples of 16 bytes by definition.
    if (v.tma_samples && v.input == tb_input::fp16 && c.n_receivers % 4 != 0)
        return false;
    return v.max_k_bytes == 0 || row_bytes_for(v, c) <= v.max_k_bytes;
}

std::vector<const tb_variant*> tb_candidates(const tensor_beamformer_config& c,
                                             tb_input input)
{
    std::vector<const tb_variant*> out;
    for (const auto& v : tb_variants())
        if (v.precision == c.precision && v.polarization == c.polarization &&
            v.input == input && tb_covers(v, c))
            out.push_back(&v);
    return out;
}

bool tb_short_windows_in_registers(const tb_variant& v, const tensor_beamformer_config& c)
{
    // The shared epilogue's rule (kernels/cuda/tensor_beamformer_epilogue.cuh).
    return c.output == beam_output::power && tb::short_window(int(c.n_int)) &&
           (c.polarization == polarization_layout::single || v.xy_short_windows);
}

size_t tb_smem_for(const tb_variant& v, const tensor_beamformer_config& c)
{
    const size_t sums = tb_short_windows_in_registers(v, c)
                            ? 0
                            : power_reduce_smem_bytes(c, v.block_m, v.block_n);
    // The resident-weights kernel keeps its power sums next to the weights
    // and the samples; the pipelined kernels reuse their pipeline buffers.
    if (v.blocks_per_sm)
        return size_t(v.block_m + 2 * v.block_n) * row_bytes_for(v, c) + sums;
    if (v.warp_specialised) {
        const size_t npol = c.polarization == polarization_layout::xy_pairs ? 2 : 1;
        const size_t k_tiles = row_bytes_for(v, c) / size_t(v.block_k_bytes);
        if (v.samples_resident)
            return v.resident_smem_bytes(int(npol * k_tiles)) + sums +
                   ws_voltage_stage_smem_bytes(c, v.block_m);
        return size_t(v.pipeline_smem_bytes) + sums;
    }
    return std::max(size_t(v.pipeline_smem_bytes), sums);
}

namespace {

const char* const no_kernel_message = "tensor_beamformer: no CUDA kernel compiled for "
                                      "this precision and polarization layout";

size_t device_smem_limit(int device)
{
    int bytes = 0;
    BF_GPU_CHECK(
        cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    return size_t(bytes);
}

bool usable(const tb_variant& v,
            const tensor_beamformer_config& c,
            int device,
            size_t smem_limit)
{
    return tb_smem_for(v, c) <= smem_limit &&
           (!v.needs_sm90a || tb_wgmma_available(device));
}

const tb_variant* find_usable(const std::vector<const tb_variant*>& cands,
                              const tensor_beamformer_config& c,
                              int device,
                              size_t smem_limit,
                              const std::string& tile)
{
    const tb_variant* found = nullptr;
    for (const auto* v : cands)
        if (v->tile == tile && usable(*v, c, device, smem_limit))
            found = v;
    return found;
}

enum class kernel_family { automatic, resident, pipelined, library, warp_specialised };

//! BEAMFORM_TB_VARIANT: "resident", "pipelined", "cublas", "ws", or empty
//! (the built-in rule).
kernel_family parse_variant(const std::string& s)
{
    if (s.empty())
        return kernel_family::automatic;
    if (s == "resident")
        return kernel_family::resident;
    if (s == "pipelined")
        return kernel_family::pipelined;
    if (s == tb_library_path_name)
        return kernel_family::library;
    if (s == "ws")
        return kernel_family::warp_specialised;
    throw std::invalid_argument("BEAMFORM_TB_VARIANT must be 'resident', 'pipelined', "
                                "'cublas' or 'ws' (or unset), got '" +
                                s + "'");
}

int compute_capability_major(int device)
{
    int major = 0;
    BF_GPU_CHECK(
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    return major;
}

std::string variant_from_environment()
{
    const char* e = std::getenv("BEAMFORM_TB_VARIANT");
    return e ? e : "";
}

} // namespace

std::string tensor_beamformer_default_tile(const tensor_beamformer_config& c)
{
    return tensor_beamformer_default_tile(c, variant_from_environment());
}

std::string tensor_beamformer_hopper_tile(const tensor_beamformer_config& c, tb_input input)
{
    // wgmma int1: 256x128 (beamform_bench config 5: 7249 TOPs/s on an H200
    // where 128x256 gave 6037; on an H100 the mma.sync tile gave 4372 and
    // 128x256 wgmma 6166). float16: 256x128 for fc32 samples (512 threads stage fewer
    // loads each: no spills; the warp-specialised tiles, whose producer
    // converts the fc32, measured slower), the warp-specialised 128x256 where
    // TMA copies fp16 samples (config 1 on an H100: 690 TOPs/s = 0.93x cuBLAS,
    // the wgmma tile 367-419).
    // int1 with 16-byte sample rows: the warp-specialised 128x256 (config 5
    // on an H100: 11540 TOPs/s, the wgmma tile 7229 and the mma.sync b1 AND
    // peak 10112 in the same run); 8-byte rows (no TMA) keep the wgmma tile.
    // fc32 samples past what "+rs" covers (more than 160 receivers), from
    // 128 on: converted to fp16 rows that the warp-specialised tile reads by
    // TMA, by the producer's spare warps beside the product ("+ipass"; H200,
    // power n_int 16, five machine sessions: 512 receivers 1.76-1.88 ms
    // against 2.06-2.13 with the pass before the kernel ("+pass"), 256
    // receivers 1.05-1.12 against 1.16-1.17; apps/beamform_bench.md,
    // session 29), "+pass" where "+ipass" cannot run
    // (H100, before the register-window epilogue: 2.890-2.900 ms against
    // 4.394 for the wgmma tile at 512 receivers). Fewer receivers than 128
    // that "+rs" does not cover (none today) keep the wgmma tile.
    const bool tma_samples =
        (c.precision == beam_precision::float16 && input == tb_input::fp16) ||
        (c.precision == beam_precision::int1 && input == tb_input::bits_wide);
    // float16 fc32 samples of at most 160 receivers (the "+rs" tiles cover
    // them): the samples resident, converted once per (channel, time tile).
    // Power output: the consumer warpgroups side by side, 3 weight stages
    // (H200, beamform_bench config 4, 1024 beams, n_int 16, two runs each:
    // 96 receivers 0.442 ms against 0.453 for ping-pong with 8 stages, 128:
    // 0.572 against 0.592, 160: 0.702 against 0.733 for ping-pong with 6;
    // apps/beamform_bench.md, session 25). Ping-pong, which hides one
    // warpgroup's epilogue behind the other's multiplies, led by 7 % at 96
    // receivers on an H100 until the power epilogue became cheap (session 19).
    // Voltage output (below the library path's 64 receivers, and on Hopper to
    // 128 with 32-beam multiples, tb_library_path_fused_first): ping-pong, 6
    // stages (H200, 3/rx64 0.722-0.727 ms, 3/rx96 0.761-0.766 against
    // 0.766-0.771 without ping-pong).
    const bool fc32 = c.precision == beam_precision::float16 &&
                      (input == tb_input::fc32_vec2 || input == tb_input::fc32_vec1);
    const bool voltage = c.output == beam_output::voltage;
    const bool pass = fc32 && c.n_receivers >= 128;
    // float16 xy pairs, voltage, where "+rs" (next) does not cover k: 128x64
    // with two blocks per SM where its beam padding is within 25% of the 64-row
    // tiles' (LOFAR's 155 beams, beamform_bench config 2, H100: 0.496-0.499 ms
    // against 0.550-0.555 for 128x128 and 0.597-0.599 for 64x128, which the
    // least-padding rule picks; the kernel is latency-bound at one block).
    const size_t rows = 2 * c.n_beams;
    const bool xy_two_blocks = input == tb_input::fc32_xy && c.precision == beam_precision::float16 &&
                        c.output == beam_output::voltage &&
                        (rows + 127) / 128 * 128 * 4 <= (rows + 63) / 64 * 64 * 5;
    // float16 xy pairs up to 160 antennas: the resident-samples kernel, its
    // samples read and converted once per time tile for all row tiles. Voltage
    // (LOFAR, config 2, H100: 0.346-0.349 ms against 0.500 for the +2b tile
    // above) and power (configs 2/I and 2/IQUV, H200: 0.234 and 0.299 ms
    // against 0.505 and 0.573 for the least padded mma.sync tile, 2.40x and
    // 2.05x the cuBLAS route; apps/beamform_bench.md).
    const bool xy_resident =
        input == tb_input::fc32_xy && c.precision == beam_precision::float16;
    // Power from X/Y pairs: the same with two sets in ping-pong, which hides
    // the epilogue behind the other warpgroup's multiplies (config 2/IQUV,
    // H200: 0.221-0.227 ms against 0.255-0.258; 2/I 0.187-0.189 against
    // 0.193 in sessions 21 and 25); voltage was slower in ping-pong
    // (0.297-0.308 ms against 0.283-0.285).
    const bool xy_power = xy_resident && c.output == beam_output::power;
    // Its "+sw" kernel where the windows are 1, 2 or 4 steps: summed in
    // registers, without the shared sums (which at n_int 1 leave no room for
    // two sample sets); past the receivers that two sets hold, the one-set
    // "+sw" kernel (H200, session 35: 144 receivers IQUV n_int 2 2.017 ms on
    // "ws/4+rs", 160 IQUV n_int 1 2.810 on mma.sync, 0.83x and 1.12x the route).
    const bool xy_short = xy_power && tb::short_window(int(c.n_int));
    // Past what the resident tiles hold (more antennas than 160): the samples
    // streamed through the ring from fp16 planes ("+pass"; H200, session 35,
    // 256 antennas x 155 beams, IQUV over 16: 0.66 ms, 1.85x the route, where
    // the least padded mma.sync tile took 1.62; Stokes I at n_int 1 with
    // "+sw" 0.73 against 2.18). X/Y voltage too: level with the library
    // path's doubled products (within 2 %) at 64-1024 beams, 1.69x faster at
    // 155 (256 antennas: 0.82 ms against 1.39; the cuBLAS route 1.05).
    // Single-polarization power of fewer than 32 receivers (less than one k
    // tile) and 128 beams (one 128-row tile): the least padded mma.sync tile
    // below (H200, session 34: 64x5x16x4096 n_int 16 0.047 ms against 0.054
    // for "+rs", 256x16x64x1024 0.056 against 0.072, 1x16x64x1048576 0.165
    // against 0.248; "+rs" stays ahead at 32 receivers, 0.068 against 0.078,
    // and at 181 beams, 0.027 against 0.041). Voltage of such shapes takes
    // the library path (tb_library_path_small_first).
    if (fc32 && !voltage && c.n_receivers < 32 && c.n_beams < 128)
        return "";
    const auto cands = tb_candidates(c, input);
    for (const std::string preferred : { tma_samples ? "128x256x128/ws/4" : "",
                                         fc32 && voltage ? "128x256x128/ws/6+rs+pp" : "",
                                         fc32 ? "128x256x128/ws/3+rs" : "",
                                         pass ? "128x256x128/ws/4+ipass" : "",
                                         pass ? "128x256x128/ws/4+pass" : "",
                                         xy_short ? "128x128x128/ws/4+rs+pp+db+sw" : "",
                                         xy_short ? "128x128x128/ws/4+rs+sw" : "",
                                         xy_power ? "128x128x128/ws/4+rs+pp+db" : "",
                                         xy_resident ? "128x128x128/ws/2+rs+db" : "",
                                         xy_resident ? "128x128x128/ws/4+rs" : "",
                                         xy_short ? "128x128x128/ws/3+pass+sw" : "",
                                         xy_resident ? "128x128x128/ws/3+pass" : "",
                                         xy_two_blocks ? "128x64x64/32x32/4+2b" : "",
                                         "256x128x128/wgmma/4" })
        for (const auto* v : cands)
            if (v->tile == preferred && tb_smem_for(*v, c) <= hopper_smem_bytes)
                return preferred;
    return "";
}

std::string tensor_beamformer_builtin_tile(const tensor_beamformer_config& c, int device)
{
    const std::string variant = variant_from_environment();
    const kernel_family family = parse_variant(variant);
    // The library voltage path: where the rule expects it faster, or wherever
    // it computes the configuration when BEAMFORM_TB_VARIANT=cublas.
    if ((family == kernel_family::automatic &&
         tb_library_path_preferred(
             c, compute_capability_major(device), tb_wgmma_available(device))) ||
        (family == kernel_family::library && tb_library_path_covers(c)))
        return tb_library_path_name;
    const std::string tile = tensor_beamformer_builtin_kernel_tile(c, device);
    // X/Y voltage past what the resident-samples tiles cover, where no
    // warp-specialised tile serves it either: the mma.sync tiles left are
    // slower than the library path's doubled products (H200, 64x512x64x1024
    // 0.174 ms against 0.223, 384x512x8x1024 0.778 against 1.087; session 34).
    if (family == kernel_family::automatic &&
        c.polarization == polarization_layout::xy_pairs && tb_library_path_covers(c) &&
        tb_wgmma_available(device)) {
        const tb_variant* v = tb_usable_variant(c, device, tile);
        if (v && !v->samples_resident && !v->warp_specialised)
            return tb_library_path_name;
    }
    return tile;
}

std::string tensor_beamformer_builtin_kernel_tile(const tensor_beamformer_config& c,
                                                  int device)
{
    const std::string variant = variant_from_environment();
    const kernel_family family = parse_variant(variant);
    if (family == kernel_family::warp_specialised && tb_wgmma_available(device)) {
        // The first warp-specialised tile in list order that this GPU runs.
        for (const auto* v : tb_candidates(c, tb_input_kind(c)))
            if (v->warp_specialised && tb_usable_variant(c, device, v->tile))
                return v->tile;
    }
    const bool automatic =
        family == kernel_family::automatic || family == kernel_family::library;
    if (automatic && tb_wgmma_available(device)) {
        const std::string hopper = tensor_beamformer_hopper_tile(c, tb_input_kind(c));
        if (!hopper.empty() && tb_usable_variant(c, device, hopper))
            return hopper;
    }
    return tensor_beamformer_default_tile(c, variant);
}

std::string tensor_beamformer_default_tile(const tensor_beamformer_config& c,
                                           const std::string& variant)
{
    const auto cands = tb_candidates(c, tb_input_kind(c));
    if (cands.empty())
        throw std::runtime_error(no_kernel_message);
    auto waste = [&](const tb_variant* v) {
        const size_t rows = 2 * c.n_beams;
        const size_t padded = (rows + v->block_m - 1) / v->block_m * v->block_m;
        return double(padded) / double(rows);
    };
    double best = 1e300;
    for (const auto* v : cands)
        if (!v->opt_in)
            best = std::min(best, waste(v));
    // BEAMFORM_TB_VARIANT=resident: the resident-weights (short-k) kernel,
    // wherever a resident tile covers k (float16, single polarization, weight
    // rows of at most 512 bytes = 128 receivers); the first in list order whose
    // beam padding is within 10% of the least and whose shared memory fits an
    // H100/H200 (227 KB per block). Not the built-in choice: on the H100 it
    // measured no faster than the pipelined kernel (apps/beamform_bench.md,
    // "Version: short-K resident weights").
    const kernel_family forced = parse_variant(variant);
    if (forced == kernel_family::resident) {
        for (const auto* v : cands)
            if (v->blocks_per_sm && !v->opt_in && waste(v) <= best * 1.1 &&
                tb_smem_for(*v, c) <= hopper_smem_bytes)
                return v->tile;
        for (const auto* v : cands) // covered, but more beam padding
            if (v->blocks_per_sm && !v->opt_in && tb_smem_for(*v, c) <= hopper_smem_bytes)
                return v->tile;
    }
    // The other lists are in order of preference for large products; take the
    // first whose padding of the beams costs at most 10% more than the least.
    for (const auto* v : cands)
        if (!v->opt_in && !v->blocks_per_sm && waste(v) <= best * 1.1)
            return v->tile;
    return cands.front()->tile;
}

const tb_variant*
tb_usable_variant(const tensor_beamformer_config& c, int device, const std::string& tile)
{
    return find_usable(
        tb_candidates(c, tb_input_kind(c)), c, device, device_smem_limit(device), tile);
}

std::string tb_device_name(int device)
{
    cudaDeviceProp prop{};
    BF_GPU_CHECK(cudaGetDeviceProperties(&prop, device));
    return prop.name;
}

bool tb_path_usable(const tensor_beamformer_config& c,
                    int device,
                    const std::string& tile)
{
    if (tile == tb_library_path_name)
        return tb_library_path_covers(c);
    return tb_usable_variant(c, device, tile) != nullptr;
}

std::string tb_choose_tile(const tensor_beamformer_config& c, int device)
{
    const auto cands = tb_candidates(c, tb_input_kind(c));
    if (cands.empty() && !tb_library_path_covers(c))
        throw std::runtime_error(no_kernel_message);
    if (const char* path = std::getenv("BEAMFORM_TUNING_FILE")) {
        const std::string device_name = tb_device_name(device);
        const std::string tile = tb_tuning_lookup(read_tuning_file(path), c, device_name);
        if (!tile.empty()) {
            if (tb_path_usable(c, device, tile))
                return tile;
            warn("tuning file tile '" + tile + "' for " +
                 tensor_beamformer_tuning_key(c, device_name) +
                 " is not usable here; using the built-in choice");
        }
    }
    const std::string builtin = tensor_beamformer_builtin_tile(c, device);
    if (tb_path_usable(c, device, builtin))
        return builtin;
    // The default needs too much shared memory: the smallest tile that fits.
    const size_t limit = device_smem_limit(device);
    const tb_variant* chosen = nullptr;
    for (const auto* v : cands)
        if (!v->opt_in && usable(*v, c, device, limit) &&
            (!chosen || tb_smem_for(*v, c) < tb_smem_for(*chosen, c)))
            chosen = v;
    if (!chosen)
        throw std::runtime_error("tensor_beamformer: no kernel fits this GPU's shared "
                                 "memory (power output with small n_int and IQUV needs "
                                 "the most)");
    return chosen->tile;
}

} // namespace cuda
} // namespace beamform
} // namespace gr
