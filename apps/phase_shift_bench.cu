/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * phase_shift benchmark (docs/architecture.md, "Measuring"): the GPU engine on spectra
 * [items][channels][receivers] fc32, counted as one read + one write of the
 * spectra, against a device-to-device copy of the same bytes measured in the
 * same run (target: >= 80% of the copy); plus the CPU engine and GNU Radio's
 * multiply_const_vcc (the CPU peer for static phases) on a slice of the same
 * data.
 *
 * Usage: `usage` below (also printed by --help).
 */
#include "bench_common.h"
#include <gnuradio/beamform/engines/phase_shift_engine.h>
#include <gnuradio/blocks/multiply_const_v.h>
#include <chrono>
#include <complex>
#include <iostream>

namespace {

//! The usage text, printed by --help (bench::accept_only checks that it names
//! every accepted option).
constexpr const char* usage = R"(usage: phase_shift_bench [--receivers=96] [--channels=256,1024]
                         [--bytes=805306368] [--runs=50]
                         [--json=phase_shift_bench.json]
  --receivers=R       receivers, 1 to 1048576 (default 96)
  --channels=N,...    channel counts, one case each, each 1 to 1048576
                      (default 256,1024)
  --bytes=B           spectra per case in bytes (whole items, at least one),
                      1 to 2^40 (default 805306368)
  --runs=N            timed GPU runs per row, 1 to 100000 (default 50)
  --json=PATH         where the JSON results go (default phase_shift_bench.json)
  -h, --help          print this text and exit
A bad option is a usage error (exit status 2).
notes and figures: apps/phase_shift_bench.md in the gr-beamform sources
)";

using cf = std::complex<float>;
using gr::beamform::backend;
using gr::beamform::device_spec;
using gr::beamform::phase_shift_config;
using gr::beamform::phase_shift_delays;
using gr::beamform::phase_shift_engine;

phase_shift_config make_config(size_t channels, size_t receivers)
{
    phase_shift_config c;
    c.n_channels = channels;
    c.n_receivers = receivers;
    c.item_period =
        channels / 200e6; // LOFAR-like: 200 MHz sampled, critically channelized
    for (size_t k = 0; k < channels; k++)
        c.channel_frequencies.push_back(100e6 + k * 200e6 / channels);
    return c;
}

phase_shift_delays make_delays(size_t receivers, bool with_rates)
{
    std::mt19937 gen(5);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    phase_shift_delays d;
    for (size_t a = 0; a < receivers; a++) {
        d.delays.push_back(2e-7 * u(gen));
        d.rates.push_back(with_rates ? 3e-9 * u(gen) : 0.0);
        d.gains.push_back(cf(float(1 + 0.1 * u(gen)), float(0.1 * u(gen))));
    }
    d.t0 = 0.5;
    return d;
}

} // namespace

