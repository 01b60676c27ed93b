/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CUDA tensor-core beamformer kernel (kernels/cuda/tensor_beamformer_mma_kernel.cuh)
 * run on the CPU through kernels/emulation/gpu_emulation.h, against the plain
 * complex product of tb_reference.h: the kernel's own code (loaders, swizzle, pipeline,
 * fragment indexing, complex expansion, int1 popcount correction, power/Stokes epilogue,
 * block order) checked on this machine, where there is no GPU. The PTX instructions
 * themselves (mma, ldmatrix, cp.async) are modelled from the PTX ISA's fragment layouts;
 * test_tensor_beamformer_gpu.cc checks the real thing on a GPU.
 */
// The host model of the GPU built-ins, before any kernel header.
// clang-format off
#include <emulation/gpu_emulation.h>
#include <cuda/tensor_beamformer_mma_kernel.cuh>
#include <cuda/tensor_beamformer_compiled_tiles.h>
#include <cuda/tensor_beamformer_resident_kernel.cuh>
#include <cuda/tensor_beamformer_wgmma_kernel.cuh>
#include <cuda/tensor_beamformer_ws_resident_kernel.cuh>
#include <cuda/tensor_beamformer_ws_xy_kernel.cuh>
#include <cuda/tensor_beamformer_power_transpose.cuh>
// clang-format on

#include "engines/tensor_beamformer/tensor_beamformer_expand.h"
#include "tb_reference.h"
#include <gtest/gtest.h>
#include <cmath>
#include <complex>
#include <iostream>
#include <random>
#include <sstream>

using namespace gr::beamform;
namespace k = gr::beamform::cuda::tb_kernels;
using cfloat = std::complex<float>;
using namespace tb_reference;

