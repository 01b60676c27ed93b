/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The bad-input checks of the blocks on the devices that keep items in device
 * memory: emu (always) and the GPU present (the GPU machine has no GNU Radio
 * Python, so this is the C++ subset of tests/python/test_bad_input.py and of
 * the message fuzz; run there also under compute-sanitizer memcheck):
 *  1. sizes whose item would pass GNU Radio's int, enum values outside their
 *     names and an empty device are refused with std::invalid_argument naming
 *     the parameter, before anything is allocated;
 *  2. malformed messages on phase_shift's `delays` port are rejected whole and
 *     counted, and the output is that of a run without them;
 *  3. float16 input values that become inf or 0 are counted (on a GPU by the
 *     engine on the device, read a call late and at stop).
 */
#include "test_util.h"
#include <gnuradio/beamform/bit_packer.h>
#include <gnuradio/beamform/bit_unpacker.h>
#include <gnuradio/beamform/convert.h>
#include <gnuradio/beamform/pfb_channelizer.h>
#include <gnuradio/beamform/phase_shift.h>
#include <gnuradio/beamform/rca_das.h>
#include <gnuradio/beamform/tensor_beamformer.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/top_block.h>
#include <functional>
#include <limits>

using namespace gr::beamform;
using namespace beamform_test;

namespace {

//! `make` throws std::invalid_argument whose message contains `fragment`.
void expect_refused(const std::function<void()>& make, const std::string& fragment)
{
    try {
        make();
        ADD_FAILURE() << "accepted; expected an error naming \"" << fragment << "\"";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
            << "message: " << e.what();
    }
}

} // namespace

class bad_input_on_device : public ::testing::TestWithParam<std::string>
{
};

TEST_P(bad_input_on_device, sizes_enums_and_device_strings_are_refused)
{
    const std::string dev = GetParam();
    // Items over 2^31 - 1 bytes (GNU Radio's int item size).
    expect_refused([&] { bit_packer::make(513, 1 << 20, dev); }, "n_channels * n_receivers * 8");
    expect_refused([&] { bit_unpacker::make(513, 1 << 20, dev); }, "n_channels");
    expect_refused(
        [&] {
            pfb_channelizer::make(
                4096, {}, 1, sample_format::fc32, 1 << 20, 1, false, 0.0, 1.0, dev);
        },
        "n_channels * n_receivers * 8");
    expect_refused(
        [&] {
            rca_das::make(16384, 200e-6, 6e6, 31.25e6, 1540.0, 0.0, 131073, "rows", { 0.0 },
                          { -6.4e-3 }, -1e-3, 1e-4, 5, -1e-3, 1e-4, 3, 5e-3, 1e-4, 7, 0.6, {},
                          3, "int16", "envelope", 0.0, "iq", "dual_stage", 0.0, dev);
        },
        "n_elements * n_samples * 2");
    // Enum values outside their names.
    expect_refused([&] { convert::make(static_cast<sample_format>(3), 4, { 1.0f }, dev); },
                   "input_format");
    const std::vector<gr_complex> w(4 * 2 * 8, gr_complex(0.125f, 0.f));
    expect_refused(
        [&] {
            tensor_beamformer::make(4, 8, 2, w, beam_precision::float16,
                                    static_cast<beam_output>(7), 1,
                                    polarization_layout::single, stokes_mode::I, dev);
        },
        "output");
    expect_refused(
        [&] {
            tensor_beamformer::make(4, 8, 2, w, static_cast<beam_precision>(7),
                                    beam_output::voltage, 1, polarization_layout::single,
                                    stokes_mode::I, dev);
        },
        "precision");
    // float16 weights that would round to infinity.
    std::vector<gr_complex> huge = w;
    huge[5] = gr_complex(1e6f, 0.f);
    expect_refused(
        [&] {
            tensor_beamformer::make(4, 8, 2, huge, beam_precision::float16,
                                    beam_output::voltage, 1, polarization_layout::single,
                                    stokes_mode::I, dev);
        },
        "65520");
    // An empty device string is not "auto".
    expect_refused([&] { convert::make(sample_format::sc16, 4, { 1.0f }, ""); }, "device");
}

