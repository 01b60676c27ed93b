/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The station beamformer end to end as a C++ flowgraph (the GPU machine has no
 * GNU Radio Python): simulated sky -> convert -> pfb_channelizer -> phase_shift
 * -> tensor_beamformer (power), on the CPU, on GPU-resident buffers (emu always,
 * CUDA/HIP where present), and split by sub-bands over several devices with the
 * powers recombined on the host (docs/scaling.md). Every variant must agree
 * with the CPU chain and find the injected source in its beam and channel.
 */
#include "test_util.h"
#include <gnuradio/beamform/engines/array_geometry.h>
#include <gnuradio/beamform/array_source.h>
#include <gnuradio/beamform/convert.h>
#include <gnuradio/beamform/pfb_channelizer.h>
#include <gnuradio/beamform/phase_shift.h>
#include <gnuradio/beamform/engines/steering.h>
#include <gnuradio/beamform/tensor_beamformer.h>
#include <gnuradio/blocks/head.h>
#include <gnuradio/blocks/interleave.h>
#include <gnuradio/blocks/stream_to_vector.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_to_stream.h>
#include <gnuradio/blocks/vector_to_streams.h>
#include <gnuradio/top_block.h>
#include <cmath>
#include <iostream>

using namespace gr::beamform;
using namespace beamform_test;

namespace {

struct station {
    int receivers = 16, channels = 32, beams_per_side = 5, n_int = 16, spectra = 1024;
    double sample_rate = 10e6, center_freq = 150e6;
    std::pair<double, double> centre{ 0.1, 0.2 }; // field centre (l, m)
    int source_beam = 7, source_channel = 5;
    double source_amplitude = 0.5, noise = 1.0;

    int beams() const { return beams_per_side * beams_per_side; }

    std::vector<std::array<double, 3>> positions() const
    {
        const int side = int(std::ceil(std::sqrt(double(receivers))));
        std::vector<std::array<double, 3>> p;
        for (int i = 0; i < receivers; i++)
            p.push_back({ (i % side - (side - 1) / 2.0), (i / side - (side - 1) / 2.0), 0.0 });
        return p;
    }
    std::vector<double> beams_lm() const
    {
        std::vector<double> lm;
        for (int j = 0; j < beams_per_side; j++)
            for (int i = 0; i < beams_per_side; i++) {
                const double step = 0.8 / (beams_per_side - 1);
                lm.push_back(centre.first - 0.4 + i * step);
                lm.push_back(centre.second - 0.4 + j * step);
            }
        return lm;
    }
    std::vector<double> frequencies() const
    {
        return channel_frequencies(center_freq, sample_rate / channels, channels);
    }
};

std::pair<double, double> lm_to_az_el(double l, double m)
{
    const double az = std::fmod(std::atan2(l, m) * 180 / M_PI + 360, 360);
    return { az, std::acos(std::min(1.0, std::hypot(l, m))) * 180 / M_PI };
}

//! Weights of `channels` (a sub-band) for beams relative to the phase centre.
std::vector<gr_complex> weights(const station& s, int first_channel, int channels)
{
    const auto freqs = s.frequencies();
    const std::vector<double> sub(freqs.begin() + first_channel,
                                  freqs.begin() + first_channel + channels);
    const auto beams = steering_weights_lm(s.positions(), s.beams_lm(), sub);
    const auto centre =
        steering_weights_lm(s.positions(), { s.centre.first, s.centre.second }, sub);
    std::vector<gr_complex> w(beams.size());
    const size_t per_channel = size_t(s.beams()) * s.receivers;
    for (size_t i = 0; i < w.size(); i++) {
        const size_t c = i / per_channel, r = i % s.receivers;
        w[i] = beams[i] * std::conj(centre[c * s.receivers + r]);
    }
    return w;
}

/*!
 * Run the station: front chain on `front`, one beamformer per entry of
 * `beam_devices`, each on an equal sub-band, powers recombined into
 * [beams][channels]. Returns every integrated power item, concatenated.
 */
std::vector<float> run_station(const station& s,
                               const std::string& front,
                               const std::vector<std::string>& beam_devices)
{
    auto tb = gr::make_top_block("station");
    const auto [az, el] = lm_to_az_el(s.beams_lm()[2 * s.source_beam],
                                      s.beams_lm()[2 * s.source_beam + 1]);
    const double offset = s.source_channel * s.sample_rate / s.channels;
    auto src = array_source::make(s.positions(),
                                  s.sample_rate,
                                  s.center_freq,
                                  { az },
                                  { el },
                                  { offset },
                                  { s.source_amplitude },
                                  {},
                                  s.noise,
                                  sample_format::sc16,
                                  2000.0,
                                  7);
    auto head = gr::blocks::head::make(4 * s.receivers, size_t(s.spectra) * s.channels);
    auto conv = convert::make(sample_format::sc16, s.receivers, { 1.0f / 2000 }, front);
    auto pfb = pfb_channelizer::make(s.channels,
                                     {},
                                     16,
                                     sample_format::fc32,
                                     s.receivers,
                                     1,
                                     false,
                                     s.center_freq,
                                     s.sample_rate,
                                     front);
    const auto [caz, cel] = lm_to_az_el(s.centre.first, s.centre.second);
    auto phase = phase_shift::make(s.channels,
                                   s.receivers,
                                   s.frequencies(),
                                   s.channels / s.sample_rate,
                                   geometric_delays(s.positions(), caz, cel),
                                   {},
                                   {},
                                   0.0,
                                   front);
    tb->connect(src, 0, head, 0);
    tb->connect(head, 0, conv, 0);
    tb->connect(conv, 0, pfb, 0);
    tb->connect(pfb, 0, phase, 0);

    const int n_sub = int(beam_devices.size());
    const int sub_channels = s.channels / n_sub;
    auto sink = gr::blocks::vector_sink_f::make(size_t(s.beams()) * s.channels);
    auto make_beamformer = [&](int g) {
        return tensor_beamformer::make(sub_channels,
                                       s.receivers,
                                       s.beams(),
                                       weights(s, g * sub_channels, sub_channels),
                                       beam_precision::float16,
                                       beam_output::power,
                                       s.n_int,
                                       polarization_layout::single,
                                       stokes_mode::I,
                                       beam_devices[g]);
    };
    if (n_sub == 1) {
        auto bf = make_beamformer(0);
        tb->connect(phase, 0, bf, 0);
        tb->connect(bf, 0, sink, 0);
    } else {
        // Spectra are [channel][receiver]: a sub-band is a contiguous byte range.
        const size_t sub_bytes = size_t(sub_channels) * s.receivers * sizeof(gr_complex);
        auto cut = gr::blocks::vector_to_streams::make(sub_bytes, n_sub);
        // Powers are [beam][channel]: put the sub-bands' rows side by side again.
        const size_t row_bytes = size_t(sub_channels) * sizeof(float);
        auto interleave = gr::blocks::interleave::make(row_bytes, 1);
        auto whole = gr::blocks::stream_to_vector::make(row_bytes, size_t(s.beams()) * n_sub);
        tb->connect(phase, 0, cut, 0);
        for (int g = 0; g < n_sub; g++) {
            auto bf = make_beamformer(g);
            auto rows = gr::blocks::vector_to_stream::make(row_bytes, s.beams());
            tb->connect(cut, g, bf, 0);
            tb->connect(bf, 0, rows, 0);
            tb->connect(rows, 0, interleave, g);
        }
        tb->connect(interleave, 0, whole, 0);
        tb->connect(whole, 0, sink, 0);
    }
    tb->run();
    return sink->data();
}

//! (beam, channel) of the largest time-averaged power.
std::pair<int, int> brightest(const station& s, const std::vector<float>& powers)
{
    const size_t item = size_t(s.beams()) * s.channels;
    std::vector<double> mean(item, 0.0);
    for (size_t i = 0; i < powers.size(); i++)
        mean[i % item] += powers[i];
    const size_t k = std::max_element(mean.begin(), mean.end()) - mean.begin();
    return { int(k / s.channels), int(k % s.channels) };
}

std::vector<std::string> gpu_devices()
{
    std::vector<std::string> out;
    for (const auto& d : available_devices())
        if (d.rfind("cuda", 0) == 0 || d.rfind("hip", 0) == 0)
            out.push_back(d);
    return out;
}

} // namespace