namespace {

/*!
 * What the CUDA engine does after a launch whose plan writes power
 * channel-major (plan.args.power_channel_major): the transpose kernel into
 * the output's layout. \p out holds the kernel's output, and then the
 * transposed one. Few blocks of a narrow tile: each loops over tiles.
 */
void finish_power(const tb_launch_plan& plan, std::vector<float>& out)
{
    if (!plan.args.power_channel_major)
        return;
    const std::vector<float> major = out;
    const long long rows = plan.args.n_channels, cols = (long long)out.size() / rows;
    std::fill(out.begin(), out.end(), NAN);
    gr::beamform::emulated::launch(
        dim3(3), dim3(32, 8), k::power_transpose_smem_bytes, [&] {
            k::power_transpose_kernel(major.data(), out.data(), rows, cols);
        });
}

//! One emulated execute(): what the CUDA engine does, with its own helpers.
template <class S, class Op, class L, int NPA>
std::vector<float> run_kernel(const tensor_beamformer_config& c,
                              const std::vector<cfloat>& w,
                              const void* input,
                              size_t T)
{
    const tb_operand_layout layout = make_operand_layout(c, S::BM, S::BKB);
    std::vector<unsigned char> a(layout.total_bytes());
    std::vector<int32_t> row_popc(layout.total_rows());
    std::vector<int> col_popc(T * c.n_channels * layout.npol, -12345);
    if (c.precision == beam_precision::float16) {
        expand_weights_fp16(layout, c, w, reinterpret_cast<uint16_t*>(a.data()));
    } else {
        expand_weights_int1(
            layout, c, w, reinterpret_cast<uint32_t*>(a.data()), row_popc.data());
        const size_t rows = T * c.n_channels;
        const unsigned warps = 8;
        emu::launch(unsigned((rows + warps - 1) / warps), 1, 32 * warps, 0, [&] {
            k::column_popc_kernel<>(static_cast<const uint32_t*>(input),
                                    col_popc.data(),
                                    rows,
                                    int(c.words_per_channel()),
                                    int(c.n_receivers),
                                    int(layout.npol));
        });
    }
    std::vector<float> out(output_floats(c, T), NAN);
    const tb_launch_plan plan = plan_launch(c,
                                            layout,
                                            S::BM,
                                            S::BN,
                                            S::BKB,
                                            T,
                                            a.data(),
                                            input,
                                            out.data(),
                                            row_popc.data(),
                                            col_popc.data());
    if (plan.zero_output_bytes)
        std::memset(out.data(), 0, plan.zero_output_bytes);
    const size_t smem = std::max(size_t(k::pipeline_smem_bytes<S, L, NPA>()),
                                 power_reduce_smem_bytes(c, S::BM, S::BN));
    emu::launch(unsigned(plan.blocks), 1, S::threads, smem, [&] {
        k::tensor_beamformer_kernel<S, Op, L, NPA>(plan.args);
    });
    finish_power(plan, out);
    return out;
}

//! Complex samples as interleaved (re, im) fp16 bits: the GEMM core's input.
std::vector<uint16_t> interleaved_fp16(const std::vector<cfloat>& x)
{
    std::vector<uint16_t> xh(2 * x.size());
    for (size_t i = 0; i < x.size(); i++) {
        xh[2 * i] = float_to_half_bits(x[i].real());
        xh[2 * i + 1] = float_to_half_bits(x[i].imag());
    }
    return xh;
}

/*!
 * Operands, output (NaN) and launch plan of one emulated execute() with
 * BM x BN tiles of 128-byte k (the Hopper kernels), single polarization.
 */
struct hopper_run {
    std::vector<unsigned char> a;
    std::vector<int32_t> row_popc;
    std::vector<int> col_popc;
    std::vector<float> out;
    tb_launch_plan plan;
};

std::unique_ptr<hopper_run> prepare_hopper(const tensor_beamformer_config& c,
                                           const std::vector<cfloat>& w,
                                           const void* input,
                                           size_t T,
                                           int bm,
                                           int bn)
{
    auto r = std::make_unique<hopper_run>();
    const tb_operand_layout layout = make_operand_layout(c, bm, 128);
    r->a.resize(layout.total_bytes());
    r->row_popc.resize(layout.total_rows());
    r->col_popc.assign(T * c.n_channels, -12345);
    if (c.precision == beam_precision::float16) {
        expand_weights_fp16(layout, c, w, reinterpret_cast<uint16_t*>(r->a.data()));
    } else {
        expand_weights_int1(
            layout, c, w, reinterpret_cast<uint32_t*>(r->a.data()), r->row_popc.data());
        const size_t rows = T * c.n_channels;
        emu::launch(unsigned((rows + 7) / 8), 1, 256, 0, [&] {
            k::column_popc_kernel<>(static_cast<const uint32_t*>(input),
                                    r->col_popc.data(),
                                    rows,
                                    int(c.words_per_channel()),
                                    int(c.n_receivers),
                                    1);
        });
    }
    r->out.assign(output_floats(c, T), NAN);
    r->plan = plan_launch(c,
                          layout,
                          bm,
                          bn,
                          128,
                          T,
                          r->a.data(),
                          input,
                          r->out.data(),
                          r->row_popc.data(),
                          r->col_popc.data());
    if (r->plan.zero_output_bytes)
        std::memset(r->out.data(), 0, r->plan.zero_output_bytes);
    return r;
}

//! One emulated execute() with a wgmma tile W (sm_90a kernel).
template <class W, class Op, class L>
std::vector<float> run_wgmma(const tensor_beamformer_config& c,
                             const std::vector<cfloat>& w,
                             const void* input,
                             size_t T)
{
    const auto r = prepare_hopper(c, w, input, T, W::BM, W::BN);
    const size_t smem = std::max(size_t(k::wgmma_pipeline_smem_bytes<W, L>()),
                                 power_reduce_smem_bytes(c, W::BM, W::BN));
    emu::launch(unsigned(r->plan.blocks), 1, W::threads, smem, [&] {
        k::tensor_beamformer_wgmma_kernel<W, Op, L>(r->plan.args);
    });
    finish_power(r->plan, r->out);
    return r->out;
}

emu::tensor_map emu_map(const k::tma_box_3d& b)
{
    return emu::tensor_map{ static_cast<const unsigned char*>(b.base),
                            { b.dim[0], b.dim[1], b.dim[2] },
                            { b.stride[0], b.stride[1] },
                            { b.box[0], b.box[1], b.box[2] } };
}

//! run_ws's sample source for the streamed X/Y kernel: the pass's fp16 planes.
struct xy_planes {
    static constexpr bool by_tma = false; // run_ws encodes the planes' map itself
    static constexpr int npol = 2;
};

/*!
 * One emulated execute() with a warp-specialised tile W (RESIDENT: its
 * resident-samples kernel, with BUFFERS sets of samples): \p blocks
 * persistent blocks (fewer than the tiles or items, so that each loops over
 * several and the ring's phases run on across them).
 */
template <class W, class Op, class Samples, bool RESIDENT = false, int BUFFERS = 1>
std::vector<float> run_ws(const tensor_beamformer_config& c,
                          const std::vector<cfloat>& w,
                          const void* input,
                          size_t T,
                          unsigned blocks,
                          unsigned long long* range_counts = nullptr)
{
    const auto r = prepare_hopper(c, w, input, T, W::BM, W::BN);
    r->plan.args.range_counts = range_counts;
    const auto& args = r->plan.args;
    k::ws_maps maps{};
    maps.a = emu_map(k::ws_weights_box(args, W::ROWS, Samples::npol));
    if constexpr (Samples::by_tma)
        maps.b = emu_map(k::ws_samples_box(args, Samples::row_bytes(args), W::BN));
    if constexpr (BUFFERS == 2)
        maps.b = emu_map(k::ws_raw_xy_box(args));
    if (RESIDENT && Samples::npol == 1 && std::is_same<Op, k::op_fp16>::value &&
        k::ws_voltage_by_tma(args)) {
        maps.out = emu_map(k::ws_voltage_box(args));
        maps.voltage_by_tma = 1;
    }
    const size_t sums = power_reduce_smem_bytes(c, W::BM, W::BN);
    if constexpr (RESIDENT) {
        const long long items = (long long)args.n_channels * args.n_tiles;
        emu::launch(unsigned(std::min<long long>(blocks, items)),
                    1,
                    W::threads,
                    k::ws_resident_smem_bytes<W, BUFFERS>(Samples::npol * args.k_tiles) +
                        sums + ws_voltage_stage_smem_bytes(c, W::BM),
                    [&] {
                        k::tensor_beamformer_ws_resident_kernel<W, Op, Samples, BUFFERS>(
                            args, maps);
                    });
    } else if constexpr (Samples::npol == 2) { // the streamed X/Y kernel
        // What the engine's pass writes: per row the X plane, then the Y
        // plane, of row_bytes / 4 complex fp16 each (zeros past the antennas).
        const size_t ld = size_t(args.row_bytes) / 4, n_ant = c.n_receivers / 2;
        const auto* x = static_cast<const cfloat*>(input);
        std::vector<__half2> planes(T * c.n_channels * 2 * ld, __floats2half2_rn(0.0f, 0.0f));
        for (size_t row = 0; row < T * c.n_channels; row++)
            for (size_t ant = 0; ant < n_ant; ant++)
                for (size_t pol = 0; pol < 2; pol++) {
                    const cfloat v = x[row * 2 * n_ant + 2 * ant + pol];
                    planes[(2 * row + pol) * ld + ant] = __floats2half2_rn(v.real(), v.imag());
                }
        k::kernel_args a = args;
        a.input = planes.data();
        a.n_receivers = int(2 * ld);
        maps.b = emu_map(k::ws_samples_box(a, k::ws_xy_planes_row_bytes(a), W::BN));
        const long long tiles = (long long)r->plan.blocks;
        emu::launch(std::min(blocks, unsigned(tiles)),
                    1,
                    W::threads,
                    size_t(k::ws_xy_pipeline_smem_bytes<W>()) + sums,
                    [&] { k::tensor_beamformer_ws_xy_kernel<W, Op>(a, maps, tiles); });
    } else {
        const long long tiles = (long long)r->plan.blocks;
        emu::launch(
            std::min(blocks, unsigned(tiles)),
            1,
            W::threads,
            size_t(k::ws_pipeline_smem_bytes<W>()) + sums,
            [&] { k::tensor_beamformer_ws_kernel<W, Op, Samples>(args, maps, tiles); });
    }
    finish_power(r->plan, r->out);
    return r->out;
}

/*!
 * One emulated execute() with the in-kernel pass ("+ipass", tile W, VEC
 * complex per load): the fp16 rows poisoned with NaN and the counters zeroed,
 * as the engine leaves them, and one persistent block, whose spare warps
 * convert every part (the emulation runs blocks one after the other, so a
 * block cannot wait for another's). Checks that every slab's counter ends
 * whole and the frontier at the last tile.
 */
template <class W, int VEC>
std::vector<float> run_ws_inline_pass(const tensor_beamformer_config& c,
                                      const std::vector<cfloat>& w,
                                      const std::vector<cfloat>& x,
                                      size_t T,
                                      unsigned long long* range_counts = nullptr)
{
    using Samples = k::ws_samples_inline_pass<W, VEC>;
    const auto r = prepare_hopper(c, w, x.data(), T, W::BM, W::BN);
    k::kernel_args args = r->plan.args;
    std::vector<unsigned char> rows(T * c.n_channels * size_t(args.row_bytes), 0xff);
    const size_t slabs = size_t(args.n_channels) * size_t(args.n_tiles);
    std::vector<unsigned> ready(slabs + 1, 0u); // and the frontier
    args.range_counts = range_counts;
    args.pass_input = x.data();
    args.pass_receivers = args.n_receivers;
    args.pass_ready = ready.data();
    args.pass_lead_channels = tb::inline_pass_lead_channels;
    args.input = rows.data();
    args.n_receivers = args.row_bytes / 4;
    k::ws_maps maps{};
    maps.a = emu_map(k::ws_weights_box(args, W::ROWS));
    maps.b = emu_map(k::ws_samples_box(args, Samples::row_bytes(args), W::BN));
    const long long tiles = (long long)r->plan.blocks;
    emu::launch(1,
                1,
                W::threads,
                size_t(k::ws_pipeline_smem_bytes<W>()) +
                    power_reduce_smem_bytes(c, W::BM, W::BN),
                [&] { k::tensor_beamformer_ws_kernel<W, k::op_fp16, Samples>(args, maps, tiles); });
    for (size_t i = 0; i < slabs; i++)
        EXPECT_EQ(ready[i], unsigned(Samples::parts)) << "slab " << i;
    EXPECT_EQ(ready[slabs], unsigned(tiles - 1)) << "the frontier";
    finish_power(r->plan, r->out);
    return r->out;
}

//! int1 exact, float16 within 2e-6 of the definition (relative error norm).
void expect_matches_definition(const tensor_beamformer_config& c,
                               size_t T,
                               const std::string& tile,
                               const std::vector<float>& got,
                               const std::vector<float>& ref)
{
    if (c.precision == beam_precision::int1) {
        const size_t bad = mismatches(got, ref);
        std::cout << describe(c, T, tile) << ": " << bad << " of " << ref.size()
                  << " values differ from the exact result\n";
        EXPECT_EQ(bad, 0u) << describe(c, T, tile);
    } else {
        const double err = rel_error(got, ref);
        std::cout << describe(c, T, tile) << ": relative error " << err << "\n";
        EXPECT_LT(err, 2e-6) << describe(c, T, tile);
    }
}

template <class W>
void check_wgmma(beam_precision prec,
                 size_t C,
                 size_t R,
                 size_t B,
                 size_t T,
                 beam_output o,
                 size_t n_int,
                 bool fp16_input = false)
{
    const auto c = make_config(C, R, B, prec, o, polarization_layout::single, n_int);
    const auto w = random_complex(c.weight_count(), unsigned(R * 7 + B + 1));
    const auto x = random_complex(T * C * R, unsigned(T * 13 + C + 1));
    std::vector<float> got;
    std::string kind;
    if (prec == beam_precision::int1) {
        const auto bits = pack_bits(x, T, C, R);
        if ((2 * c.words_per_channel()) % 4 == 0)
            got = run_wgmma<W, k::op_int1, k::loader_bits<W, true>>(c, w, bits.data(), T);
        else
            got =
                run_wgmma<W, k::op_int1, k::loader_bits<W, false>>(c, w, bits.data(), T);
    } else if (fp16_input) {
        const auto xh = interleaved_fp16(x);
        got = run_wgmma<W, k::op_fp16, k::loader_fp16_input<W>>(c, w, xh.data(), T);
        kind = " (fp16 input)";
    } else if (R % 2 == 0) {
        got = run_wgmma<W, k::op_fp16, k::loader_fc32<W, 2>>(c, w, x.data(), T);
    } else {
        got = run_wgmma<W, k::op_fp16, k::loader_fc32<W, 1>>(c, w, x.data(), T);
    }
    const std::string tile = "wgmma " + std::to_string(W::BM) + "x" +
                             std::to_string(W::BN) + "/" + std::to_string(W::STAGES) +
                             kind;
    expect_matches_definition(c, T, tile, got, reference(c, w, x, T));
}

/*!
 * A warp-specialised tile W on every sample source it is compiled for: fp16
 * by TMA (R a multiple of 4), packed bits by TMA (16-byte rows), fc32
 * converted by the producer; outputs NaN-poisoned, \p blocks persistent blocks.
 */
template <class W, bool RESIDENT = false>
void check_ws(beam_precision prec,
              size_t C,
              size_t R,
              size_t B,
              size_t T,
              beam_output o,
              size_t n_int,
              unsigned blocks,
              bool fp16_input = false)
{
    const auto c = make_config(C, R, B, prec, o, polarization_layout::single, n_int);
    const auto w = random_complex(c.weight_count(), unsigned(R * 5 + B + 3));
    const auto x = random_complex(T * C * R, unsigned(T * 11 + C + 2));
    std::vector<float> got;
    std::string kind;
    if (prec == beam_precision::int1) {
        const auto bits = pack_bits(x, T, C, R);
        ASSERT_EQ((2 * c.words_per_channel()) % 4, 0u) << "TMA needs 16-byte sample rows";
        got = run_ws<W, k::op_int1, k::ws_samples_tma<true>, RESIDENT>(
            c, w, bits.data(), T, blocks);
        kind = " (bits)";
    } else if (fp16_input) {
        const auto xh = interleaved_fp16(x);
        got = run_ws<W, k::op_fp16, k::ws_samples_tma<false>, RESIDENT>(
            c, w, xh.data(), T, blocks);
        kind = " (fp16 input)";
    } else if (R % 2 == 0) {
        got = run_ws<W, k::op_fp16, k::ws_samples_fc32<W, 2>, RESIDENT>(
            c, w, x.data(), T, blocks);
        kind = " (fc32)";
    } else {
        got = run_ws<W, k::op_fp16, k::ws_samples_fc32<W, 1>, RESIDENT>(
            c, w, x.data(), T, blocks);
        kind = " (fc32, odd R)";
    }
    const std::string tile = std::string(RESIDENT ? (W::PINGPONG ? "ws+rs+pp " : "ws+rs ") : "ws ") +
                             std::to_string(W::BM) + "x" +
                             std::to_string(W::BN) + "/" + std::to_string(W::STAGES) +
                             kind + ", " + std::to_string(blocks) + " blocks";
    expect_matches_definition(c, T, tile, got, reference(c, w, x, T));
}

//! The kernel the engine would pick for this configuration, with tile S.
template <class S>
std::vector<float> run_single_fp16(const tensor_beamformer_config& c,
                                   const std::vector<cfloat>& w,
                                   const std::vector<cfloat>& x,
                                   size_t T)
{
    if (c.n_receivers % 2 == 0)
        return run_kernel<S, k::op_fp16, k::loader_fc32<S, 2>, 1>(c, w, x.data(), T);
    return run_kernel<S, k::op_fp16, k::loader_fc32<S, 1>, 1>(c, w, x.data(), T);
}

template <class S, int NPA>
std::vector<float> run_int1(const tensor_beamformer_config& c,
                            const std::vector<cfloat>& w,
                            const std::vector<uint32_t>& bits,
                            size_t T)
{
    if ((2 * c.words_per_channel()) % 4 == 0)
        return run_kernel<S, k::op_int1, k::loader_bits<S, true>, NPA>(
            c, w, bits.data(), T);
    return run_kernel<S, k::op_int1, k::loader_bits<S, false>, NPA>(c, w, bits.data(), T);
}

template <class S>
std::string tile_name()
{
    std::ostringstream s;
    s << S::BM << "x" << S::BN << "x" << S::BKB << "/" << S::WM << "x" << S::WN << "/"
      << S::STAGES;
    if (S::MIN_BLOCKS > 1)
        s << "+" << S::MIN_BLOCKS << "b";
    return s.str();
}

template <class S>
void check_fp16_single(
    size_t C, size_t R, size_t B, size_t T, beam_output o, size_t n_int)
{
    const auto c = make_config(
        C, R, B, beam_precision::float16, o, polarization_layout::single, n_int);
    const auto w = random_complex(c.weight_count(), unsigned(R * 7 + B));
    const auto x = random_complex(T * C * R, unsigned(T * 13 + C));
    const auto got = run_single_fp16<S>(c, w, x, T);
    const double err = rel_error(got, reference(c, w, x, T));
    std::cout << describe(c, T, tile_name<S>()) << ": relative error " << err << "\n";
    EXPECT_LT(err, 2e-6) << describe(c, T, tile_name<S>());
}

template <class S>
void check_fp16_xy(
    size_t C, size_t R, size_t B, size_t T, beam_output o, size_t n_int, stokes_mode st)
{
    const auto c = make_config(
        C, R, B, beam_precision::float16, o, polarization_layout::xy_pairs, n_int, st);
    const auto w = random_complex(c.weight_count(), unsigned(R * 5 + B));
    const auto x = random_complex(T * C * R, unsigned(T * 11 + C));
    const auto got =
        run_kernel<S, k::op_fp16, k::loader_fc32_xy<S>, 2>(c, w, x.data(), T);
    const double err = rel_error(got, reference(c, w, x, T));
    std::cout << describe(c, T, tile_name<S>()) << ": relative error " << err << "\n";
    EXPECT_LT(err, 2e-6) << describe(c, T, tile_name<S>());
}

template <class S, int NPA>
void check_int1(
    size_t C, size_t R, size_t B, size_t T, beam_output o, size_t n_int, stokes_mode st)
{
    const auto pol =
        NPA == 2 ? polarization_layout::xy_pairs : polarization_layout::single;
    const auto c = make_config(C, R, B, beam_precision::int1, o, pol, n_int, st);
    const auto w = random_complex(c.weight_count(), unsigned(R * 3 + B));
    const auto x = random_complex(T * C * R, unsigned(T * 17 + C));
    const auto bits = pack_bits(x, T, C, R);
    const auto got = run_int1<S, NPA>(c, w, bits, T);
    const auto ref = reference(c, w, x, T);
    const size_t bad = mismatches(got, ref);
    std::cout << describe(c, T, tile_name<S>()) << ": " << bad << " of " << ref.size()
              << " values differ from the exact result\n";
    EXPECT_EQ(bad, 0u) << describe(c, T, tile_name<S>());
}

/*!
 * One emulated execute() with the resident-weights kernel (shape S, loader L)
 * on at most \p max_blocks blocks (the engine's SMs x blocks per SM: a small
 * number here, so that blocks loop over several items).
 */
template <class S, class L>
std::vector<float> run_resident(const tensor_beamformer_config& c,
                                const std::vector<cfloat>& w,
                                const void* input,
                                size_t T,
                                size_t max_blocks)
{
    const tb_operand_layout layout = make_operand_layout(c, S::BM, S::BKB);
    if (layout.row_bytes > size_t(S::MAX_K_BYTES))
        throw std::invalid_argument("run_resident: k too long for the kernel");
    check_tensor_beamformer_times(c, T);
    std::vector<unsigned char> a(layout.total_bytes());
    expand_weights_fp16(layout, c, w, reinterpret_cast<uint16_t*>(a.data()));
    std::vector<float> out(output_floats(c, T), NAN); // poisoned: unwritten shows
    const tb_launch_plan plan = plan_launch(c,
                                            layout,
                                            S::BM,
                                            S::BN,
                                            S::BKB,
                                            T,
                                            a.data(),
                                            input,
                                            out.data(),
                                            nullptr,
                                            nullptr);
    if (plan.zero_output_bytes)
        std::memset(out.data(), 0, plan.zero_output_bytes);
    const size_t smem = k::resident_operand_smem_bytes<S>(layout.row_bytes) +
                        power_reduce_smem_bytes(c, S::BM, S::BN);
    emu::launch(
        unsigned(resident_blocks(plan.args, max_blocks)), 1, S::threads, smem, [&] {
            k::tensor_beamformer_resident_kernel<S, L>(plan.args);
        });
    finish_power(plan, out);
    return out;
}

/*!
 * The resident-weights kernel S on random inputs, against the definition
 * (same fp16 rounding: 2e-6) and against the CPU engine (the engines'
 * float16 contract: relative error norm <= 1e-3). fc32 input (the loader the
 * engine picks for R), or fp16 input.
 */
template <class S>
void check_resident(size_t C,
                    size_t R,
                    size_t B,
                    size_t T,
                    beam_output o,
                    size_t n_int,
                    size_t max_blocks,
                    bool fp16_input = false)
{
    const auto c = make_config(
        C, R, B, beam_precision::float16, o, polarization_layout::single, n_int);
    const auto w = random_complex(c.weight_count(), unsigned(R * 11 + B + T));
    const auto x = random_complex(T * C * R, unsigned(T * 7 + C + R));
    std::vector<float> got;
    std::string kind = "/resident";
    if (fp16_input) {
        const auto xh = interleaved_fp16(x);
        got = run_resident<S, k::loader_fp16_input<S>>(c, w, xh.data(), T, max_blocks);
        kind += " (fp16 input)";
    } else if (R % 2 == 0) {
        got = run_resident<S, k::loader_fc32<S, 2>>(c, w, x.data(), T, max_blocks);
    } else {
        got = run_resident<S, k::loader_fc32<S, 1>>(c, w, x.data(), T, max_blocks);
    }
    std::vector<float> cpu(output_floats(c, T), NAN);
    make_tensor_beamformer_cpu(c, w)->execute(x.data(), cpu.data(), T, nullptr);
    const double e_ref = rel_error(got, reference(c, w, x, T));
    const double e_cpu = rel_error(got, cpu);
    const std::string what =
        describe(c,
                 T,
                 std::to_string(S::BM) + "x" + std::to_string(S::BN) + kind + ", " +
                     std::to_string(max_blocks) + " blocks max");
    std::cout << what << ": relative error " << e_ref << " (definition), " << e_cpu
              << " (CPU engine)\n";
    EXPECT_LT(e_ref, 2e-6) << what; // NaN (an output never written) fails too
    EXPECT_LT(e_cpu, 1e-3) << what;
}

using k::tile_shape;
using small_fp16 = tile_shape<64, 128, 32, 64, 64, 4>;
using small_xy = tile_shape<64, 128, 32, 32, 64, 4>;
using small_int1 = tile_shape<64, 128, 32, 64, 64, 4>;
using small_int1_xy = tile_shape<64, 64, 32, 32, 64, 4>;

} // namespace

