/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * pfb_channelizer throughput (notes in apps/channelizer_bench.md): the GPU
 * engine on 256 and 1024 channels x 16 taps, 96 receivers, sc16 and fc32
 * input, next to
 *   - a device-to-device copy (the bandwidth ceiling) measured in the same run,
 *   - cuFFT alone on the same FFTs (N-point C2C, one per receiver and step),
 *   - GNU Radio's CPU pfb_channelizer_ccf on the same data, one flowgraph
 *     branch per receiver, all branches in one top block (GNU Radio runs every
 *     block in its own thread, so all CPU cores work).
 * Bytes counted: input read once + output written once.
 *
 * Usage: `usage` below (also printed by --help).
 *
 * --cases replaces the eight standard cases by others, for example
 * --cases=4096x16:fc32,128x8:sc16:os2 (FORMAT sc8 | sc16 | fc32, default sc16;
 * O 1 or 2, default 1). A bad option is a usage error (exit code 2).
 */
#include "bench_common.h"
#include <gnuradio/beamform/engines/pfb_channelizer_engine.h>
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gnuradio/blocks/head.h>
#include <gnuradio/blocks/interleaved_short_to_complex.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/stream_to_streams.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/filter/pfb_channelizer_ccf.h>
#include <gnuradio/top_block.h>
#include <cufft.h>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <thread>

using namespace gr::beamform;

namespace {

//! The usage text, printed by --help (bench::accept_only checks that it names
//! every accepted option).
constexpr const char* usage = R"(usage: channelizer_bench [--receivers=96] [--gpu-mib=512] [--gpu-steps=S]
                         [--cpu-samples=2097152] [--skip-cpu]
                         [--cases=NxT[:FORMAT][:osO],...]
                         [--json=channelizer_bench.json]
  --receivers=R      receivers, 1 to 1048576 (default 96)
  --gpu-mib=M        output of one timed GPU call in MiB (at least 64 steps),
                     1 to 1048576 (default 512)
  --gpu-steps=S      output steps of one timed GPU call instead, 1 to 16777216
                     (short calls: where the default path choice changes)
  --cpu-samples=N    input samples per receiver for GNU Radio's CPU
                     pfb_channelizer_ccf, 1 to 2^36 (default 2097152)
  --skip-cpu         no GNU Radio CPU runs (os2 cases never have one)
  --cases=LIST       other cases instead of the eight standard ones (256 and
                     1024 channels x 16 taps, sc16 and fc32, os1 and os2):
                     N channels x T taps per branch, FORMAT sc8 | sc16 | fc32
                     (default sc16), O 1 or 2 (default 1), for example
                     --cases=4096x16:fc32,128x8:sc16:os2
  --json=PATH        where the JSON results go (default channelizer_bench.json)
  -h, --help         print this text and exit
A bad option is a usage error (exit status 2).
notes and figures: apps/channelizer_bench.md in the gr-beamform sources
)";

struct bench_case {
    size_t channels;
    size_t taps_per_branch;
    unsigned oversample;
    sample_format format;
};

struct gpu_figures {
    size_t n_out;
    double bytes;
    double ms;
    double cufft_ms;
    double check_rel_err;
};

//! Random raw input in device memory (non-zero, full int16 range for sc16).
void fill_input(void* dst, size_t bytes, sample_format f, unsigned seed)
{
    if (f == sample_format::fc32) {
        bench::fill_random_floats(dst, bytes / sizeof(float), seed);
        return;
    }
    std::vector<int16_t> host(bytes / sizeof(int16_t));
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> u(-32768, 32767);
    for (auto& v : host)
        v = int16_t(u(gen) | 1); // odd: never zero
    BF_GPU_CHECK(cudaMemcpy(dst, host.data(), bytes, cudaMemcpyHostToDevice));
}

double relative_error(const std::vector<std::complex<float>>& a,
                      const std::vector<std::complex<float>>& b)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < a.size(); i++) {
        if (!std::isfinite(a[i].real()) || !std::isfinite(a[i].imag()))
            return NAN;
        num += std::norm(std::complex<double>(a[i]) - std::complex<double>(b[i]));
        den += std::norm(std::complex<double>(b[i]));
    }
    return std::sqrt(num / den);
}

