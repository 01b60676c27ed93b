/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The stream-ordered hand-off between GPU blocks (docs/architecture.md,
 * "Hand-off between GPU blocks") in real flowgraphs, on every device that keeps
 * items in device memory: emu (always) and the GPU present.
 *  1. host sc16 -> convert -> pfb_channelizer -> phase_shift ->
 *     tensor_beamformer -> throttled host sink, every block limited to a few
 *     items per work call (over 10^4 work calls in all), so that writers wrap
 *     around their buffers while readers still hold ranges: bit-identical to
 *     the same GPU chain with large work calls, and within float16 rounding of
 *     the CPU chain;
 *  2. one GPU output read by two GPU blocks of different speeds: each branch
 *     equals its single-reader run;
 *  3. stop() and wait() in the middle of a free-running GPU flowgraph return
 *     within 5 s, repeatedly;
 *  4. a work() that throws (as BF_GPU_CHECK does on a CUDA/HIP error) ends the
 *     flowgraph within 5 s instead of leaving it hanging.
 */
#include "block_support/device_buffer.h"
#include "block_support/engine_block.h"
#include "test_util.h"
#include <gnuradio/beamform/convert.h>
#include <gnuradio/beamform/pfb_channelizer.h>
#include <gnuradio/beamform/phase_shift.h>
#include <gnuradio/beamform/tensor_beamformer.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <chrono>
#include <future>
#include <iostream>
#include <optional>
#include <thread>

using namespace gr::beamform;
using namespace beamform_test;