TEST(tensor_beamformer_emulated, fp16_voltage_odd_sizes)
{
    check_fp16_single<small_fp16>(3, 48, 155, 37, beam_output::voltage, 1);
    check_fp16_single<small_fp16>(2, 1, 9, 130, beam_output::voltage, 1); // 1 receiver
    check_fp16_single<small_fp16>(
        1, 33, 17, 5, beam_output::voltage, 1); // odd R: float2 loads
    check_fp16_single<small_fp16>(
        1, 70, 40, 129, beam_output::voltage, 1); // 2 k tiles + 8 bytes
    check_fp16_single<small_fp16>(
        1, 300, 20, 40, beam_output::voltage, 1); // 19 k tiles: steady state
}

TEST(tensor_beamformer_emulated, fp16_power)
{
    check_fp16_single<small_fp16>(
        3, 48, 33, 48, beam_output::power, 16); // shuffles, in-block windows
    check_fp16_single<small_fp16>(
        2, 33, 20, 150, beam_output::power, 3); // odd n_int, straddling
    check_fp16_single<small_fp16>(1, 20, 12, 60, beam_output::power, 6); // pairs
    check_fp16_single<small_fp16>(
        1, 16, 10, 256, beam_output::power, 256); // window > block
    check_fp16_single<small_fp16>(1, 16, 10, 37, beam_output::power, 1);
}

