/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The HIP tensor beamformer's kernels (kernels/hip/tensor_beamformer_mfma_kernel.cuh)
 * run on the CPU through kernels/emulation/gpu_emulation.h with 64-lane
 * wavefronts, against the definition: the HIP engine is compile-checked only (no AMD GPU anywhere in
 * this project), so this is the only execution its code gets. The MFMA
 * instruction is modelled from AMD's documented register layout of
 * v_mfma_f32_16x16x16f16; if that layout were misread, model and kernel would
 * share the misreading.
 */
// The host model of the GPU built-ins, before any kernel header.
#include <emulation/gpu_emulation.h>
#include <hip/tensor_beamformer_mfma_kernel.cuh>

#include "engines/tensor_beamformer/tensor_beamformer_expand.h"
#include "tb_reference.h"
#include <gtest/gtest.h>
#include <iostream>

using namespace gr::beamform;
using namespace tb_reference;
namespace m = gr::beamform::hip::mfma;

namespace {

//! One emulated execute() of the HIP engine (same steps as tensor_beamformer_hip.cu).
std::vector<float> run_hip(const tensor_beamformer_config& c,
                           const std::vector<cfloat>& w,
                           const std::vector<cfloat>& x,
                           size_t T)
{
    const bool xy = c.polarization == polarization_layout::xy_pairs;
    const bool power = c.output == beam_output::power;
    std::vector<float> out(output_floats(c, T), NAN);
    if (power)
        std::fill(out.begin(), out.end(), 0.0f);
    if (c.precision == beam_precision::float16) {
        const auto l = make_operand_layout(c, m::BM, m::BKB);
        std::vector<uint16_t> a(l.total_bytes() / 2);
        expand_weights_fp16(l, c, w, a.data());
        m::args_t args{};
        args.weights = reinterpret_cast<const unsigned char*>(a.data());
        args.input = reinterpret_cast<const float2*>(x.data());
        args.out = out.data();
        args.n_channels = int(c.n_channels);
        args.n_beams = int(c.n_beams);
        args.n_times = int(T);
        args.n_receivers = int(c.n_receivers);
        args.rows = int(l.rows);
        args.row_bytes = int(l.row_bytes);
        args.k_tiles = int(l.row_bytes / m::BKB);
        args.power = power;
        args.iquv = c.n_stokes() == 4;
        args.n_int = int(power ? c.n_int : 1);
        const unsigned gx = unsigned((T + m::BN - 1) / m::BN),
                       gy = unsigned(l.rows / m::BM);
        if (xy)
            emu::launch(
                gx,
                gy,
                m::THREADS,
                m::lds_bytes<2>(),
                [&] { m::beamformer_mfma_kernel<2>(args); },
                unsigned(c.n_channels),
                64);
        else
            emu::launch(
                gx,
                gy,
                m::THREADS,
                m::lds_bytes<1>(),
                [&] { m::beamformer_mfma_kernel<1>(args); },
                unsigned(c.n_channels),
                64);
        return out;
    }
    const auto l = make_operand_layout(c, 16, 32);
    std::vector<uint32_t> a(l.total_bytes() / 4);
    std::vector<int32_t> pc(l.total_rows());
    expand_weights_int1(l, c, w, a.data(), pc.data());
    const auto bits = pack_bits(x, T, c.n_channels, c.n_receivers);
    m::int1_args_t args{};
    args.weights = a.data();
    args.row_popc = pc.data();
    args.input = bits.data();
    args.out = out.data();
    args.n_channels = int(c.n_channels);
    args.n_beams = int(c.n_beams);
    args.n_times = int(T);
    args.n_receivers = int(c.n_receivers);
    args.words = int(c.words_per_channel());
    args.rows = int(l.rows);
    args.row_words = int(l.row_bytes / 4);
    args.npol = int(l.npol);
    args.k_valid = int(l.k_valid);
    args.power = power;
    args.iquv = c.n_stokes() == 4;
    args.n_int = int(power ? c.n_int : 1);
    emu::launch(
        3, 1, 256, 0, [&] { m::beamformer_int1_kernel(args); }, 1, 64);
    return out;
}

void check(const tensor_beamformer_config& c, size_t T)
{
    const auto w = random_complex(c.weight_count(), unsigned(c.n_receivers + c.n_beams));
    const auto x = random_complex(T * c.n_channels * c.n_receivers, unsigned(T + 3));
    const auto got = run_hip(c, w, x, T);
    const auto ref = reference(c, w, x, T);
    const std::string what = describe(c, T, "HIP (emulated)");
    if (c.precision == beam_precision::int1) {
        const size_t bad = mismatches(got, ref);
        std::cout << what << ": " << bad << " of " << ref.size() << " values differ\n";
        EXPECT_EQ(bad, 0u) << what;
    } else {
        const double err = rel_error(got, ref);
        std::cout << what << ": relative error " << err << "\n";
        EXPECT_LT(err, 2e-6) << what;
    }
}

} // namespace

TEST(tensor_beamformer_hip_emulated, float16)
{
    using P = polarization_layout;
    check(
        make_config(3, 48, 155, beam_precision::float16, beam_output::voltage, P::single),
        37);
    check(
        make_config(1, 33, 20, beam_precision::float16, beam_output::voltage, P::single),
        131);
    check(make_config(2, 1, 7, beam_precision::float16, beam_output::power, P::single, 5),
          45);
    check(
        make_config(1, 100, 40, beam_precision::float16, beam_output::voltage, P::single),
        70);
    check(make_config(
              2, 48, 70, beam_precision::float16, beam_output::voltage, P::xy_pairs),
          37);
    check(make_config(1,
                      34,
                      21,
                      beam_precision::float16,
                      beam_output::power,
                      P::xy_pairs,
                      4,
                      stokes_mode::IQUV),
          68);
}

TEST(tensor_beamformer_hip_emulated, int1)
{
    using P = polarization_layout;
    check(make_config(3, 48, 155, beam_precision::int1, beam_output::voltage, P::single),
          37);
    check(make_config(1, 33, 20, beam_precision::int1, beam_output::power, P::single, 3),
          39);
    check(make_config(2,
                      66,
                      19,
                      beam_precision::int1,
                      beam_output::power,
                      P::xy_pairs,
                      4,
                      stokes_mode::IQUV),
          48);
}