namespace {

/*!
 * A host sink that keeps its items and, with `throttle`, sleeps a random
 * 0-40 us in one work call of three: a slow, irregular consumer that makes the
 * GPU blocks upstream wait for space at varying points of their buffers.
 */
class throttled_sink : public gr::sync_block
{
public:
    using sptr = std::shared_ptr<throttled_sink>;
    static sptr make(size_t item_bytes, bool throttle)
    {
        return gnuradio::make_block_sptr<throttled_sink>(item_bytes, throttle);
    }
    throttled_sink(size_t item_bytes, bool throttle)
        : gr::sync_block("throttled_sink",
                         gr::io_signature::make(1, 1, item_bytes),
                         gr::io_signature::make(0, 0, 0)),
          d_item(item_bytes),
          d_throttle(throttle)
    {
    }
    int work(int n, gr_vector_const_void_star& in, gr_vector_void_star&) override
    {
        const auto* p = static_cast<const uint8_t*>(in[0]);
        d_data.insert(d_data.end(), p, p + size_t(n) * d_item);
        if (d_throttle && d_gen() % 3 == 0)
            std::this_thread::sleep_for(std::chrono::microseconds(d_gen() % 40));
        d_calls++;
        return n;
    }
    const std::vector<uint8_t>& data() const { return d_data; }
    uint64_t calls() const { return d_calls; }

private:
    size_t d_item;
    bool d_throttle;
    std::vector<uint8_t> d_data;
    std::mt19937 d_gen{ 5 };
    uint64_t d_calls = 0;
};

struct chain_size {
    int receivers = 5, channels = 8, taps = 4, beams = 3;
    size_t spectra = 3001;
    double sample_rate = 1e6;
};

std::vector<uint8_t> sc16_input(const chain_size& s)
{
    std::vector<uint8_t> bytes(s.spectra * s.channels * s.receivers * 4);
    std::mt19937 gen(11);
    for (size_t i = 0; i < bytes.size(); i += 2) {
        const int16_t v = int16_t(int(gen() % 4001) - 2000);
        std::memcpy(&bytes[i], &v, 2);
    }
    return bytes;
}

std::vector<double> channel_freqs(const chain_size& s)
{
    std::vector<double> f(s.channels);
    for (int c = 0; c < s.channels; c++)
        f[c] = 100e6 + (c - s.channels / 2) * s.sample_rate / s.channels;
    return f;
}

std::vector<double> delays(const chain_size& s, unsigned seed)
{
    return random_vector<double>(s.receivers, seed, -2e-6, 2e-6);
}

pfb_channelizer::sptr make_pfb(const chain_size& s, const std::string& device)
{
    return pfb_channelizer::make(s.channels,
                                 {},
                                 s.taps,
                                 sample_format::fc32,
                                 s.receivers,
                                 1,
                                 false,
                                 100e6,
                                 s.sample_rate,
                                 device);
}

std::vector<gr_complex> weights(const chain_size& s)
{
    return random_vector<gr_complex>(size_t(s.channels) * s.beams * s.receivers, 9);
}

//! Per block, the most items one work call may make (0: no limit).
struct work_limits {
    int convert = 0, pfb = 0, phase = 0, beams = 0, sink = 0;
    bool throttle = false;
    //! A lower bound on the work calls these limits force for `s`.
    uint64_t min_calls(const chain_size& s) const
    {
        auto calls = [](uint64_t items, int limit) {
            return limit > 0 ? (items + limit - 1) / limit : 1;
        };
        const uint64_t samples = s.spectra * s.channels;
        return calls(samples, convert) + calls(s.spectra, pfb) + calls(s.spectra, phase) +
               calls(s.spectra, beams) + calls(s.spectra, sink);
    }
};

template <typename Block>
void limit(const Block& b, int items)
{
    if (items > 0)
        b->set_max_noutput_items(items);
}

struct chain_output {
    std::vector<gr_complex> beams;
    uint64_t sink_calls = 0;
};

//! host sc16 -> convert -> pfb -> phase_shift -> tensor_beamformer (voltage) -> sink.
chain_output run_chain(const std::string& device, const chain_size& s, const work_limits& w)
{
    auto tb = gr::make_top_block("handoff_chain");
    auto src = gr::blocks::vector_source_b::make(sc16_input(s), false, 4 * s.receivers);
    auto conv = convert::make(sample_format::sc16, s.receivers, { 1.0f / 2048 }, device);
    auto pfb = make_pfb(s, device);
    auto phase = phase_shift::make(s.channels,
                                   s.receivers,
                                   channel_freqs(s),
                                   s.channels / s.sample_rate,
                                   delays(s, 3),
                                   {},
                                   {},
                                   0.0,
                                   device);
    auto beams = tensor_beamformer::make(s.channels,
                                         s.receivers,
                                         s.beams,
                                         weights(s),
                                         beam_precision::float16,
                                         beam_output::voltage,
                                         1,
                                         polarization_layout::single,
                                         stokes_mode::I,
                                         device);
    auto sink = throttled_sink::make(beams->output_item_bytes(), w.throttle);
    limit(conv, w.convert);
    limit(pfb, w.pfb);
    limit(phase, w.phase);
    limit(beams, w.beams);
    limit(sink, w.sink);
    tb->connect(src, 0, conv, 0);
    tb->connect(conv, 0, pfb, 0);
    tb->connect(pfb, 0, phase, 0);
    tb->connect(phase, 0, beams, 0);
    tb->connect(beams, 0, sink, 0);
    tb->run();
    chain_output out;
    out.beams.resize(sink->data().size() / sizeof(gr_complex));
    std::memcpy(out.beams.data(), sink->data().data(), sink->data().size());
    out.sink_calls = sink->calls();
    return out;
}

double relative_error(const std::vector<gr_complex>& a, const std::vector<gr_complex>& ref)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < ref.size(); i++) {
        num += std::norm(std::complex<double>(a[i]) - std::complex<double>(ref[i]));
        den += std::norm(std::complex<double>(ref[i]));
    }
    return std::sqrt(num / den);
}

bool any_non_finite(const std::vector<gr_complex>& v)
{
    for (const auto& x : v)
        if (!std::isfinite(x.real()) || !std::isfinite(x.imag()))
            return true;
    return false;
}

} // namespace

class gpu_handoff : public ::testing::TestWithParam<std::string>
{
};