gpu_figures
run_gpu(const bench_case& k,
        size_t receivers,
        size_t target_bytes,
        size_t steps,
        cudaStream_t s)
{
    pfb_channelizer_config c;
    c.n_channels = k.channels;
    c.taps_per_branch = k.taps_per_branch;
    c.oversample = k.oversample;
    c.input = k.format;
    c.n_receivers = receivers;
    const device_spec gpu = select_device("cuda:0");

    const size_t out_item = c.n_channels * receivers * sizeof(std::complex<float>);
    const size_t in_item = c.input_per_output() * receivers * sample_size(c.input);
    gpu_figures g;
    g.n_out = steps ? steps : std::max<size_t>(64, target_bytes / out_item);
    bench::device_array in(g.n_out * in_item), out(g.n_out * out_item);
    fill_input(in.get(), in.size(), c.input, 7);
    g.bytes = double(in.size()) + double(out.size());

    // Spot check: the first steps against the CPU reference.
    {
        const size_t steps = 6;
        std::vector<uint8_t> host_in(steps * in_item);
        BF_GPU_CHECK(
            cudaMemcpy(host_in.data(), in.get(), host_in.size(), cudaMemcpyDeviceToHost));
        auto cpu = make_pfb_channelizer_cpu(c);
        auto dev = pfb_channelizer_engine::make(c, gpu);
        std::vector<std::complex<float>> expected(steps * c.n_channels * receivers),
            got(expected.size());
        cpu->execute(host_in.data(), expected.data(), steps, nullptr);
        dev->execute(in.get(), out.as<std::complex<float>>(), steps, s);
        BF_GPU_CHECK(cudaStreamSynchronize(s));
        BF_GPU_CHECK(cudaMemcpy(
            got.data(), out.get(), got.size() * sizeof(got[0]), cudaMemcpyDeviceToHost));
        g.check_rel_err = relative_error(got, expected);
    }

    auto engine = pfb_channelizer_engine::make(c, gpu);
    bench::timing t = bench::time_gpu(
        [&] { engine->execute(in.get(), out.as<std::complex<float>>(), g.n_out, s); },
        s,
        20,
        3);
    g.ms = t.median_ms;

    // cuFFT alone on the same transforms: N points, one per receiver and step,
    // in place on the output (non-zero data), same bytes moved as our output.
    cufftHandle plan;
    int dims[1] = { int(c.n_channels) };
    const int n = int(c.n_channels);
    if (cufftPlanMany(&plan,
                      1,
                      dims,
                      nullptr,
                      1,
                      n,
                      nullptr,
                      1,
                      n,
                      CUFFT_C2C,
                      int(g.n_out * receivers)) != CUFFT_SUCCESS)
        throw std::runtime_error("cufftPlanMany failed");
    cufftSetStream(plan, s);
    auto* data = out.as<cufftComplex>();
    bench::timing tf = bench::time_gpu(
        [&] {
            if (cufftExecC2C(plan, data, data, CUFFT_INVERSE) != CUFFT_SUCCESS)
                throw std::runtime_error("cufftExecC2C failed");
        },
        s,
        20,
        3);
    cufftDestroy(plan);
    g.cufft_ms = tf.median_ms;
    return g;
}

struct cpu_figures {
    double seconds;
    double samples; // input samples, all receivers
    size_t chains;  // receiver chains run at once
};

/*!
 * GNU Radio keeps every stream in a double-mapped circular buffer; one
 * pfb_channelizer_ccf needs 2N + 3 of them (N commutator outputs, N channel
 * outputs). The kernel allows vm.max_map_count mappings per process (3 per
 * buffer, counted generously), so at most this many receiver chains run at once.
 */
size_t chains_that_fit(size_t n_channels, size_t receivers, unsigned cores)
{
    size_t max_maps = 65530;
    std::ifstream f("/proc/sys/vm/max_map_count");
    if (f)
        f >> max_maps;
    const size_t buffers = (max_maps * 8 / 10) / 3;
    const size_t by_maps = std::max<size_t>(1, buffers / (2 * n_channels + 4));
    return std::min({ receivers, by_maps, size_t(2 * std::max(1u, cores)) });
}

