/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The GPU tensor beamformer and bit packer against the CPU engines (and the
 * beamformer also against its definition, tb_reference.h), for every mode
 * (float16 / int1, voltage / power, single / xy_pairs with Stokes I and IQUV)
 * and odd sizes, and the CUDA engine's library voltage path ("cublas": cuBLAS
 * on expanded weights), with outputs poisoned (NaN) before every run. Tolerances:
 * float16 relative error norm < 1e-3, int1 exact. Each case prints its error
 * norms. Skips with the reason where there is no GPU.
 */
#include <gnuradio/beamform/engines/bit_packer_engine.h>
#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include "tb_reference.h"
#include "test_util.h"
#ifdef BEAMFORM_HAVE_CUDA
#include "tensor_beamformer_testing.h"
#endif
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <thread>

using namespace gr::beamform;
using namespace beamform_test;
using tb_reference::cfloat;

namespace {

struct case_t {
    size_t channels, receivers, beams, times;
};

//! The odd sizes of the brief, plus one with several k, m and n tiles.
const case_t sizes_single[] = {
    { 3, 48, 155, 37 }, { 2, 1, 7, 45 }, { 1, 33, 20, 131 }, { 2, 520, 300, 261 }
};
//! xy_pairs needs an even number of receivers.
const case_t sizes_xy[] = {
    { 3, 48, 155, 37 }, { 2, 2, 7, 45 }, { 1, 34, 20, 131 }, { 2, 520, 70, 261 }
};

//! Input bytes for one run: fc32 spectra, or the 1-bit packing of them.
std::vector<uint8_t>
input_bytes(const tensor_beamformer_config& c, const std::vector<cfloat>& x, size_t T)
{
    std::vector<uint8_t> bytes;
    if (c.precision == beam_precision::int1) {
        const auto bits = tb_reference::pack_bits(x, T, c.n_channels, c.n_receivers);
        bytes.resize(bits.size() * 4);
        std::memcpy(bytes.data(), bits.data(), bytes.size());
    } else {
        bytes.resize(x.size() * sizeof(cfloat));
        std::memcpy(bytes.data(), x.data(), bytes.size());
    }
    return bytes;
}

//! One execute() on the GPU into a poisoned output; every element read back.
std::vector<float> run_gpu(tensor_beamformer_engine& engine,
                           const device_spec& gpu,
                           const std::vector<uint8_t>& in,
                           size_t T,
                           gpu_stream* stream = nullptr)
{
    const size_t n_out = tb_reference::output_floats(engine.config(), T);
    auto d_in = to_device(gpu, in);
    device_memory d_out(gpu, n_out * sizeof(float));
    poison(gpu, d_out);
    engine.execute(d_in.get(), d_out.get(), T, stream ? stream->get() : nullptr);
    if (stream)
        stream->synchronize();
    gpu_api_for(gpu.kind).synchronize(gpu.index, nullptr);
    return to_host<float>(gpu, d_out, n_out);
}

std::vector<float> run_cpu(const tensor_beamformer_config& c,
                           const std::vector<cfloat>& w,
                           const std::vector<uint8_t>& in,
                           size_t T)
{
    std::vector<float> out(tb_reference::output_floats(c, T), NAN);
    make_tensor_beamformer_cpu(c, w)->execute(in.data(), out.data(), T, nullptr);
    return out;
}

//! GPU vs CPU engine vs definition; prints the norms; returns false on failure.
void check(const tensor_beamformer_config& c,
           size_t T,
           const device_spec& gpu,
           unsigned seed,
           const std::string& tile = "")
{
    const auto w = tb_reference::random_complex(c.weight_count(), seed);
    const auto x =
        tb_reference::random_complex(T * c.n_channels * c.n_receivers, seed + 1);
    const auto in = input_bytes(c, x, T);
    std::unique_ptr<tensor_beamformer_engine> engine;
    std::string used_tile = "(hip)";
#ifdef BEAMFORM_HAVE_CUDA
    if (gpu.kind == backend::cuda) {
        engine = tb_testing::make_gpu_tiled(c, w, gpu, tile);
        used_tile = tb_testing::tile(*engine);
    }
#endif
    if (!engine)
        engine = tensor_beamformer_engine::make(c, w, gpu);
    const auto got = run_gpu(*engine, gpu, in, T);
    const auto cpu = run_cpu(c, w, in, T);
    const auto ref = tb_reference::reference(c, w, x, T);
    const std::string what = tb_reference::describe(c, T, used_tile);
    if (c.precision == beam_precision::int1) {
        const size_t bad_cpu = tb_reference::mismatches(got, cpu);
        const size_t bad_ref = tb_reference::mismatches(got, ref);
        std::cout << what << ": " << bad_cpu << " of " << got.size()
                  << " values differ from the CPU engine, " << bad_ref
                  << " from the definition (must be 0: exact)\n";
        EXPECT_EQ(bad_cpu, 0u) << what;
        EXPECT_EQ(bad_ref, 0u) << what;
    } else {
        const double e_cpu = tb_reference::rel_error(got, cpu);
        const double e_ref = tb_reference::rel_error(got, ref);
        std::cout << what << ": relative error norm vs CPU engine " << e_cpu
                  << ", vs definition " << e_ref << " (limit 1e-3)\n";
        EXPECT_LT(e_cpu, 1e-3) << what; // NaN (unwritten output) fails too
        EXPECT_LT(e_ref, 1e-3) << what;
    }
}

/*!
 * Weights set between two execute() calls on one stream take effect at the
 * second, wholly; two updates before an execute: the last one. \p tile ""
 * = the engine's own choice (tensor_beamformer_engine::make).
 */
void check_weight_update(const tensor_beamformer_config& c,
                         const device_spec& gpu,
                         const std::string& tile)
{
    const size_t T = 37;
    const auto w1 = tb_reference::random_complex(c.weight_count(), 21);
    const auto w2 = tb_reference::random_complex(c.weight_count(), 22);
    const auto x = tb_reference::random_complex(T * c.n_channels * c.n_receivers, 23);
    const auto in = input_bytes(c, x, T);
    std::unique_ptr<tensor_beamformer_engine> engine;
#ifdef BEAMFORM_HAVE_CUDA
    if (!tile.empty())
        engine = tb_testing::make_gpu_tiled(c, w1, gpu, tile);
#endif
    if (!engine)
        engine = tensor_beamformer_engine::make(c, w1, gpu);
    gpu_stream stream(gpu);
    const auto first = run_gpu(*engine, gpu, in, T, &stream);
    engine->set_weights(w2);
    const auto second = run_gpu(*engine, gpu, in, T, &stream);
    // set twice before an execute: only the last one counts
    engine->set_weights(w1);
    engine->set_weights(w2);
    const auto third = run_gpu(*engine, gpu, in, T, &stream);
    const auto ref1 = run_cpu(c, w1, in, T);
    const auto ref2 = run_cpu(c, w2, in, T);
    const double e1 = tb_reference::rel_error(first, ref1);
    const double e2 = tb_reference::rel_error(second, ref2);
    const double e3 = tb_reference::rel_error(third, ref2);
    const double e_mixed = tb_reference::rel_error(second, ref1);
    std::cout << tb_reference::describe(c, T, tile.empty() ? "(engine's choice)" : tile)
              << " weight update: error before " << e1 << ", after " << e2
              << ", after two updates " << e3 << ", after vs old weights " << e_mixed
              << "\n";
    const double limit = c.precision == beam_precision::int1 ? 0.0 : 1e-3;
    EXPECT_LE(e1, limit);
    EXPECT_LE(e2, limit);
    EXPECT_LE(e3, limit);
    EXPECT_GT(e_mixed, 0.5); // the new weights, entirely
}

} // namespace

