/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The engine library without GNU Radio: an 8-element line of antennas hears a
 * plane wave from azimuth 30 degrees; the tensor-beamformer engine forms 13
 * beams from -90 to +90 degrees and prints the power of each. Builds against
 * the installed libbeamform-engines alone:
 *
 *   c++ engine_example.cc $(pkg-config --cflags --libs beamform-engines)
 *   ./a.out [device]        # device: cpu (default), or emu:0
 */
#include <gnuradio/beamform/engines/steering.h>
#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <gnuradio/beamform/runtime/device.h>
#include <array>
#include <complex>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

using namespace gr::beamform;

int main(int argc, char** argv)
{
    const std::string arg = argc > 1 ? argv[1] : "cpu";
    if (arg == "--help" || arg == "-h") {
        std::printf("usage: engine_example [DEVICE]\n"
                    "  DEVICE   cpu (default) or emu:N; the example passes host pointers,\n"
                    "           which a GPU device does not take\n");
        return 0;
    }
    try {
        // The engines take host pointers on cpu and emu (a GPU takes device memory).
        const device_spec device = select_device(arg);
        if (device.kind != backend::cpu && device.kind != backend::emu) {
            std::fprintf(stderr, "usage: %s [cpu|emu:0]\n", argv[0]);
            return 2;
        }
        const double frequency = 150e6, wavelength = 299792458.0 / frequency;
        std::vector<std::array<double, 3>> positions;
        for (int a = 0; a < 8; a++)
            positions.push_back({ a * wavelength / 2, 0.0, 0.0 }); // east, north, up

        tensor_beamformer_config config;
        config.n_channels = 1;
        config.n_receivers = positions.size();
        config.n_beams = 13;
        config.output = beam_output::power;
        config.n_int = 16;

        std::vector<double> az_el;
        for (size_t b = 0; b < config.n_beams; b++)
            az_el.insert(az_el.end(), { -90.0 + 15.0 * double(b), 0.0 });
        const auto weights = steering_weights(positions, az_el, { frequency });
        auto engine = tensor_beamformer_engine::make(config, weights, device);

        // The wave from azimuth 30: the conjugate of that direction's weights.
        const auto wave = steering_weights(positions, { 30.0, 0.0 }, { frequency });
        std::vector<std::complex<float>> samples; // [time][receivers]
        for (size_t t = 0; t < config.n_int; t++)
            for (const auto& w : wave)
                samples.push_back(std::conj(w));

        std::vector<float> power(config.n_beams); // one integration, [beams]
        engine->execute(samples.data(), power.data(), config.n_int, nullptr);

        std::printf("device %s, %zu receivers, %zu beams\n",
                    device.name().c_str(),
                    config.n_receivers,
                    config.n_beams);
        size_t best = 0;
        for (size_t b = 0; b < config.n_beams; b++) {
            std::printf("azimuth %+6.1f  power %10.1f\n", az_el[2 * b], power[b]);
            if (power[b] > power[best])
                best = b;
        }
        std::printf("brightest beam: azimuth %+.1f\n", az_el[2 * best]);
        return 0;
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "engine_example: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "engine_example: %s\n", e.what());
        return 1;
    }
}