TEST_P(gpu_handoff, small_irregular_work_calls_are_bit_identical_to_large_ones)
{
    const std::string device = GetParam();
    const chain_size s;
    work_limits small;
    small.convert = 5;
    small.pfb = 2;
    small.phase = 3;
    small.beams = 1;
    small.sink = 7;
    small.throttle = true;
    ASSERT_GE(small.min_calls(s), 10000u);

    // The beamformer pinned to its own kernels, which compute every output
    // sample the same way whatever the call size. For this small shape the
    // built-in rule takes the cuBLAS library path from compute capability 9
    // on, which picks its GEMM kernel per call size: checked below with a
    // rounding tolerance instead.
    const bool cuda = device.rfind("cuda", 0) == 0;
    std::optional<scoped_env> pinned;
    if (cuda)
        pinned.emplace("BEAMFORM_TB_VARIANT", "pipelined");
    const chain_output large = run_chain(device, s, work_limits{});
    const chain_output tiny = run_chain(device, s, small);
    pinned.reset();
    const chain_output cpu = run_chain("cpu", s, work_limits{});
    const size_t expected = s.spectra * s.channels * s.beams;
    ASSERT_EQ(large.beams.size(), expected);
    ASSERT_EQ(tiny.beams.size(), expected);
    ASSERT_EQ(cpu.beams.size(), expected);
    EXPECT_FALSE(any_non_finite(tiny.beams));
    EXPECT_GE(tiny.sink_calls, s.spectra / 7);

    size_t differing = 0;
    for (size_t i = 0; i < expected; i++)
        differing += std::memcmp(&tiny.beams[i], &large.beams[i], sizeof(gr_complex)) != 0;
    const double err_cpu = relative_error(large.beams, cpu.beams);
    std::cout << device << ": " << tiny.sink_calls << " sink calls, >= " << small.min_calls(s)
              << " work calls in the small-call chain; items differing from large calls: "
              << differing << " of " << expected
              << "; relative error norm against the CPU chain " << err_cpu << "\n";
    EXPECT_EQ(differing, 0u) << device << ": small work calls changed the output";
    // float16 products of the tensor beamformer against the CPU engine's
    // (float16-rounded operands, float accumulation): rounding only.
    EXPECT_LT(err_cpu, 1e-3);

    if (cuda) { // the built-in choice: the same hand-off, float rounding apart
        const chain_output large_builtin = run_chain(device, s, work_limits{});
        const chain_output tiny_builtin = run_chain(device, s, small);
        ASSERT_EQ(tiny_builtin.beams.size(), expected);
        EXPECT_FALSE(any_non_finite(tiny_builtin.beams));
        const double err_calls = relative_error(tiny_builtin.beams, large_builtin.beams);
        std::cout << device << " (built-in kernel choice): relative error norm of small "
                  << "against large work calls " << err_calls << "\n";
        EXPECT_LT(err_calls, 1e-6) << device << ": small work calls changed the output";
        EXPECT_LT(relative_error(large_builtin.beams, cpu.beams), 1e-3);
    }
}