/*!
 * GNU Radio on the CPU: per receiver, source -> head -> (sc16: interleaved
 * short to complex) -> stream_to_streams(N) -> pfb_channelizer_ccf -> N
 * channel outputs into a null sink. Every block is a thread; `chains`
 * receivers run at once in one top block, the receivers in consecutive
 * batches; the time is the sum over the batches of the streaming time (from
 * the end of start(), which allocates the buffers, to the end of wait()).
 */
cpu_figures run_gnuradio(const bench_case& k,
                         size_t receivers,
                         size_t samples_per_receiver,
                         size_t chains)
{
    const std::vector<float> taps = default_pfb_taps(k.channels, k.taps_per_branch);
    const size_t n = k.channels;
    const size_t pattern_len = size_t(1) << 16;
    std::mt19937 gen(3);
    std::normal_distribution<float> g(0.0f, 1000.0f);
    std::vector<gr_complex> pattern_c(pattern_len);
    std::vector<short> pattern_s(2 * pattern_len);
    for (size_t i = 0; i < pattern_len; i++) {
        pattern_c[i] = gr_complex(g(gen), g(gen));
        pattern_s[2 * i] = short(pattern_c[i].real());
        pattern_s[2 * i + 1] = short(pattern_c[i].imag());
    }
    samples_per_receiver = std::max(n, samples_per_receiver / n * n);

    double seconds = 0.0;
    for (size_t first = 0; first < receivers; first += chains) {
        const size_t batch = std::min(chains, receivers - first);
        auto tb = gr::make_top_block("gnuradio_pfb");
        for (size_t r = 0; r < batch; r++) {
            gr::basic_block_sptr tail;
            if (k.format == sample_format::sc16) {
                auto src = gr::blocks::vector_source_s::make(pattern_s, true);
                auto head =
                    gr::blocks::head::make(sizeof(short), 2 * samples_per_receiver);
                auto conv =
                    gr::blocks::interleaved_short_to_complex::make(false, false, 1.0f);
                tb->connect(src, 0, head, 0);
                tb->connect(head, 0, conv, 0);
                tail = conv;
            } else {
                auto src = gr::blocks::vector_source_c::make(pattern_c, true);
                auto head =
                    gr::blocks::head::make(sizeof(gr_complex), samples_per_receiver);
                tb->connect(src, 0, head, 0);
                tail = head;
            }
            auto commutator = gr::blocks::stream_to_streams::make(sizeof(gr_complex), n);
            auto pfb = gr::filter::pfb_channelizer_ccf::make(
                unsigned(n), taps, float(k.oversample));
            auto sink = gr::blocks::null_sink::make(sizeof(gr_complex));
            tb->connect(tail, 0, commutator, 0);
            for (size_t c = 0; c < n; c++) {
                tb->connect(commutator, int(c), pfb, int(c));
                tb->connect(pfb, int(c), sink, int(c));
            }
        }
        // start() allocates the buffers and then spawns the block threads;
        // time from there to the end of the data (setup excluded).
        tb->start();
        const auto t0 = std::chrono::steady_clock::now();
        tb->wait();
        const auto t1 = std::chrono::steady_clock::now();
        seconds += std::chrono::duration<double>(t1 - t0).count();
    }
    return { seconds, double(samples_per_receiver) * double(receivers), chains };
}

/*!
 * GNU Radio's default buffer factory (System V shared memory) runs out of
 * segments (kernel.shmmni = 4096) long before the thousands of buffers above;
 * point this process's GNU Radio preferences at the POSIX shm_open factory,
 * which is limited only by vm.max_map_count.
 */
void prefer_shm_open_buffers()
{
    const auto dir = std::filesystem::temp_directory_path() / "channelizer_bench_home";
    std::filesystem::create_directories(dir / ".gnuradio" / "prefs");
    std::ofstream(dir / ".gnuradio" / "prefs" / "vmcircbuf_default_factory")
        << "gr::vmcircbuf_mmap_shm_open_factory";
    setenv("HOME", dir.c_str(), 1);
}

std::string format_name(sample_format f) { return to_string(f); }

/*!
 * One case of --cases: "NxT", then optionally ":FORMAT" and ":osO" (see the
 * header). bench::usage_error naming the text otherwise; the engine checks
 * the values themselves when it is made.
 */