namespace {
int run(int argc, char** argv)
{
    bench::accept_only(
        argc, argv, { "receivers", "channels", "bytes", "runs", "json" }, usage);
    const size_t receivers =
        size_t(bench::integer_option(argc, argv, "receivers", 96, 1, 1 << 20));
    const auto channel_list =
        bench::list_option(argc, argv, "channels", { 256, 1024 }, 1, 1 << 20);
    const size_t target_bytes =
        size_t(bench::integer_option(argc, argv, "bytes", 805306368, 1, 1ll << 40));
    const int runs = int(bench::integer_option(argc, argv, "runs", 50, 1, 100000));
    const std::string json = bench::option(argc, argv, "json", "phase_shift_bench.json");

    cudaStream_t stream;
    BF_GPU_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const device_spec gpu{ backend::cuda, 0 };
    const device_spec cpu{ backend::cpu, 0 };
    const std::string device = bench::device_name();
    const double ceiling_1gib = bench::copy_ceiling_gbps(stream);
    bench::report report("phase_shift_bench");

    std::printf(
        "phase_shift_bench on %s: spectra fc32 [items][channels][%zu receivers],\n"
        "GB/s = (bytes read + bytes written) / time; copy = cudaMemcpyAsync D2D of the "
        "same bytes in this run\n(1 GiB D2D copy ceiling: %.0f GB/s)\n\n",
        device.c_str(),
        receivers,
        ceiling_1gib);
    std::printf("%-9s %-7s %-9s %-10s %-9s %-9s %-9s %-14s %-14s %-14s\n",
                "channels",
                "items",
                "MB in",
                "gpu ms",
                "gpu GB/s",
                "copy GB/s",
                "of copy",
                "cpu static",
                "cpu tracking",
                "gr mult_const");

    for (size_t channels : channel_list) {
        const size_t elements = channels * receivers; // per item
        const size_t item_bytes = elements * sizeof(cf);
        const size_t items = std::max<size_t>(1, target_bytes / item_bytes);
        const size_t bytes = items * item_bytes;
        const auto config = make_config(channels, receivers);
        const auto tracking = make_delays(receivers, true);
        const auto fixed = make_delays(receivers, false);

        bench::device_array d_in(bytes), d_out(bytes);
        bench::fill_random_floats(d_in.get(), bytes / sizeof(float), 11);
        auto engine = phase_shift_engine::make(config, tracking, gpu);
        const uint64_t first_item = 3000000000ull; // ~ 1 h into an observation
        const auto gpu_t = bench::time_gpu(
            [&] {
                engine->execute(d_in.as<cf>(), d_out.as<cf>(), items, first_item, stream);
            },
            stream,
            runs);
        const auto copy_t = bench::time_gpu(
            [&] {
                BF_GPU_CHECK(cudaMemcpyAsync(
                    d_out.get(), d_in.get(), bytes, cudaMemcpyDeviceToDevice, stream));
            },
            stream,
            runs);
        const double gpu_gbps = 2.0 * bytes / (gpu_t.median_ms * 1e-3) / 1e9;
        const double copy_gbps = 2.0 * bytes / (copy_t.median_ms * 1e-3) / 1e9;

        // CPU: a slice of the same data (the CPU engine is ~1000x slower).
        const size_t cpu_items =
            std::max<size_t>(1, std::min<size_t>(items, (32u << 20) / item_bytes));
        std::vector<cf> host_in(cpu_items * elements), host_out(cpu_items * elements),
            gpu_slice(cpu_items * elements);
        BF_GPU_CHECK(cudaMemcpy(host_in.data(),
                               d_in.get(),
                               host_in.size() * sizeof(cf),
                               cudaMemcpyDeviceToHost));
        // Correctness check of the timed GPU output against the CPU reference.
        engine->execute(d_in.as<cf>(), d_out.as<cf>(), cpu_items, first_item, stream);
        BF_GPU_CHECK(cudaStreamSynchronize(stream));
        BF_GPU_CHECK(cudaMemcpy(gpu_slice.data(),
                               d_out.get(),
                               gpu_slice.size() * sizeof(cf),
                               cudaMemcpyDeviceToHost));
        auto cpu_tracking = phase_shift_engine::make(config, tracking, cpu);
        auto cpu_static = phase_shift_engine::make(config, fixed, cpu);
        cpu_tracking->execute(
            host_in.data(), host_out.data(), cpu_items, first_item, nullptr);
        double num = 0, den = 0;
        for (size_t i = 0; i < host_out.size(); i++) {
            num += std::norm(std::complex<double>(gpu_slice[i]) -
                             std::complex<double>(host_out[i]));
            den += std::norm(std::complex<double>(host_out[i]));
        }
        const double rel_err = std::sqrt(num / den);

        const int cpu_runs = 5;
        const double static_ms = bench::time_cpu_ms(
            [&] {
                cpu_static->execute(
                    host_in.data(), host_out.data(), cpu_items, first_item, nullptr);
            },
            cpu_runs);
        const double tracking_ms = bench::time_cpu_ms(
            [&] {
                cpu_tracking->execute(
                    host_in.data(), host_out.data(), cpu_items, first_item, nullptr);
            },
            cpu_runs);
        // GNU Radio's CPU peer for fixed phases: multiply_const_vcc with one
        // phasor per (channel, receiver), called through work() directly.
        std::vector<cf> phasors(elements);
        for (size_t j = 0; j < elements; j++)
            phasors[j] = std::polar(1.0f, float(j) * 0.001f);
        auto gr_mult = gr::blocks::multiply_const_vcc::make(phasors);
        gr_vector_const_void_star gr_in{ host_in.data() };
        gr_vector_void_star gr_out{ host_out.data() };
        const double gr_ms =
            bench::time_cpu_ms([&] { gr_mult->work(int(cpu_items), gr_in, gr_out); }, cpu_runs);
        const double cpu_bytes = 2.0 * cpu_items * item_bytes;
        auto cpu_gbps = [&](double ms) { return cpu_bytes / (ms * 1e-3) / 1e9; };

        std::printf("%-9zu %-7zu %-9.0f %-10.3f %-9.0f %-9.0f %-9.1f%% %-6.2f GB/s   "
                    "%-6.3f GB/s   %-6.2f GB/s\n",
                    channels,
                    items,
                    bytes / 1e6,
                    gpu_t.median_ms,
                    gpu_gbps,
                    copy_gbps,
                    100.0 * gpu_gbps / copy_gbps,
                    cpu_gbps(static_ms),
                    cpu_gbps(tracking_ms),
                    cpu_gbps(gr_ms));
        std::printf("          gpu vs cpu relative error on the first %zu items: %.2e; "
                    "gpu min/max %.3f/%.3f ms; cpu slice %zu items, 1 thread\n",
                    cpu_items,
                    rel_err,
                    gpu_t.min_ms,
                    gpu_t.max_ms,
                    cpu_items);

        report.row();
        report.set("channels", double(channels));
        report.set("receivers", double(receivers));
        report.set("items", double(items));
        report.set("bytes_read_plus_written", 2.0 * bytes);
        report.set("gpu_median_ms", gpu_t.median_ms);
        report.set("gpu_gbps", gpu_gbps);
        report.set("copy_same_bytes_gbps", copy_gbps);
        report.set("copy_1gib_gbps", ceiling_1gib);
        report.set("fraction_of_copy", gpu_gbps / copy_gbps);
        report.set("gpu_vs_cpu_relative_error", rel_err);
        report.set("cpu_items", double(cpu_items));
        report.set("cpu_static_gbps", cpu_gbps(static_ms));
        report.set("cpu_tracking_gbps", cpu_gbps(tracking_ms));
        report.set("gr_multiply_const_vcc_gbps", cpu_gbps(gr_ms));
        report.set("cpu_tracking_ns_per_element",
                   tracking_ms * 1e6 / (cpu_items * elements));
    }
    std::printf(
        "\ncpu static: no delay rates (one phasor table, VOLK multiply); cpu tracking: "
        "rates != 0 (every phasor re-evaluated per item in double).\n"
        "gr mult_const: GNU Radio blocks.multiply_const_vcc on the same slice (fixed "
        "phases only).\n");
    report.write_json(json);
    std::printf("JSON: %s\n", json.c_str());
    cudaStreamDestroy(stream);
    return 0;
}
} // namespace

int main(int argc, char** argv)
{
    return bench::run_main("phase_shift_bench", argc, argv, run);
}
