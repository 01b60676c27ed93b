/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * --tune: every compiled tile and the library voltage path ("cublas") on
 * each configuration's shape, each timed through the engine's execute() as
 * the engine runs it; the fastest right one per device and shape class goes
 * to the tuning file (keys "<device name>/<shape class>").
 */
#include "beamform_bench.h"
#include <fstream>
#include <iomanip>
#include <iostream>

namespace bf_bench {

namespace {

/*!
 * --tune: every compiled tile (and "cublas" where it applies) on this
 * configuration's shape; returns ms per tile. A tile whose output disagrees with the
 * cuBLAS route (float16: relative error >= 1e-3) or with the exact host values (int1) is
 * reported and left out.
 */
std::map<std::string, double> tune_config(const context& ctx, const bench_config& b)
{
    std::map<std::string, double> ms;
    const auto& c = b.cfg;
    const bool int1 = c.precision == beam_precision::int1;
    auto d_in = make_input(b);
    device_array d_out(out_floats(c, b.n_times) * 4);
    const auto w =
        int1 ? std::vector<std::complex<float>>() : random_weights(c.weight_count(), 3);
    std::unique_ptr<device_array> route_out;
    if (!int1) {
        route_out = std::make_unique<device_array>(out_floats(c, b.n_times) * 4);
        context once = ctx;
        once.runs = 1;
        time_cublas_route(once, b, w, d_in->get(), *route_out);
    }
    const uint64_t seed = 99;
    // Every kernel tile and, for float16 voltage output on fc32 samples, the
    // library path: each timed as the engine runs it (execute()).
    auto candidates = tb_testing::compiled_tiles(c);
    if (!b.fp16_input && tb_testing::library_path_covers(c))
        candidates.push_back(tb_testing::library_path());
    for (const auto& tile : candidates) {
        try {
            auto engine = tb_testing::make_gpu_tiled(c, w, ctx.gpu, tile);
            if (int1)
                tb_testing::fill_random_weights(*engine, seed);
            BF_GPU_CHECK(cudaMemset(d_out.get(), 0xff, d_out.size()));
            const double t = time_engine(
                ctx, *engine, b, d_in->get(), d_out, std::max(5, ctx.runs / 3));
            const double err =
                int1 ? double(check_int1_samples(b, *d_in, d_out, seed))
                     : relative_error(d_out.get(), route_out->get(), c, b.n_times);
            const bool ok = int1 ? err == 0.0 : err < 1e-3;
            std::cout << "  tune " << b.id << " " << std::setw(22) << tile << " "
                      << std::fixed << std::setprecision(3) << t << " ms  "
                      << std::setprecision(1) << useful_ops(b) / (t * 1e-3) / 1e12
                      << " TOPs/s  " << (int1 ? "wrong samples " : "rel.err ")
                      << std::scientific << std::setprecision(1) << err << std::fixed
                      << (ok ? "" : "  WRONG: left out") << std::endl;
            if (ok)
                ms[tile] = t;
        } catch (const std::exception& e) {
            std::cout << "  tune " << b.id << " " << tile << " skipped: " << e.what()
                      << std::endl;
        }
    }
    return ms;
}

} // namespace

void tune(const context& ctx,
          const std::vector<bench_config>& configs,
          const std::string& only,
          bool quick,
          const std::string& tuning_file,
          const std::string& device)
{
    // Fastest tile per shape class, summed over the configurations in it;
    // only tiles that were right in every one of them.
    std::map<std::string, std::map<std::string, double>> per_key;
    std::map<std::string, std::map<std::string, int>> right_in;
    std::map<std::string, int> n_configs;
    for (const auto& b : configs) {
        if (!selected(only, b.id))
            continue;
        const auto timings = tune_config(ctx, b);
        // fp16 samples (the GEMM core) are not what the engine reads: timed,
        // reported, not written to the file.
        if (b.fp16_input) {
            std::cout << "  (config " << b.id << ": fp16 samples, not an engine input: "
                      << "not written to the tuning file)" << std::endl;
            continue;
        }
        const auto key = tb_testing::tuning_key(b.cfg, ctx.gpu.index);
        n_configs[key]++;
        for (const auto& [tile, ms] : timings) {
            per_key[key][tile] += ms;
            right_in[key][tile]++;
        }
    }
    std::ofstream f(tuning_file);
    f << "# gr-beamform tensor_beamformer tuning for " << device
      << " (beamform_bench --tune" << (quick ? " --quick" : "") << ")\n";
    for (const auto& [key, tiles] : per_key) {
        std::string best;
        double best_ms = 1e300;
        for (const auto& [tile, total] : tiles)
            if (right_in[key][tile] == n_configs[key] && total < best_ms) {
                best = tile;
                best_ms = total;
            }
        if (best.empty()) {
            std::cout << "no tile was right in every configuration of " << key
                      << std::endl;
            continue;
        }
        f << key << " = " << best << "\n";
        std::cout << "tuned " << key << " = " << best << std::endl;
    }
    std::cout << "wrote " << tuning_file << " (use: BEAMFORM_TUNING_FILE=" << tuning_file
              << ")" << std::endl;
}

} // namespace bf_bench