TEST(tensor_beamformer_gpu, float16_voltage_single)
{
    REQUIRE_GPU(gpu);
    for (const auto& s : sizes_single)
        check(tb_reference::make_config(s.channels,
                                        s.receivers,
                                        s.beams,
                                        beam_precision::float16,
                                        beam_output::voltage,
                                        polarization_layout::single),
              s.times,
              gpu,
              1);
}

TEST(tensor_beamformer_gpu, float16_power_single)
{
    REQUIRE_GPU(gpu);
    // 8, 16, 32: the epilogue's constant window lengths; 1, 3: run-time ones
    for (size_t n_int : { 1, 3, 8, 16, 32 })
        for (const auto& s : sizes_single)
            check(tb_reference::make_config(s.channels,
                                            s.receivers,
                                            s.beams,
                                            beam_precision::float16,
                                            beam_output::power,
                                            polarization_layout::single,
                                            n_int),
                  n_int * (s.times / n_int + 1),
                  gpu,
                  2);
}

TEST(tensor_beamformer_gpu, float16_xy_pairs)
{
    REQUIRE_GPU(gpu);
    for (const auto& s : sizes_xy) {
        check(tb_reference::make_config(s.channels,
                                        s.receivers,
                                        s.beams,
                                        beam_precision::float16,
                                        beam_output::voltage,
                                        polarization_layout::xy_pairs),
              s.times,
              gpu,
              3);
        for (auto st : { stokes_mode::I, stokes_mode::IQUV })
            for (size_t n_int : { 1, 5, 16 })
                check(tb_reference::make_config(s.channels,
                                                s.receivers,
                                                s.beams,
                                                beam_precision::float16,
                                                beam_output::power,
                                                polarization_layout::xy_pairs,
                                                n_int,
                                                st),
                      n_int * (s.times / n_int + 1),
                      gpu,
                      4);
    }
}

TEST(tensor_beamformer_gpu, int1_single)
{
    REQUIRE_GPU(gpu);
    for (const auto& s : sizes_single) {
        check(tb_reference::make_config(s.channels,
                                        s.receivers,
                                        s.beams,
                                        beam_precision::int1,
                                        beam_output::voltage,
                                        polarization_layout::single),
              s.times,
              gpu,
              5);
        for (size_t n_int : { 1, 3, 16 })
            check(tb_reference::make_config(s.channels,
                                            s.receivers,
                                            s.beams,
                                            beam_precision::int1,
                                            beam_output::power,
                                            polarization_layout::single,
                                            n_int),
                  n_int * (s.times / n_int + 1),
                  gpu,
                  6);
    }
}

TEST(tensor_beamformer_gpu, int1_xy_pairs)
{
    REQUIRE_GPU(gpu);
    for (const auto& s : sizes_xy) {
        check(tb_reference::make_config(s.channels,
                                        s.receivers,
                                        s.beams,
                                        beam_precision::int1,
                                        beam_output::voltage,
                                        polarization_layout::xy_pairs),
              s.times,
              gpu,
              7);
        for (auto st : { stokes_mode::I, stokes_mode::IQUV })
            check(tb_reference::make_config(s.channels,
                                            s.receivers,
                                            s.beams,
                                            beam_precision::int1,
                                            beam_output::power,
                                            polarization_layout::xy_pairs,
                                            4,
                                            st),
                  4 * (s.times / 4 + 1),
                  gpu,
                  8);
    }
}

#ifdef BEAMFORM_HAVE_CUDA
//! The tiles to test on this GPU: wgmma ones only where its sm_90a image runs,
//! resident-weights ones only where their shared memory fits.
std::vector<std::string> usable_tiles(const tensor_beamformer_config& c,
                                      const device_spec& gpu)
{
    std::vector<std::string> out;
    const bool wgmma = tb_testing::wgmma_available(gpu.index);
    for (const auto& t : tb_testing::compiled_tiles(c)) {
        const bool sm90a =
            t.find("/wgmma/") != std::string::npos || t.find("/ws/") != std::string::npos;
        if (!wgmma && sm90a)
            continue;
        if (tb_testing::tile_usable(c, gpu.index, t))
            out.push_back(t);
        else
            std::cout << tb_reference::describe(c, 0, t)
                      << ": needs more shared memory than this GPU has, not tested\n";
    }
    return out;
}

