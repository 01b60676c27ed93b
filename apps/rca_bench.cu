/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rca_bench: the dual-stage RCA beamformer on the paper's geometry (Praesius et
 * al., Tables I-II): 96 emissions x 128 receivers x 894 int16 samples per
 * volume, 23-tap matched filter, decimation 3, 133 x 115 x 250 I/Q voxels,
 * F# 0.6. Pre-processing is included in every time.
 *
 * Rows (see apps/rca_bench.md for what each counts):
 *   dual_stage/iq        RF already on the GPU, the default kernels, 8 volumes per
 *                        execute() (which overlaps them on two streams)
 *   one volume per call  the same engine without that overlap
 *   dual_stage/iq float16  gpu_precision float16 (the half kernels), likewise
 *   sweep rows           batch sizes, multi-pixel and block shapes (--sweep)
 *   preprocess           pre-processing alone
 *   stage1 (+pre)        pre-processing + stage 1 (add_emissions)
 *   stage2 (+out)        stage 2 and the output write (finish_volume)
 *   dual_stage/real      the paper's real-valued set-up (133 x 115 x 500, no decimation),
 *                        float32 and float16
 *   conventional/iq      the full 3D delay-and-sum (the paper's Fig. 9 reference)
 *   streamed/iq          RF streamed from pinned host memory: the H2D copy of the
 *                        next two volumes (copy stream, two staging buffers of two
 *                        volumes) overlapped with one execute() of the previous two,
 *                        16 volumes per timed run
 *   streamed latency     one volume per host sync (groups of 32 emissions)
 *   h2d ceiling          pinned host -> device copy of the RF alone
 *
 * Efficiency as the paper defines it (section IV-E): measured volume rate over
 * the rate at which the GPU's fp32 peak would run the counted interpolations
 * at 22 FLOP each (8 for real data). The peak is computed from the device
 * (SMs x 128 FP32 lanes x 2 FLOP x max clock) and also measured here with an
 * FMA-only kernel.
 *
 * Usage: `usage` below (also printed by --help).
 */
#include "bench_common.h"
#include "engines/rca_das/rca_das_gpu.h"
#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <tuple>

using namespace gr::beamform;

namespace {

//! The usage text, printed by --help (bench::accept_only checks that it names
//! every accepted option).
constexpr const char* usage = R"(usage: rca_bench [--runs=30] [--json=rca_bench.json] [--sweep]
                 [--no-conventional]
                 [--profile=W1,B1,W2,B2,MP,TILE1,TILE2,VARIANT]
  --runs=N            timed runs per row (some rows take fewer), 1 to 100000
                      (default 30)
  --json=PATH         where the JSON results go (default rca_bench.json)
  --sweep             add the tuning sweep's rows (batch sizes, multi-pixel,
                      block shapes, kernel variants)
  --no-conventional   leave out the full 3D delay-and-sum (conventional/iq)
  --profile=LIST      one engine, three volumes, nothing else (for ncu): the
                      GPU tuning as stage-1 warps, stage-1 batch, stage-2
                      warps (0: as stage 1), stage-2 batch, multi-pixel,
                      stage-1 tile z, stage-2 tile elevation, kernel variant
                      (rca_das_gpu_tuning; eight integers from -1 to 1024);
                      the I/Q set-up, the real one for variant 3
  -h, --help          print this text and exit
A bad option is a usage error (exit status 2).
notes and figures: apps/rca_bench.md in the gr-beamform sources
)";

rca_das_config paper_config(bool real)
{
    rca_das_config c;
    c.n_elements = 128;
    c.pitch = 200e-6;
    c.center_frequency = 6e6;
    c.sampling_frequency = 31.25e6;
    c.speed_of_sound = 1540;
    c.t_start = 6e-6; // first sample at ~4.6 mm on axis: the data cover z = 5..25 mm
    c.n_samples = 894;
    // 96 virtual sources at F# -1 behind a sliding 32-element sub-aperture.
    const size_t n_tx = 96;
    const double half_span = 0.5 * (128 - 32) * 200e-6;
    for (size_t j = 0; j < n_tx; j++) {
        c.source_positions.push_back(-half_span + 2 * half_span * double(j) / double(n_tx - 1));
        c.source_depths.push_back(-32 * 200e-6);
    }
    const double dx = 25.8e-3 / 133, dy = 25.8e-3 / 115;
    c.x = { -0.5 * 132 * dx, dx, 133 };
    c.y = { -0.5 * 114 * dy, dy, 115 };
    c.z = real ? rca_grid_axis{ 5e-3, 20e-3 / 500, 500 } : rca_grid_axis{ 5e-3, 20e-3 / 250, 250 };
    c.f_number = 0.6;
    c.filter_taps = rca_gaussian_pulse_taps(6e6, 31.25e6, 0.5, 23);
    c.decimation = real ? 1 : 3;
    c.processing = real ? rca_processing::real : rca_processing::iq;
    c.input = rca_sample_type::int16;
    // The paper's volumes are the beamformed values themselves (I/Q or real).
    c.output = real ? rca_output::envelope : rca_output::iq;
    return c;
}