TEST(tensor_beamformer_emulated, fp16_xy)
{
    check_fp16_xy<small_xy>(3, 48, 155, 37, beam_output::voltage, 1, stokes_mode::I);
    check_fp16_xy<small_xy>(2, 34, 21, 48, beam_output::power, 8, stokes_mode::IQUV);
    check_fp16_xy<small_xy>(1, 2, 5, 45, beam_output::power, 5, stokes_mode::I);
    check_fp16_xy<small_xy>(1, 66, 8, 130, beam_output::power, 2, stokes_mode::IQUV);
}

TEST(tensor_beamformer_emulated, int1_single)
{
    check_int1<small_int1, 1>(3, 48, 155, 37, beam_output::voltage, 1, stokes_mode::I);
    check_int1<small_int1, 1>(1, 1, 3, 20, beam_output::voltage, 1, stokes_mode::I);
    check_int1<small_int1, 1>(2, 33, 17, 40, beam_output::power, 8, stokes_mode::I);
    check_int1<small_int1, 1>(
        1, 90, 9, 130, beam_output::voltage, 1, stokes_mode::I); // 3 words: 8-byte copies
    check_int1<small_int1, 1>(
        1, 520, 20, 24, beam_output::power, 3, stokes_mode::I); // 3 k tiles
    check_int1<small_int1, 1>(
        1, 3000, 20, 24, beam_output::voltage, 1, stokes_mode::I); // 12 k tiles
}