TEST(tensor_beamformer_gpu, kernel_choice_and_resident_weights)
{
    REQUIRE_GPU(gpu);
    if (gpu.kind != backend::cuda)
        GTEST_SKIP() << "CUDA kernel choice";
    // Power output with short k (64, 96 and 160 receivers), beams a multiple
    // of 128. Built in: the warp-specialised tile with resident samples where
    // the GPU runs the sm_90a image (its consumers side by side, no
    // ping-pong), else the pipelined mma.sync tile; BEAMFORM_TB_VARIANT=resident forces
    // the resident-weights kernel, =pipelined the mma.sync one.
    auto c = tb_reference::make_config(3,
                                       64,
                                       256,
                                       beam_precision::float16,
                                       beam_output::power,
                                       polarization_layout::single,
                                       16);
    const std::string builtin = tb_testing::builtin_tile(c, gpu.index);
    const bool sm90a = tb_testing::wgmma_available(gpu.index);
    if (sm90a)
        EXPECT_EQ(builtin, "128x256x128/ws/3+rs");
    else
        EXPECT_EQ(builtin, tb_testing::default_tile(c));
    for (size_t rx : { 96, 160 }) {
        c.n_receivers = rx;
        EXPECT_EQ(tb_testing::builtin_tile(c, gpu.index),
                  sm90a ? "128x256x128/ws/3+rs" : tb_testing::default_tile(c));
    }
    c.n_receivers = 64;
    EXPECT_EQ(tb_testing::default_tile(c).find("/resident"), std::string::npos);
    check(c, 16 * 41, gpu, 12); // the built-in choice
    // Fewer than 32 receivers and 128 beams: the least padded mma.sync tile
    // (faster than "+rs" there on an H200); from 32 receivers "+rs" again.
    auto small = c;
    small.n_receivers = 5;
    small.n_beams = 16;
    EXPECT_EQ(tb_testing::builtin_tile(small, gpu.index), tb_testing::default_tile(small));
    check(small, 16 * 9, gpu, 28);
    small.n_receivers = 32;
    EXPECT_EQ(tb_testing::builtin_tile(small, gpu.index),
              sm90a ? "128x256x128/ws/3+rs" : tb_testing::default_tile(small));

    scoped_env variant("BEAMFORM_TB_VARIANT", "resident");
    EXPECT_NE(tb_testing::builtin_tile(c, gpu.index).find("/resident"), std::string::npos);
    check(c, 16 * 41, gpu, 13); // 6 time tiles of 128, the last partial
    c.n_receivers = 96;         // the reference station's k
    c.n_int = 3;                // windows that cross time tiles
    check(c, 3 * 101, gpu, 14);
    c.output = beam_output::voltage; // forced on for voltage output too
    c.n_int = 1;
    EXPECT_NE(tb_testing::default_tile(c).find("/resident"), std::string::npos);
    check(c, 300, gpu, 15);

    variant.set("pipelined");
    const std::string pipelined = tb_testing::builtin_tile(c, gpu.index);
    EXPECT_EQ(pipelined.find("/resident"), std::string::npos) << pipelined;
    EXPECT_EQ(pipelined.find("/wgmma/"), std::string::npos) << pipelined;
    check(c, 300, gpu, 16);
    variant.set(nullptr);

    // xy pairs, LOFAR's 155 beams: the resident-samples kernel on Hopper,
    // with two sample sets up to 64 antennas, elsewhere the least padded (310
    // rows: 384 in 128-row tiles, 320 in 64-row ones); 20 beams the same;
    // power output (Stokes I and IQUV) in ping-pong; 80 antennas one sample
    // set.
    auto xy = tb_reference::make_config(3,
                                        46,
                                        155,
                                        beam_precision::float16,
                                        beam_output::voltage,
                                        polarization_layout::xy_pairs);
    const std::string xy_tile = tb_testing::builtin_tile(xy, gpu.index);
    const bool hopper = tb_testing::wgmma_available(gpu.index);
    if (hopper)
        EXPECT_EQ(xy_tile, "128x128x128/ws/2+rs+db");
    else
        EXPECT_EQ(xy_tile, tb_testing::default_tile(xy));
    check(xy, 211, gpu, 17);
    xy.n_receivers = 160;
    EXPECT_EQ(tb_testing::builtin_tile(xy, gpu.index),
              hopper ? "128x128x128/ws/4+rs" : tb_testing::default_tile(xy));
    check(xy, 211, gpu, 21);
    xy.n_receivers = 46;
    xy.n_beams = 32;
    EXPECT_EQ(tb_testing::builtin_tile(xy, gpu.index),
              hopper ? "128x128x128/ws/2+rs+db" : tb_testing::default_tile(xy));
    xy.n_beams = 20; // fewer than 32 X/Y beams: the library path from Hopper on
    if (tb_testing::compute_capability_major(gpu.index) >= 9)
        EXPECT_EQ(tb_testing::builtin_tile(xy, gpu.index), "cublas");
    // Windows of 1, 2 and 4 steps: the "+sw" kernel sums them in registers
    // (IQUV at n_int 4, n_int 1 and 2 written channel-major and transposed);
    // longer windows the ping-pong kernel without it.
    xy.n_beams = 155;
    xy.output = beam_output::power;
    for (size_t n_int : { 4, 8 })
        for (auto stokes : { stokes_mode::I, stokes_mode::IQUV }) {
            xy.stokes = stokes;
            xy.n_int = n_int;
            EXPECT_EQ(tb_testing::builtin_tile(xy, gpu.index),
                      !hopper     ? tb_testing::default_tile(xy)
                      : n_int < 8 ? "128x128x128/ws/4+rs+pp+db+sw"
                                  : "128x128x128/ws/4+rs+pp+db");
            check(xy, n_int * 53, gpu, 18 + int(stokes));
        }
    // Without the shared sums two sample sets fit at 64 antennas too.
    xy.n_receivers = 128;
    for (size_t n_int : { 1, 2 }) {
        xy.stokes = n_int == 1 ? stokes_mode::I : stokes_mode::IQUV;
        xy.n_int = n_int;
        EXPECT_EQ(tb_testing::builtin_tile(xy, gpu.index),
                  hopper ? "128x128x128/ws/4+rs+pp+db+sw" : tb_testing::default_tile(xy));
        check(xy, 130, gpu, 22 + int(n_int));
    }
    // More receivers than two sample sets hold: one set ("+rs"), with the
    // short windows in registers ("+sw") at n_int 1, 2, 4 (before it, IQUV at
    // n_int 1 found no room for its shared sums and ran on mma.sync).
    xy.n_receivers = 160;
    for (auto stokes : { stokes_mode::I, stokes_mode::IQUV })
        for (size_t n_int : { 8, 1, 2 }) {
            if (stokes == stokes_mode::IQUV && n_int == 8)
                continue; // I at 8 covers the longer windows
            xy.stokes = stokes;
            xy.n_int = n_int;
            EXPECT_EQ(tb_testing::builtin_tile(xy, gpu.index),
                      !hopper     ? tb_testing::default_tile(xy)
                      : n_int < 8 ? "128x128x128/ws/4+rs+sw"
                                  : "128x128x128/ws/4+rs");
            check(xy, n_int * 136, gpu, 26 + int(stokes));
        }
    // Past what the resident tiles hold (200 antennas): the X/Y kernel that
    // streams its samples from the pass's fp16 planes ("+pass", "+sw" for the
    // short windows).
    xy.n_receivers = 400;
    xy.stokes = stokes_mode::IQUV;
    for (size_t n_int : { 16, 2 }) {
        xy.n_int = n_int;
        EXPECT_EQ(tb_testing::builtin_tile(xy, gpu.index),
                  !hopper     ? tb_testing::default_tile(xy)
                  : n_int < 8 ? "128x128x128/ws/3+pass+sw"
                              : "128x128x128/ws/3+pass");
        check(xy, n_int * 20, gpu, 28);
    }
}