namespace {

//! spectra -> phase_shift(dev) -> sink, with `messages` posted to `delays` first.
std::pair<std::vector<gr_complex>, uint64_t> run_phase_shift(const std::string& dev,
                                                             const std::vector<pmt::pmt_t>& messages)
{
    const int channels = 8, receivers = 3;
    const size_t n = 500;
    const auto spectra = random_vector<gr_complex>(n * channels * receivers, 4);
    std::vector<double> freqs(channels);
    for (int c = 0; c < channels; c++)
        freqs[c] = 1e8 + c * 1e5;
    auto tb = gr::make_top_block("bad_messages");
    auto src = gr::blocks::vector_source_c::make(spectra, false, channels * receivers);
    auto shift = phase_shift::make(channels, receivers, freqs, 1e-5, { 1e-9, 2e-9, -1e-9 },
                                   {}, {}, 0.0, dev);
    auto sink = gr::blocks::vector_sink_c::make(channels * receivers);
    tb->connect(src, 0, shift, 0);
    tb->connect(shift, 0, sink, 0);
    for (const auto& m : messages)
        shift->_post(pmt::mp("delays"), m);
    tb->run();
    return { sink->data(), shift->messages_rejected() };
}

} // namespace

TEST_P(bad_input_on_device, malformed_delay_messages_are_rejected_and_counted)
{
    const std::string dev = GetParam();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<pmt::pmt_t> bad = {
        // an unknown key
        pmt::dict_add(pmt::make_dict(), pmt::mp("delay"), pmt::init_f64vector(1, { 1e-9 })),
        // an empty vector (not a reset)
        pmt::dict_add(pmt::make_dict(), pmt::mp("delays"), pmt::init_f64vector(0, {})),
        // a non-finite value
        pmt::dict_add(pmt::make_dict(), pmt::mp("delays"),
                      pmt::init_f64vector(3, { 1e-9, nan, 0.0 })),
        // a wrong length (2 for 3 receivers), in an otherwise valid message
        pmt::dict_add(pmt::make_dict(), pmt::mp("delays"), pmt::init_f64vector(2, { 1e-9, 0.0 })),
        // not a dict at all
        pmt::from_double(3.0),
    };
    const auto clean = run_phase_shift(dev, {});
    const auto hostile = run_phase_shift(dev, bad);
    EXPECT_EQ(clean.second, 0u);
    EXPECT_EQ(hostile.second, bad.size()) << dev << ": rejected messages";
    ASSERT_EQ(hostile.first.size(), clean.first.size());
    EXPECT_TRUE(hostile.first == clean.first) << dev << ": a rejected message changed the output";
}

TEST_P(bad_input_on_device, float16_input_out_of_range_is_counted)
{
    const std::string dev = GetParam();
    const int channels = 4, receivers = 8, beams = 2;
    const size_t n = 301;
    auto spectra = random_vector<gr_complex>(n * channels * receivers, 6);
    auto* parts = reinterpret_cast<float*>(spectra.data());
    const size_t overflow_at[] = { 3, 100, 5001, 9000, 12345, 17000, 19263 };
    const size_t underflow_at[] = { 8, 777, 4242, 15000, 19000 };
    for (size_t i : overflow_at)
        parts[i] = (i % 2 ? -1.0f : 1.0f) * 1e6f;
    for (size_t i : underflow_at)
        parts[i] = 1e-9f;
    auto tb = gr::make_top_block("float16_range");
    auto src = gr::blocks::vector_source_c::make(spectra, false, channels * receivers);
    auto bf = tensor_beamformer::make(
        channels, receivers, beams,
        std::vector<gr_complex>(channels * beams * receivers, gr_complex(0.125f, 0.f)),
        beam_precision::float16, beam_output::voltage, 1, polarization_layout::single,
        stokes_mode::I, dev);
    bf->set_max_noutput_items(50); // several work calls, so the GPU counts arrive late
    auto sink = gr::blocks::vector_sink_c::make(channels * beams);
    tb->connect(src, 0, bf, 0);
    tb->connect(bf, 0, sink, 0);
    tb->run();
    EXPECT_EQ(bf->float16_overflows(), std::size(overflow_at)) << dev;
    EXPECT_EQ(bf->float16_underflows(), std::size(underflow_at)) << dev;
}

INSTANTIATE_TEST_SUITE_P(devices,
                         bad_input_on_device,
                         ::testing::ValuesIn(device_memory_devices()),
                         device_test_name());
