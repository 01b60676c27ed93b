/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * device_buffer throughput: GNU Radio flowgraphs of beamform.convert blocks on
 * the GPU with large items, next to a device-to-device copy and the convert
 * kernel alone, measured in the same run.
 *
 * Usage: `usage` below (also printed by --help).
 */
#include "bench_common.h"
#include <gnuradio/beamform/engines/convert_engine.h>
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gnuradio/beamform/convert.h>
#include <gnuradio/blocks/null_sink.h>
#include "bench_source.h"
#include <gnuradio/top_block.h>
#include <chrono>
#include <cstring>
#include <iostream>

using namespace gr::beamform;

namespace {

//! The usage text, printed by --help (bench::accept_only checks that it names
//! every accepted option).
constexpr const char* usage = R"(usage: device_buffer_bench [--receivers=262144] [--items=2000] [--stages=4]
                           [--json=device_buffer_bench.json]
  --receivers=R       receivers per item (an sc16 item is 4 B per receiver),
                      1 to 2^30 (default 262144)
  --items=N           items through the timed GPU flowgraph (the CPU one takes
                      a tenth), 10 to 2^40 (default 2000)
  --stages=N          convert blocks in the chain, 1 to 64 (default 4)
  --json=PATH         where the JSON results go
                      (default device_buffer_bench.json)
  -h, --help          print this text and exit
A bad option is a usage error (exit status 2).
notes: no notes file of its own; device_buffer is described in
docs/architecture.md in the gr-beamform sources
)";

struct chain_figures {
    double seconds;
    double input_gbps;   // input bytes per second through the chain
    copy_stats first_in; // host -> device at the chain's start
    copy_stats last_out; // device -> host at its end
    uint64_t gpu_edge_bytes;
};

/*!
 * host source (sc16 items of n_rx receivers, repeated) -> convert ->
 * (stages - 1) x convert (fc32) -> null sink, all converts on `device`.
 */
chain_figures run_chain(const std::string& device, size_t n_rx, size_t n_items, int stages)
{
    const size_t in_item = 4 * n_rx;
    std::vector<uint8_t> pattern(in_item * 8);
    std::mt19937 gen(5);
    for (auto& b : pattern)
        b = uint8_t(gen());
    auto tb = gr::make_top_block("bench");
    auto src = bench::pattern_source::make(pattern, in_item, n_items);
    std::vector<convert::sptr> chain;
    chain.push_back(convert::make(sample_format::sc16, int(n_rx), { 1.0f }, device));
    for (int s = 1; s < stages; s++)
        chain.push_back(convert::make(sample_format::fc32, int(n_rx), { 1.0f }, device));
    tb->connect(src, 0, chain[0], 0);
    for (size_t s = 1; s < chain.size(); s++)
        tb->connect(chain[s - 1], 0, chain[s], 0);
    tb->connect(chain.back(), 0, gr::blocks::null_sink::make(8 * n_rx), 0);

    const auto t0 = std::chrono::steady_clock::now();
    tb->run();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    uint64_t gpu_edges = 0;
    for (size_t s = 1; s < chain.size(); s++) {
        auto st = chain[s]->input_copy_stats();
        gpu_edges += st.host_to_device + st.device_to_host;
    }
    return { seconds,
             double(in_item) * double(n_items) / seconds / 1e9,
             chain.front()->input_copy_stats(),
             chain.back()->output_copy_stats(),
             gpu_edges };
}

} // namespace

