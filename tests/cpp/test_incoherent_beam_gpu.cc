/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The incoherent beam's GPU engine against its CPU engine on a real GPU
 * (skipped where there is none): odd and station sizes, both polarization
 * layouts, poisoned outputs; float sums against double, to 2e-6 of Stokes I.
 */
#include "test_util.h"
#include <gnuradio/beamform/engines/incoherent_beam_engine.h>
#include <gtest/gtest.h>
#include <cmath>
#include <random>

using namespace gr::beamform;
using cf = std::complex<float>;

namespace {

void check(size_t channels,
           size_t receivers,
           size_t n_int,
           size_t n_out,
           polarization_layout pol,
           stokes_mode stokes)
{
    REQUIRE_GPU(gpu);
    incoherent_beam_config c;
    c.n_channels = channels;
    c.n_receivers = receivers;
    c.n_int = n_int;
    c.polarization = pol;
    c.stokes = stokes;
    const auto in =
        beamform_test::random_vector<cf>(n_out * n_int * channels * receivers, 9);
    const size_t out_size = n_out * c.n_stokes() * channels;
    std::vector<float> expected(out_size);
    make_incoherent_beam_cpu(c)->execute(in.data(), expected.data(), n_out, nullptr);
    auto engine = incoherent_beam_engine::make(c, gpu);
    auto d_in = beamform_test::to_device(gpu, in);
    device_memory d_out(gpu, out_size * sizeof(float));
    beamform_test::poison(gpu, d_out);
    engine->execute(d_in.as<cf>(), d_out.as<float>(), n_out, nullptr);
    gpu_api_for(gpu.kind).synchronize(gpu.index, nullptr);
    const auto got = beamform_test::to_host<float>(gpu, d_out, out_size);
    for (size_t o = 0; o < n_out; o++)
        for (size_t s = 0; s < c.n_stokes(); s++)
            for (size_t ch = 0; ch < channels; ch++) {
                const size_t k = (o * c.n_stokes() + s) * channels + ch;
                const double scale = expected[o * c.n_stokes() * channels + ch];
                ASSERT_NEAR(got[k], expected[k], 2e-6 * scale)
                    << o << " " << s << " " << ch;
            }
}

} // namespace

TEST(IncoherentBeamGpu, OddSizes)
{
    check(7, 5, 3, 11, polarization_layout::single, stokes_mode::I);
}
TEST(IncoherentBeamGpu, PairsIquv)
{
    check(13, 10, 17, 9, polarization_layout::xy_pairs, stokes_mode::IQUV);
}
TEST(IncoherentBeamGpu, StationSize)
{
    check(256, 96, 16, 40, polarization_layout::xy_pairs, stokes_mode::I);
}
