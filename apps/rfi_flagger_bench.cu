/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rfi_flagger benchmark (docs/architecture.md, "Measuring"): the GPU engine on
 * spectra [items][channels][receivers] fc32 of Gaussian noise with a few
 * flagged (channel, receiver)s, counted as one read + one write of the spectra,
 * against a device-to-device copy of the same bytes measured in the same run
 * (target: >= 80% of the copy), for each replacement (zeros, noise, noise with
 * the power-outlier criterion); plus the CPU engine on a slice of the same data,
 * whose masks and outputs must equal the GPU's bit for bit.
 *
 * Usage: `usage` below (also printed by --help).
 */
#include "bench_common.h"
#include <gnuradio/beamform/engines/rfi_flagger_engine.h>
#include <chrono>
#include <complex>
#include <cstring>
#include <iostream>

namespace {

//! The usage text, printed by --help (bench::accept_only checks that it names
//! every accepted option).
constexpr const char* usage = R"(usage: rfi_flagger_bench [--receivers=96] [--channels=256,1024] [--block=64]
                         [--bytes=805306368] [--runs=50]
                         [--json=rfi_flagger_bench.json]
  --receivers=R       receivers, 1 to 1048576 (default 96)
  --channels=N,...    channel counts, one case each, each 1 to 1048576
                      (default 256,1024)
  --block=M           spectra per spectral-kurtosis block, 1 to 1048576
                      (default 64)
  --bytes=B           spectra per case in bytes (whole blocks, at least one),
                      1 to 2^40 (default 805306368)
  --runs=N            timed GPU runs per row, 1 to 100000 (default 50)
  --json=PATH         where the JSON results go (default rfi_flagger_bench.json)
  -h, --help          print this text and exit
A bad option is a usage error (exit status 2).
notes and figures: apps/rfi_flagger_bench.md in the gr-beamform sources
)";

using cf = std::complex<float>;
using gr::beamform::backend;
using gr::beamform::device_spec;
using gr::beamform::rfi_flagger_config;
using gr::beamform::rfi_flagger_engine;
using gr::beamform::rfi_replacement;

/*!
 * Gaussian noise with a CW tone in every 17th (channel, receiver), generated
 * for \p tile_items on the host and repeated over the device buffer.
 */
void fill_spectra(cf* d, size_t items, size_t tile_items, size_t elements)
{
    std::mt19937 gen(3);
    std::normal_distribution<float> g(0.0f, 0.7071f);
    std::vector<cf> tile(tile_items * elements);
    for (size_t t = 0; t < tile_items; t++)
        for (size_t j = 0; j < elements; j++) {
            cf v(g(gen), g(gen));
            if (j % 17 == 0)
                v += std::polar(2.0f, 0.3f * float(t));
            tile[t * elements + j] = v;
        }
    for (size_t t0 = 0; t0 < items; t0 += tile_items) {
        const size_t n = std::min(tile_items, items - t0) * elements;
        BF_GPU_CHECK(cudaMemcpy(
            d + t0 * elements, tile.data(), n * sizeof(cf), cudaMemcpyHostToDevice));
    }
}

} // namespace