TEST(tensor_beamformer_gpu, every_compiled_tile)
{
    REQUIRE_GPU(gpu);
    if (gpu.kind != backend::cuda)
        GTEST_SKIP() << "CUDA tile variants";
    std::cout << "wgmma (sm_90a) kernels "
              << (tb_testing::wgmma_available(gpu.index)
                      ? "available: tested too"
                      : "not available on this GPU: not tested")
              << "\n";
    const polarization_layout pols[] = { polarization_layout::single,
                                         polarization_layout::xy_pairs };
    for (auto prec : { beam_precision::float16, beam_precision::int1 })
        for (auto pol : pols)
            for (size_t rx : { 50, 90 }) { // int1: 2 words (16-byte copies), 3 (8-byte)
                // IQUV needs polarization pairs; single polarization has only I.
                const auto stokes = pol == polarization_layout::xy_pairs ? stokes_mode::IQUV
                                                                         : stokes_mode::I;
                auto c = tb_reference::make_config(
                    2, rx, 70, prec, beam_output::power, pol, 4, stokes);
                for (const auto& tile : usable_tiles(c, gpu)) {
                    check(c, 132, gpu, 9, tile);
                    auto v = c; // voltage output integrates nothing
                    v.output = beam_output::voltage;
                    v.n_int = 1;
                    check(v, 131, gpu, 10, tile);
                }
            }
    // float16 with an odd receiver count (loads of one complex value).
    const auto odd = tb_reference::make_config(1,
                                               33,
                                               40,
                                               beam_precision::float16,
                                               beam_output::voltage,
                                               polarization_layout::single);
    for (const auto& tile : usable_tiles(odd, gpu))
        check(odd, 100, gpu, 11, tile);
    // Long k (many pipeline stages in steady state), both precisions.
    for (auto prec : { beam_precision::float16, beam_precision::int1 }) {
        const auto longk =
            tb_reference::make_config(1,
                                      prec == beam_precision::int1 ? 9000 : 1500,
                                      40,
                                      prec,
                                      beam_output::voltage,
                                      polarization_layout::single);
        for (const auto& tile : usable_tiles(longk, gpu))
            check(longk, 150, gpu, 12, tile);
    }
}

/*!
 * The warp-specialised (TMA) tiles on odd sizes: 155 beams x 46 receivers x
 * 3 channels, 1 beam x 1 receiver, k tiles from 1 to many, windows that cross
 * time tiles, int1 with 16-byte sample rows, single-polarization voltage
 * (96 and 64 beams, multiples of 32: stored by TMA in the resident-samples
 * kernel; 70 and 155 by the warps), float16 X/Y pairs (the resident-samples kernel: 23
 * antennas, 160 (the most k), 1, Stokes IQUV; the streamed X/Y kernel: 200 and 201
 * antennas); outputs NaN-poisoned (run_gpu).
 */