//! Random int16 RF (never zeros) for n_volumes volumes, on the device.
std::unique_ptr<bench::device_array> random_rf(const rca_das_config& c, size_t n_volumes)
{
    const size_t n = c.n_emissions() * c.n_elements * c.n_samples * n_volumes;
    std::vector<int16_t> host(n);
    std::mt19937 gen(7);
    std::uniform_int_distribution<int> u(-8000, 8000);
    for (auto& v : host)
        v = int16_t(u(gen) | 1);
    auto d = std::make_unique<bench::device_array>(n * sizeof(int16_t));
    BF_GPU_CHECK(cudaMemcpy(d->get(), host.data(), d->size(), cudaMemcpyHostToDevice));
    return d;
}

__global__ void ffma_peak_kernel(float* out, int iterations)
{
    float a[8];
    for (int k = 0; k < 8; k++)
        a[k] = threadIdx.x * 1e-3f + k;
    const float m = 0.999f, s = 1e-4f;
    for (int i = 0; i < iterations; i++)
#pragma unroll
        for (int k = 0; k < 8; k++)
            a[k] = fmaf(a[k], m, s);
    float t = 0;
    for (int k = 0; k < 8; k++)
        t += a[k];
    if (t == 12345.678f)
        out[0] = t; // keep the work
}

//! fp32 rate of a kernel that only issues independent FMAs [FLOP/s].
double measured_fp32_peak(cudaStream_t stream)
{
    int sms = 0;
    BF_GPU_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    bench::device_array out(sizeof(float));
    const int iterations = 4096, threads = 256, blocks = sms * 8;
    bench::timing t = bench::time_gpu(
        [&] {
            ffma_peak_kernel<<<blocks, threads, 0, stream>>>(out.as<float>(), iterations);
        },
        stream,
        20,
        3);
    return double(blocks) * threads * iterations * 8 * 2 / (t.median_ms * 1e-3);
}

//! Nominal fp32 peak: SMs x 128 lanes x 2 FLOP x max clock.
double nominal_fp32_peak()
{
    int sms = 0, clock_khz = 0, major = 0;
    BF_GPU_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    BF_GPU_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    BF_GPU_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
    const int lanes = major >= 8 ? 128 : 64; // Volta 64 FP32 lanes per SM; Ampere+ and Hopper 128
    return double(sms) * lanes * 2.0 * double(clock_khz) * 1e3;
}