TEST(tensor_beamformer_emulated, int1_xy)
{
    check_int1<small_int1_xy, 2>(3, 48, 155, 37, beam_output::voltage, 1, stokes_mode::I);
    check_int1<small_int1_xy, 2>(
        2, 66, 19, 48, beam_output::power, 16, stokes_mode::IQUV);
    check_int1<small_int1_xy, 2>(1, 2, 3, 21, beam_output::power, 7, stokes_mode::I);
}

TEST(tensor_beamformer_emulated, fp16_input_gemm_core)
{
    using S = small_fp16;
    const auto c = make_config(2,
                               36,
                               21,
                               beam_precision::float16,
                               beam_output::voltage,
                               polarization_layout::single);
    const size_t T = 70;
    const auto w = random_complex(c.weight_count(), 5);
    const auto x = random_complex(T * c.n_channels * c.n_receivers, 6);
    const auto xh = interleaved_fp16(x);
    const auto got =
        run_kernel<S, k::op_fp16, k::loader_fp16_input<S>, 1>(c, w, xh.data(), T);
    const double err = rel_error(got, reference(c, w, x, T));
    std::cout << "fp16-input GEMM core: relative error " << err << "\n";
    EXPECT_LT(err, 2e-6);
}

// Every compiled tile shape once, on a size that leaves partial tiles in m, n and k.
#define BF_EMU_FP16(BM, BN, WM, WN, BKB, ST)                \
    check_fp16_single<tile_shape<BM, BN, WM, WN, BKB, ST>>( \
        1, 50, 70, 130, beam_output::voltage, 1);           \
    check_fp16_single<tile_shape<BM, BN, WM, WN, BKB, ST>>( \
        1, 300, 20, 20, beam_output::voltage, 1);
#define BF_EMU_XY(BM, BN, WM, WN, BKB, ST, MB)                    \
    check_fp16_xy<tile_shape<BM, BN, WM, WN, BKB, ST, MB>>(       \
        1, 50, 70, 72, beam_output::power, 4, stokes_mode::IQUV); \
    check_fp16_xy<tile_shape<BM, BN, WM, WN, BKB, ST, MB>>(       \
        1, 600, 10, 16, beam_output::voltage, 1, stokes_mode::I);
#define BF_EMU_INT1(BM, BN, WM, WN, BKB, ST)                       \
    check_int1<tile_shape<BM, BN, WM, WN, BKB, ST>, 1>(            \
        1, 300, 70, 130, beam_output::voltage, 1, stokes_mode::I); \
    check_int1<tile_shape<BM, BN, WM, WN, BKB, ST>, 1>(            \
        1, 90, 70, 130, beam_output::voltage, 1, stokes_mode::I);  \
    check_int1<tile_shape<BM, BN, WM, WN, BKB, ST>, 1>(            \
        1, 5000, 10, 16, beam_output::voltage, 1, stokes_mode::I);
#define BF_EMU_INT1_XY(BM, BN, WM, WN, BKB, ST)                    \
    check_int1<tile_shape<BM, BN, WM, WN, BKB, ST>, 2>(            \
        1, 100, 70, 72, beam_output::power, 8, stokes_mode::IQUV); \
    check_int1<tile_shape<BM, BN, WM, WN, BKB, ST>, 2>(            \
        1, 4000, 10, 16, beam_output::voltage, 1, stokes_mode::I);

TEST(tensor_beamformer_emulated, every_compiled_tile){
    BF_TB_FP16_SINGLE_TILES(BF_EMU_FP16) BF_TB_FP16_XY_TILES(BF_EMU_XY)
        BF_TB_INT1_SINGLE_TILES(BF_EMU_INT1) BF_TB_INT1_XY_TILES(BF_EMU_INT1_XY)
}

#define BF_EMU_WGMMA_FP16(BM, BN, ST)                                       \
    check_wgmma<k::wgmma_shape<BM, BN, ST>>(                                \
        beam_precision::float16, 2, 70, 100, 300, beam_output::voltage, 1); \
    check_wgmma<k::wgmma_shape<BM, BN, ST>>(                                \
        beam_precision::float16, 1, 300, 40, 40, beam_output::voltage, 1);  \
    check_wgmma<k::wgmma_shape<BM, BN, ST>>(                                \
        beam_precision::float16, 1, 33, 40, 100, beam_output::power, 4);    \
    check_wgmma<k::wgmma_shape<BM, BN, ST>>(                                \
        beam_precision::float16, 1, 36, 70, 130, beam_output::voltage, 1, true);
#define BF_EMU_WGMMA_INT1(BM, BN, ST)                                    \
    check_wgmma<k::wgmma_shape<BM, BN, ST>>(                             \
        beam_precision::int1, 1, 700, 70, 130, beam_output::voltage, 1); \
    check_wgmma<k::wgmma_shape<BM, BN, ST>>(                             \
        beam_precision::int1, 2, 90, 40, 64, beam_output::power, 16);    \
    check_wgmma<k::wgmma_shape<BM, BN, ST>>(                             \
        beam_precision::int1, 1, 5000, 20, 30, beam_output::voltage, 1);

TEST(tensor_beamformer_emulated,
     wgmma_tiles){ BF_TB_WGMMA_FP16_TILES(BF_EMU_WGMMA_FP16)
                       BF_TB_WGMMA_INT1_TILES(BF_EMU_WGMMA_INT1) }