bench_case parse_case(const std::string& text)
{
    const auto bad = [&](const std::string& why) {
        return bench::usage_error("--cases: \"" + text + "\": " + why +
                                  " (accepted: NxT[:sc8|sc16|fc32][:os1|os2], "
                                  "e.g. 256x16:fc32:os2)");
    };
    const std::vector<std::string> parts = bench::split(text, ':');
    if (parts.empty() || parts.size() > 3)
        throw bad("expected one to three parts separated by ':'");
    const size_t x = parts[0].find('x');
    const auto number = [&](const std::string& digits, const char* what) {
        if (digits.empty() || digits.size() > 9 ||
            digits.find_first_not_of("0123456789") != std::string::npos ||
            std::stoul(digits) == 0)
            throw bad(std::string(what) + " must be a positive integer");
        return size_t(std::stoul(digits));
    };
    if (x == std::string::npos)
        throw bad("no 'x' between channels and taps");
    bench_case k{ number(parts[0].substr(0, x), "channels"),
                  number(parts[0].substr(x + 1), "taps"),
                  1,
                  sample_format::sc16 };
    for (size_t i = 1; i < parts.size(); i++) {
        if (parts[i] == "os1" || parts[i] == "os2")
            k.oversample = parts[i] == "os2" ? 2 : 1;
        else if (parts[i].rfind("os", 0) == 0)
            throw bad("the oversample must be os1 or os2");
        else
            k.format = parse_sample_format(parts[i], "--cases format");
    }
    return k;
}

} // namespace

