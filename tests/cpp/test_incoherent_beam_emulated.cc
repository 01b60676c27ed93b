/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The incoherent beam's GPU kernels (kernels/gpu/incoherent_beam.cuh) run on
 * the host through kernels/emulation/gpu_emulation.h, launched as the GPU
 * engine launches them, against the CPU engine (which sums in double: the
 * float sums of the kernels agree to ~1e-6 relative of the Stokes I scale),
 * on odd sizes, with poisoned outputs and partials; plus bad configurations.
 */
#include <emulation/gpu_emulation.h>
#include <gpu/incoherent_beam.cuh>

#include <gnuradio/beamform/engines/incoherent_beam_engine.h>
#include <gtest/gtest.h>
#include "test_util.h"
#include <cmath>
#include <complex>
#include <random>
#include <vector>

using namespace gr::beamform;
using namespace gr::beamform::emulated;
using cfloat = std::complex<float>;

namespace {

void emulated_execute(const incoherent_beam_config& c,
                      const cfloat* in,
                      float* out,
                      size_t n_out)
{
    const bool iquv = c.stokes == stokes_mode::IQUV;
    const unsigned lanes = incoherent_lanes(unsigned(c.n_receivers), iquv);
    const size_t n_stokes = c.n_stokes();
    std::vector<float> partial(n_out * n_stokes * c.n_channels * lanes, std::nanf(""));
    launch(
        incoherent_grid(c.n_channels * lanes, n_out), dim3(incoherent_threads), 0, [&] {
            incoherent_partial_kernel(reinterpret_cast<const float2*>(in),
                                      partial.data(),
                                      unsigned(c.n_channels),
                                      unsigned(c.n_receivers),
                                      unsigned(c.n_int),
                                      unsigned(n_out),
                                      iquv ? 1 : 0);
        });
    launch(incoherent_grid(n_stokes * c.n_channels, n_out),
           dim3(incoherent_threads),
           0,
           [&] {
               incoherent_sum_kernel(partial.data(),
                                     out,
                                     unsigned(n_stokes * c.n_channels),
                                     lanes,
                                     unsigned(n_out));
           });
}

void check_case(size_t channels,
                size_t receivers,
                size_t n_int,
                polarization_layout pol,
                stokes_mode stokes,
                size_t n_out)
{
    incoherent_beam_config c;
    c.n_channels = channels;
    c.n_receivers = receivers;
    c.n_int = n_int;
    c.polarization = pol;
    c.stokes = stokes;
    c.threads = 2;
    c.validate();
    std::mt19937 gen(11);
    std::normal_distribution<float> g;
    std::vector<cfloat> in(n_out * n_int * channels * receivers);
    for (auto& v : in)
        v = cfloat(g(gen), g(gen));
    // Correlated X and Y on the first antenna, so Q, U, V are not just noise.
    if (pol == polarization_layout::xy_pairs)
        for (size_t t = 0; t < n_out * n_int; t++)
            for (size_t ch = 0; ch < channels; ch++) {
                cfloat* x = &in[(t * channels + ch) * receivers];
                x[1] = 0.8f * x[0] * cfloat(0.6f, 0.8f) + 0.3f * x[1];
            }
    const size_t out_size = n_out * c.n_stokes() * channels;
    std::vector<float> expected(out_size, std::nanf("")), got(out_size, std::nanf(""));
    make_incoherent_beam_cpu(c)->execute(in.data(), expected.data(), n_out, nullptr);
    emulated_execute(c, in.data(), got.data(), n_out);

    // An independent sum in double, straight from the definitions.
    for (size_t o = 0; o < n_out; o++)
        for (size_t ch = 0; ch < channels; ch++) {
            double i = 0, q = 0, u = 0, v = 0;
            for (size_t t = o * n_int; t < (o + 1) * n_int; t++)
                for (size_t a = 0; a < receivers; a++) {
                    const std::complex<double> x =
                        in[(t * channels + ch) * receivers + a];
                    i += std::norm(x);
                    if (pol == polarization_layout::xy_pairs && a % 2 == 0) {
                        const std::complex<double> y =
                            in[(t * channels + ch) * receivers + a + 1];
                        const auto xy = x * std::conj(y);
                        q += std::norm(x) - std::norm(y);
                        u += 2 * xy.real();
                        v += 2 * xy.imag();
                    }
                }
            const double want[4] = { i, q, u, v };
            for (size_t s = 0; s < c.n_stokes(); s++) {
                const size_t k = (o * c.n_stokes() + s) * channels + ch;
                const double tol = 2e-6 * i;
                ASSERT_NEAR(expected[k], want[s], tol)
                    << "cpu o=" << o << " c=" << ch << " s=" << s;
                ASSERT_NEAR(got[k], want[s], tol)
                    << "emu o=" << o << " c=" << ch << " s=" << s;
            }
        }
}

} // namespace

TEST(IncoherentBeamEmulated, SingleOddSizes)
{
    check_case(7, 5, 3, polarization_layout::single, stokes_mode::I, 9);
}
TEST(IncoherentBeamEmulated, PairsStokesI)
{
    check_case(5, 6, 4, polarization_layout::xy_pairs, stokes_mode::I, 7);
}
TEST(IncoherentBeamEmulated, PairsIquvOddChannels)
{
    check_case(13, 10, 17, polarization_layout::xy_pairs, stokes_mode::IQUV, 5);
}
TEST(IncoherentBeamEmulated, OneReceiverNoIntegration)
{
    check_case(300, 1, 1, polarization_layout::single, stokes_mode::I, 4);
}

TEST(IncoherentBeamEngine, BadConfigurationsNameTheParameter)
{
    auto expect_error = [](auto change, const char* word) {
        beamform_test::expect_invalid_config<incoherent_beam_config>(change, word);
    };
    expect_error([](auto& c) { c.n_int = 0; }, "n_int");
    expect_error([](auto& c) { c.n_channels = 0; }, "n_channels");
    expect_error([](auto& c) { c.n_receivers = 0; }, "n_receivers");
    expect_error(
        [](auto& c) {
            c.n_receivers = 3;
            c.polarization = polarization_layout::xy_pairs;
        },
        "even");
    expect_error([](auto& c) { c.stokes = stokes_mode::IQUV; }, "xy_pairs");
    expect_error([](auto& c) { c.polarization = static_cast<polarization_layout>(5); },
                 "polarization");
    expect_error([](auto& c) { c.threads = 2000; }, "threads");
}