// The warp-specialised kernel: odd sizes (155 beams x 46 receivers x 3
// channels; 1 beam; 1 receiver), k tiles from 1 to many, persistent blocks
// that loop over several tiles (the ring's phases run on across tiles),
// windows that cross time tiles (n_int 3, 48), windows of the lengths the
// epilogue has as constants (16, 32) and of one it has not (48), every
// sample source.
#define BF_EMU_WS_FP16(BM, BN, ST, PREGS)                                           \
    check_ws<k::ws_shape<BM, BN, ST, PREGS>>(                                       \
        beam_precision::float16, 3, 46, 155, 70, beam_output::voltage, 1, 4);       \
    check_ws<k::ws_shape<BM, BN, ST, PREGS>>(                                       \
        beam_precision::float16, 3, 46, 155, 304, beam_output::power, 16, 5);       \
    check_ws<k::ws_shape<BM, BN, ST, PREGS>>(                                       \
        beam_precision::float16, 2, 1, 1, 300, beam_output::power, 3, 2);           \
    check_ws<k::ws_shape<BM, BN, ST, PREGS>>(                                       \
        beam_precision::float16, 1, 300, 40, 40, beam_output::voltage, 1, 1);       \
    check_ws<k::ws_shape<BM, BN, ST, PREGS>>(                                       \
        beam_precision::float16, 2, 33, 40, 288, beam_output::power, 48, 3);        \
    check_ws<k::ws_shape<BM, BN, ST, PREGS>>(                                       \
        beam_precision::float16, 2, 70, 40, 320, beam_output::power, 32, 3);        \
    check_ws<k::ws_shape<BM, BN, ST, PREGS>>(                                       \
        beam_precision::float16, 3, 36, 70, 300, beam_output::voltage, 1, 4, true); \
    check_ws<k::ws_shape<BM, BN, ST, PREGS>>(                                       \
        beam_precision::float16, 2, 200, 90, 128, beam_output::power, 16, 2, true);
#define BF_EMU_WS_INT1(BM, BN, ST, PREGS)                                    \
    check_ws<k::ws_shape<BM, BN, ST, PREGS>>(                                \
        beam_precision::int1, 2, 128, 155, 130, beam_output::voltage, 1, 3); \
    check_ws<k::ws_shape<BM, BN, ST, PREGS>>(                                \
        beam_precision::int1, 2, 1000, 40, 304, beam_output::power, 16, 2);  \
    check_ws<k::ws_shape<BM, BN, ST, PREGS>>(                                \
        beam_precision::int1, 1, 64, 1, 20, beam_output::voltage, 1, 1);

TEST(tensor_beamformer_emulated,
     warp_specialised_tiles){ BF_TB_WS_FP16_TILES(BF_EMU_WS_FP16)
                                  BF_TB_WS_INT1_TILES(BF_EMU_WS_INT1) }

// The in-kernel pass: odd sizes (155 beams x 46 receivers; 33 and 1
// receivers: one complex per load), k padded past the receivers (200: 7 k
// tiles, the last one part padding; the rows start as NaN, so padding not
// written as zeros shows), time not a multiple of the tile (the last slab's
// parts past the times), voltage and power.
template <int VEC>
void check_inline_pass(size_t C, size_t R, size_t B, size_t T, beam_output o, size_t n_int)
{
    using W = k::ws_shape<128, 256, 4, 104>;
    const auto c =
        make_config(C, R, B, beam_precision::float16, o, polarization_layout::single, n_int);
    const auto w = random_complex(c.weight_count(), unsigned(R * 7 + B));
    const auto x = random_complex(T * C * R, unsigned(T * 13 + C));
    const auto got = run_ws_inline_pass<W, VEC>(c, w, x, T);
    expect_matches_definition(c, T, "ws 128x256/4+ipass", got, reference(c, w, x, T));
}

TEST(tensor_beamformer_emulated, warp_specialised_inline_pass)
{
    check_inline_pass<2>(3, 46, 155, 304, beam_output::power, 16);
    check_inline_pass<2>(2, 200, 90, 300, beam_output::voltage, 1);
    check_inline_pass<1>(2, 33, 40, 288, beam_output::power, 48);
    check_inline_pass<1>(2, 1, 1, 300, beam_output::power, 3);
    check_inline_pass<2>(1, 300, 40, 40, beam_output::voltage, 1);
}

TEST(tensor_beamformer_emulated, inline_pass_counts_the_float16_range)
{
    using W = k::ws_shape<128, 256, 4, 104>;
    const size_t T = W::BN + 7;
    const auto c = make_config(
        2, 46, 70, beam_precision::float16, beam_output::voltage, polarization_layout::single);
    auto x = random_complex(T * c.n_channels * c.n_receivers, 79);
    x[5] = cfloat(1e5f, 0.25f);              // rounds to inf
    x[x.size() / 3] = cfloat(0.5f, 1e-9f);   // rounds to 0
    x.back() = cfloat(2e-8f, 65520.0f);      // both, the last value
    const auto want = count_float16_range(x.data(), x.size());
    unsigned long long counts[2] = { 0, 0 };
    run_ws_inline_pass<W, 2>(c, random_complex(c.weight_count(), 80), x, T, counts);
    EXPECT_EQ(counts[0], want.overflow);
    EXPECT_EQ(counts[1], want.underflow);
}

// Resident samples: odd sizes (155 beams x 46 receivers: 3 row tiles, 1 k
// tile), 1 beam x 1 receiver, the most k (160 receivers: 5 k tiles), voltage
// stored by TMA (a multiple of 32 beams: 96, whose last 64-beam tile is half
// past the beams, so that a box issued there would overwrite the next
// channel's first beams, and 64) and by the warps (155, 70, 40, 1), blocks
// that loop over several items (the ring's phases and the samples' barrier
// run on across items), windows inside and across warps' columns (n_int 16,
// 3, 48; 8, 16 and 32 are the epilogue's constant lengths), every sample source; with and
// without ping-pong consumers (an odd number of 64-row tiles: 155 beams, 1 beam).
#define BF_EMU_WS_RESIDENT(BM, BN, ST, PREGS, PP)                              \
    check_ws<k::ws_shape<BM, BN, ST, PREGS, PP>, true>(                        \
        beam_precision::float16, 3, 46, 155, 300, beam_output::voltage, 1, 2); \
    check_ws<k::ws_shape<BM, BN, ST, PREGS, PP>, true>(                        \
        beam_precision::float16, 3, 96, 155, 304, beam_output::power, 16, 4);  \
    check_ws<k::ws_shape<BM, BN, ST, PREGS, PP>, true>(                        \
        beam_precision::float16, 2, 1, 1, 300, beam_output::power, 3, 1);      \
    check_ws<k::ws_shape<BM, BN, ST, PREGS, PP>, true>(                        \
        beam_precision::float16, 2, 160, 70, 288, beam_output::power, 48, 3);  \
    check_ws<k::ws_shape<BM, BN, ST, PREGS, PP>, true>(                        \
        beam_precision::float16, 2, 40, 70, 256, beam_output::power, 32, 2);   \
    check_ws<k::ws_shape<BM, BN, ST, PREGS, PP>, true>(                        \
        beam_precision::float16, 1, 24, 33, 136, beam_output::power, 8, 2);    \
    check_ws<k::ws_shape<BM, BN, ST, PREGS, PP>, true>(                        \
        beam_precision::float16, 1, 33, 40, 100, beam_output::voltage, 1, 1);  \
    check_ws<k::ws_shape<BM, BN, ST, PREGS, PP>, true>(                        \
        beam_precision::float16, 3, 64, 70, 300, beam_output::voltage, 1, 2);  \
    check_ws<k::ws_shape<BM, BN, ST, PREGS, PP>, true>(                        \
        beam_precision::float16, 3, 46, 96, 200, beam_output::voltage, 1, 3);  \
    check_ws<k::ws_shape<BM, BN, ST, PREGS, PP>, true>(                        \
        beam_precision::float16, 2, 33, 64, 100, beam_output::voltage, 1, 1);  \
    check_ws<k::ws_shape<BM, BN, ST, PREGS, PP>, true>(                        \
        beam_precision::float16, 3, 36, 70, 300, beam_output::power, 4, 2, true);