TEST(tensor_beamformer_gpu, warp_specialised_tiles)
{
    REQUIRE_GPU(gpu);
    if (gpu.kind != backend::cuda || !tb_testing::wgmma_available(gpu.index))
        GTEST_SKIP() << "needs a GPU that runs the sm_90a image (H100, H200)";
    using tb_reference::make_config;
    const auto single = polarization_layout::single;
    const auto xy = polarization_layout::xy_pairs;
    const auto f16 = beam_precision::float16;
    const tensor_beamformer_config cases[] = {
        make_config(3, 46, 155, beam_precision::float16, beam_output::voltage, single),
        make_config(3, 64, 70, beam_precision::float16, beam_output::voltage, single),
        make_config(3, 46, 155, beam_precision::float16, beam_output::power, single, 16),
        make_config(2, 1, 1, beam_precision::float16, beam_output::power, single, 3),
        make_config(2, 96, 70, beam_precision::float16, beam_output::power, single, 32),
        make_config(1, 1500, 70, beam_precision::float16, beam_output::voltage, single),
        make_config(2, 128, 155, beam_precision::int1, beam_output::voltage, single),
        make_config(2, 1000, 40, beam_precision::int1, beam_output::power, single, 16),
        make_config(1, 9000, 30, beam_precision::int1, beam_output::voltage, single),
        make_config(3, 46, 155, f16, beam_output::voltage, xy),
        make_config(2, 92, 155, f16, beam_output::power, xy, 16, stokes_mode::IQUV),
        make_config(2, 2, 1, f16, beam_output::voltage, xy),
        make_config(1, 320, 40, f16, beam_output::voltage, xy),
        make_config(3, 46, 96, f16, beam_output::voltage, single),
        make_config(2, 33, 64, f16, beam_output::voltage, single),
        // More tiles (400) than SMs, k padded past 200 receivers: the
        // in-kernel pass's blocks wait for each other's spare warps.
        make_config(16, 200, 300, f16, beam_output::power, single, 16),
        // X/Y past the resident tiles (200 antennas): the streamed X/Y kernel.
        make_config(2, 400, 70, f16, beam_output::power, xy, 2, stokes_mode::IQUV),
        make_config(1, 402, 33, f16, beam_output::power, xy, 16, stokes_mode::I),
    };
    const size_t times[] = { 70,  300, 304, 300, 320, 130, 130, 304,  100,
                             300, 304, 131, 130, 200, 300, 1040, 300, 272 };
    size_t tested = 0;
    for (size_t i = 0; i < std::size(cases); i++)
        for (const auto& tile : usable_tiles(cases[i], gpu))
            if (tile.find("/ws/") != std::string::npos) {
                check(cases[i], times[i], gpu, unsigned(40 + i), tile);
                tested++;
            }
    EXPECT_GT(tested, 0u) << "no warp-specialised tile was usable";
}

/*!
 * Two engines run the in-kernel pass ("+ipass") on two streams, their calls
 * enqueued alternately with no host wait between them. A block of that kernel
 * waits for the other blocks' spare warps, so two launches side by side could
 * each hold part of the SMs and wait for ever; the engine orders them (one
 * launch at a time per device). Both outputs must match the CPU engine.
 */
TEST(tensor_beamformer_gpu, inline_pass_on_two_streams)
{
    REQUIRE_GPU(gpu);
    if (gpu.kind != backend::cuda || !tb_testing::wgmma_available(gpu.index))
        GTEST_SKIP() << "needs a GPU that runs the sm_90a image (H100, H200)";
    const auto c = tb_reference::make_config(16,
                                             200,
                                             300,
                                             beam_precision::float16,
                                             beam_output::power,
                                             polarization_layout::single,
                                             16);
    const std::string tile = "128x256x128/ws/4+ipass";
    const size_t T = 1040, calls = 4;
    const size_t n_out = tb_reference::output_floats(c, T);
    struct side {
        std::vector<cfloat> w;
        std::vector<uint8_t> in;
        std::unique_ptr<tensor_beamformer_engine> engine;
        std::unique_ptr<device_memory> d_in, d_out;
        std::unique_ptr<gpu_stream> stream;
    };
    side sides[2];
    for (unsigned i = 0; i < 2; i++) {
        auto& s = sides[i];
        s.w = tb_reference::random_complex(c.weight_count(), 70 + 2 * i);
        const auto x =
            tb_reference::random_complex(T * c.n_channels * c.n_receivers, 71 + 2 * i);
        s.in = input_bytes(c, x, T);
        s.engine = tb_testing::make_gpu_tiled(c, s.w, gpu, tile);
        ASSERT_EQ(tb_testing::tile(*s.engine), tile);
        s.d_in = std::make_unique<device_memory>(to_device(gpu, s.in));
        s.d_out = std::make_unique<device_memory>(gpu, n_out * sizeof(float));
        s.stream = std::make_unique<gpu_stream>(gpu);
    }
    for (auto& s : sides)
        poison(gpu, *s.d_out); // before the calls: poison() waits for the device
    for (size_t k = 0; k < calls; k++)
        for (auto& s : sides)
            s.engine->execute(s.d_in->get(), s.d_out->get(), T, s.stream->get());
    for (auto& s : sides) {
        s.stream->synchronize();
        const auto got = to_host<float>(gpu, *s.d_out, n_out);
        const double e = tb_reference::rel_error(got, run_cpu(c, s.w, s.in, T));
        std::cout << tb_reference::describe(c, T, tile) << ", " << calls
                  << " calls on each of two streams: relative error norm vs CPU engine "
                  << e << " (limit 1e-3)\n";
        EXPECT_LT(e, 1e-3);
    }
}