namespace {
int run(int argc, char** argv)
{
    bench::accept_only(
        argc, argv, { "receivers", "channels", "block", "bytes", "runs", "json" }, usage);
    const size_t receivers =
        size_t(bench::integer_option(argc, argv, "receivers", 96, 1, 1 << 20));
    const auto channel_list =
        bench::list_option(argc, argv, "channels", { 256, 1024 }, 1, 1 << 20);
    const size_t block =
        size_t(bench::integer_option(argc, argv, "block", 64, 1, 1 << 20));
    const size_t target_bytes =
        size_t(bench::integer_option(argc, argv, "bytes", 805306368, 1, 1ll << 40));
    const int runs = int(bench::integer_option(argc, argv, "runs", 50, 1, 100000));
    const std::string json = bench::option(argc, argv, "json", "rfi_flagger_bench.json");

    cudaStream_t stream;
    BF_GPU_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const device_spec gpu{ backend::cuda, 0 };
    const std::string device = bench::device_name();
    const double ceiling_1gib = bench::copy_ceiling_gbps(stream);
    bench::report report("rfi_flagger_bench");

    std::printf("rfi_flagger_bench on %s: spectra fc32 [items][channels][%zu receivers], "
                "M = %zu,\nGB/s = (bytes read + bytes written) / time; copy = "
                "cudaMemcpyAsync D2D of the same bytes in this run\n(1 GiB D2D copy "
                "ceiling: %.0f GB/s)\n\n",
                device.c_str(),
                receivers,
                block,
                ceiling_1gib);
    std::printf("%-9s %-13s %-7s %-9s %-10s %-9s %-9s %-9s %-9s %-10s\n",
                "channels",
                "replace",
                "items",
                "MB in",
                "gpu ms",
                "gpu GB/s",
                "copy GB/s",
                "of copy",
                "flagged",
                "cpu GB/s");

    struct variant {
        const char* name;
        rfi_replacement replacement;
        double mad;
    };
    const variant variants[] = { { "zeros", rfi_replacement::zeros, 0.0 },
                                 { "noise", rfi_replacement::noise, 0.0 },
                                 { "noise+mad", rfi_replacement::noise, 5.0 } };

    for (size_t channels : channel_list) {
        const size_t elements = channels * receivers;
        const size_t item_bytes = elements * sizeof(cf);
        const size_t items =
            std::max<size_t>(1, target_bytes / item_bytes / block) * block;
        const size_t bytes = items * item_bytes;
        bench::device_array d_in(bytes), d_out(bytes);
        fill_spectra(d_in.as<cf>(), items, 4 * block, elements);
        std::vector<uint8_t> mask(items / block * elements);

        const auto copy_t = bench::time_gpu(
            [&] {
                BF_GPU_CHECK(cudaMemcpyAsync(
                    d_out.get(), d_in.get(), bytes, cudaMemcpyDeviceToDevice, stream));
            },
            stream,
            runs);
        const double copy_gbps = 2.0 * bytes / (copy_t.median_ms * 1e-3) / 1e9;

        for (const auto& v : variants) {
            rfi_flagger_config config;
            config.n_channels = channels;
            config.n_receivers = receivers;
            config.block_size = block;
            config.replacement = v.replacement;
            config.mad_threshold = v.mad;
            config.seed = 1;
            auto engine = rfi_flagger_engine::make(config, gpu);
            const uint64_t first_item = 3000000000ull;
            const auto gpu_t = bench::time_gpu(
                [&] {
                    engine->execute(d_in.as<cf>(),
                                    d_out.as<cf>(),
                                    items,
                                    first_item,
                                    mask.data(),
                                    stream);
                },
                stream,
                runs);
            const double gpu_gbps = 2.0 * bytes / (gpu_t.median_ms * 1e-3) / 1e9;
            size_t flagged = 0;
            for (uint8_t f : mask)
                flagged += f;

            // The CPU engine on a slice: same masks and outputs, bit for bit.
            const size_t cpu_items = std::max<size_t>(
                block, std::min<size_t>(items, (32u << 20) / item_bytes) / block * block);
            std::vector<cf> host_in(cpu_items * elements), host_out(host_in.size()),
                gpu_slice(host_in.size());
            std::vector<uint8_t> cpu_mask(cpu_items / block * elements);
            BF_GPU_CHECK(cudaMemcpy(host_in.data(),
                                    d_in.get(),
                                    host_in.size() * sizeof(cf),
                                    cudaMemcpyDeviceToHost));
            engine->execute(d_in.as<cf>(),
                            d_out.as<cf>(),
                            cpu_items,
                            first_item,
                            mask.data(),
                            stream);
            BF_GPU_CHECK(cudaStreamSynchronize(stream));
            BF_GPU_CHECK(cudaMemcpy(gpu_slice.data(),
                                    d_out.get(),
                                    gpu_slice.size() * sizeof(cf),
                                    cudaMemcpyDeviceToHost));
            auto cpu = gr::beamform::make_rfi_flagger_cpu(config);
            const double cpu_ms = bench::time_cpu_ms(
                [&] {
                    cpu->execute(host_in.data(),
                                 host_out.data(),
                                 cpu_items,
                                 first_item,
                                 cpu_mask.data(),
                                 nullptr);
                },
                3);
            const bool same =
                std::memcmp(cpu_mask.data(), mask.data(), cpu_mask.size()) == 0 &&
                std::memcmp(
                    host_out.data(), gpu_slice.data(), host_out.size() * sizeof(cf)) == 0;
            const double cpu_gbps = 2.0 * cpu_items * item_bytes / (cpu_ms * 1e-3) / 1e9;

            std::printf(
                "%-9zu %-13s %-7zu %-9.0f %-10.3f %-9.0f %-9.0f %-8.1f%% %-8.2f%% "
                "%-10.2f %s\n",
                channels,
                v.name,
                items,
                bytes / 1e6,
                gpu_t.median_ms,
                gpu_gbps,
                copy_gbps,
                100.0 * gpu_gbps / copy_gbps,
                100.0 * double(flagged) / double(mask.size()),
                cpu_gbps,
                same ? "gpu == cpu" : "GPU AND CPU DIFFER");

            report.row();
            report.set("channels", double(channels));
            report.set("receivers", double(receivers));
            report.set("block_size", double(block));
            report.set("replace_noise",
                       v.replacement == rfi_replacement::noise ? 1.0 : 0.0);
            report.set("mad_threshold", v.mad);
            report.set("items", double(items));
            report.set("bytes_read_plus_written", 2.0 * bytes);
            report.set("gpu_median_ms", gpu_t.median_ms);
            report.set("gpu_gbps", gpu_gbps);
            report.set("copy_same_bytes_gbps", copy_gbps);
            report.set("copy_1gib_gbps", ceiling_1gib);
            report.set("fraction_of_copy", gpu_gbps / copy_gbps);
            report.set("flagged_fraction", double(flagged) / double(mask.size()));
            report.set("cpu_gbps", cpu_gbps);
            report.set("gpu_equals_cpu", same ? 1.0 : 0.0);
            if (!same)
                return 1;
        }
    }
    std::printf("\nflagged: fraction of (block, channel, receiver) estimates (every 17th "
                "carries a tone; the rest is Gaussian noise).\ncpu: the CPU engine on a "
                "slice, all cores.\n");
    report.write_json(json);
    std::printf("JSON: %s\n", json.c_str());
    cudaStreamDestroy(stream);
    return 0;
}
} // namespace

int main(int argc, char** argv)
{
    return bench::run_main("rfi_flagger_bench", argc, argv, run);
}