int main(int argc, char** argv)
{
    try {
        bench::accept_only(
            argc,
            argv,
            { "receivers", "gpu-mib", "gpu-steps", "cpu-samples", "skip-cpu", "json", "cases" },
            usage);
        const size_t receivers =
            size_t(bench::integer_option(argc, argv, "receivers", 96, 1, 1 << 20));
        const size_t gpu_mib =
            size_t(bench::integer_option(argc, argv, "gpu-mib", 512, 1, 1 << 20));
        const size_t gpu_steps = // 0: from --gpu-mib
            size_t(bench::integer_option(argc, argv, "gpu-steps", 0, 1, 1 << 24));
        const size_t cpu_samples = size_t(
            bench::integer_option(argc, argv, "cpu-samples", 2097152, 1, 1ll << 36));
        const bool skip_cpu = bench::option(argc, argv, "skip-cpu", "0") == "1";
        const std::string json =
            bench::option(argc, argv, "json", "channelizer_bench.json");
        const std::string case_list = bench::option(argc, argv, "cases", "");
        const std::vector<bench_case> cases =
            case_list.empty() ? std::vector<bench_case>{
                { 256, 16, 1, sample_format::sc16 },  { 256, 16, 1, sample_format::fc32 },
                { 1024, 16, 1, sample_format::sc16 }, { 1024, 16, 1, sample_format::fc32 },
                { 256, 16, 2, sample_format::sc16 },  { 256, 16, 2, sample_format::fc32 },
                { 1024, 16, 2, sample_format::sc16 }, { 1024, 16, 2, sample_format::fc32 },
            } : bench::parse_items("cases", case_list, parse_case);
        if (!skip_cpu)
            prefer_shm_open_buffers(); // before GNU Radio makes its first buffer

        cudaStream_t s;
        BF_GPU_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        const double copy_gbps = bench::copy_ceiling_gbps(s);
        const double write_gbps = bench::write_ceiling_gbps(s);
        const unsigned cores = std::thread::hardware_concurrency();
        std::printf(
            "channelizer_bench on %s, %zu receivers, output %s per call; "
            "device-to-device copy %.0f GB/s (read + write), memset %.0f GB/s (write); "
            "CPU: %u hardware threads\n",
            bench::device_name().c_str(),
            receivers,
            (gpu_steps ? std::to_string(gpu_steps) + " steps"
                       : "~" + std::to_string(gpu_mib) + " MiB")
                .c_str(),
            copy_gbps,
            write_gbps,
            cores);
        std::printf(
            "GB/s counts input read once + output written once. floor = those bytes at "
            "the copy rate. cuFFT = the same N-point inverse C2C FFTs alone (in place).\n"
            "GNU Radio = pfb_channelizer_ccf (gr-filter, FFTW + VOLK), one flowgraph "
            "branch "
            "per receiver, as many branches at once as its buffers allow (JSON: "
            "gnuradio_receiver_chains_at_once), %u hardware threads, same byte "
            "accounting "
            "(%s samples per receiver).\n\n",
            cores,
            std::to_string(cpu_samples).c_str());
        std::printf("%-22s %8s %9s %9s %8s %7s %9s %8s %10s %9s %8s %10s\n",
                    "case",
                    "steps",
                    "MB moved",
                    "floor ms",
                    "GPU ms",
                    "GB/s",
                    "% copy",
                    "cuFFT ms",
                    "GPU/cuFFT",
                    "GR GB/s",
                    "GPU/GR",
                    "check err");

        bench::report rep("channelizer_bench");
        for (const auto& k : cases) {
            const gpu_figures g = run_gpu(k, receivers, gpu_mib << 20, gpu_steps, s);
            const double gbps = g.bytes / (g.ms * 1e-3) / 1e9;
            const double floor_ms = g.bytes / (copy_gbps * 1e9) * 1e3;

            double gr_gbps = NAN, gr_seconds = NAN, gr_msps = NAN, gr_chains = NAN;
            if (!skip_cpu && k.oversample == 1) {
                const cpu_figures cf =
                    run_gnuradio(k,
                                 receivers,
                                 cpu_samples,
                                 chains_that_fit(k.channels, receivers, cores));
                const double seconds = cf.seconds, samples = cf.samples;
                gr_chains = double(cf.chains);
                // Same accounting as the GPU: input bytes + output bytes per input
                // sample.
                const double bytes_per_sample =
                    double(sample_size(k.format)) + 8.0 * double(k.oversample);
                gr_seconds = seconds;
                gr_msps = samples / seconds / 1e6;
                gr_gbps = samples * bytes_per_sample / seconds / 1e9;
            }
            char name[64];
            std::snprintf(name,
                          sizeof(name),
                          "%zux%zu %s%s",
                          k.channels,
                          k.taps_per_branch,
                          format_name(k.format).c_str(),
                          k.oversample == 2 ? " os2" : "");
            std::printf("%-22s %8zu %9.1f %9.3f %8.3f %7.0f %8.1f%% %9.3f %9.2f %9.2f "
                        "%8.0f %10.2e\n",
                        name,
                        g.n_out,
                        g.bytes / 1e6,
                        floor_ms,
                        g.ms,
                        gbps,
                        100.0 * gbps / copy_gbps,
                        g.cufft_ms,
                        g.ms / g.cufft_ms,
                        gr_gbps,
                        gbps / gr_gbps,
                        g.check_rel_err);
            std::fflush(stdout);

            rep.row();
            rep.set("channels", double(k.channels));
            rep.set("taps_per_branch", double(k.taps_per_branch));
            rep.set("oversample", double(k.oversample));
            rep.set("format", format_name(k.format));
            rep.set("receivers", double(receivers));
            rep.set("steps", double(g.n_out));
            rep.set("bytes_moved", g.bytes);
            rep.set("floor_ms_at_copy_rate", floor_ms);
            rep.set("gpu_ms", g.ms);
            rep.set("gpu_gbps", gbps);
            rep.set("copy_gbps", copy_gbps);
            rep.set("write_gbps", write_gbps);
            rep.set("fraction_of_copy", gbps / copy_gbps);
            rep.set("cufft_ms", g.cufft_ms);
            rep.set("gpu_over_cufft_time", g.ms / g.cufft_ms);
            if (!std::isnan(gr_gbps)) { // JSON has no NaN
                rep.set("gnuradio_cpu_seconds", gr_seconds);
                rep.set("gnuradio_cpu_msamples_per_s", gr_msps);
                rep.set("gnuradio_cpu_gbps", gr_gbps);
                rep.set("gnuradio_cpu_threads", double(cores));
                rep.set("gnuradio_receiver_chains_at_once", gr_chains);
                rep.set("gpu_speedup_over_gnuradio", gbps / gr_gbps);
            }
            rep.set("check_rel_err_vs_cpu_engine", g.check_rel_err);
        }
        rep.write_json(json);
        std::printf("\nJSON: %s\n", json.c_str());
        BF_GPU_CHECK(cudaStreamDestroy(s));
    } catch (const std::invalid_argument& e) { // a bad option or case
        std::fprintf(stderr, "channelizer_bench: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "channelizer_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