TEST(tensor_beamformer_gpu, tuning_file_selects_tile)
{
    REQUIRE_GPU(gpu);
    if (gpu.kind != backend::cuda)
        GTEST_SKIP() << "CUDA tuning file";
    const auto c = tb_reference::make_config(1,
                                             64,
                                             40,
                                             beam_precision::float16,
                                             beam_output::voltage,
                                             polarization_layout::single);
    const auto tiles = usable_tiles(c, gpu);
    ASSERT_GE(tiles.size(), 2u);
    const std::string path = "/tmp/beamform_tuning_test.txt";
    const auto w = tb_reference::random_complex(c.weight_count(), 3);
    scoped_env tuning_file("BEAMFORM_TUNING_FILE", path.c_str());
    for (const std::string& wanted : { tiles[0], tiles.back() }) {
        std::ofstream(path) << "# test\n"
                            << tb_testing::tuning_key(c, gpu.index) << " = " << wanted
                            << "\n";
        auto engine = tensor_beamformer_engine::make(c, w, gpu);
        EXPECT_EQ(tb_testing::tile(*engine), wanted);
    }
    std::ofstream(path) << tb_testing::tuning_key(c, gpu.index) << " = 1x2x3/4x5/6\n";
    auto engine =
        tensor_beamformer_engine::make(c, w, gpu); // warns, uses the built-in tile
    EXPECT_EQ(tb_testing::tile(*engine), tb_testing::builtin_tile(c, gpu.index));
    std::remove(path.c_str());
}

//! The library voltage path's configurations: float16 voltage, both layouts.
tensor_beamformer_config
library_config(size_t channels, size_t receivers, size_t beams, polarization_layout pol)
{
    return tb_reference::make_config(
        channels, receivers, beams, beam_precision::float16, beam_output::voltage, pol);
}

TEST(tensor_beamformer_gpu, library_voltage_path)
{
    REQUIRE_GPU(gpu);
    if (gpu.kind != backend::cuda)
        GTEST_SKIP() << "the library path is CUDA's (cuBLAS)";
    const std::string library = tb_testing::library_path();
    for (auto pol : { polarization_layout::single, polarization_layout::xy_pairs }) {
        const bool xy = pol == polarization_layout::xy_pairs;
        // 155 beams x 46 receivers x 3 channels (k padded 92 -> 96), 1 beam,
        // 1 receiver (xy_pairs: 1 antenna), and rows with no padding
        check(library_config(3, 46, 155, pol), 37, gpu, 31, library);
        check(library_config(2, 46, 1, pol), 45, gpu, 32, library);
        check(library_config(3, xy ? 2 : 1, 20, pol), 41, gpu, 33, library);
        check(library_config(2, 128, 70, pol), 131, gpu, 34, library);
        check_weight_update(library_config(3, 46, 155, pol), gpu, library);
    }
}

/*!
 * The float16 range counts of execute() with \p tile: values that round to
 * inf and to 0 in the first, a middle and the last time step, against the
 * host's count_float16_range. Ten calls, so that the engine's eight counter
 * slots wrap: after each, input_range(false) holds a whole number of calls
 * (those whose counts reached the host, in order), never more than were made
 * and never fewer than before; polled afterwards it comes to hold all of them,
 * and input_range(true) all ten at the end.
 */
void expect_range_counted(const tensor_beamformer_config& c,
                          size_t T,
                          const device_spec& gpu,
                          const std::string& tile)
{
    auto x = tb_reference::random_complex(T * c.n_channels * c.n_receivers, 41);
    x[3] = cfloat(1e5f, 0.25f);                      // rounds to inf
    x[17] = cfloat(0.5f, 1e-9f);                     // rounds to 0
    x[x.size() / 2] = cfloat(-7e4f, -1e-8f);         // both
    x.back() = cfloat(2e-8f, 65520.0f);              // both, the last value
    const auto expected = count_float16_range(x.data(), x.size());
    ASSERT_GE(expected.overflow, 1u);
    auto engine = tb_testing::make_gpu_tiled(
        c, tb_reference::random_complex(c.weight_count(), 42), gpu, tile);
    const auto in = input_bytes(c, x, T);
    const uint64_t calls = 10;
    uint64_t seen = 0;
    for (uint64_t n = 1; n <= calls; n++) {
        run_gpu(*engine, gpu, in, T); // synchronizes
        const auto lagging = engine->input_range(false);
        const uint64_t k = lagging.overflow / expected.overflow;
        EXPECT_EQ(lagging.overflow, k * expected.overflow) << tile << " after call " << n;
        EXPECT_EQ(lagging.underflow, k * expected.underflow) << tile << " after call " << n;
        EXPECT_LE(k, n) << tile;
        EXPECT_GE(k, seen) << tile;
        seen = k;
    }
    // Without waiting, the last copies arrive within microseconds.
    auto idle = engine->input_range(false);
    for (int i = 0; i < 5000 && idle.overflow < calls * expected.overflow; i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        idle = engine->input_range(false);
    }
    EXPECT_EQ(idle.overflow, calls * expected.overflow) << tile;
    EXPECT_EQ(idle.underflow, calls * expected.underflow) << tile;
    const auto got = engine->input_range(true);
    std::cout << tile << " range counts of " << calls << " calls: " << got.overflow
              << " overflows, " << got.underflow
              << " underflows (host, one call: " << expected.overflow << ", "
              << expected.underflow << "); " << seen
              << " calls' counts on the host after the last call, without waiting\n";
    EXPECT_EQ(got.overflow, calls * expected.overflow) << tile;
    EXPECT_EQ(got.underflow, calls * expected.underflow) << tile;
}

TEST(tensor_beamformer_gpu, library_path_counts_the_float16_range)
{
    REQUIRE_GPU(gpu);
    if (gpu.kind != backend::cuda)
        GTEST_SKIP() << "the library path is CUDA's (cuBLAS)";
    expect_range_counted(library_config(2, 46, 7, polarization_layout::single),
                         5,
                         gpu,
                         tb_testing::library_path());
}