namespace {

struct fan_out_output {
    std::vector<gr_complex> fast, slow;
};

/*!
 * pfb output read by two phase_shift blocks with different delays: one at one
 * item per call into a throttled sink (slow), one unlimited (fast). With
 * `which` 1 or 2 only that branch is built.
 */
fan_out_output run_fan_out(const std::string& device, const chain_size& s, int which)
{
    auto tb = gr::make_top_block("handoff_fan_out");
    auto src = gr::blocks::vector_source_b::make(sc16_input(s), false, 4 * s.receivers);
    auto conv = convert::make(sample_format::sc16, s.receivers, { 1.0f / 2048 }, device);
    auto pfb = make_pfb(s, device);
    tb->connect(src, 0, conv, 0);
    tb->connect(conv, 0, pfb, 0);
    const size_t item = size_t(s.channels) * s.receivers * sizeof(gr_complex);
    throttled_sink::sptr fast_sink, slow_sink;
    if (which != 2) {
        auto fast = phase_shift::make(s.channels, s.receivers, channel_freqs(s),
                                      s.channels / s.sample_rate, delays(s, 4), {}, {}, 0.0,
                                      device);
        fast_sink = throttled_sink::make(item, false);
        tb->connect(pfb, 0, fast, 0);
        tb->connect(fast, 0, fast_sink, 0);
    }
    if (which != 1) {
        auto slow = phase_shift::make(s.channels, s.receivers, channel_freqs(s),
                                      s.channels / s.sample_rate, delays(s, 5), {}, {}, 0.0,
                                      device);
        slow->set_max_noutput_items(1);
        slow_sink = throttled_sink::make(item, true);
        tb->connect(pfb, 0, slow, 0);
        tb->connect(slow, 0, slow_sink, 0);
    }
    tb->run();
    auto as_complex = [](const throttled_sink::sptr& k) {
        std::vector<gr_complex> v;
        if (k) {
            v.resize(k->data().size() / sizeof(gr_complex));
            std::memcpy(v.data(), k->data().data(), k->data().size());
        }
        return v;
    };
    return { as_complex(fast_sink), as_complex(slow_sink) };
}

} // namespace

TEST_P(gpu_handoff, one_output_read_by_a_fast_and_a_slow_gpu_block)
{
    const std::string device = GetParam();
    chain_size s;
    s.spectra = 1501;
    const fan_out_output both = run_fan_out(device, s, 0);
    const fan_out_output fast_alone = run_fan_out(device, s, 1);
    const fan_out_output slow_alone = run_fan_out(device, s, 2);
    const size_t expected = s.spectra * s.channels * s.receivers;
    ASSERT_EQ(both.fast.size(), expected);
    ASSERT_EQ(both.slow.size(), expected);
    EXPECT_FALSE(any_non_finite(both.slow));
    EXPECT_TRUE(both.fast == fast_alone.fast) << device << ": fast branch differs";
    EXPECT_TRUE(both.slow == slow_alone.slow) << device << ": slow branch differs";
    EXPECT_FALSE(both.fast == both.slow); // different delays: a real comparison
}

TEST_P(gpu_handoff, stop_and_wait_mid_run_return_within_5_s)
{
    const std::string device = GetParam();
    const chain_size s;
    for (int round = 0; round < 5; round++) {
        auto tb = gr::make_top_block("handoff_stop");
        auto src = gr::blocks::vector_source_b::make(sc16_input(s), true, 4 * s.receivers);
        auto conv = convert::make(sample_format::sc16, s.receivers, { 1.0f / 2048 }, device);
        auto pfb = make_pfb(s, device);
        auto beams = tensor_beamformer::make(s.channels, s.receivers, s.beams, weights(s),
                                             beam_precision::float16, beam_output::power, 4,
                                             polarization_layout::single, stokes_mode::I,
                                             device);
        auto sink = gr::blocks::null_sink::make(beams->output_item_bytes());
        tb->connect(src, 0, conv, 0);
        tb->connect(conv, 0, pfb, 0);
        tb->connect(pfb, 0, beams, 0);
        tb->connect(beams, 0, sink, 0);
        tb->start();
        // Mid-run: once results flow, and a little later each round.
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (beams->nitems_written(0) == 0 && std::chrono::steady_clock::now() < give_up)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        std::this_thread::sleep_for(std::chrono::milliseconds(20 * round));
        auto stopped = std::async(std::launch::async, [tb] {
            tb->stop();
            tb->wait();
        });
        if (stopped.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
            ADD_FAILURE() << device << ": stop()/wait() did not return within 5 s";
            std::cout.flush();
            std::_Exit(1);
        }
        EXPECT_GT(beams->nitems_written(0), 0u) << "the flowgraph never ran";
    }
}

