/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * device_buffer in real GNU Radio flowgraphs, on every device that keeps items
 * in device memory: emu (host-memory stand-in, always) and the GPUs present.
 *  1. host source -> convert -> convert -> host sink equals the CPU result exactly,
 *     for items of a few bytes and of several MB;
 *  2. the GPU -> GPU edge copies 0 bytes, the host edges exactly the data size;
 *  3. 200 build/run/destroy cycles leave device memory where it started;
 *  4. the unsupported topologies raise at start, within 5 seconds.
 */
#include "block_support/device_buffer.h"
#include "test_util.h"
#include <gnuradio/beamform/convert.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/top_block.h>
#include <chrono>
#include <cstdint>
#include <future>
#include <iostream>

using namespace gr::beamform;
using namespace beamform_test;

namespace {

struct chain_result {
    std::vector<gr_complex> out;
    copy_stats first_in, first_out, second_in, second_out;
};

//! host source (sc16) -> convert -> convert (fc32) -> host sink, on `device`.
chain_result run_chain(const std::string& device,
                       const std::vector<int16_t>& raw,
                       size_t n_rx,
                       const std::vector<float>& scale1,
                       const std::vector<float>& scale2)
{
    auto tb = gr::make_top_block("chain");
    std::vector<uint8_t> bytes(reinterpret_cast<const uint8_t*>(raw.data()),
                               reinterpret_cast<const uint8_t*>(raw.data() + raw.size()));
    auto src = gr::blocks::vector_source_b::make(bytes, false, 4 * n_rx);
    auto first = convert::make(sample_format::sc16, int(n_rx), scale1, device);
    auto second = convert::make(sample_format::fc32, int(n_rx), scale2, device);
    auto snk = gr::blocks::vector_sink_c::make(n_rx);
    tb->connect(src, 0, first, 0);
    tb->connect(first, 0, second, 0);
    tb->connect(second, 0, snk, 0);
    tb->run();
    return { snk->data(),
             first->input_copy_stats(),
             first->output_copy_stats(),
             second->input_copy_stats(),
             second->output_copy_stats() };
}

} // namespace

class device_buffer_chain : public ::testing::TestWithParam<std::string>
{
};

TEST_P(device_buffer_chain, exact_and_copies_only_at_host_edges)
{
    const std::string device = GetParam();
    // Items of 4 bytes (1 receiver, sc16) and of 2.4 MB in / 4.8 MB out.
    for (size_t n_rx : { size_t(1), size_t(600000) }) {
        const size_t n_items = n_rx == 1 ? 100003 : 6;
        std::vector<int16_t> raw(2 * n_rx * n_items);
        std::mt19937 gen{ unsigned(n_rx) };
        for (auto& v : raw)
            v = int16_t(gen());
        const auto s1 = random_vector<float>(n_rx, 1, 0.5, 2.0);
        const auto s2 = random_vector<float>(n_rx, 2, 0.5, 2.0);

        const auto gpu = run_chain(device, raw, n_rx, s1, s2);
        const auto cpu = run_chain("cpu", raw, n_rx, s1, s2);
        ASSERT_EQ(gpu.out.size(), n_items * n_rx);
        ASSERT_EQ(gpu.out, cpu.out) << device << ": result differs from the CPU";

        const uint64_t in_bytes = raw.size() * sizeof(int16_t);
        const uint64_t out_bytes = n_items * n_rx * sizeof(gr_complex);
        std::cout << device << " item " << 4 * n_rx << " B: host->" << device << " "
                  << gpu.first_in.host_to_device << " B (data " << in_bytes << " B), "
                  << device << "->" << device << " " << gpu.first_out.host_to_device
                  << "+" << gpu.first_out.device_to_host << " B, " << device
                  << "->host " << gpu.second_out.device_to_host << " B (data "
                  << out_bytes << " B)\n";
        EXPECT_EQ(gpu.first_in.host_to_device, in_bytes);
        EXPECT_EQ(gpu.first_in.device_to_host, 0u);
        EXPECT_EQ(gpu.first_out.host_to_device + gpu.first_out.device_to_host, 0u);
        EXPECT_EQ(gpu.second_in.host_to_device + gpu.second_in.device_to_host, 0u);
        EXPECT_EQ(gpu.second_out.device_to_host, out_bytes);
        EXPECT_EQ(gpu.second_out.host_to_device, 0u);
    }
}

