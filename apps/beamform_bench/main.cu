/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tensor-core beamformer against the route a user would otherwise take
 * (a fc32 -> fp16 conversion kernel, one cuBLAS HGEMM per channel through
 * cublasGemmStridedBatchedEx with the same expanded weight matrix (fp16 in,
 * fp32 accumulate and out), and for power output a separate detect kernel),
 * all in one process, next to the ceilings measured in the same run: a
 * device-to-device copy, a cuBLAS HGEMM 8192^3, and the tensor cores' own
 * mma.sync rate (fp16 and 1-bit AND) from a loop that touches no memory.
 * Notes, counted bytes and operations, and predictions: apps/beamform_bench.md.
 *
 * Usage: `usage` below (also printed by --help).
 *
 * Configurations (TOPs/s = 8 * beams * samples * receivers * channels / s):
 *   1  GEMM core: 1 ch x 8192 beams x 8192 samples x 8192 receivers, fp16 in
 *   2  LOFAR survey: 256 ch, 64 dual-pol stations (128 rx), 155 beams, 768 samples,
 *      voltage out; 2/I and 2/IQUV the same with power out (n_int 16)
 *   3  256 ch x 1024 beams x 1024 samples, 64/128/512 rx, fc32 in, voltage out
 *   4  the same, power out (n_int 16)
 *      (--receivers=96,160 runs configs 3 and 4 at other receiver counts,
 *      1-4096; issue 11's targets name 64, 128 and 512, other counts report)
 *   5  int1: 1 ch x 8192 beams x 8192 samples x 262144 receivers
 *   6  the reference station: 256 ch x 1024 beams x 1024 samples x 96 rx,
 *      power Stokes I n_int 16
 * --config=N runs every row of configuration N, --config=ID one row of it
 * (the table's first column: 3/rx64, 4/rx512, ...).
 * float16 single-polarization configurations get a second row with the other
 * kernel family on the same data: "(pipelined)" where the short-k
 * resident-weights kernel ran, "(resident)" where it covers k but did not run
 * (BEAMFORM_TB_VARIANT=resident / pipelined forces the engine's own choice).
 * --cases replaces the configurations by other shapes, for example
 * --cases=64x5x8x4096,256x96x1024x1024:power16,256x128x155x768:power16:xy:IQUV
 * (channels x receivers x beams x samples per call; fc32 in, float16, voltage
 * out unless :powerN; reported against the cuBLAS route, no target).
 * --quick shrinks every configuration for a smoke run (figures meaningless).
 * --tune times every compiled tile for each configuration's shape class and
 * writes the fastest per class to a tuning file (BEAMFORM_TUNING_FILE).
 */
#include "beamform_bench.h"
#include <algorithm>
#include <iomanip>
#include <iostream>

using namespace bf_bench;

namespace {

//! The usage text, printed by --help (bench::accept_only checks that it names
//! every accepted option).
constexpr const char* usage = R"(usage: beamform_bench [--config=N|ID] [--quick] [--runs=20] [--others=1]
                      [--receivers=64,128,512] [--json=beamform_bench.json]
                      [--tune [--tuning-file=beamform_tuning.txt]]
                      [--cases=CxRxBxT[:voltage|:powerN][:xy][:I|:IQUV],...]
  --config=N|ID       only configuration N (1-6), or one row of it by the
                      table's first column (3/rx64, 4/rx512, ...); default all
  --quick             every configuration shrunk for a smoke run (figures
                      meaningless)
  --runs=N            timed runs per kernel, 1 to 100000 (default 20, 5 with
                      --quick)
  --others=0|1        0: no rows of the other kernels on the same data (a
                      shorter run); default 1
  --receivers=R,...   receiver counts of configurations 3 and 4, each 1 to
                      4096 (default 64,128,512)
  --json=PATH         where the JSON results go (default beamform_bench.json)
  --tune              time every compiled tile for each configuration's shape
                      class and write the fastest per class to the tuning file
                      (for BEAMFORM_TUNING_FILE) instead of the table
  --tuning-file=PATH  the file --tune writes (default beamform_tuning.txt)
  --cases=LIST        other shapes instead of the configurations: channels x
                      receivers x beams x samples per call, fc32 in, float16,
                      voltage out unless :powerN (power summed over N
                      samples), :xy X/Y pairs, :I or :IQUV Stokes; for example
                      --cases=64x5x8x4096,256x96x1024x1024:power16
  -h, --help          print this text and exit
A bad option is a usage error (exit status 2).
notes and figures: apps/beamform_bench.md in the gr-beamform sources
)";

} // namespace

int main(int argc, char** argv)
{
    try {
        bench::accept_only(
            argc,
            argv,
            { "config",
              "quick",
              "runs",
              "json",
              "receivers",
              "tune",
              "tuning-file",
              "others",
              "cases" },
            usage);
        const bool quick = bench::option(argc, argv, "quick", "") == "1";
        const bool tune = bench::option(argc, argv, "tune", "") == "1";
        const std::string only = bench::option(argc, argv, "config", "");
        const std::string json = bench::option(argc, argv, "json", "beamform_bench.json");
        const std::string tuning_file =
            bench::option(argc, argv, "tuning-file", "beamform_tuning.txt");
        const auto receivers =
            bench::list_option(argc, argv, "receivers", { 64, 128, 512 }, 1, 4096);
        const std::string case_list = bench::option(argc, argv, "cases", "");
        const auto configs =
            case_list.empty() ? all_configs(quick, receivers) : parse_cases(case_list);
        if (std::none_of(configs.begin(), configs.end(), [&](const bench_config& b) {
                return selected(only, b.id);
            })) {
            std::cerr << "beamform_bench: --config=" << only
                      << " names no configuration; use a number 1-6 or one of";
            for (const auto& b : configs)
                std::cerr << " " << b.id;
            std::cerr << std::endl;
            return 2;
        }

        context ctx;
        ctx.runs =
            int(bench::integer_option(argc, argv, "runs", quick ? 5 : 20, 1, 100000));
        ctx.others = bench::integer_option(argc, argv, "others", 1, 0, 1) == 1;
        ctx.gpu = select_device("cuda:0");
        BF_GPU_CHECK(cudaSetDevice(0));
        BF_GPU_CHECK(cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking));
        CUBLAS_CHECK(cublasCreate(&ctx.cublas));
        CUBLAS_CHECK(cublasSetStream(ctx.cublas, ctx.stream));

        cudaDeviceProp prop;
        BF_GPU_CHECK(cudaGetDeviceProperties(&prop, 0));
        std::cout << "device: " << prop.name << ", " << prop.multiProcessorCount
                  << " SMs, L2 " << prop.l2CacheSize / (1 << 20) << " MiB"
                  << (quick ? "   (--quick: small sizes, figures are not meaningful)"
                            : "")
                  << std::endl;
        if (const char* tf = std::getenv("BEAMFORM_TUNING_FILE"))
            std::cout << "BEAMFORM_TUNING_FILE=" << tf << std::endl;

        const double copy_gbps =
            bench::copy_ceiling_gbps(ctx.stream, quick ? (256u << 20) : (1u << 30));
        ctx.copy_gbps = copy_gbps;
        ctx.hgemm_tflops = hgemm_ceiling(ctx.cublas, ctx.stream, quick ? 2048 : 8192);
        const double peak_f16 = time_peak_fp16(ctx.stream);
        const double peak_b1 = time_peak_b1(ctx.stream);
        ctx.peak_b1_tops = peak_b1;
        const double peak_wg_f16 = tb_testing::wgmma_peak_tops(0, false);
        const double peak_wg_b1 = tb_testing::wgmma_peak_tops(0, true);
        std::cout << "wgmma (sm_90a) kernels: "
                  << (tb_testing::wgmma_available(0) ? "available"
                                                     : "not available on this GPU")
                  << std::endl;
        const double write_gbps =
            bench::write_ceiling_gbps(ctx.stream, quick ? (256u << 20) : (1u << 30));
        std::cout << "ceilings: device copy " << std::fixed << std::setprecision(0)
                  << copy_gbps << " GB/s (read+write), memset " << write_gbps
                  << " GB/s (write); cuBLAS HGEMM " << (quick ? 2048 : 8192) << "^3 "
                  << ctx.hgemm_tflops
                  << " TFLOP/s; mma.sync peak (no memory): fp16 m16n8k16 " << peak_f16
                  << " TOPs/s, b1 AND m16n8k256 " << peak_b1 << " TOPs/s" << std::endl;

        bench::report rep("beamform_bench");
        auto add_ceiling =
            [&](const std::string& what, double value, const std::string& unit) {
                rep.row();
                rep.set("config", "ceiling");
                rep.set("what", what);
                rep.set("value", value);
                rep.set("unit", unit);
            };
        add_ceiling("device-to-device copy", copy_gbps, "GB/s");
        add_ceiling("memset (write only)", write_gbps, "GB/s");
        add_ceiling("cuBLAS HGEMM", ctx.hgemm_tflops, "TFLOP/s");
        add_ceiling("mma.sync fp16 m16n8k16 peak", peak_f16, "TOPs/s");
        add_ceiling("mma.sync b1 AND m16n8k256 peak", peak_b1, "TOPs/s");
        if (peak_wg_f16 > 0) {
            add_ceiling("wgmma fp16 m64n256k16 peak", peak_wg_f16, "TOPs/s");
            add_ceiling("wgmma b1 AND m64n256k256 peak", peak_wg_b1, "TOPs/s");
        }

        if (tune) {
            bf_bench::tune(ctx, configs, only, quick, tuning_file, prop.name);
            return 0;
        }

        std::vector<result> all;
        for (const auto& b : configs) {
            if (!selected(only, b.id))
                continue;
            for (auto& r : run_config(ctx, b))
                all.push_back(r);
        }
        print_table(all);
        add_results(rep, all);
        rep.write_json(json);
        std::cout << "wrote " << json << std::endl;
        cublasDestroy(ctx.cublas);
        cudaStreamDestroy(ctx.stream);
    } catch (const bench::usage_error& e) {
        std::cerr << "beamform_bench: " << e.what() << std::endl;
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "beamform_bench: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}
