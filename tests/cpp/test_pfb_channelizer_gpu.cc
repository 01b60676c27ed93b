/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * pfb_channelizer engines: the GPU engine against the CPU reference (fused
 * kernel shapes, general path with cuFFT / shared-memory FFT, every input
 * format, odd receiver counts, oversampling, fft_shift), filter-state
 * continuity across execute() calls, poisoned outputs. The host-only tests
 * (shared-memory FFT arithmetic, CPU engine split invariance) run everywhere;
 * the GPU tests skip with the reason where there is no GPU.
 *
 * Every GPU comparison prints one line
 *   pfb_channelizer N=.. T=.. O=.. fmt=.. R=.. shift=.. path=.. calls=[..] rel_err=..
 * (path=cluster where the cluster kernel took every receiver of every call,
 * cluster_calls=k where it took k of the calls, cluster_receivers=m where it
 * took m receivers of a call and the plan's path the rest)
 * (relative error norm ||gpu - cpu|| / ||cpu|| over all outputs).
 */
#include <gnuradio/beamform/engines/pfb_channelizer_engine.h>
#include "engines/pfb_channelizer/pfb_channelizer_plan.h"
#include "pfb_test_input.h"
#include "test_util.h"
#include <gpu/pfb_fft.cuh>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <sstream>
#include <string>

#ifdef BEAMFORM_HAVE_CUDA
// From lib/engines/pfb_channelizer/pfb_channelizer_cluster.h, which holds
// device code and so is not included in a host compile.
namespace gr {
namespace beamform {
namespace cuda {
int pfb_cluster_clusters_at_once(int device, const pfb_channelizer_config& c);
} // namespace cuda
} // namespace beamform
} // namespace gr
#endif

using namespace beamform_test;
using gr::beamform::make_pfb_channelizer_cpu;
using gr::beamform::pfb_channelizer_config;
using gr::beamform::pfb_channelizer_engine;
using gr::beamform::sample_format;
using cfloat = std::complex<float>;

namespace {

struct host_complex {
    float x, y;
};

//! The kernels' Stockham passes, run on the host.
std::vector<host_complex> host_stockham(std::vector<host_complex> data)
{
    namespace f = gr::beamform::pfb_fft;
    const int n = int(data.size());
    int log2_n = 0;
    while ((1 << log2_n) < n)
        log2_n++;
    std::vector<host_complex> tw(n), other(n);
    for (int k = 0; k < n; k++)
        tw[k] = { float(std::cos(2 * M_PI * k / n)), float(std::sin(2 * M_PI * k / n)) };
    std::vector<host_complex>*src = &data, *dst = &other;
    for (int pass = 0; pass < f::stockham_pass_count(log2_n); pass++) {
        const int radix = f::stockham_radix(log2_n, pass);
        for (int j = 0; j < n / radix; j++) {
            if (radix == 4)
                f::stockham_butterfly<4>(
                    src->data(), dst->data(), tw.data(), n, f::stockham_log2_ns(pass), j);
            else
                f::stockham_butterfly<2>(
                    src->data(), dst->data(), tw.data(), n, f::stockham_log2_ns(pass), j);
        }
        std::swap(src, dst);
    }
    return *src;
}

std::string format_name(sample_format f)
{
    return f == sample_format::sc8 ? "sc8" : f == sample_format::sc16 ? "sc16" : "fc32";
}

//! Run \p engine over the input in calls of \p calls output items each.
std::vector<cfloat> run_host(pfb_channelizer_engine& engine,
                             const pfb_channelizer_config& c,
                             const std::vector<uint8_t>& input,
                             const std::vector<size_t>& calls)
{
    const size_t n_out = std::accumulate(calls.begin(), calls.end(), size_t(0));
    const size_t in_item = c.n_receivers * gr::beamform::sample_size(c.input);
    const size_t out_item = c.n_channels * c.n_receivers;
    std::vector<cfloat> out(n_out * out_item, cfloat(NAN, NAN));
    size_t done = 0;
    for (size_t n : calls) {
        engine.execute(input.data() + done * c.input_per_output() * in_item,
                       out.data() + done * out_item,
                       n,
                       nullptr);
        done += n;
    }
    return out;
}

std::vector<cfloat> run_gpu(const device_spec& gpu,
                            pfb_channelizer_engine& engine,
                            const pfb_channelizer_config& c,
                            const std::vector<uint8_t>& input,
                            const std::vector<size_t>& calls)
{
    const size_t n_out = std::accumulate(calls.begin(), calls.end(), size_t(0));
    const size_t in_item = c.n_receivers * gr::beamform::sample_size(c.input);
    const size_t out_item = c.n_channels * c.n_receivers;
    device_memory d_in = to_device(gpu, input);
    device_memory d_out(gpu, n_out * out_item * sizeof(cfloat));
    poison(gpu, d_out);
    gr::beamform::gpu_stream stream(gpu);
    size_t done = 0;
    for (size_t n : calls) {
        engine.execute(d_in.as<uint8_t>() + done * c.input_per_output() * in_item,
                       d_out.as<cfloat>() + done * out_item,
                       n,
                       stream.get());
        done += n;
    }
    stream.synchronize();
    return to_host<cfloat>(gpu, d_out, n_out * out_item);
}

size_t count_not_finite(const std::vector<cfloat>& v)
{
    size_t bad = 0;
    for (const auto& x : v)
        bad += !(std::isfinite(x.real()) && std::isfinite(x.imag()));
    return bad;
}

//! Clusters of the cluster kernel that \p gpu holds at once for \p c (0: it
//! runs none: not CUDA, a configuration the kernel does not serve, or a GPU
//! that cannot launch it).
int clusters_at_once(const device_spec& gpu, const pfb_channelizer_config& c)
{
#ifdef BEAMFORM_HAVE_CUDA
    if (gpu.kind == gr::beamform::backend::cuda)
        return gr::beamform::cuda::pfb_cluster_clusters_at_once(gpu.index, c);
#endif
    (void)gpu;
    (void)c;
    return 0;
}

//! The log line's description of \p c run in \p calls on \p gpu; path= names
//! what ran: "cluster" where the cluster kernel took every receiver of every
//! call, else the plan's path, with cluster_calls=k where it took k of them
//! and cluster_receivers=m where it took m receivers of a call (the plan's
//! path the rest).
std::string describe(const pfb_channelizer_config& c,
                     const std::vector<size_t>& calls,
                     const device_spec& gpu)
{
    namespace plan = gr::beamform::pfb_plan;
    const int at_once = clusters_at_once(gpu, c);
    const int knob = plan::cluster_kernel_knob();
    size_t on_cluster = 0, whole = 0, receivers = 0;
    for (size_t n : calls) {
        const size_t k = plan::cluster_kernel_receivers(c, n, at_once, knob);
        on_cluster += k > 0;
        whole += k == c.n_receivers;
        receivers = std::max(receivers, k);
    }
    std::ostringstream s;
    s << "pfb_channelizer N=" << c.n_channels << " T=" << c.taps_per_branch
      << " O=" << c.oversample << " fmt=" << format_name(c.input)
      << " R=" << c.n_receivers << " shift=" << c.fft_shift << " path="
      << (whole == calls.size() ? "cluster" : plan::path_name(plan::path_for(c)));
    if (on_cluster > 0 && on_cluster < calls.size())
        s << " cluster_calls=" << on_cluster;
    if (on_cluster > 0 && receivers < c.n_receivers)
        s << " cluster_receivers=" << receivers;
    s << " calls=[";
    for (size_t i = 0; i < calls.size(); i++)
        s << (i ? "," : "") << calls[i];
    s << "]";
    return s.str();
}

pfb_channelizer_config make_config(
    size_t n, size_t t, unsigned o, sample_format f, size_t r, bool shift, unsigned seed)
{
    pfb_channelizer_config c;
    c.n_channels = n;
    c.taps_per_branch = t;
    c.oversample = o;
    c.input = f;
    c.n_receivers = r;
    c.fft_shift = shift;
    // Random taps (not the default design) so that every tap position matters.
    c.taps = random_vector<float>(n * t, seed, -1.0, 1.0);
    return c;
}

} // namespace

TEST(PfbChannelizerHost, StockhamPassesEqualDirectInverseDft)
{
    for (int n = 2; n <= 4096; n *= 2) {
        std::vector<host_complex> x(n);
        auto values = random_vector<float>(2 * n, unsigned(n));
        for (int i = 0; i < n; i++)
            x[i] = { values[2 * i], values[2 * i + 1] };
        const auto fast = host_stockham(x);
        double num = 0, den = 0;
        for (int c = 0; c < n; c++) {
            std::complex<double> ref = 0;
            for (int i = 0; i < n; i++)
                ref += std::complex<double>(x[i].x, x[i].y) *
                       std::polar(1.0, 2 * M_PI * double((long long)i * c % n) / n);
            num += std::norm(std::complex<double>(fast[c].x, fast[c].y) - ref);
            den += std::norm(ref);
        }
        const double err = std::sqrt(num / den);
        std::cout << "stockham N=" << n << " rel_err=" << err << "\n";
        EXPECT_LT(err, 1e-6) << "N=" << n;
    }
}

TEST(PfbChannelizerHost, CpuOutputDoesNotDependOnCallSizes)
{
    for (unsigned o : { 1u, 2u }) {
        auto c = make_config(16, 5, o, sample_format::sc16, 3, false, 11);
        const auto input = random_input(c, 40 * c.input_per_output(), 5);
        auto one = make_pfb_channelizer_cpu(c);
        auto many = make_pfb_channelizer_cpu(c);
        const auto a = run_host(*one, c, input, { 40 });
        const auto b = run_host(*many, c, input, { 1, 2, 3, 1, 7, 1, 11, 14 });
        ASSERT_EQ(count_not_finite(a), 0u);
        EXPECT_EQ(a, b) << "oversample " << o;
    }
}

TEST(PfbChannelizerHost, ResetForgetsTheState)
{
    auto c = make_config(8, 4, 1, sample_format::fc32, 2, false, 3);
    const auto input = random_input(c, 10 * c.n_channels, 9);
    auto engine = make_pfb_channelizer_cpu(c);
    const auto first = run_host(*engine, c, input, { 10 });
    engine->reset();
    const auto again = run_host(*engine, c, input, { 10 });
    EXPECT_EQ(first, again);
}

TEST(PfbChannelizerHost, ConfigRejectsBadParametersByName)
{
    auto expect_names = [](pfb_channelizer_config c, const std::string& name) {
        try {
            c.validate();
            ADD_FAILURE() << "no exception for " << name;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
        }
    };
    pfb_channelizer_config c;
    c.n_channels = 1;
    expect_names(c, "n_channels");
    c = {};
    c.taps_per_branch = 0;
    expect_names(c, "taps_per_branch");
    c = {};
    c.oversample = 3;
    expect_names(c, "oversample");
    c = {};
    c.n_channels = 7;
    c.oversample = 2;
    expect_names(c, "oversample");
    c = {};
    c.n_receivers = 0;
    expect_names(c, "n_receivers");
    c = {};
    c.n_channels = 4;
    c.taps_per_branch = 2;
    c.taps.assign(9, 0.1f);
    expect_names(c, "taps");
}

namespace {

struct gpu_case {
    size_t n, t;
    unsigned o;
    sample_format f;
    size_t r;
    bool shift;
    std::vector<size_t> calls;
};

void compare_gpu_with_cpu(const device_spec& gpu, const gpu_case& k, unsigned seed)
{
    auto c = make_config(k.n, k.t, k.o, k.f, k.r, k.shift, seed);
    const size_t n_out = std::accumulate(k.calls.begin(), k.calls.end(), size_t(0));
    const auto input = random_input(c, n_out * c.input_per_output(), seed + 1);
    auto cpu = make_pfb_channelizer_cpu(c);
    auto dev = pfb_channelizer_engine::make(c, gpu);
    const auto expected = run_host(*cpu, c, input, { n_out });
    const auto got = run_gpu(gpu, *dev, c, input, k.calls);
    const size_t bad = count_not_finite(got);
    const double err = relative_error(got, expected);
    std::cout << describe(c, k.calls, gpu) << " rel_err=" << err << " not_finite=" << bad
              << "\n";
    EXPECT_EQ(bad, 0u) << describe(c, k.calls, gpu);
    EXPECT_LT(err, 1e-5) << describe(c, k.calls, gpu);
}

} // namespace

TEST(PfbChannelizerGpu, FusedKernelMatchesCpuForEveryShape)
{
    REQUIRE_GPU(gpu);
    const auto f32 = sample_format::fc32;
    // Channel counts that select each fused launch shape, both oversampling modes.
    unsigned seed = 100;
    for (unsigned o : { 1u, 2u })
        for (size_t n : { 2, 4, 8, 32, 128, 256, 512, 1024 })
            compare_gpu_with_cpu(
                gpu, { n, 16, o, f32, 5, false, { 37, 3, 1, 40 } }, seed++);
}

TEST(PfbChannelizerGpu, EveryInputFormatAndReceiverCount)
{
    REQUIRE_GPU(gpu);
    unsigned seed = 200;
    for (auto f : { sample_format::sc8, sample_format::sc16, sample_format::fc32 })
        for (size_t r : { 1, 3, 7, 33, 96 }) // 96: the ring entry's aligned copies
            for (unsigned o : { 1u, 2u })
                compare_gpu_with_cpu(
                    gpu, { 256, 16, o, f, r, r == 7, { 50, 29, 90 } }, seed++);
    // N = 512 and 1024 (the two-pass path's defaults): every format and O,
    // receivers that fill no group of 8 in its pass 2 nor the last block of
    // pass 1, and the station's 96 (pass 1 loads lane pairs at sc8 and sc16).
    for (size_t n : { 512, 1024 })
        for (auto f : { sample_format::sc8, sample_format::sc16, sample_format::fc32 })
            for (size_t r : { 3, 33, 96 })
                for (unsigned o : { 1u, 2u })
                    compare_gpu_with_cpu(
                        gpu, { n, 16, o, f, r, r == 3, { 20, 13 } }, seed++);
}

TEST(PfbChannelizerGpu, EveryTiledShape)
{
    REQUIRE_GPU(gpu);
    // Each entry of tiled_shapes forced through the bench knob (the engine
    // reads it when it is made) on the N it can run: the register-FFT tiles
    // (N = 128, 256, 512, 1024) and the in-place ones, every format, receivers
    // not a multiple of RB, calls ending in partial tiles.
    namespace plan = gr::beamform::pfb_plan;
    beamform_test::scoped_env knob("BEAMFORM_PFB_TILED_SHAPE", nullptr);
    unsigned seed = 250;
    for (size_t i = 0; i < plan::tiled_shape_count; i++) {
        knob.set(std::to_string(i).c_str());
        for (size_t n : { 128, 256, 512, 1024 })
            for (auto f :
                 { sample_format::sc8, sample_format::sc16, sample_format::fc32 }) {
                if (!plan::tiled_shape_can_run(n, plan::tiled_shapes[i], sample_size(f)))
                    continue;
                std::cout << "tiled shape " << i << ", " << sample_size(f)
                          << "-byte samples:\n";
                for (unsigned o : { 1u, 2u })
                    compare_gpu_with_cpu(
                        gpu, { n, 16, o, f, 13, o == 2, { 31, 2, 22 } }, seed++);
            }
    }
}

TEST(PfbChannelizerGpu, ShortAndLongCallsOfTheTiledPath)
{
    REQUIRE_GPU(gpu);
    // sc16 at N = 256, O = 1: calls of at most tiled_short_call_steps steps run
    // the input-ring entry, longer ones the default entry; the filter state
    // carries across the switch both ways. (The cluster kernel, the default for
    // long sc16 and fc32 calls of whole receiver groups, is turned off here.)
    const beamform_test::scoped_env tiled_only("BEAMFORM_PFB_CLUSTER", "0");
    const size_t limit = gr::beamform::pfb_plan::tiled_short_call_steps;
    unsigned seed = 280;
    for (size_t r : { 96, 13 })
        compare_gpu_with_cpu(gpu,
                             { 256,
                               16,
                               1,
                               sample_format::sc16,
                               r,
                               r == 13,
                               { limit + 76, 7, limit, limit + 1, 300 } },
                             seed++);
}

TEST(PfbChannelizerGpu, ClusterKernel)
{
    REQUIRE_GPU(gpu);
    // N = 256, 512, 1024 and 2048, O = 1 and 2, T = 16 through the cluster kernel
    // (requested; on sm_90, elsewhere the tiled or two-pass kernels run) for
    // every format, receivers in partial groups (of 32 at N = 256: 1, 33, 40;
    // of 8 from N = 512 on: 1, 9, 20), calls of one step, calls that end inside a
    // segment or fill few segments, calls of odd length (at O = 2 the next
    // call starts on the other step parity).
    unsigned seed = 290;
    const beamform_test::scoped_env requested("BEAMFORM_PFB_CLUSTER", "1");
#ifdef BEAMFORM_HAVE_CUDA
    if (gpu.kind == gr::beamform::backend::cuda) {
        // One device and build run the kernel at both N or at neither (an N
        // whose shared memory or launch the device refuses would fall back
        // to the other kernels unseen): the log line says which.
        for (auto f : { sample_format::sc8, sample_format::sc16, sample_format::fc32 }) {
            const auto at = [&](size_t n, size_t o) {
                return clusters_at_once(gpu, make_config(n, 16, unsigned(o), f, 1, false, 1));
            };
            const int first = at(256, 1);
            for (size_t n : { 256, 512, 1024, 2048 })
                for (size_t o : { 1, 2 }) {
                    const int at_once = at(n, o);
                    std::cout << "pfb_cluster_kernel " << format_name(f)
                              << ": clusters at once N=" << n << " O=" << o << ": " << at_once
                              << std::endl;
                    if (n != 2048) // clusters of 16 blocks: not on every sm_90 GPU
                        EXPECT_EQ(at_once > 0, first > 0)
                            << format_name(f) << " N=" << n << " O=" << o;
                }
        }
    }
#endif
    for (auto f : { sample_format::sc8, sample_format::sc16, sample_format::fc32 })
        for (size_t r : { 96, 33, 1 })
            compare_gpu_with_cpu(
                gpu, { 256, 16, 1, f, r, r == 33, { 700, 3, 1, 129, 150 } }, seed++);
    compare_gpu_with_cpu(
        gpu, { 256, 16, 1, sample_format::sc16, 40, true, { 300, 17, 64, 65, 1100 } }, seed++);
    for (size_t n : { 512, 1024, 2048 }) // clusters of 4, 8 and 16 blocks
        for (auto f : { sample_format::sc8, sample_format::sc16, sample_format::fc32 })
            for (size_t r : { 96, 9, 1 })
                compare_gpu_with_cpu(
                    gpu, { n, 16, 1, f, r, r == 9, { 300, 3, 1, 129, 150 } }, seed++);
    for (size_t n : { 512, 1024, 2048 })
        compare_gpu_with_cpu(
            gpu, { n, 16, 1, sample_format::fc32, 20, true, { 200, 17, 64, 65, 700 } }, seed++);
    // O = 2: the chain of two branches, the FFT positions swapped on odd steps.
    for (size_t n : { 256, 512, 1024, 2048 })
        for (auto f : { sample_format::sc8, sample_format::sc16, sample_format::fc32 })
            for (size_t r : { 96, n == 256 ? 33 : 9, 1 })
                compare_gpu_with_cpu(
                    gpu, { n, 16, 2, f, r, r != 96 && r != 1, { 301, 3, 1, 129, 150 } }, seed++);
    compare_gpu_with_cpu(
        gpu, { 256, 16, 2, sample_format::sc16, 40, false, { 300, 17, 64, 65, 1100 } }, seed++);
}

TEST(PfbChannelizerGpu, DefaultSwitchesBetweenClusterAndTiled)
{
    REQUIRE_GPU(gpu);
    // The default rule (no knob): sc16 and fc32 in whole groups of 32
    // receivers run the cluster kernel in calls long enough to fill the GPU
    // (96 receivers on an H200: 320 steps or more) and the tiled kernels in
    // shorter ones; the filter state carries across the switch both ways.
    // Receivers past the whole groups (100, 40) take the tiled kernels in the
    // same call, after the cluster kernel.
    // At O = 2 96 receivers take it from 320 steps too. At N = 1024 (groups
    // of 8 receivers) the other kernels are the two-pass path's; 96 receivers
    // take the cluster kernel from 12 steps at O = 1 and 22 at O = 2, and
    // partial groups (100 receivers) take it too, at N = 512 and 2048 as
    // well.
    const beamform_test::scoped_env unset("BEAMFORM_PFB_CLUSTER", nullptr);
    unsigned seed = 295;
    for (auto f : { sample_format::sc16, sample_format::fc32 })
        for (size_t r : { 96, 64 })
            compare_gpu_with_cpu(
                gpu,
                { 256, 16, 1, f, r, r == 64, { 1100, 7, 400, 100, 320, 319, 513, 2000 } },
                seed++);
    for (auto f : { sample_format::sc16, sample_format::fc32 }) // O = 2: both step parities
        compare_gpu_with_cpu(
            gpu, { 256, 16, 2, f, 96, f == sample_format::fc32, { 701, 7, 300, 100, 682 } },
            seed++);
    for (unsigned o : { 1u, 2u })
        for (size_t r : { 100, 40 })
            compare_gpu_with_cpu(
                gpu,
                { 256, 16, o, r == 100 ? sample_format::sc16 : sample_format::fc32, r, o == 2,
                  { 1100, 7, 400, 3000, 330 } },
                seed++);
    for (auto f : { sample_format::sc16, sample_format::fc32 })
        for (unsigned o : { 1u, 2u })
            compare_gpu_with_cpu(
                gpu, { 1024, 16, o, f, 96, f == sample_format::sc16, { 700, 7, 300, 24, 11, 682 } },
                seed++);
    for (size_t n : { 512, 1024, 2048 })
        for (unsigned o : { 1u, 2u })
            compare_gpu_with_cpu(
                gpu, { n, 16, o, sample_format::fc32, 100, o == 1, { 500, 5, 64, 9, 300 } }, seed++);
    // sc8 from N = 512 on by the same rule (at 256 the tiled kernels only).
    for (size_t n : { 512, 1024 })
        compare_gpu_with_cpu(
            gpu, { n, 16, n == 512 ? 2u : 1u, sample_format::sc8, 96, n == 1024,
                   { 700, 7, 300, 24, 11, 682 } },
            seed++);
}

TEST(PfbChannelizerGpu, TiledRestAfterTheClusterKernel)
{
    REQUIRE_GPU(gpu);
    // One call each that the default rule splits at N = 256: the cluster
    // kernel takes the whole groups of 32 receivers, the tiled kernels the
    // rest (4 and 8 receivers) after it: small enough for compute-sanitizer.
    const beamform_test::scoped_env unset("BEAMFORM_PFB_CLUSTER", nullptr);
    compare_gpu_with_cpu(gpu, { 256, 16, 1, sample_format::sc16, 100, true, { 330 } }, 289);
    compare_gpu_with_cpu(gpu, { 256, 16, 2, sample_format::fc32, 40, false, { 1030 } }, 288);
}

TEST(PfbChannelizerGpu, ClusterKernelOneLaunch)
{
    REQUIRE_GPU(gpu);
    // One small launch of the cluster kernel (2 receiver groups, one segment):
    // the case for compute-sanitizer racecheck, which takes minutes on the
    // whole ClusterKernel test (apps/channelizer_bench.md, version 19).
    const beamform_test::scoped_env requested("BEAMFORM_PFB_CLUSTER", "1");
    compare_gpu_with_cpu(gpu, { 256, 16, 1, sample_format::sc16, 40, true, { 40 } }, 299);
    compare_gpu_with_cpu(gpu, { 1024, 16, 1, sample_format::fc32, 12, true, { 40 } }, 298);
    compare_gpu_with_cpu(gpu, { 256, 16, 2, sample_format::sc16, 40, true, { 41 } }, 297);
    compare_gpu_with_cpu(gpu, { 1024, 16, 2, sample_format::fc32, 12, false, { 41 } }, 296);
    compare_gpu_with_cpu(gpu, { 512, 16, 1, sample_format::sc16, 12, true, { 40 } }, 295);
    compare_gpu_with_cpu(gpu, { 512, 16, 2, sample_format::fc32, 12, false, { 41 } }, 294);
    // Fewer taps than the window: the window's oldest steps in the history.
    compare_gpu_with_cpu(gpu, { 1024, 8, 1, sample_format::sc16, 12, true, { 40 } }, 291);
    compare_gpu_with_cpu(gpu, { 256, 5, 2, sample_format::fc32, 40, false, { 41 } }, 290);
}

TEST(PfbChannelizerGpu, ClusterOf16BlocksOneLaunch)
{
    REQUIRE_GPU(gpu);
    // N = 2048 (clusters of 16 blocks) on its own, for racecheck: with it in
    // ClusterKernelOneLaunch racecheck ran past 150 s (session 46).
    const beamform_test::scoped_env requested("BEAMFORM_PFB_CLUSTER", "1");
    compare_gpu_with_cpu(gpu, { 2048, 16, 1, sample_format::fc32, 12, true, { 40 } }, 293);
    compare_gpu_with_cpu(gpu, { 2048, 16, 2, sample_format::sc16, 12, false, { 41 } }, 292);
}

TEST(PfbChannelizerGpu, ClusterKernelForFewerTaps)
{
    REQUIRE_GPU(gpu);
    // T < 16 on the cluster kernel, as 16 taps zero past T over a history of
    // 16 taps (pfb_plan::history_taps): requested, at every N it serves; then
    // by the default rule in calls that switch between it and the tiled (N =
    // 256) or two-pass (N = 1024) kernels, so that the longer history carries
    // across the switch both ways, and in a call split with a tiled rest.
    unsigned seed = 310;
    {
        const beamform_test::scoped_env requested("BEAMFORM_PFB_CLUSTER", "1");
        compare_gpu_with_cpu(
            gpu, { 256, 8, 1, sample_format::sc16, 40, true, { 300, 3, 1, 129 } }, seed++);
        compare_gpu_with_cpu(
            gpu, { 512, 12, 2, sample_format::fc32, 9, false, { 301, 3, 1, 129 } }, seed++);
        compare_gpu_with_cpu(
            gpu, { 1024, 1, 1, sample_format::sc8, 9, false, { 200, 17, 64 } }, seed++);
        compare_gpu_with_cpu(
            gpu, { 2048, 15, 2, sample_format::sc16, 9, true, { 129, 3, 64 } }, seed++);
    }
    const beamform_test::scoped_env unset("BEAMFORM_PFB_CLUSTER", nullptr);
    for (auto f : { sample_format::sc16, sample_format::fc32 })
        for (unsigned o : { 1u, 2u })
            compare_gpu_with_cpu(
                gpu, { 1024, 8, o, f, 96, o == 2, { 700, 7, 300, 11, 682 } }, seed++);
    compare_gpu_with_cpu(
        gpu, { 256, 5, 1, sample_format::sc16, 96, false, { 1100, 7, 400, 100, 320 } }, seed++);
    compare_gpu_with_cpu(
        gpu, { 256, 12, 2, sample_format::fc32, 100, true, { 1100, 7, 330 } }, seed++);
}

TEST(PfbChannelizerGpu, ShorterBranchesThanTheRegisterWindow)
{
    REQUIRE_GPU(gpu);
    unsigned seed = 300;
    for (size_t t : { 1, 2, 7, 15 })
        for (unsigned o : { 1u, 2u })
            compare_gpu_with_cpu(
                gpu, { 64, t, o, sample_format::fc32, 6, false, { 45, 5, 1 } }, seed++);
}

TEST(PfbChannelizerGpu, GeneralPathMatchesCpu)
{
    REQUIRE_GPU(gpu);
    unsigned seed = 400;
    // Not powers of two (CUDA: two_pass with cuFFT as pass 2; HIP: the
    // general path's direct DFT).
    for (size_t n : { 3, 6, 12, 100, 1000 })
        compare_gpu_with_cpu(
            gpu,
            { n, 8, n % 2 ? 1u : 2u, sample_format::sc16, 5, n == 12, { 21, 4 } },
            seed++);
    for (size_t n : { 100, 384, 1000 })
        compare_gpu_with_cpu(
            gpu,
            { n, 16, 1, n == 384 ? sample_format::fc32 : sample_format::sc16,
              n == 100 ? 96u : 33u, n == 1000, { 21, 4 } },
            seed++);
    // N = 2048 and 4096 with T <= 16: two_pass, cuFFT as its pass 2 on CUDA
    // (the shared-memory pass 2 on HIP, and below forced on CUDA).
    compare_gpu_with_cpu(
        gpu, { 2048, 16, 1, sample_format::fc32, 3, false, { 20, 3 } }, seed++);
    compare_gpu_with_cpu(
        gpu, { 4096, 4, 2, sample_format::sc16, 2, true, { 9, 8 } }, seed++);
    {
        const beamform_test::scoped_env kernel_fft("BEAMFORM_PFB_LIBRARY_FROM", "1000000");
        compare_gpu_with_cpu(
            gpu, { 2048, 16, 1, sample_format::sc16, 3, true, { 20, 3 } }, seed++);
        compare_gpu_with_cpu(
            gpu, { 4096, 4, 2, sample_format::fc32, 2, false, { 9, 8 } }, seed++);
    }
    // N = 8192 and 32768 (beyond the FFT kernels: cuFFT on CUDA, the general
    // path on HIP); 24 and 384 channels with 40 and 33 receivers: the FIR's
    // and the transpose's tiles cut at every edge.
    compare_gpu_with_cpu(
        gpu, { 8192, 16, 2, sample_format::fc32, 2, true, { 5, 4 } }, seed++);
    compare_gpu_with_cpu(
        gpu, { 32768, 16, 1, sample_format::sc16, 8, true, { 3, 1, 2 } }, seed++);
    // Rows with the transpose (33 receivers) and with the copy (1 receiver).
    compare_gpu_with_cpu(
        gpu, { 8192, 4, 1, sample_format::fc32, 33, false, { 4, 3 } }, seed++);
    compare_gpu_with_cpu(
        gpu, { 16384, 16, 2, sample_format::sc16, 1, true, { 40, 9 } }, seed++);
    compare_gpu_with_cpu(
        gpu, { 24, 20, 2, sample_format::fc32, 40, true, { 50, 3 } }, seed++);
    compare_gpu_with_cpu(
        gpu, { 384, 9, 2, sample_format::sc8, 33, false, { 17, 6 } }, seed++);
    // The general path with cuFFT (on CUDA no default since two_pass serves
    // every N; forced as the bench does): its FIR's and transpose's tiles cut.
    {
        const beamform_test::scoped_env forced("BEAMFORM_PFB_PATH", "fir_library_fft");
        compare_gpu_with_cpu(
            gpu, { 24, 20, 2, sample_format::fc32, 40, true, { 50, 3 } }, seed++);
        compare_gpu_with_cpu(
            gpu, { 1000, 8, 2, sample_format::sc16, 5, false, { 21, 4 } }, seed++);
    }
    // Powers of two through the general path's shared-memory FFT (no
    // default since two_pass serves every T; forced as the bench does):
    // rows of 24 and 1 per block, receivers cut at 32.
    const beamform_test::scoped_env forced("BEAMFORM_PFB_PATH", "fir_smem_fft");
    compare_gpu_with_cpu(
        gpu, { 64, 24, 2, sample_format::sc8, 3, true, { 30, 9 } }, seed++);
    compare_gpu_with_cpu(
        gpu, { 256, 24, 1, sample_format::sc16, 40, false, { 37, 12 } }, seed++);
    compare_gpu_with_cpu(
        gpu, { 4096, 20, 1, sample_format::sc16, 3, false, { 6, 5 } }, seed++);
}

TEST(PfbChannelizerGpu, TwoPassTapsInBlocksOf16)
{
    REQUIRE_GPU(gpu);
    unsigned seed = 450;
    // T > 16: pass 1 once per block of 16 taps, adding to the columns (two
    // and three blocks, a block of one tap), the register-FFT pass 2 (256,
    // 1024), the shared-memory one (64) and cuFFT's (CUDA: 2048, 4096).
    compare_gpu_with_cpu(
        gpu, { 256, 24, 1, sample_format::sc16, 96, false, { 37, 12, 200 } }, seed++);
    compare_gpu_with_cpu(
        gpu, { 256, 33, 2, sample_format::fc32, 7, true, { 40, 3 } }, seed++);
    compare_gpu_with_cpu(
        gpu, { 64, 24, 1, sample_format::fc32, 3, false, { 30, 9 } }, seed++);
    compare_gpu_with_cpu(
        gpu, { 1024, 20, 2, sample_format::sc16, 33, false, { 9, 14 } }, seed++);
    compare_gpu_with_cpu(
        gpu, { 2048, 17, 1, sample_format::sc8, 5, true, { 6, 4 } }, seed++);
    compare_gpu_with_cpu(
        gpu, { 4096, 32, 2, sample_format::sc16, 2, false, { 5, 6 } }, seed++);
}

TEST(PfbChannelizerGpu, StateCarriesAcrossCallsOfAnySize)
{
    REQUIRE_GPU(gpu);
    for (unsigned o : { 1u, 2u }) {
        for (size_t n : { 16, 256, 1024, 100 }) {
            auto c =
                make_config(n, 16, o, sample_format::sc16, 5, false, 500 + unsigned(n));
            if (n % o)
                continue;
            const size_t n_out = 64;
            const auto input = random_input(c, n_out * c.input_per_output(), 77);
            auto one = pfb_channelizer_engine::make(c, gpu);
            auto many = pfb_channelizer_engine::make(c, gpu);
            const std::vector<size_t> pieces = { 1, 1, 2, 5, 1, 17, 3, 1, 33 };
            const auto a = run_gpu(gpu, *one, c, input, { n_out });
            const auto b = run_gpu(gpu, *many, c, input, pieces);
            const double err = relative_error(b, a);
            std::cout << describe(c, pieces, gpu) << " vs one call: rel_err=" << err << "\n";
            EXPECT_EQ(count_not_finite(b), 0u);
            EXPECT_LT(err, 1e-6) << describe(c, pieces, gpu);
            // And against the CPU reference fed in yet another split.
            auto cpu = make_pfb_channelizer_cpu(c);
            const auto ref = run_host(*cpu, c, input, { 7, 57 });
            EXPECT_LT(relative_error(a, ref), 1e-5) << describe(c, { n_out }, gpu);
        }
    }
}

TEST(PfbChannelizerGpu, ResetForgetsTheState)
{
    REQUIRE_GPU(gpu);
    auto c = make_config(128, 16, 2, sample_format::fc32, 4, false, 9);
    const auto input = random_input(c, 30 * c.input_per_output(), 10);
    auto engine = pfb_channelizer_engine::make(c, gpu);
    const auto first = run_gpu(gpu, *engine, c, input, { 30 });
    engine->reset();
    const auto again = run_gpu(gpu, *engine, c, input, { 13, 17 });
    EXPECT_LT(relative_error(again, first), 1e-6);
}
