/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tensor beamformer (through beamform-testing) on each configuration,
 * against the cuBLAS route on the same data.
 */
#include "beamform_bench.h"
#include <iomanip>
#include <iostream>

namespace bf_bench {

/*!
 * The engine's Hopper tile (wgmma or warp-specialised) for this
 * configuration and its input (fp16 samples for the GEMM core), or "" where
 * there is none or this GPU cannot run it.
 */
std::string hopper_tile(const context& ctx, const bench_config& b)
{
    if (!tb_testing::wgmma_available(ctx.gpu.index))
        return "";
    return tb_testing::hopper_tile(b.cfg, b.fp16_input);
}

/*!
 * A wgmma tile (cp.async pipeline, no warp specialisation) to compare: the
 * Hopper tile where it is one, else the first compiled wgmma tile.
 */
std::string wgmma_tile(const context& ctx, const bench_config& b)
{
    const std::string hopper = hopper_tile(ctx, b);
    if (hopper.find("/wgmma/") != std::string::npos)
        return hopper;
    if (!tb_testing::wgmma_available(ctx.gpu.index))
        return "";
    for (const auto& t : tb_testing::compiled_tiles(b.cfg))
        if (t.find("/wgmma/") != std::string::npos)
            return t;
    return "";
}

/*!
 * The warp-specialised (TMA, sm_90a) tiles compiled for this configuration
 * that this GPU runs, except \p ours: each gets a row "(ws)" on the same data.
 */
std::vector<std::string>
ws_tiles(const context& ctx, const bench_config& b, const std::string& ours)
{
    std::vector<std::string> out;
    if (!tb_testing::wgmma_available(ctx.gpu.index))
        return out;
    for (const auto& t : tb_testing::compiled_tiles(b.cfg))
        if (t.find("/ws/") != std::string::npos && t != ours &&
            tb_testing::tile_usable(b.cfg, ctx.gpu.index, t) &&
            // "+pass" and "+ipass" tiles convert fc32 themselves: no
            // fp16-input twin
            !(b.fp16_input && t.find("pass") != std::string::npos))
            out.push_back(t);
    return out;
}

/*!
 * The mma.sync kernels on the same data, where the engine chose otherwise:
 * the pipelined kernel's tile (row "(pipelined)") and, where a resident tile
 * covers k, the resident-weights kernel's (row "(resident)").
 */
std::vector<std::pair<std::string, std::string>> other_family_tiles(const bench_config& b,
                                                                    const std::string& ours)
{
    std::vector<std::pair<std::string, std::string>> rows;
    if (b.fp16_input || b.cfg.precision != beam_precision::float16)
        return rows;
    const std::string pipelined = tb_testing::default_tile(b.cfg, "pipelined");
    if (pipelined != ours)
        rows.emplace_back("tensor_beamformer (pipelined)", pipelined);
    if (b.cfg.polarization == polarization_layout::single) {
        const std::string resident = tb_testing::default_tile(b.cfg, "resident");
        if (resident != ours && resident.find("/resident") != std::string::npos)
            rows.emplace_back("tensor_beamformer (resident)", resident);
    }
    return rows;
}

//! One engine run; returns the median ms. Leaves the output in d_out.
double time_engine(const context& ctx,
                   tensor_beamformer_engine& engine,
                   const bench_config& b,
                   const void* d_in,
                   device_array& d_out,
                   int runs)
{
    auto run = [&] {
        if (b.fp16_input)
            tb_testing::execute_fp16_input(
                engine, d_in, d_out.get(), b.n_times, ctx.stream);
        else
            engine.execute(d_in, d_out.get(), b.n_times, ctx.stream);
    };
    return bench::time_gpu(run, ctx.stream, runs, 3).median_ms;
}

std::vector<result> run_config(const context& ctx, const bench_config& b)
{
    std::vector<result> rows;
    const auto& c = b.cfg;
    const double ops = useful_ops(b);
    std::cout << "\n== config " << b.id << ": " << b.name << " (" << c.n_channels
              << " ch x " << c.n_beams << " beams x " << b.n_times << " samples x "
              << c.n_receivers << " rx)" << std::endl;
    auto d_in = make_input(b);
    device_array d_out(out_floats(c, b.n_times) * 4);
    BF_GPU_CHECK(cudaMemset(d_out.get(), 0xff, d_out.size())); // NaN until written

    result ours;
    ours.id = b.id;
    ours.name = b.name;
    ours.what = "tensor_beamformer";
    ours.target_text = b.target_text;
    if (c.precision == beam_precision::int1) {
        const uint64_t seed = 1234;
        auto engine = tb_testing::make_gpu_tiled(c, {}, ctx.gpu, "");
        tb_testing::fill_random_weights(*engine, seed);
        ours.tile = tb_testing::tile(*engine);
        ours.ms = time_engine(ctx, *engine, b, d_in->get(), d_out, ctx.runs);
        ours.tops = ops / (ours.ms * 1e-3) / 1e12;
        const size_t bad = check_int1_samples(b, *d_in, d_out, seed);
        ours.err = double(bad);
        std::cout << "int1: " << bad
                  << " of 64 sampled outputs differ from the exact host value"
                  << std::endl;
        ours.verdict =
            bad ? "WRONG" : (ours.tops >= b.target * ctx.peak_b1_tops ? "met" : "missed");
        rows.push_back(ours);
        if (!ctx.others)
            return rows;
        auto compare_int1 = [&](const std::string& what, const std::string& tile) {
            result r = ours;
            r.what = what;
            auto e = tb_testing::make_gpu_tiled(c, {}, ctx.gpu, tile);
            tb_testing::fill_random_weights(*e, seed);
            BF_GPU_CHECK(cudaMemset(d_out.get(), 0xff, d_out.size()));
            r.tile = tile;
            r.ms = time_engine(ctx, *e, b, d_in->get(), d_out, ctx.runs);
            r.tops = ops / (r.ms * 1e-3) / 1e12;
            const size_t wrong = check_int1_samples(b, *d_in, d_out, seed);
            r.err = double(wrong);
            r.verdict = wrong ? "WRONG"
                              : (r.tops >= b.target * ctx.peak_b1_tops ? "met" : "missed");
            rows.push_back(r);
        };
        if (const auto wg = wgmma_tile(ctx, b); !wg.empty() && wg != ours.tile)
            compare_int1("tensor_beamformer (wgmma)", wg);
        for (const auto& t : ws_tiles(ctx, b, ours.tile))
            compare_int1("tensor_beamformer (ws)", t);
        return rows;
    }

    const auto w = random_weights(c.weight_count(), 3);
    auto engine = tb_testing::make_gpu_tiled(c, w, ctx.gpu, "");
    // The fp16-input GEMM core is a kernel's: the Hopper tile for fp16
    // samples where this GPU runs it, else the kernel of the built-in rule
    // (never the library path).
    if (b.fp16_input) {
        std::string tile = hopper_tile(ctx, b);
        if (tile.empty())
            tile = tb_testing::builtin_kernel_tile(c, ctx.gpu.index);
        if (tile != tb_testing::tile(*engine))
            engine = tb_testing::make_gpu_tiled(c, w, ctx.gpu, tile);
    }
    ours.tile = tb_testing::tile(*engine); // "cublas": the library voltage path ran
    ours.ms = time_engine(ctx, *engine, b, d_in->get(), d_out, ctx.runs);
    ours.tops = ops / (ours.ms * 1e-3) / 1e12;
    // The byte floor: the samples (fc32, or fp16 for the GEMM core) and the
    // expanded fp16 weights (8 bytes per complex weight) read once, the output
    // written once, at the copy rate.
    const double in_mb =
        double(c.n_channels * c.n_receivers * b.n_times) * (b.fp16_input ? 4 : 8) / 1e6;
    const double w_mb = double(c.weight_count()) * 8 / 1e6;
    const double out_mb = double(out_floats(c, b.n_times)) * 4 / 1e6;
    const double floor_ms = (in_mb + w_mb + out_mb) / ctx.copy_gbps;
    std::cout << "counted bytes: samples " << std::fixed << std::setprecision(1) << in_mb
              << " MB + weights " << w_mb << " MB + output " << out_mb
              << " MB; byte floor " << std::setprecision(3) << floor_ms
              << " ms at the copy rate; ours " << ours.ms << " ms = " << std::setprecision(0)
              << 100 * floor_ms / ours.ms << " % of it" << std::endl;

    device_array route_out(out_floats(c, b.n_times) * 4);
    result route;
    route.id = b.id;
    route.name = b.name;
    route.what = b.fp16_input ? "cuBLAS HGEMM (expanded W)"
                              : (c.output == beam_output::power
                                     ? "cuBLAS route: convert+HGEMM+detect"
                                     : "cuBLAS route: convert+HGEMM");
    route.ms = time_cublas_route(ctx, b, w, d_in->get(), route_out);
    route.tops = ops / (route.ms * 1e-3) / 1e12;
    route.ratio_hgemm = route.tops / ctx.hgemm_tflops;
    rows.push_back(route);

    ours.err = relative_error(d_out.get(), route_out.get(), c, b.n_times);
    ours.ratio_route = route.ms / ours.ms;
    ours.ratio_hgemm = ours.tops / ctx.hgemm_tflops;
    if (!(ours.err < 1e-3))
        ours.verdict = "WRONG";
    else if (b.target > 0)
        ours.verdict = ours.ratio_route >= b.target ? "met" : "missed";
    else if (b.id == "2")
        ours.verdict = "x" + std::to_string(int(std::round(ours.tops * 1e3 / 672.0))) +
                       "-" + std::to_string(int(std::round(ours.tops * 1e3 / 552.0))) +
                       " the GTX580's 552-672 GFLOP/s";
    else
        ours.verdict = "report";
    rows.insert(rows.begin(), ours);
    if (!ctx.others)
        return rows;

    // The other kernels on the same data: the wgmma tile (where this GPU runs
    // the sm_90a image and the engine chose another), the pipelined mma.sync
    // tile and the resident-weights tile (where the engine chose another).
    auto compare = [&](const std::string& what, const std::string& tile) {
        result r = ours;
        r.what = what;
        auto e = tb_testing::make_gpu_tiled(c, w, ctx.gpu, tile);
        BF_GPU_CHECK(cudaMemset(d_out.get(), 0xff, d_out.size()));
        r.tile = tile;
        r.ms = time_engine(ctx, *e, b, d_in->get(), d_out, ctx.runs);
        r.tops = ops / (r.ms * 1e-3) / 1e12;
        r.err = relative_error(d_out.get(), route_out.get(), c, b.n_times);
        r.ratio_route = route.ms / r.ms;
        r.ratio_hgemm = r.tops / ctx.hgemm_tflops;
        if (!(r.err < 1e-3))
            r.verdict = "WRONG";
        else if (b.target > 0)
            r.verdict = r.ratio_route >= b.target ? "met" : "missed";
        else
            r.verdict = "report";
        rows.insert(rows.begin() + 1, r);
    };
    for (const auto& [what, tile] : other_family_tiles(b, ours.tile))
        if (tb_testing::tile_usable(c, ctx.gpu.index, tile))
            compare(what, tile);
    if (const auto wg = wgmma_tile(ctx, b); !wg.empty() && wg != ours.tile)
        compare("tensor_beamformer (wgmma)", wg);
    for (const auto& t : ws_tiles(ctx, b, ours.tile))
        compare("tensor_beamformer (ws)", t);
    // The library voltage path, where the engine took a kernel tile.
    const std::string library = tb_testing::library_path();
    if (!b.fp16_input && ours.tile != library && tb_testing::library_path_covers(c))
        compare("tensor_beamformer (cublas)", library);
    return rows;
}

} // namespace bf_bench