namespace {

//! An engine that fails on its third call, as a kernel whose launch or copy
//! reports an error would.
struct failing_engine {
    int calls = 0;
    void execute(const void*, void*, size_t, stream_handle)
    {
        if (++calls == 3)
            throw std::runtime_error("CUDA error in cudaLaunchKernel at injected:1: "
                                     "an illegal memory access was encountered");
    }
};

struct failing_interface : virtual public gr::sync_block {
};

//! A GPU block on the shared skeleton whose engine fails.
class failing_block : public engine_block<failing_interface, failing_engine>
{
public:
    explicit failing_block(const device_spec& dev)
        : gr::sync_block("failing_block",
                         device_block::signature(1, 1, sizeof(gr_complex), dev),
                         device_block::signature(1, 1, sizeof(gr_complex), dev)),
          engine_block(dev, sizeof(gr_complex), std::make_unique<failing_engine>())
    {
        set_max_noutput_items(1000);
    }
    int work(int noutput_items, gr_vector_const_void_star& in, gr_vector_void_star& out) override
    {
        run_engine(noutput_items, in[0], out[0], size_t(noutput_items));
        return noutput_items;
    }
};

} // namespace

TEST_P(gpu_handoff, a_failing_work_call_ends_the_flowgraph)
{
    const device_spec dev = select_device(GetParam());
    auto tb = gr::make_top_block("handoff_failure");
    const size_t total = 100000;
    auto src = gr::blocks::vector_source_c::make(std::vector<gr_complex>(total, 1.f), false);
    auto failing = gnuradio::make_block_sptr<failing_block>(dev);
    auto sink = gr::blocks::null_sink::make(sizeof(gr_complex));
    tb->connect(src, 0, failing, 0);
    tb->connect(failing, 0, sink, 0);
    auto ran = std::async(std::launch::async, [tb] { tb->run(); });
    if (ran.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
        ADD_FAILURE() << GetParam() << ": the flowgraph hung after a failing work call";
        std::cout.flush();
        std::_Exit(1);
    }
    // Two calls of at most 1000 items passed, the third failed: the rest is not produced.
    EXPECT_LE(failing->nitems_written(0), 2000u);
    EXPECT_LT(sink->nitems_read(0), total);
}

TEST_P(gpu_handoff, a_failing_copy_to_the_host_ends_the_flowgraph)
{
    // An endless source: only the failure can end this flowgraph. The third
    // host read of the GPU block's output fails as a failed device -> host
    // copy would; the host reader logs it and ends, the GPU writer is woken
    // and ends, and so does the source.
    const device_spec dev = select_device(GetParam());
    auto tb = gr::make_top_block("handoff_copy_failure");
    auto src = gr::blocks::vector_source_c::make(std::vector<gr_complex>(4096, 1.f), true);
    auto conv = convert::make(sample_format::fc32, 1, { 1.0f }, dev.name());
    conv->set_max_noutput_items(1000);
    auto sink = gr::blocks::null_sink::make(sizeof(gr_complex));
    tb->connect(src, 0, conv, 0);
    tb->connect(conv, 0, sink, 0);
    device_buffer::inject_device_to_host_failure_after(2);
    auto ran = std::async(std::launch::async, [tb] { tb->run(); });
    const bool ended = ran.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
    device_buffer::inject_device_to_host_failure_after(-1);
    if (!ended) {
        ADD_FAILURE() << GetParam() << ": the flowgraph hung after a failed copy to the host";
        std::cout.flush();
        std::_Exit(1);
    }
    // The two reads before the failure saw items; nothing after it was read.
    EXPECT_GT(sink->nitems_read(0), 0u);
    const auto* gpu = dynamic_cast<const device_block*>(conv.get());
    ASSERT_NE(gpu, nullptr);
    EXPECT_TRUE(gpu->output_copy_failed());
}

INSTANTIATE_TEST_SUITE_P(devices,
                         gpu_handoff,
                         ::testing::ValuesIn(device_memory_devices()),
                         device_test_name());