TEST(station_flowgraph, cpu_finds_the_source_and_device_chains_agree)
{
    const station s;
    const auto cpu = run_station(s, "cpu", { "cpu" });
    ASSERT_EQ(cpu.size(), size_t(s.spectra / s.n_int) * s.beams() * s.channels);
    const auto [beam, channel] = brightest(s, cpu);
    std::cout << "cpu: brightest beam " << beam << " channel " << channel << " (injected "
              << s.source_beam << ", " << s.source_channel << ")\n";
    EXPECT_EQ(beam, s.source_beam);
    EXPECT_EQ(channel, s.source_channel);

    std::vector<std::string> devices{ "emu:0" };
    for (const auto& g : gpu_devices())
        devices.push_back(g);
    for (const auto& dev : devices) {
        const auto out = run_station(s, dev, { dev });
        ASSERT_EQ(out.size(), cpu.size()) << dev;
        const double err = relative_error(out, cpu);
        std::cout << dev << " chain vs cpu chain: relative error " << err << "\n";
        // float16 beamforming on a GPU; the other stages are float32.
        EXPECT_LT(err, dev.rfind("emu", 0) == 0 ? 1e-6 : 2e-3) << dev;
        EXPECT_EQ(brightest(s, out), std::make_pair(beam, channel)) << dev;
    }
}

TEST(station_flowgraph, subbands_on_several_devices_match_one_chain)
{
    const station s;
    // Two GPUs where present (the multi-GPU split); otherwise the CPU and the
    // host-memory GPU stand-in, which exercise the same recombination.
    const auto gpus = gpu_devices();
    const std::vector<std::string> split =
        gpus.size() >= 2 ? std::vector<std::string>{ gpus[0], gpus[1] }
                         : std::vector<std::string>{ "cpu", "emu:0" };
    const std::string single = gpus.size() >= 2 ? gpus[0] : "cpu";
    const auto one = run_station(s, single, { single });
    const auto two = run_station(s, single, split);
    ASSERT_EQ(two.size(), one.size());
    const double err = relative_error(two, one);
    std::cout << "sub-bands on " << split[0] << " + " << split[1] << " vs one chain on "
              << single << ": relative error " << err << "\n";
    EXPECT_LT(err, gpus.size() >= 2 ? 1e-4 : 1e-6);
    EXPECT_EQ(brightest(s, two), std::make_pair(s.source_beam, s.source_channel));
}