size_t count_non_finite(const void* d_out, size_t n_floats)
{
    std::vector<float> host(n_floats);
    BF_GPU_CHECK(cudaMemcpy(host.data(), d_out, n_floats * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (float v : host)
        bad += !std::isfinite(v);
    return bad;
}

struct row_printer {
    bench::report& rep;
    void print_header() const
    {
        std::printf("%-34s %10s %12s %12s %11s %8s  %s\n",
                    "case",
                    "ms/volume",
                    "volumes/s",
                    "Gvoxel/s",
                    "efficiency",
                    "vs 1440",
                    "kernels");
    }
    void add(const std::string& name,
             double ms_per_volume,
             double voxels_per_volume_c,
             double flop_per_volume,
             double peak,
             const std::string& description,
             const bench::timing& t)
    {
        const double rate = 1e3 / ms_per_volume;
        const double theoretical = flop_per_volume > 0 ? peak / flop_per_volume : 0;
        const double efficiency = theoretical > 0 ? rate / theoretical : 0;
        std::printf("%-34s %10.4f %12.1f %12.2f %10.1f%% %7.2fx  %s\n",
                    name.c_str(),
                    ms_per_volume,
                    rate,
                    rate * voxels_per_volume_c * 1e-9,
                    efficiency * 100,
                    rate / 1440.0,
                    description.c_str());
        rep.row();
        rep.set("case", name);
        rep.set("ms_per_volume", ms_per_volume);
        rep.set("volumes_per_s", rate);
        rep.set("voxels_per_s", rate * voxels_per_volume_c);
        rep.set("flop_per_volume", flop_per_volume);
        rep.set("efficiency", efficiency);
        rep.set("median_ms", t.median_ms);
        rep.set("min_ms", t.min_ms);
        rep.set("max_ms", t.max_ms);
        rep.set("runs", double(t.runs));
        rep.set("kernels", description);
    }
};

} // namespace

int main(int argc, char** argv)
{
    try {
        bench::accept_only(
            argc,
            argv,
            { "runs", "json", "sweep", "no-conventional", "profile" },
            usage);
        const int runs = int(bench::integer_option(argc, argv, "runs", 30, 1, 100000));
        const std::string json = bench::option(argc, argv, "json", "rca_bench.json");
        const bool sweep = bench::option(argc, argv, "sweep", "0") == "1";
        const bool skip_conventional = bench::option(argc, argv, "no-conventional", "0") == "1";
        // --profile=W1,B1,W2,B2,MP,TILE1,TILE2,VARIANT: one engine, three volumes, nothing
        // else (for ncu); the I/Q set-up, the real one for VARIANT 3 (half2_real).
        std::vector<int> profile;
        const std::string profile_text = bench::option(argc, argv, "profile", "");
        if (!profile_text.empty())
            for (const std::string& part : bench::split(profile_text, ','))
                profile.push_back(int(bench::detail::integer_in("profile", part, -1, 1024)));
        if (!profile.empty() && profile.size() != 8)
            throw bench::usage_error("--profile=" + profile_text + ": " +
                                     std::to_string(profile.size()) +
                                     " values, expected eight (W1,B1,W2,B2,MP,TILE1,TILE2,VARIANT)");
        const device_spec gpu{ backend::cuda, 0 };
        BF_GPU_CHECK(cudaSetDevice(0));
        cudaStream_t stream, stream_b;
        BF_GPU_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        BF_GPU_CHECK(cudaStreamCreateWithFlags(&stream_b, cudaStreamNonBlocking));

        if (!profile.empty()) {
            rca_das_gpu_tuning tune;
            tune.stage1_warps = profile[0];
            tune.stage1_batch = profile[1];
            tune.stage2_warps = profile[2];
            tune.stage2_batch = profile[3];
            tune.multi_pixel = profile[4];
            tune.stage1_tile_z = profile[5];
            tune.stage2_tile_elev = profile[6];
            tune.kernel_variant = profile[7];
            tune.stage2_warps = tune.stage2_warps ? tune.stage2_warps : tune.stage1_warps;
            const rca_das_config c = paper_config(tune.kernel_variant == 3); // half2_real: real
            auto rf = random_rf(c, 1);
            bench::device_array out(c.output_item_bytes());
            auto e = make_rca_das_gpu_for(c, gpu, tune);
            for (int i = 0; i < 3; i++)
                e->execute(rf->get(), out.get(), 1, stream);
            BF_GPU_CHECK(cudaStreamSynchronize(stream));
            std::printf("profiled: %s\n", e->describe().c_str());
            return 0;
        }
        const double nominal_peak = nominal_fp32_peak();
        const double measured_peak = measured_fp32_peak(stream);
        const double copy_gbps = bench::copy_ceiling_gbps(stream);
        cudaDeviceProp prop;
        BF_GPU_CHECK(cudaGetDeviceProperties(&prop, 0));
        std::printf("rca_bench on %s: %d SMs, L2 %.0f MB\n",
                    prop.name,
                    prop.multiProcessorCount,
                    prop.l2CacheSize / 1048576.0);
        std::printf("fp32 peak: nominal %.1f TFLOP/s (SMs x 128 x 2 x max clock), measured FMA-only "
                    "kernel %.1f TFLOP/s; device-to-device copy %.0f GB/s\n",
                    nominal_peak * 1e-12,
                    measured_peak * 1e-12,
                    copy_gbps);

        const rca_das_config iq = paper_config(false);
        const rca_das_counts counts = rca_count_interpolations(iq, !skip_conventional);
        const double flop_dual = double(counts.stage1 + counts.stage2) * counts.flop_per_interpolation;
        std::printf("paper geometry: %zu emissions x %zu receivers x %zu samples, %zux%zux%zu I/Q voxels\n",
                    iq.n_emissions(),
                    iq.n_elements,
                    iq.n_samples,
                    iq.x.count,
                    iq.y.count,
                    iq.z.count);
        std::printf("interpolations per volume: stage 1 %llu (paper: 96 x 2888478 = %llu), stage 2 "
                    "%llu (paper: 133 x 2363733 = %llu); %.3f GFLOP at 22 FLOP each "
                    "(paper 13.017); conventional %llu\n",
                    (unsigned long long)counts.stage1,
                    96ull * 2888478ull,
                    (unsigned long long)counts.stage2,
                    133ull * 2363733ull,
                    flop_dual * 1e-9,
                    (unsigned long long)counts.conventional);
        std::printf("theoretical rate at the nominal peak: %.0f volumes/s (paper, RTX 4090 at 88.47 "
                    "TFLOP/s: 6797)\n\n",
                    nominal_peak / flop_dual);

        bench::report rep("rca_bench");
        row_printer table{ rep };
        table.print_header();
        const double voxels_c = 2.0 * double(iq.n_voxels()); // C = 2 for I/Q voxels (eq. 20)

        // RF for several volumes, so repeated runs do not just re-read L2.
        const size_t n_rot = 8;
        auto rf = random_rf(iq, n_rot);
        bench::device_array out(iq.output_item_bytes() * n_rot);

        auto time_engine = [&](rca_das_engine& e, int n_runs) {
            return bench::time_gpu([&] { e.execute(rf->get(), out.get(), n_rot, stream); },
                                   stream,
                                   n_runs,
                                   2);
        };

        // One volume per execute() call: no overlap between volumes (the engine
        // runs several volumes of one call on two streams).
        auto time_one_per_call = [&](rca_das_engine& e, int n_runs) {
            const size_t in_bytes = iq.input_item_bytes() * iq.n_emissions();
            int v = 0;
            return bench::time_gpu(
                [&] {
                    const size_t k = v++ % n_rot;
                    e.execute(static_cast<uint8_t*>(rf->get()) + k * in_bytes,
                              static_cast<uint8_t*>(out.get()) + k * iq.output_item_bytes(),
                              1,
                              stream);
                },
                stream,
                n_runs,
                2);
        };
        // An engine's two I/Q rows: n_rot volumes per call (per volume), then one
        // per call. Returns the first.
        auto iq_rows = [&](const std::string& name, rca_das_engine& e) {
            bench::timing t = time_engine(e, runs);
            table.add(name, t.median_ms / n_rot, voxels_c, flop_dual, nominal_peak, e.describe(), t);
            bench::timing t1 = time_one_per_call(e, runs);
            table.add("  one volume per call", t1.median_ms, voxels_c, flop_dual, nominal_peak,
                      "no overlap between volumes", t1);
            return t;
        };

        // --- dual-stage I/Q, default kernels ---
        auto engine = make_rca_das_gpu_for(iq, gpu);
        const bench::timing t = iq_rows("dual_stage/iq (RF on GPU)", *engine);
        const size_t bad = count_non_finite(out.get(), iq.output_item_bytes() * n_rot / 4);
        if (bad)
            std::printf("  !! %zu non-finite output values\n", bad);
        {
            // The measure other beamformers publish: voxels x receive elements x
            // emissions per second, the work a conventional delay-and-sum does;
            // and the interpolations the dual-stage method actually does.
            const double volumes_per_s = 1e3 / (t.median_ms / n_rot);
            const double points = double(iq.n_voxels()) * double(iq.n_elements) *
                                  double(iq.n_emissions());
            std::printf("  conventional-equivalent points (voxels x %zu elements x %zu "
                        "emissions): %.3g per second; interpolations done: %.3g per second\n",
                        iq.n_elements,
                        iq.n_emissions(),
                        points * volumes_per_s,
                        double(counts.stage1 + counts.stage2) * volumes_per_s);
        }

        // --- gpu_precision float16 (the half kernels) ---
        rca_das_config iq16 = iq;
        iq16.gpu_precision = rca_gpu_precision::float16;
        iq_rows("dual_stage/iq float16 (RF on GPU)", *make_rca_das_gpu_for(iq16, gpu));

        // --- breakdown: pre-processing, + stage 1, stage 2 ---
        {
            const size_t in_bytes = iq.input_item_bytes() * iq.n_emissions();
            rca_das_config conv = iq;
            conv.method = rca_method::conventional;
            auto pre = make_rca_das_gpu_for(conv, gpu);
            int v = 0;
            bench::timing tp = bench::time_gpu(
                [&] {
                    pre->add_emissions(static_cast<uint8_t*>(rf->get()) + (v++ % n_rot) * in_bytes,
                                       0,
                                       iq.n_emissions(),
                                       stream);
                },
                stream,
                runs,
                2);
            table.add("  preprocess", tp.median_ms, 0, 0, nominal_peak, "int16 -> filter -> I/Q /3", tp);
            bench::timing t1 = bench::time_gpu(
                [&] {
                    engine->add_emissions(static_cast<uint8_t*>(rf->get()) + (v++ % n_rot) * in_bytes,
                                          0,
                                          iq.n_emissions(),
                                          stream);
                },
                stream,
                runs,
                2);
            table.add("  preprocess + stage 1",
                      t1.median_ms,
                      0,
                      double(counts.stage1) * 22,
                      nominal_peak,
                      "efficiency: stage-1 FLOP only",
                      t1);
            bench::timing t2 = bench::time_gpu(
                [&] { engine->finish_volume(out.get(), stream); }, stream, runs, 2);
            table.add("  stage 2 + output",
                      t2.median_ms,
                      0,
                      double(counts.stage2) * 22,
                      nominal_peak,
                      "efficiency: stage-2 FLOP only",
                      t2);
        }

        // --- tuning sweep: each variant's stage-1 (with pre-processing) and stage-2 times ---
        if (sweep) {
            // kernel_variant: 0 reference, 2 half2, 4 half2_pipelined, 5 half2_sectors,
            // 6 half2_mixed (rca::stage_variant; 1, folded, is the I/Q reference loop
            // and 3, half2_real, is real only: both timed on the real set-up below).
            // 5 and 6 also at stage-1 tile 4z, whose 24 laterals a block are whole
            // octets: every store of the images a whole 32-byte sector.
            struct variant {
                int warps, batch, multi_pixel, tile1, tile2, kernel;
                int warps2 = 0; // stage 2's warps where not stage 1's
            };
            const variant variants[] = {
                { 4, 8, 0, 8, 8, 0 },   { 4, 8, -1, 8, 8, 0 }, { 4, 8, -1, 16, 16, 0 },
                { 4, 4, -1, 8, 8, 0 },  { 8, 4, -1, 8, 8, 0 }, { 8, 2, -1, 8, 8, 0 },
                { 16, 2, -1, 8, 8, 0 }, { 4, 8, -1, 4, 4, 0 }, { 6, 8, -1, 8, 8, 0 },
                { 12, 8, -1, 8, 8, 0 }, { 4, 8, -1, 8, 8, 2 }, { 6, 8, -1, 8, 8, 2 },
                { 12, 8, -1, 8, 8, 2 }, { 8, 4, -1, 8, 8, 2 }, { 4, 8, -1, 8, 8, 4 },
                { 6, 8, -1, 8, 8, 4 },  { 8, 4, -1, 8, 8, 4 }, { 4, 8, -1, 8, 8, 5 },
                { 6, 8, -1, 8, 8, 5 },  { 4, 8, -1, 4, 8, 5 }, { 4, 8, -1, 8, 8, 6 },
                { 6, 8, -1, 8, 8, 6 },  { 4, 8, -1, 4, 8, 6 },
                // half2_sectors, stage 1 at 4w tile 4z (its best), stage 2 varied
                { 4, 8, -1, 4, 8, 5, 6 },  { 4, 8, -1, 4, 4, 5, 6 }, { 4, 8, -1, 4, 16, 5, 6 },
                { 4, 8, -1, 4, 4, 5, 4 },  { 4, 8, -1, 2, 8, 5, 6 },
            };
            const size_t in_bytes = iq.input_item_bytes() * iq.n_emissions();
            std::printf("%-52s %12s %12s %12s\n", "sweep: batch, multi-pixel, blocks, variant", "pre+stage1", "stage2+out", "volumes/s");
            for (const auto& vt : variants) {
                rca_das_gpu_tuning tune;
                tune.stage1_warps = vt.warps;
                tune.stage2_warps = vt.warps2 ? vt.warps2 : vt.warps;
                tune.stage1_batch = vt.batch;
                tune.stage2_batch = vt.batch;
                tune.multi_pixel = vt.multi_pixel;
                tune.stage1_tile_z = vt.tile1;
                tune.stage2_tile_elev = vt.tile2;
                tune.kernel_variant = vt.kernel;
                auto e = make_rca_das_gpu_for(iq, gpu, tune);
                int v = 0;
                const int n = std::max(5, runs / 3);
                bench::timing t1 = bench::time_gpu(
                    [&] {
                        e->add_emissions(static_cast<uint8_t*>(rf->get()) + (v++ % n_rot) * in_bytes,
                                         0, iq.n_emissions(), stream);
                    },
                    stream, n, 2);
                bench::timing t2 = bench::time_gpu([&] { e->finish_volume(out.get(), stream); }, stream, n, 2);
                char name[160];
                std::snprintf(name, sizeof name, "  %dw x %d %s tile1 %dz tile2 %dy%s %s", vt.warps,
                              vt.batch, vt.multi_pixel ? "mp3" : "mp-off", vt.tile1, vt.tile2,
                              vt.warps2 ? (" " + std::to_string(vt.warps2) + "w").c_str() : "",
                              vt.kernel == 2   ? "half2"
                              : vt.kernel == 4 ? "half2_pipelined"
                              : vt.kernel == 5 ? "half2_sectors"
                              : vt.kernel == 6 ? "half2_mixed"
                                               : "ref");
                std::printf("%-52s %9.4f ms %9.4f ms %12.1f\n", name, t1.median_ms, t2.median_ms,
                            1e3 / (t1.median_ms + t2.median_ms));
                rep.row();
                rep.set("case", std::string("sweep") + name);
                rep.set("stage1_ms", t1.median_ms);
                rep.set("stage2_ms", t2.median_ms);
            }
        }

        // --- real-valued set-up (Table IV "Real Data") ---
        {
            const rca_das_config real = paper_config(true);
            const rca_das_counts rc = rca_count_interpolations(real, false);
            const size_t n_real = 8; // volumes per execute(), as for I/Q
            auto rf_real = random_rf(real, n_real);
            bench::device_array out_real(real.output_item_bytes() * n_real);
            // One row: execute() of n_real volumes per timed call, per volume.
            auto time_real = [&](const std::string& name, rca_das_engine& e) {
                bench::timing t = bench::time_gpu(
                    [&] { e.execute(rf_real->get(), out_real.get(), n_real, stream); },
                    stream,
                    std::max(5, runs / 2),
                    2);
                table.add(name,
                          t.median_ms / n_real,
                          double(real.n_voxels()),
                          double(rc.stage1 + rc.stage2) * rc.flop_per_interpolation,
                          nominal_peak,
                          e.describe(),
                          t);
            };
            std::printf("  (real: stage 1 %llu, stage 2 %llu interpolations; paper 96 x 5804364, 133 x 4733065)\n",
                        (unsigned long long)rc.stage1,
                        (unsigned long long)rc.stage2);
            time_real("dual_stage/real (RF on GPU)", *make_rca_das_gpu_for(real, gpu));
            rca_das_config real16 = real;
            real16.gpu_precision = rca_gpu_precision::float16;
            time_real("dual_stage/real float16 (RF on GPU)", *make_rca_das_gpu_for(real16, gpu));
            if (sweep) {
                // The folded variant (apodization in the weights), default and wide
                // blocks; half2_real (variant 3: half frame pairs, folded weights).
                const std::tuple<int, int, int> shapes[] = { { 4, 8, 1 }, { 6, 8, 1 }, { 12, 8, 1 },
                                                             { 4, 8, 3 }, { 6, 8, 3 }, { 8, 4, 3 } };
                for (const auto& [warps, batch, variant] : shapes) {
                    rca_das_gpu_tuning tune;
                    tune.stage1_warps = tune.stage2_warps = warps;
                    tune.stage1_batch = tune.stage2_batch = batch;
                    tune.kernel_variant = variant;
                    time_real(std::string(variant == 3 ? "  real half2_real " : "  real folded ") +
                                  std::to_string(warps) + "w x " + std::to_string(batch),
                              *make_rca_das_gpu_for(real, gpu, tune));
                }
            }
        }

        // --- conventional ---
        if (!skip_conventional) {
            rca_das_config conv = iq;
            conv.method = rca_method::conventional;
            auto e = make_rca_das_gpu_for(conv, gpu);
            bench::timing tc = bench::time_gpu(
                [&] { e->execute(rf->get(), out.get(), 1, stream); }, stream, 3, 1);
            table.add("conventional/iq (RF on GPU)",
                      tc.median_ms,
                      voxels_c,
                      double(counts.conventional) * 22,
                      nominal_peak,
                      e->describe(),
                      tc);
        }

        // --- RF streamed from the host ---
        // Throughput (the pipelined row): the RF of volumes n+2, n+3 is copied
        // from pinned host memory into one of two device staging buffers of two
        // volumes on a copy stream while volumes n, n+1 are beamformed by one
        // execute() (which overlaps its two volumes) on the compute stream.
        // Events only, no host wait inside a timed run: "landed[b]" gates the
        // compute of buffer b, "consumed[b]" (recorded after the execute()
        // that read it) gates the next copy into it.
        // Latency (the second row, the earlier scheme): one volume at a time,
        // groups of 32 emissions through a ring of three buffers, the host
        // waiting for each volume (time_gpu synchronizes after every run), so
        // the first group's copy and three partial stage-1 launches are exposed.
        {
            const size_t item = iq.input_item_bytes();
            const size_t per_volume = item * iq.n_emissions();
            const size_t n_host_volumes = 4;
            void* host = nullptr;
            BF_GPU_CHECK(cudaMallocHost(&host, per_volume * n_host_volumes));
            BF_GPU_CHECK(cudaMemcpy(host, rf->get(), per_volume * n_host_volumes, cudaMemcpyDeviceToHost));
            cudaStream_t copy_stream = stream_b;
            auto host_volume = [&](size_t v) {
                return static_cast<const uint8_t*>(host) + (v % n_host_volumes) * per_volume;
            };

            // Pipelined: double-buffered whole volumes.
            {
                const int n_buffers = 2;
                const int per_call = 2; // volumes per buffer and execute()
                const int calls_per_run = 8;
                const int volumes_per_run = per_call * calls_per_run;
                std::vector<std::unique_ptr<bench::device_array>> staging;
                std::vector<cudaEvent_t> landed(n_buffers), consumed(n_buffers);
                cudaEvent_t go;
                BF_GPU_CHECK(cudaEventCreateWithFlags(&go, cudaEventDisableTiming));
                for (int b = 0; b < n_buffers; b++) {
                    staging.push_back(std::make_unique<bench::device_array>(per_call * per_volume));
                    BF_GPU_CHECK(cudaEventCreateWithFlags(&landed[b], cudaEventDisableTiming));
                    BF_GPU_CHECK(cudaEventCreateWithFlags(&consumed[b], cudaEventDisableTiming));
                }
                size_t volume = 0;
                auto pipelined_run = [&] {
                    // The copies start with the timed run, not before its start event.
                    BF_GPU_CHECK(cudaEventRecord(go, stream));
                    BF_GPU_CHECK(cudaStreamWaitEvent(copy_stream, go, 0));
                    auto copy = [&](int n) {
                        const int b = n % n_buffers;
                        if (n >= n_buffers)
                            BF_GPU_CHECK(cudaStreamWaitEvent(copy_stream, consumed[b], 0));
                        for (int k = 0; k < per_call; k++)
                            BF_GPU_CHECK(cudaMemcpyAsync(
                                static_cast<uint8_t*>(staging[b]->get()) + k * per_volume,
                                host_volume(volume + n * per_call + k),
                                per_volume,
                                cudaMemcpyHostToDevice,
                                copy_stream));
                        BF_GPU_CHECK(cudaEventRecord(landed[b], copy_stream));
                    };
                    copy(0);
                    for (int n = 0; n < calls_per_run; n++) {
                        if (n + 1 < calls_per_run)
                            copy(n + 1); // enqueued ahead: runs while call n computes
                        const int b = n % n_buffers;
                        BF_GPU_CHECK(cudaStreamWaitEvent(stream, landed[b], 0));
                        engine->execute(staging[b]->get(),
                                        static_cast<uint8_t*>(out.get()) +
                                            (n * per_call % n_rot) * iq.output_item_bytes(),
                                        per_call,
                                        stream);
                        BF_GPU_CHECK(cudaEventRecord(consumed[b], stream));
                    }
                    volume += volumes_per_run;
                };
                bench::timing ts = bench::time_gpu(pipelined_run, stream, std::max(5, runs / 2), 2);
                bench::timing per_volume_t = ts;
                per_volume_t.median_ms /= volumes_per_run;
                per_volume_t.min_ms /= volumes_per_run;
                per_volume_t.max_ms /= volumes_per_run;
                table.add("streamed/iq (pinned H2D pipelined)",
                          per_volume_t.median_ms,
                          voxels_c,
                          flop_dual,
                          nominal_peak,
                          "copy stream, 2 staging buffers of 2 volumes (one execute() each), " +
                              std::to_string(volumes_per_run) + " volumes per timed run",
                          per_volume_t);
                for (int b = 0; b < n_buffers; b++) {
                    cudaEventDestroy(landed[b]);
                    cudaEventDestroy(consumed[b]);
                }
                cudaEventDestroy(go);
            }

            // Latency: one volume at a time, groups of 32 emissions.
            {
                const size_t group = 32; // emissions per copy: one stage-1 block's frames
                const int ring = 3;
                std::vector<std::unique_ptr<bench::device_array>> staging;
                std::vector<cudaEvent_t> landed(ring), consumed(ring);
                for (int r = 0; r < ring; r++) {
                    staging.push_back(std::make_unique<bench::device_array>(item * group));
                    BF_GPU_CHECK(cudaEventCreateWithFlags(&landed[r], cudaEventDisableTiming));
                    BF_GPU_CHECK(cudaEventCreateWithFlags(&consumed[r], cudaEventDisableTiming));
                    BF_GPU_CHECK(cudaEventRecord(consumed[r], stream));
                }
                int volume = 0, slot_index = 0;
                auto streamed_volume = [&] {
                    const uint8_t* src = host_volume(size_t(volume++));
                    for (size_t first = 0; first < iq.n_emissions(); first += group) {
                        const size_t n = std::min(group, iq.n_emissions() - first);
                        const int r = slot_index++ % ring;
                        BF_GPU_CHECK(cudaStreamWaitEvent(copy_stream, consumed[r], 0));
                        BF_GPU_CHECK(cudaMemcpyAsync(staging[r]->get(), src + first * item, n * item,
                                                    cudaMemcpyHostToDevice, copy_stream));
                        BF_GPU_CHECK(cudaEventRecord(landed[r], copy_stream));
                        BF_GPU_CHECK(cudaStreamWaitEvent(stream, landed[r], 0));
                        engine->add_emissions(staging[r]->get(), first, n, stream);
                        BF_GPU_CHECK(cudaEventRecord(consumed[r], stream));
                    }
                    engine->finish_volume(out.get(), stream);
                };
                bench::timing ts = bench::time_gpu(streamed_volume, stream, runs, 2);
                table.add("  streamed, one volume per sync",
                          ts.median_ms,
                          voxels_c,
                          flop_dual,
                          nominal_peak,
                          "latency: ring of 3 staging buffers of 32 emissions, host waits per volume",
                          ts);
                for (int r = 0; r < ring; r++) {
                    cudaEventDestroy(landed[r]);
                    cudaEventDestroy(consumed[r]);
                }
            }
            bench::timing th = bench::time_gpu(
                [&] {
                    BF_GPU_CHECK(cudaMemcpyAsync(rf->get(), host, per_volume, cudaMemcpyHostToDevice, stream));
                },
                stream,
                runs,
                2);
            table.add("  h2d ceiling (RF copy only)", th.median_ms, 0, 0, nominal_peak,
                      std::to_string(per_volume / 1e6).substr(0, 5) + " MB per volume at " +
                          std::to_string(int(per_volume / (th.median_ms * 1e-3) / 1e9)) + " GB/s",
                      th);
            cudaFreeHost(host);
        }

        std::printf("\npaper (RTX 4090, 88.47 TFLOP/s): 1440 volumes/s, 11012 Mvoxel/s, efficiency 22%% "
                    "(I/Q, multi-pixel, batch 13); real 840 volumes/s; streamed from host 209 volumes/s "
                    "(PCIe 3.0 x8)\n");
        std::printf("efficiency here uses the nominal peak %.1f TFLOP/s; against the measured FMA peak "
                    "multiply by %.3f\n",
                    nominal_peak * 1e-12,
                    nominal_peak / measured_peak);
        rep.row();
        rep.set("case", "device");
        rep.set("nominal_fp32_flops", nominal_peak);
        rep.set("measured_fp32_flops", measured_peak);
        rep.set("copy_gbps", copy_gbps);
        rep.set("stage1_interpolations", double(counts.stage1));
        rep.set("stage2_interpolations", double(counts.stage2));
        rep.set("conventional_interpolations", double(counts.conventional));
        rep.write_json(json);
        std::printf("wrote %s\n", json.c_str());
        cudaStreamDestroy(stream);
        cudaStreamDestroy(stream_b);
        return 0;
    } catch (const bench::usage_error& e) {
        std::fprintf(stderr, "rca_bench: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "rca_bench: %s\n", e.what());
        return 1;
    }
}