namespace {
int run(int argc, char** argv)
{
    bench::accept_only(argc, argv, { "receivers", "items", "stages", "json" }, usage);
    const size_t n_rx =
        size_t(bench::integer_option(argc, argv, "receivers", 262144, 1, 1 << 30));
    const size_t n_items =
        size_t(bench::integer_option(argc, argv, "items", 2000, 10, 1ll << 40)); // the CPU chain's tenth >= 1
    const int stages = int(bench::integer_option(argc, argv, "stages", 4, 1, 64));
    const std::string json = bench::option(argc, argv, "json", "device_buffer_bench.json");

    const device_spec gpu = select_device("cuda:0");
    cudaStream_t stream;
    BF_GPU_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const double copy_gbps = bench::copy_ceiling_gbps(stream);

    // The host link: pinned copies of 256 MiB each way. A flowgraph fed from the
    // host cannot move its input faster than host -> device.
    const size_t link_bytes = size_t(256) << 20;
    pinned_memory host(backend::cuda, link_bytes);
    device_memory dev_buf(gpu, link_bytes);
    std::memset(host.get(), 1, link_bytes);
    auto h2d = bench::time_gpu(
        [&] { BF_GPU_CHECK(cudaMemcpyAsync(dev_buf.get(), host.get(), link_bytes, cudaMemcpyHostToDevice, stream)); },
        stream, 10, 2);
    auto d2h = bench::time_gpu(
        [&] { BF_GPU_CHECK(cudaMemcpyAsync(host.get(), dev_buf.get(), link_bytes, cudaMemcpyDeviceToHost, stream)); },
        stream, 10, 2);
    const double h2d_gbps = link_bytes / (h2d.median_ms * 1e-3) / 1e9;
    const double d2h_gbps = link_bytes / (d2h.median_ms * 1e-3) / 1e9;

    // The convert kernel alone, fc32 -> fc32 (8 B read + 8 B written per sample).
    const size_t n_samples = size_t(1) << 27;
    device_memory in(gpu, n_samples * 8), out(gpu, n_samples * 8);
    bench::fill_random_floats(in.get(), n_samples * 2, 3);
    convert_config cfg;
    cfg.input = sample_format::fc32;
    cfg.n_receivers = 1024;
    cfg.scale.assign(1024, 0.5f);
    auto engine = convert_engine::make(cfg, gpu);
    auto kernel = bench::time_gpu(
        [&] {
            engine->execute(in.get(), out.as<std::complex<float>>(), n_samples / 1024, stream);
        },
        stream);
    const double kernel_gbps = 16.0 * n_samples / (kernel.median_ms * 1e-3) / 1e9;

    // Flowgraphs: warm up once, then time.
    run_chain("cuda:0", n_rx, 16, stages);
    const auto gpu_chain = run_chain("cuda:0", n_rx, n_items, stages);
    const auto cpu_chain = run_chain("cpu", n_rx, n_items / 10, stages);

    bench::report r("device_buffer_bench");
    std::printf("device: %s\n", bench::device_name().c_str());
    std::printf("%-44s %12s %10s\n", "measurement", "GB/s", "vs copy");
    auto line = [&](const char* what, double gbps) {
        std::printf("%-44s %12.1f %9.1f%%\n", what, gbps, 100.0 * gbps / copy_gbps);
        r.row();
        r.set("measurement", what);
        r.set("gbps", gbps);
        r.set("copy_ceiling_gbps", copy_gbps);
    };
    line("device-to-device copy (read+write)", copy_gbps);
    line("pinned host -> device copy", h2d_gbps);
    line("pinned device -> host copy", d2h_gbps);
    line("convert kernel alone fc32 (read+write)", kernel_gbps);
    char label[128];
    std::snprintf(label, sizeof label, "GPU flowgraph, %d converts, input rate", stages);
    line(label, gpu_chain.input_gbps);
    std::snprintf(label, sizeof label, "CPU flowgraph, %d converts, input rate", stages);
    line(label, cpu_chain.input_gbps);
    std::printf("GPU flowgraph: %zu items of %zu B in %.3f s; host->device %llu B, "
                "device->host %llu B, GPU->GPU edges %llu B\n",
                n_items,
                4 * n_rx,
                gpu_chain.seconds,
                (unsigned long long)gpu_chain.first_in.host_to_device,
                (unsigned long long)gpu_chain.last_out.device_to_host,
                (unsigned long long)gpu_chain.gpu_edge_bytes);
    r.write_json(json);
    return 0;
}
} // namespace

int main(int argc, char** argv)
{
    return bench::run_main("device_buffer_bench", argc, argv, run);
}
