/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Random input items of the pfb_channelizer, shared by its GPU and emulation
 * tests.
 */
#ifndef INCLUDED_BEAMFORM_TEST_PFB_TEST_INPUT_H
#define INCLUDED_BEAMFORM_TEST_PFB_TEST_INPUT_H

#include <gnuradio/beamform/engines/pfb_channelizer_engine.h>
#include <cstdint>
#include <random>
#include <vector>

namespace beamform_test {

//! Random raw input of n_items items (non-zero, full range for integers).
inline std::vector<uint8_t>
random_input(const gr::beamform::pfb_channelizer_config& c, size_t n_items, unsigned seed)
{
    using gr::beamform::sample_format;
    const size_t values = 2 * n_items * c.n_receivers;
    std::vector<uint8_t> bytes(values * (gr::beamform::sample_size(c.input) / 2));
    std::mt19937 gen(seed);
    if (c.input == sample_format::fc32) {
        std::normal_distribution<float> g(0.0f, 1.0f);
        auto* p = reinterpret_cast<float*>(bytes.data());
        for (size_t i = 0; i < values; i++)
            p[i] = g(gen);
    } else if (c.input == sample_format::sc16) {
        std::uniform_int_distribution<int> u(-32768, 32767);
        auto* p = reinterpret_cast<int16_t*>(bytes.data());
        for (size_t i = 0; i < values; i++)
            p[i] = int16_t(u(gen));
    } else {
        std::uniform_int_distribution<int> u(-128, 127);
        auto* p = reinterpret_cast<int8_t*>(bytes.data());
        for (size_t i = 0; i < values; i++)
            p[i] = int8_t(u(gen));
    }
    return bytes;
}

} // namespace beamform_test

#endif