TEST_P(device_buffer_chain, build_run_destroy_cycles_release_device_memory)
{
    const std::string device = GetParam();
    const device_spec dev = select_device(device);
    const gpu_api& api = gpu_api_for(dev.kind);
    std::vector<int16_t> raw(2 * 64 * 1000, 3);
    const std::vector<float> s(64, 1.5f);

    run_chain(device, raw, 64, s, s); // runtime state created lazily stays out
    size_t free_before = 0, total = 0;
    api.memory_info(dev.index, free_before, total);
    const uint64_t held_before = allocated_device_bytes(dev.kind);
    const long buffers_before = device_buffer::live_count();

    uint64_t held_while_running = 0;
    for (int cycle = 0; cycle < 200; cycle++) {
        auto tb = gr::make_top_block("cycle");
        auto src = gr::blocks::vector_source_b::make(
            std::vector<uint8_t>(raw.size() * 2, 1), false, 4 * 64);
        auto a = convert::make(sample_format::sc16, 64, s, device);
        auto b = convert::make(sample_format::fc32, 64, s, device);
        auto snk = gr::blocks::null_sink::make(64 * sizeof(gr_complex));
        tb->connect(src, 0, a, 0);
        tb->connect(a, 0, b, 0);
        tb->connect(b, 0, snk, 0);
        tb->run();
        held_while_running = std::max(held_while_running, allocated_device_bytes(dev.kind));
    }

    size_t free_after = 0;
    api.memory_info(dev.index, free_after, total);
    std::cout << device << ": 200 cycles; device bytes held by the module "
              << held_before << " -> " << allocated_device_bytes(dev.kind)
              << " (peak while running " << held_while_running << "); live buffers "
              << buffers_before << " -> " << device_buffer::live_count();
    if (total > 0)
        std::cout << "; free device memory " << free_before << " -> " << free_after
                  << " of " << total;
    std::cout << "\n";
    EXPECT_GT(held_while_running, held_before);
    EXPECT_EQ(allocated_device_bytes(dev.kind), held_before);
    EXPECT_EQ(device_buffer::live_count(), buffers_before);
    if (total > 0) {
        const double drift = std::abs(double(free_after) - double(free_before)) / total;
        EXPECT_LT(drift, 0.01);
    }
}

namespace {

/*!
 * Start `tb` on another thread and wait at most 5 s: the message of the
 * exception it raised, or "" if it started. A hang fails the test and ends the
 * process, which cannot recover the stuck threads.
 */
std::string start_error(gr::top_block_sptr tb)
{
    auto started = std::async(std::launch::async, [tb]() -> std::string {
        try {
            tb->start();
        } catch (const std::exception& e) {
            return e.what();
        }
        tb->stop();
        tb->wait();
        return "";
    });
    if (started.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
        ADD_FAILURE() << "top_block.start() did not return within 5 s";
        std::cout.flush();
        std::_Exit(1);
    }
    return started.get();
}

gr::basic_block_sptr gpu_convert(const std::string& device)
{
    return convert::make(sample_format::fc32, 4, {}, device);
}

gr::basic_block_sptr host_source()
{
    return gr::blocks::vector_source_c::make(std::vector<gr_complex>(4000, 1.f), false, 4);
}

gr::basic_block_sptr host_sink() { return gr::blocks::null_sink::make(32); }

} // namespace

TEST_P(device_buffer_chain, host_output_to_two_gpu_blocks_raises_at_start)
{
    auto tb = gr::make_top_block("fanout");
    auto src = host_source();
    auto a = gpu_convert(GetParam()), b = gpu_convert(GetParam());
    tb->connect(src, 0, a, 0);
    tb->connect(a, 0, host_sink(), 0);
    tb->connect(src, 0, b, 0);
    tb->connect(b, 0, host_sink(), 0);
    const auto err = start_error(tb);
    std::cout << "fan-out: " << err << "\n";
    EXPECT_NE(err.find("more than one GPU block"), std::string::npos) << err;
}

TEST_P(device_buffer_chain, host_output_to_host_and_gpu_blocks_raises_at_start)
{
    for (bool gpu_first : { true, false }) {
        auto tb = gr::make_top_block("mixed");
        auto src = host_source();
        auto a = gpu_convert(GetParam());
        if (gpu_first) {
            tb->connect(src, 0, a, 0);
            tb->connect(src, 0, host_sink(), 0);
        } else {
            tb->connect(src, 0, host_sink(), 0);
            tb->connect(src, 0, a, 0);
        }
        tb->connect(a, 0, host_sink(), 0);
        const auto err = start_error(tb);
        std::cout << "host output read by host and GPU (GPU reader "
                  << (gpu_first ? "first" : "second") << "): " << err << "\n";
        EXPECT_TRUE(err.find("host and GPU readers") != std::string::npos ||
                    err.find("Cannot change to transfer type") != std::string::npos)
            << err;
    }
}

TEST_P(device_buffer_chain, gpu_output_to_host_and_gpu_blocks_raises_at_start)
{
    auto tb = gr::make_top_block("mixed_gpu");
    auto a = gpu_convert(GetParam()), b = gpu_convert(GetParam());
    tb->connect(host_source(), 0, a, 0);
    tb->connect(a, 0, b, 0);
    tb->connect(b, 0, host_sink(), 0);
    tb->connect(a, 0, host_sink(), 0);
    const auto err = start_error(tb);
    std::cout << "GPU output read by host and GPU: " << err << "\n";
    EXPECT_NE(err.find("Cannot change to transfer type"), std::string::npos) << err;
}

INSTANTIATE_TEST_SUITE_P(devices,
                         device_buffer_chain,
                         ::testing::ValuesIn(device_memory_devices()),
                         device_test_name());