TEST(tensor_beamformer_emulated, warp_specialised_resident_samples)
{
    BF_TB_WS_RESIDENT_TILES(BF_EMU_WS_RESIDENT)
}

//! The resident-samples kernel on float16 X/Y pairs from fc32 (tile W) with
//! BUFFERS sets of samples ("+db": two); k past what the tile covers is
//! skipped.
template <class W, int BUFFERS = 1>
void check_ws_resident_xy(size_t C,
                          size_t R,
                          size_t B,
                          size_t T,
                          beam_output o,
                          size_t n_int,
                          stokes_mode st,
                          unsigned blocks)
{
    const int max_k_tiles =
        BUFFERS == 2 ? k::ws_resident_double_max_k_tiles : k::ws_resident_max_k_tiles;
    if (R / 2 > size_t(max_k_tiles) * W::BKB / 4)
        return;
    const auto c = make_config(
        C, R, B, beam_precision::float16, o, polarization_layout::xy_pairs, n_int, st);
    const auto w = random_complex(c.weight_count(), unsigned(R * 3 + B + 5));
    const auto x = random_complex(T * C * R, unsigned(T * 7 + C + 4));
    const auto got = run_ws<W, k::op_fp16, k::ws_samples_fc32_xy<W>, true, BUFFERS>(
        c, w, x.data(), T, blocks);
    const std::string tile = "ws+rs" + std::string(W::PINGPONG ? "+pp" : "") +
                             std::string(BUFFERS == 2 ? "+db" : "") +
                             std::string(W::SHORT_WINDOWS ? "+sw" : "") + " xy " +
                             std::to_string(W::BM) + "x" + std::to_string(W::BN) + "/" +
                             std::to_string(W::STAGES) + ", " + std::to_string(blocks) +
                             " blocks";
    expect_matches_definition(c, T, tile, got, reference(c, w, x, T));
}

//! An X/Y case of the warp-specialised kernels: C x R x B x T, output,
//! window, Stokes, persistent blocks.
struct xy_case {
    size_t C, R, B, T;
    beam_output o;
    size_t n_int;
    stokes_mode st;
    unsigned blocks;
};

// X/Y pairs: 155 beams x 23 antennas x 3 channels (3 row tiles, 1 k tile per
// polarization, time not a multiple of the tile), 1 beam x 1 antenna, the
// most k (160 antennas: 5 k tiles per polarization; "+db": 64, 2 k tiles),
// Stokes IQUV and I with windows inside and across time tiles, blocks that
// loop over several items (more items per block than raw stages: their
// phases wrap).
template <class W, int BUFFERS>
void check_ws_resident_xy_cases()
{
    const xy_case cases[] = {
        { 3, 46, 155, 300, beam_output::voltage, 1, stokes_mode::I, 2 },
        { 2, 92, 155, 304, beam_output::power, 16, stokes_mode::IQUV, 3 },
        { 2, 2, 1, 131, beam_output::voltage, 1, stokes_mode::I, 1 },
        { 1, 320, 40, 130, beam_output::power, 5, stokes_mode::I, 2 },
        { 2, 128, 70, 288, beam_output::power, 48, stokes_mode::IQUV, 3 },
        { 3, 128, 155, 1000, beam_output::voltage, 1, stokes_mode::I, 4 },
        // windows of 1, 2 and 4 steps (in registers in the "+sw" kernel;
        // n_int 1 channel-major, then transposed)
        { 3, 46, 155, 260, beam_output::power, 1, stokes_mode::IQUV, 2 },
        { 2, 62, 70, 300, beam_output::power, 2, stokes_mode::I, 3 },
        { 2, 64, 40, 256, beam_output::power, 4, stokes_mode::IQUV, 2 },
        // past what two sets hold (one set only): 75 and 159 antennas
        { 2, 150, 70, 260, beam_output::power, 1, stokes_mode::IQUV, 2 },
        { 1, 318, 40, 128, beam_output::power, 4, stokes_mode::I, 2 },
    };
    for (const auto& x : cases)
        check_ws_resident_xy<W, BUFFERS>(
            x.C, x.R, x.B, x.T, x.o, x.n_int, x.st, x.blocks);
}
#define BF_EMU_WS_RESIDENT_XY(BM, BN, ST, PREGS, SW) \
    check_ws_resident_xy_cases<k::ws_shape<BM, BN, ST, PREGS, false, SW>, 1>();
#define BF_EMU_WS_RESIDENT_XY_DB(BM, BN, ST, PREGS, PP, SW) \
    check_ws_resident_xy_cases<k::ws_shape<BM, BN, ST, PREGS, PP, SW>, 2>();

TEST(tensor_beamformer_emulated, warp_specialised_resident_xy)
{
    BF_TB_WS_RESIDENT_XY_TILES(BF_EMU_WS_RESIDENT_XY)
    BF_TB_WS_RESIDENT_XY_DB_TILES(BF_EMU_WS_RESIDENT_XY_DB)
}

/*!
 * The X/Y kernel whose samples stream through the ring (tile W): more
 * antennas than the resident tiles hold (200: 7 k tiles per polarization,
 * the last partial), odd beams, time not a multiple of the tile, voltage and
 * power (I and IQUV, windows of 1, 2, 4 and 16 steps), blocks that loop over
 * several tiles (the ring's phases run on across them).
 */
template <class W>
void check_ws_xy_stream_cases()
{
    const xy_case cases[] = {
        { 2, 400, 70, 200, beam_output::voltage, 1, stokes_mode::I, 3 },
        { 1, 46, 155, 130, beam_output::voltage, 1, stokes_mode::I, 2 },
        { 2, 400, 40, 256, beam_output::power, 16, stokes_mode::IQUV, 2 },
        { 1, 330, 65, 260, beam_output::power, 1, stokes_mode::IQUV, 2 },
        { 2, 2, 1, 132, beam_output::power, 2, stokes_mode::I, 1 },
        { 1, 400, 40, 264, beam_output::power, 4, stokes_mode::I, 2 },
    };
    for (const auto& x : cases) {
        const auto c = make_config(x.C,
                                   x.R,
                                   x.B,
                                   beam_precision::float16,
                                   x.o,
                                   polarization_layout::xy_pairs,
                                   x.n_int,
                                   x.st);
        const auto w = random_complex(c.weight_count(), unsigned(x.R * 5 + x.B + 3));
        const auto in = random_complex(x.T * x.C * x.R, unsigned(x.T * 3 + x.C + 8));
        const auto got = run_ws<W, k::op_fp16, xy_planes>(c, w, in.data(), x.T, x.blocks);
        const std::string tile = "ws xy streamed+pass" +
                                 std::string(W::SHORT_WINDOWS ? "+sw " : " ") +
                                 std::to_string(W::BM) + "x" + std::to_string(W::BN) + "/" +
                                 std::to_string(W::STAGES) + ", " +
                                 std::to_string(x.blocks) + " blocks";
        expect_matches_definition(c, x.T, tile, got, reference(c, w, in, x.T));
    }
}
#define BF_EMU_WS_XY(BM, BN, ST, PREGS, SW) \
    check_ws_xy_stream_cases<k::ws_shape<BM, BN, ST, PREGS, false, SW>>();