//! The resident-samples kernels and the in-kernel pass ("+ipass") count the
//! range as they convert (no pass before them): even and odd R, X/Y pairs,
//! several time tiles per channel.
TEST(tensor_beamformer_gpu, resident_samples_count_the_float16_range)
{
    REQUIRE_GPU(gpu);
    if (gpu.kind != backend::cuda || !tb_testing::wgmma_available(gpu.index))
        GTEST_SKIP() << "needs a GPU that runs the sm_90a image (H100, H200)";
    size_t tested = 0;
    for (const auto pol : { polarization_layout::single, polarization_layout::xy_pairs })
        for (const size_t R : { size_t(46), size_t(33) }) {
            if (pol == polarization_layout::xy_pairs && R % 2)
                continue;
            const auto c = library_config(3, R, 70, pol);
            for (const auto& tile : usable_tiles(c, gpu))
                if (tile.find("+rs") != std::string::npos ||
                    tile.find("+ipass") != std::string::npos) {
                    expect_range_counted(c, 600, gpu, tile);
                    tested++;
                }
        }
    EXPECT_GE(tested, 3u);
}

TEST(tensor_beamformer_gpu, library_path_choice)
{
    REQUIRE_GPU(gpu);
    if (gpu.kind != backend::cuda)
        GTEST_SKIP() << "the library path is CUDA's (cuBLAS)";
    const std::string library = tb_testing::library_path();
    // An explicit choice outside float16 voltage output: the parameter, the
    // value and the tiles accepted instead.
    for (auto prec : { beam_precision::float16, beam_precision::int1 })
        for (auto out : { beam_output::voltage, beam_output::power }) {
            if (prec == beam_precision::float16 && out == beam_output::voltage)
                continue;
            const auto c = tb_reference::make_config(2,
                                                     64,
                                                     8,
                                                     prec,
                                                     out,
                                                     polarization_layout::single,
                                                     out == beam_output::power ? 4 : 1);
            try {
                tb_testing::make_gpu_tiled(
                    c, tb_reference::random_complex(c.weight_count(), 1), gpu, library);
                ADD_FAILURE() << "no exception for "
                              << tb_reference::describe(c, 0, library);
            } catch (const std::invalid_argument& e) {
                const std::string m = e.what();
                EXPECT_NE(m.find("tile 'cublas'"), std::string::npos) << m;
                EXPECT_NE(m.find(tb_testing::compiled_tiles(c).front()),
                          std::string::npos)
                    << m;
            }
        }

    // The built-in rule: single-polarization voltage from 64 receivers on
    // compute capability 9 and later, from 128 before; power stays fused.
    const int major = tb_testing::compute_capability_major(gpu.index);
    auto c = library_config(2, major >= 9 ? 64 : 128, 40, polarization_layout::single);
    EXPECT_EQ(tb_testing::builtin_tile(c, gpu.index), library);
    auto engine = tensor_beamformer_engine::make(
        c, tb_reference::random_complex(c.weight_count(), 2), gpu);
    EXPECT_EQ(tb_testing::tile(*engine), library);
    check(c, 50, gpu, 35); // the engine's own choice
    auto fewer = c;
    fewer.n_receivers = c.n_receivers - 1;
    fewer.n_beams = 130; // enough beams to fill the fused kernel's tiles
    EXPECT_NE(tb_testing::builtin_tile(fewer, gpu.index), library);
    // Shapes that leave the fused kernel's tiles mostly empty take the
    // library path from compute capability 9 on: fewer than 128 beams or 16
    // receivers (single polarization), fewer than 32 X/Y beams.
    auto few_beams = fewer;
    few_beams.n_beams = 127;
    auto few_receivers = fewer;
    few_receivers.n_receivers = 15;
    for (const auto& small : { few_beams, few_receivers }) {
        EXPECT_EQ(tb_testing::builtin_tile(small, gpu.index) == library, major >= 9)
            << tb_reference::describe(small, 0, "");
    }
    if (major >= 9)
        check(few_receivers, 33, gpu, 38); // the engine's own choice
    // On Hopper the fused kernel stores whole boxes of 32 beams by TMA, and
    // runs up to 128 receivers in the library path's place.
    auto boxed = c;
    boxed.n_beams = 64;
    if (major == 9 && tb_testing::wgmma_available(gpu.index)) {
        EXPECT_EQ(tb_testing::builtin_tile(boxed, gpu.index), "128x256x128/ws/6+rs+pp");
        check(boxed, 70, gpu, 36);
        boxed.n_receivers = 129;
    }
    EXPECT_EQ(tb_testing::builtin_tile(boxed, gpu.index), library);
    auto power = tb_reference::make_config(2,
                                           512,
                                           40,
                                           beam_precision::float16,
                                           beam_output::power,
                                           polarization_layout::single,
                                           4);
    EXPECT_NE(tb_testing::builtin_tile(power, gpu.index), library);
    // X/Y voltage: fused where a resident-samples tile covers it, and past
    // that (256 antennas) in the streamed X/Y kernel on a GPU running the
    // sm_90a image; the library path where forced.
    auto xy = library_config(2, 512, 40, polarization_layout::xy_pairs);
    if (tb_testing::wgmma_available(gpu.index))
        EXPECT_EQ(tb_testing::builtin_tile(xy, gpu.index), "128x128x128/ws/3+pass");
    EXPECT_NE(tb_testing::builtin_tile(xy, gpu.index), library);
    auto xy_resident = library_config(2, 96, 40, polarization_layout::xy_pairs);
    EXPECT_NE(tb_testing::builtin_tile(xy_resident, gpu.index), library);
    {
        scoped_env variant("BEAMFORM_TB_VARIANT", "cublas"); // forced wherever it applies
        EXPECT_EQ(tb_testing::builtin_tile(xy, gpu.index), library);
        EXPECT_NE(tb_testing::builtin_tile(power, gpu.index), library);
    }

    // The tuning file: this GPU's key chooses; another GPU's does not steer
    // this one; an entry of 'cublas' for power output warns and is ignored.
    const std::string path = "/tmp/beamform_tuning_library_test.txt";
    const std::string kernel_tile = tb_testing::builtin_kernel_tile(c, gpu.index);
    std::ofstream(path) << "Some Other GPU/" << tb_testing::shape_class(c) << " = "
                        << kernel_tile << "\n"
                        << tb_testing::tuning_key(power, gpu.index) << " = cublas\n";
    scoped_env tuning_file("BEAMFORM_TUNING_FILE", path.c_str());
    EXPECT_EQ(tb_testing::tile(*tensor_beamformer_engine::make(
                  c, tb_reference::random_complex(c.weight_count(), 3), gpu)),
              library);
    EXPECT_EQ(tb_testing::tile(*tensor_beamformer_engine::make(
                  power, tb_reference::random_complex(power.weight_count(), 3), gpu)),
              tb_testing::builtin_tile(power, gpu.index));
    std::ofstream(path) << tb_testing::tuning_key(c, gpu.index) << " = " << kernel_tile
                        << "\n"
                        << tb_testing::tuning_key(xy, gpu.index) << " = cublas\n";
    EXPECT_EQ(tb_testing::tile(*tensor_beamformer_engine::make(
                  c, tb_reference::random_complex(c.weight_count(), 3), gpu)),
              kernel_tile);
    auto xy_engine = tensor_beamformer_engine::make(
        xy, tb_reference::random_complex(xy.weight_count(), 3), gpu);
    EXPECT_EQ(tb_testing::tile(*xy_engine), library);
    // files without device names (before them): their keys apply to every GPU
    std::ofstream(path) << tb_testing::shape_class(c) << " = " << kernel_tile << "\n";
    EXPECT_EQ(tb_testing::tile(*tensor_beamformer_engine::make(
                  c, tb_reference::random_complex(c.weight_count(), 3), gpu)),
              kernel_tile);
    std::remove(path.c_str());
}
#endif