TEST(tensor_beamformer_emulated, warp_specialised_xy_streamed)
{
    BF_TB_WS_XY_TILES(BF_EMU_WS_XY)
}

/*!
 * The resident-samples kernel counts the float16 range of the fc32 values it
 * converts, each once (no separate counting pass runs before it): values
 * that round to inf and to 0 placed in the first, a middle and the last time
 * tile, counted against the host's count_float16_range.
 */
template <class W, class Samples, int BUFFERS = 1>
void check_resident_range_count(polarization_layout pol, size_t R)
{
    const size_t T = 2 * W::BN + 5;
    const auto c =
        make_config(2, R, 70, beam_precision::float16, beam_output::voltage, pol);
    auto x = random_complex(T * c.n_channels * R, 77);
    x[3] = cfloat(1e5f, 0.25f);                  // rounds to inf
    x[17] = cfloat(0.5f, 1e-9f);                 // rounds to 0
    x[x.size() / 2] = cfloat(-7e4f, -3e-8f);     // inf; -3e-8 stays a subnormal
    x.back() = cfloat(2e-8f, 65520.0f);          // both, the last value
    const auto want = count_float16_range(x.data(), x.size());
    unsigned long long counts[2] = { 0, 0 };
    run_ws<W, k::op_fp16, Samples, true, BUFFERS>(
        c, random_complex(c.weight_count(), 78), x.data(), T, 2, counts);
    std::cout << "range count, R=" << R
              << (pol == polarization_layout::xy_pairs ? " xy" : "")
              << (BUFFERS == 2 ? " +db" : "") << ": " << counts[0] << " overflows, "
              << counts[1] << " underflows (host " << want.overflow << ", "
              << want.underflow << ")\n";
    EXPECT_EQ(counts[0], want.overflow);
    EXPECT_EQ(counts[1], want.underflow);
}

TEST(tensor_beamformer_emulated, resident_samples_count_the_float16_range)
{
    using Wsingle = k::ws_shape<128, 256, 3, 104>;
    using Wxy = k::ws_shape<128, 128, 4, 104>;
    using Wdb = k::ws_shape<128, 128, 2, 104>;
    check_resident_range_count<Wsingle, k::ws_samples_fc32<Wsingle, 2>>(
        polarization_layout::single, 46);
    check_resident_range_count<Wsingle, k::ws_samples_fc32<Wsingle, 1>>(
        polarization_layout::single, 33);
    check_resident_range_count<Wxy, k::ws_samples_fc32_xy<Wxy>>(
        polarization_layout::xy_pairs, 46);
    check_resident_range_count<Wdb, k::ws_samples_fc32_xy<Wdb>, 2>(
        polarization_layout::xy_pairs, 46);
}

// The resident-weights (short-k) kernel: odd sizes, persistent blocks that
// loop over several items, time not a multiple of the tile, windows that
// cross time tiles, voltage and power, both fc32 loaders and fp16 input.
using resident_small = k::resident_shape<64, 32, 32, 16, 1>;

TEST(tensor_beamformer_emulated, resident_weights_odd_sizes)
{
    using S = resident_small;
    // 155 beams x 46 receivers x 3 channels: 5 m tiles, 2 k tiles (184 -> 192 bytes)
    check_resident<S>(3, 46, 155, 70, beam_output::voltage, 1, 4);
    check_resident<S>(3, 46, 155, 80, beam_output::power, 16, 4);
    check_resident<S>(2, 1, 1, 45, beam_output::voltage, 1, 3);    // 1 receiver, 1 beam
    check_resident<S>(2, 1, 9, 48, beam_output::power, 6, 1);      // one block does all
    check_resident<S>(1, 33, 17, 100, beam_output::voltage, 1, 2); // odd R: float2 loads
    check_resident<S>(
        2, 128, 20, 75, beam_output::voltage, 1, 3);            // k = 512 bytes, the most
    check_resident<S>(2, 20, 40, 99, beam_output::power, 3, 2); // odd n_int: straddling
    check_resident<S>(1, 16, 10, 96, beam_output::power, 48, 5);  // windows > tile
    check_resident<S>(3, 24, 30, 64, beam_output::power, 1, 100); // every item its block
    check_resident<S>(2, 36, 21, 70, beam_output::voltage, 1, 3, true); // fp16 input
    check_resident<S>(2, 36, 21, 64, beam_output::power, 8, 3, true);
}

#define BF_EMU_RESIDENT(BM, BN, WM, WN, MB)                  \
    check_resident<k::resident_shape<BM, BN, WM, WN, MB>>(   \
        2, 50, 70, 2 * BN + 3, beam_output::voltage, 1, 2);  \
    check_resident<k::resident_shape<BM, BN, WM, WN, MB>>(   \
        2, 96, 140, 2 * BN + 16, beam_output::power, 16, 3); \
    check_resident<k::resident_shape<BM, BN, WM, WN, MB>>(   \
        1, 33, 20, 5 * (BN / 5 + 3), beam_output::power, 5, 1);

TEST(tensor_beamformer_emulated,
     resident_weights_compiled_tiles){ BF_TB_FP16_RESIDENT_TILES(BF_EMU_RESIDENT) }

TEST(tensor_beamformer_layout, half_rounding)
{
    EXPECT_EQ(float_to_half_bits(1.0f), 0x3c00);
    EXPECT_EQ(float_to_half_bits(-2.0f), 0xc000);
    EXPECT_EQ(float_to_half_bits(65504.0f), 0x7bff);
    EXPECT_EQ(float_to_half_bits(65519.99f), 0x7bff);
    EXPECT_EQ(float_to_half_bits(65520.0f), 0x7c00);
    EXPECT_EQ(float_to_half_bits(0.1f), 0x2e66);
    EXPECT_EQ(float_to_half_bits(1.0f / 3.0f), 0x3555);
    EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -24)), 0x0001);
    EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -25)), 0x0000);        // tie to even
    EXPECT_EQ(float_to_half_bits(std::ldexp(3.0f, -25)), 0x0002);        // tie to even
    EXPECT_EQ(float_to_half_bits(1.0f + std::ldexp(1.0f, -11)), 0x3c00); // tie to even
    EXPECT_EQ(float_to_half_bits(1.0f + std::ldexp(3.0f, -11)), 0x3c02);
    for (uint32_t h = 0; h < 0x7c00; h++) // every finite half survives the round trip
        ASSERT_EQ(float_to_half_bits(half_bits_to_float(uint16_t(h))), h);
}

TEST(tensor_beamformer_layout, block_order_covers_every_tile_once)
{
    for (int C : { 1, 3, 8, 13 })
        for (int mt : { 1, 5, 17 })
            for (int nt : { 1, 4, 9 }) {
                std::vector<int> seen(size_t(C) * mt * nt, 0);
                const int group = C < 8 ? C : 8;
                for (long long b = 0; b < (long long)C * mt * nt; b++) {
                    const auto tc = tb::map_block(b, C, mt, nt, group, 8);
                    ASSERT_GE(tc.channel, 0);
                    ASSERT_LT(tc.channel, C);
                    ASSERT_LT(tc.m_tile, mt);
                    ASSERT_LT(tc.n_tile, nt);
                    seen[(size_t(tc.channel) * mt + tc.m_tile) * nt + tc.n_tile]++;
                }
                for (int s : seen)
                    ASSERT_EQ(s, 1);
            }
}