TEST(tensor_beamformer_gpu, weight_update_takes_effect_at_next_execute)
{
    REQUIRE_GPU(gpu);
    for (auto prec : { beam_precision::float16, beam_precision::int1 })
        check_weight_update(
            tb_reference::make_config(
                3, 48, 155, prec, beam_output::voltage, polarization_layout::single),
            gpu,
            "");
}

TEST(tensor_beamformer_gpu, rejects_bad_sizes)
{
    REQUIRE_GPU(gpu);
    const auto c = tb_reference::make_config(1,
                                             8,
                                             4,
                                             beam_precision::float16,
                                             beam_output::power,
                                             polarization_layout::single,
                                             4);
    const auto w = tb_reference::random_complex(c.weight_count(), 1);
    auto engine = tensor_beamformer_engine::make(c, w, gpu);
    device_memory d_in(gpu, 8 * 8 * 8), d_out(gpu, 1024);
    EXPECT_THROW(engine->execute(d_in.get(), d_out.get(), 6, nullptr),
                 std::invalid_argument);
    EXPECT_THROW(engine->set_weights(std::vector<cfloat>(3)), std::invalid_argument);
}

TEST(bit_packer_gpu, matches_cpu_exactly)
{
    REQUIRE_GPU(gpu);
    for (size_t rx : { 1, 31, 32, 33, 100, 1000 })
        for (size_t ch : { 1, 3 }) {
            const size_t T = 57;
            bit_packer_config c;
            c.n_channels = ch;
            c.n_receivers = rx;
            auto x = tb_reference::random_complex(T * ch * rx, unsigned(rx + ch));
            x[0] = cfloat(0.0f, -0.0f); // zero counts as +1
            std::vector<uint32_t> ref(T * c.packed_item_words(), 0xdeadbeef);
            make_bit_packer_cpu(c)->execute(x.data(), ref.data(), T, nullptr);
            auto d_in = to_device(gpu, x);
            device_memory d_bits(gpu, ref.size() * 4);
            poison(gpu, d_bits);
            bit_packer_engine::make(c, gpu)->execute(
                d_in.as<cfloat>(), d_bits.as<uint32_t>(), T, nullptr);
            gpu_api_for(gpu.kind).synchronize(gpu.index, nullptr);
            const auto bits = to_host<uint32_t>(gpu, d_bits, ref.size());
            size_t bad = 0;
            for (size_t i = 0; i < bits.size(); i++)
                bad += bits[i] != ref[i];
            // The definition too (padding bits 0).
            const auto def = tb_reference::pack_bits(x, T, ch, rx);
            size_t bad_def = 0;
            for (size_t i = 0; i < bits.size(); i++)
                bad_def += bits[i] != def[i];
            std::cout << "bit_packer rx=" << rx << " ch=" << ch << ": " << bad << " of "
                      << bits.size() << " words differ from the CPU engine, " << bad_def
                      << " from the definition\n";
            EXPECT_EQ(bad, 0u);
            EXPECT_EQ(bad_def, 0u);

            // And back: +-1 +-1j with the signs of x.
            device_memory d_back(gpu, x.size() * sizeof(cfloat));
            poison(gpu, d_back);
            bit_unpacker_engine::make(c, gpu)->execute(
                d_bits.as<uint32_t>(), d_back.as<cfloat>(), T, nullptr);
            gpu_api_for(gpu.kind).synchronize(gpu.index, nullptr);
            const auto back = to_host<cfloat>(gpu, d_back, x.size());
            std::vector<cfloat> back_cpu(x.size());
            make_bit_unpacker_cpu(c)->execute(ref.data(), back_cpu.data(), T, nullptr);
            size_t bad_back = 0;
            for (size_t i = 0; i < x.size(); i++) {
                const cfloat want(x[i].real() >= 0 ? 1.f : -1.f,
                                  x[i].imag() >= 0 ? 1.f : -1.f);
                bad_back += !(back[i] == want) || !(back_cpu[i] == want);
            }
            EXPECT_EQ(bad_back, 0u) << "unpacker rx=" << rx;
        }
}
