/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * cpu_bench: the CPU engines' rates next to the library route on the same
 * data in the same run (apps/cpu_bench.md: method and results).
 *   tensor_beamformer  vs  OpenBLAS cblas_cgemm alone, per channel, same shapes
 *   pfb_channelizer    vs  FFTW alone on the same FFTs
 *   phase_shift, convert  vs  memcpy of the bytes they write
 * and then the two flowgraphs of issue 13 built from the library's blocks,
 * against their targets: the station demo (simulated sky -> convert ->
 * pfb_channelizer -> phase_shift -> tensor_beamformer -> filterbank_sink, as
 * apps/station_beamformer.py --device cpu runs it) and direction finding (a
 * 5-element ring, 360 azimuths, as apps/direction_finding.py --headless).
 * Usage: printed by `cpu_bench --help` (in main below).
 */
#include <gnuradio/beamform/array_source.h>
#include <gnuradio/beamform/convert.h>
#include <gnuradio/beamform/engines/array_geometry.h>
#include <gnuradio/beamform/engines/convert_engine.h>
#include <gnuradio/beamform/engines/pfb_channelizer_engine.h>
#include <gnuradio/beamform/engines/phase_shift_engine.h>
#include <gnuradio/beamform/engines/steering.h>
#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <gnuradio/beamform/filterbank_sink.h>
#include <gnuradio/beamform/pfb_channelizer.h>
#include <gnuradio/beamform/phase_shift.h>
#include <gnuradio/beamform/tensor_beamformer.h>
#include <gnuradio/blocks/head.h>
#include <gnuradio/blocks/multiply_const_v.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/logger.h>
#include <gnuradio/top_block.h>
#include <cblas.h>
#include <fftw3.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using namespace gr::beamform;
using cf = std::complex<float>;

const device_spec cpu{ backend::cpu, 0 };
bool quick = false;

int runs() { return quick ? 3 : 9; }

double seconds_of(const std::function<void()>& f)
{
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
        .count();
}

double median(std::vector<double> t)
{
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

/*!
 * Median seconds of a and of b, their runs interleaved (a, b, a, b, ...) so
 * that both see the same load on a shared machine; one warm-up run each.
 */
std::pair<double, double> paired_median_seconds(const std::function<void()>& a,
                                                const std::function<void()>& b)
{
    a();
    b();
    std::vector<double> ta, tb;
    for (int i = 0; i < runs(); i++) {
        ta.push_back(seconds_of(a));
        tb.push_back(seconds_of(b));
    }
    return { median(ta), median(tb) };
}

std::vector<cf> random_complex(size_t n, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<cf> v(n);
    for (auto& x : v)
        x = { u(gen), u(gen) };
    return v;
}

void row(const std::string& engine,
         const std::string& shape,
         const std::string& unit,
         double engine_rate,
         const std::string& library,
         double library_rate)
{
    std::printf("%-18s %-26s %10.2f %-8s %-24s %10.2f %6.0f%%\n",
                engine.c_str(),
                shape.c_str(),
                engine_rate,
                unit.c_str(),
                library.c_str(),
                library_rate,
                100.0 * engine_rate / library_rate);
}

//! \p threads: the engine's and OpenBLAS's thread count (0: every core).
void bench_beamformer(const char* name,
                      size_t C,
                      size_t R,
                      size_t B,
                      size_t cores,
                      size_t threads = 0,
                      size_t n_int = 16)
{
    // Time steps: input of about 32 MB (larger than the caches) or about 4
    // GFLOP, whichever is smaller; a multiple of n_int.
    const double budget_bytes = quick ? 8e6 : 32e6, budget_ops = quick ? 1e9 : 4e9;
    size_t T = std::min(size_t(budget_bytes / (8.0 * C * R)),
                        size_t(budget_ops / (8.0 * C * R * B)));
    T = std::max<size_t>(n_int, T / n_int * n_int);
    const auto x = random_complex(T * C * R, 1);
    const auto w = random_complex(C * B * R, 2);
    std::vector<cf> voltage(T * C * B);
    std::vector<float> power(T / n_int * B * C);

    tensor_beamformer_config config;
    config.n_channels = C;
    config.n_receivers = R;
    config.n_beams = B;
    config.threads = threads;
    auto v_engine = tensor_beamformer_engine::make(config, w, cpu);
    config.output = beam_output::power;
    config.n_int = n_int;
    auto p_engine = tensor_beamformer_engine::make(config, w, cpu);
    // The library route: OpenBLAS with its own threads (every core), one
    // cgemm per channel straight on the [T][C][R] input and [T][C][B] output,
    // no float16 rounding. The engines set OpenBLAS to one thread at every
    // call, so the route sets its count at every call too.
    std::vector<cf> blas_out(T * C * B);
    const cf one(1.0f), zero(0.0f);
    const auto blas = [&] {
        openblas_set_num_threads(int(threads == 0 ? cores : threads));
        for (size_t c = 0; c < C; c++)
            cblas_cgemm(CblasRowMajor,
                        CblasNoTrans,
                        CblasTrans,
                        int(T),
                        int(B),
                        int(R),
                        &one,
                        &x[c * R],
                        int(C * R),
                        &w[c * B * R],
                        int(R),
                        &zero,
                        &blas_out[c * B],
                        int(C * B));
    };
    const auto [t_v, t_blas] = paired_median_seconds(
        [&] { v_engine->execute(x.data(), voltage.data(), T, nullptr); }, blas);
    const auto [t_p, t_v2] = paired_median_seconds(
        [&] { p_engine->execute(x.data(), power.data(), T, nullptr); },
        [&] { v_engine->execute(x.data(), voltage.data(), T, nullptr); });

    const double ops = 8.0 * C * R * B * T, samples = double(T) * C * R;
    char shape[64];
    std::snprintf(shape, sizeof shape, "%s %zux%zux%zu", name, C, R, B);
    if (threads == 1) {
        row("beamform 1 thread",
            shape,
            "GFLOP/s",
            ops / t_v / 1e9,
            "cgemm 1 thread",
            ops / t_blas / 1e9);
        return;
    }
    row("beamformer volt",
        shape,
        "GFLOP/s",
        ops / t_v / 1e9,
        "OpenBLAS cgemm",
        ops / t_blas / 1e9);
    char power_name[32];
    std::snprintf(power_name, sizeof power_name, "power n_int=%zu", n_int);
    row(power_name,
        shape,
        "GFLOP/s",
        ops / t_p / 1e9,
        "engine voltage",
        ops / t_v2 / 1e9);
    std::printf("%-18s %-26s %10.2f MS/s in (voltage), %.2f MS/s in (power)\n",
                "",
                "",
                samples / t_v / 1e6,
                samples / t_p / 1e6);
}

void bench_channelizer(size_t N, size_t taps, size_t R, size_t threads)
{
    const size_t n_out = quick ? 256 : 1024;
    pfb_channelizer_config config;
    config.n_channels = N;
    config.taps_per_branch = taps;
    config.n_receivers = R;
    config.threads = threads;
    auto engine = pfb_channelizer_engine::make(config, cpu);
    const auto x = random_complex(n_out * N * R, 3);
    std::vector<cf> out(n_out * N * R);

    // FFTW alone: the same n_out * R backward FFTs of N points, batched over
    // receivers on the engine's [N][R] layout, out of place.
    auto* in_buf =
        reinterpret_cast<fftwf_complex*>(fftwf_malloc(n_out * N * R * sizeof(cf)));
    auto* out_buf =
        reinterpret_cast<fftwf_complex*>(fftwf_malloc(n_out * N * R * sizeof(cf)));
    std::memcpy(in_buf, x.data(), n_out * N * R * sizeof(cf));
    const int n = int(N);
    fftwf_plan plan = fftwf_plan_many_dft(1,
                                          &n,
                                          int(R),
                                          in_buf,
                                          nullptr,
                                          int(R),
                                          1,
                                          out_buf,
                                          nullptr,
                                          int(R),
                                          1,
                                          FFTW_BACKWARD,
                                          FFTW_MEASURE);
    std::memcpy(in_buf, x.data(), n_out * N * R * sizeof(cf)); // MEASURE overwrote it
    const auto [t_engine, t_fftw] = paired_median_seconds(
        [&] { engine->execute(x.data(), out.data(), n_out, nullptr); },
        [&] {
            for (size_t t = 0; t < n_out; t++)
                fftwf_execute_dft(plan, in_buf + t * N * R, out_buf + t * N * R);
        });
    fftwf_destroy_plan(plan);
    fftwf_free(in_buf);
    fftwf_free(out_buf);

    const double samples = double(n_out) * N * R;
    char shape[64];
    std::snprintf(shape, sizeof shape, "%zu ch x %zu taps x %zu rx", N, taps, R);
    row(threads == 1 ? "pfb_chan 1 thread" : "pfb_channelizer",
        shape,
        "MS/s in",
        samples / t_engine / 1e6,
        "FFTW alone",
        samples / t_fftw / 1e6);
}

//! The engine's seconds and memcpy's of \p bytes, interleaved.
std::pair<double, double> against_memcpy(const std::function<void()>& engine,
                                         size_t bytes)
{
    std::vector<char> a(bytes, 1), b(bytes);
    return paired_median_seconds(engine, [&] { std::memcpy(b.data(), a.data(), bytes); });
}

void bench_phase_shift(size_t C, size_t R)
{
    const size_t T = quick ? 256 : 1024;
    phase_shift_config config;
    config.n_channels = C;
    config.n_receivers = R;
    config.item_period = 1e-5;
    for (size_t c = 0; c < C; c++)
        config.channel_frequencies.push_back(1.4e9 + 1e5 * c);
    phase_shift_delays delays;
    delays.delays.assign(R, 1e-7);
    delays.rates.assign(R, 1e-9);
    delays.gains.assign(R, cf(1.0f, 0.0f));
    auto engine = phase_shift_engine::make(config, delays, cpu);
    const auto x = random_complex(T * C * R, 4);
    std::vector<cf> out(x.size());
    const size_t bytes = x.size() * sizeof(cf);
    const auto [t, t_copy] = against_memcpy(
        [&] { engine->execute(x.data(), out.data(), T, 0, nullptr); }, bytes);
    char shape[64];
    std::snprintf(shape, sizeof shape, "%zu ch x %zu rx", C, R);
    row("phase_shift",
        shape,
        "GB/s out",
        bytes / t / 1e9,
        "memcpy",
        bytes / t_copy / 1e9);
}

void bench_convert(size_t R)
{
    const size_t T = quick ? 1u << 17 : 1u << 19;
    convert_config config;
    config.input = sample_format::sc16;
    config.n_receivers = R;
    config.scale.assign(R, 1.0f / 32768.0f);
    auto engine = convert_engine::make(config, cpu);
    std::vector<int16_t> x(2 * T * R);
    std::mt19937 gen(5);
    for (auto& v : x)
        v = int16_t(gen());
    std::vector<cf> out(T * R);
    const size_t bytes = out.size() * sizeof(cf);
    const auto [t, t_copy] =
        against_memcpy([&] { engine->execute(x.data(), out.data(), T, nullptr); }, bytes);
    char shape[64];
    std::snprintf(shape, sizeof shape, "sc16 -> fc32, %zu rx", R);
    row("convert", shape, "GB/s out", bytes / t / 1e9, "memcpy", bytes / t_copy / 1e9);
}

// ------------------------------------------------------------------ flowgraphs

//! Runs of the flowgraph benchmarks (each makes a fresh flowgraph).
int flowgraph_runs() { return quick ? 3 : 5; }

//! Median seconds of tb->run() over flowgraph_runs() flowgraphs from \p make.
double flowgraph_seconds(const std::function<gr::top_block_sptr()>& make)
{
    std::vector<double> t;
    for (int i = 0; i < flowgraph_runs(); i++) {
        auto tb = make();
        t.push_back(seconds_of([&] { tb->run(); }));
    }
    return median(t);
}

void flowgraph_row(const std::string& name,
                   const std::string& shape,
                   double rate,
                   const std::string& unit,
                   const std::string& target)
{
    std::printf("%-28s %-30s %9.2f %-22s %s\n",
                name.c_str(),
                shape.c_str(),
                rate,
                unit.c_str(),
                target.c_str());
}

/*!
 * Steering weights with the rounding leftovers of their unit magnitude (parts
 * up to 2^-25, which float16 rounds to 0 anyway) set to 0, as the apps do, so
 * that the beamformer has nothing to warn about.
 */
std::vector<cf> without_leftovers(std::vector<cf> w)
{
    const float tiny = std::ldexp(1.0f, -25);
    for (auto& x : w)
        x = { std::abs(x.real()) <= tiny ? 0.0f : x.real(),
              std::abs(x.imag()) <= tiny ? 0.0f : x.imag() };
    return w;
}

//! n receivers on a square grid (row by row, centred), spacing metres apart.
std::vector<std::array<double, 3>> grid_positions(int n, double spacing)
{
    const int side = int(std::ceil(std::sqrt(double(n))));
    std::vector<std::array<double, 3>> p;
    for (int i = 0; i < n; i++)
        p.push_back({ (i % side - (side - 1) / 2.0) * spacing,
                      (i / side - (side - 1) / 2.0) * spacing,
                      0.0 });
    return p;
}

/*!
 * The station demo of apps/station_beamformer.py (--size demo --device cpu):
 * 48 receivers on a 1 m grid, 10 MS/s at 150 MHz, one tone and noise of RMS 1
 * as sc16 at scale 2000 -> head -> convert -> pfb_channelizer (128 channels,
 * 16 taps) -> phase_shift (the field centre's delays) -> tensor_beamformer
 * (12 x 12 beams, power, n_int 16) -> filterbank_sink (one file per beam, in
 * a temporary folder). With \p recorded, a repeating vector of random sc16
 * samples (2^16 items, 12 MiB) stands in for the sky, as the app's --input
 * from a file in the page cache. Rates count all receivers' samples, like the
 * app's "throughput" line.
 */
void bench_station_flowgraph(bool recorded)
{
    const int R = 48, C = 128, side = 12, n_int = 16;
    const double fs = 10e6, fc = 150e6;
    const size_t spectra = quick ? 4096 : 16384, samples = spectra * C;
    const auto positions = grid_positions(R, 1.0);
    const auto freqs = channel_frequencies(fc, fs / C, C);
    std::vector<double> lm, az_el;
    for (int j = 0; j < side; j++)
        for (int i = 0; i < side; i++) {
            lm.push_back(-0.3 + 0.6 * i / (side - 1));
            lm.push_back(-0.3 + 0.6 * j / (side - 1));
            az_el.push_back(std::fmod(
                std::atan2(lm[lm.size() - 2], lm.back()) * 180 / M_PI + 360, 360));
            az_el.push_back(
                std::acos(std::min(1.0, std::hypot(lm[lm.size() - 2], lm.back()))) * 180 /
                M_PI);
        }
    const auto weights = without_leftovers(steering_weights_lm(positions, lm, freqs));
    std::vector<int16_t> recording;
    if (recorded) {
        recording.resize(size_t(2 * R) << 16);
        std::mt19937 gen(6);
        std::normal_distribution<float> normal(0.0f, 2000.0f / std::sqrt(2.0f));
        for (auto& v : recording)
            v = int16_t(std::lrint(normal(gen)));
    }
    const auto folder = std::filesystem::temp_directory_path() / "cpu_bench_station";
    const double seconds = flowgraph_seconds([&] {
        std::filesystem::remove_all(folder);
        std::filesystem::create_directories(folder);
        auto tb = gr::make_top_block("station");
        gr::basic_block_sptr source;
        if (recorded)
            source = gr::blocks::vector_source_s::make(recording, true, 2 * R);
        else
            source = array_source::make(positions,
                                        fs,
                                        fc,
                                        { 60.0 },
                                        { 70.0 },
                                        { 5 * fs / C },
                                        { 0.5 },
                                        {},
                                        1.0,
                                        sample_format::sc16,
                                        2000.0,
                                        1);
        auto head = gr::blocks::head::make(4 * R, samples);
        auto conv = convert::make(sample_format::sc16, R, { 1.0f / 2000 }, "cpu");
        auto pfb = pfb_channelizer::make(
            C, {}, 16, sample_format::fc32, R, 1, false, fc, fs, "cpu");
        auto phase = phase_shift::make(C,
                                       R,
                                       freqs,
                                       C / fs,
                                       geometric_delays(positions, 0.0, 90.0),
                                       {},
                                       {},
                                       0.0,
                                       "cpu");
        auto bf = tensor_beamformer::make(C,
                                          R,
                                          side * side,
                                          weights,
                                          beam_precision::float16,
                                          beam_output::power,
                                          n_int,
                                          polarization_layout::single,
                                          stokes_mode::I,
                                          "cpu");
        auto sink = filterbank_sink::make(folder.string(),
                                          "station",
                                          side * side,
                                          C,
                                          1,
                                          freqs,
                                          n_int * C / fs,
                                          "cpu_bench",
                                          az_el);
        tb->connect(source, 0, head, 0);
        tb->connect(head, 0, conv, 0);
        tb->connect(conv, 0, pfb, 0);
        tb->connect(pfb, 0, phase, 0);
        tb->connect(phase, 0, bf, 0);
        tb->connect(bf, 0, sink, 0);
        return tb;
    });
    std::filesystem::remove_all(folder);
    flowgraph_row(recorded ? "station demo, recorded sc16"
                           : "station demo, simulated sky",
                  "128 ch x 48 rx x 144 beams",
                  double(samples) * R / seconds / 1e6,
                  "MS/s in (all rx)",
                  ">= 44 (10x of 4.4)");
}

/*!
 * Direction finding as apps/direction_finding.py --headless --array uca
 * --elements 5 --scan azimuth --az-min 0 --az-max 359 --sample-rate 2.4e6
 * runs it: array_source (fc32, a tone from 23.4 deg and noise of RMS 0.3)
 * -> multiply_const_vcc (the receivers' instrument phases) -> head ->
 * phase_shift (the calibration gains) -> tensor_beamformer (360 azimuths,
 * power, n_int 256) -> null sink (the app sums the powers in a Python sink).
 */
void bench_direction_finding_flowgraph()
{
    const int R = 5, beams = 360, n_int = 256;
    const double fs = 2.4e6, fc = 433.92e6, offset = 10e3;
    const double wavelength = speed_of_light / (fc + offset), radius = 0.8 * wavelength;
    const size_t samples = quick ? 2'400'000 : 12'000'000; // 1 s, 5 s of stream time
    std::vector<std::array<double, 3>> positions;
    for (int a = 0; a < R; a++)
        positions.push_back({ radius * std::sin(2 * M_PI * a / R),
                              radius * std::cos(2 * M_PI * a / R),
                              0.0 });
    std::vector<double> az_el;
    for (int b = 0; b < beams; b++) {
        az_el.push_back(b);
        az_el.push_back(0.0);
    }
    const auto weights =
        without_leftovers(steering_weights(positions, az_el, { fc + offset }));
    std::vector<gr_complex> instrument, gains;
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> phase(-M_PI, M_PI);
    for (int a = 0; a < R; a++) {
        instrument.push_back(std::polar(1.0f, phase(gen)));
        gains.push_back(std::conj(instrument.back()));
    }
    const double seconds = flowgraph_seconds([&] {
        auto tb = gr::make_top_block("direction_finding");
        auto source = array_source::make(positions,
                                         fs,
                                         fc,
                                         { 23.4 },
                                         { 0.0 },
                                         { offset },
                                         { 1.0 },
                                         {},
                                         0.3,
                                         sample_format::fc32,
                                         1.0,
                                         1);
        auto phases = gr::blocks::multiply_const_vcc::make(instrument);
        auto head = gr::blocks::head::make(sizeof(gr_complex) * R, samples);
        auto calibrate =
            phase_shift::make(1, R, { fc + offset }, 1.0 / fs, {}, {}, gains, 0.0, "cpu");
        auto bf = tensor_beamformer::make(1,
                                          R,
                                          beams,
                                          weights,
                                          beam_precision::float16,
                                          beam_output::power,
                                          n_int,
                                          polarization_layout::single,
                                          stokes_mode::I,
                                          "cpu");
        auto sink = gr::blocks::null_sink::make(sizeof(float) * beams);
        tb->connect(source, 0, phases, 0);
        tb->connect(phases, 0, head, 0);
        tb->connect(head, 0, calibrate, 0);
        tb->connect(calibrate, 0, bf, 0);
        tb->connect(bf, 0, sink, 0);
        return tb;
    });
    flowgraph_row("direction finding, simulated",
                  "5-ring x 360 az, n_int 256",
                  double(samples) / seconds / 1e6,
                  "MS/s per channel",
                  ">= 2.4 (real time)");
}

/*!
 * array_source alone (-> head -> null sink): what the simulated flowgraphs'
 * first block costs, in all receivers' samples per second.
 */
void bench_array_source(int R,
                        sample_format format,
                        size_t items,
                        const std::string& shape)
{
    const auto positions = grid_positions(R, 1.0);
    const size_t item_bytes = size_t(R) * sample_size(format);
    const double seconds = flowgraph_seconds([&] {
        auto tb = gr::make_top_block("array_source");
        auto source = array_source::make(positions,
                                         10e6,
                                         150e6,
                                         { 60.0 },
                                         { 70.0 },
                                         { 1e5 },
                                         { 0.5 },
                                         {},
                                         1.0,
                                         format,
                                         2000.0,
                                         1);
        auto head = gr::blocks::head::make(item_bytes, items);
        auto sink = gr::blocks::null_sink::make(item_bytes);
        tb->connect(source, 0, head, 0);
        tb->connect(head, 0, sink, 0);
        return tb;
    });
    flowgraph_row("array_source alone",
                  shape,
                  double(items) * R / seconds / 1e6,
                  "MS/s out (all rx)",
                  "");
}

} // namespace

//! The engines against their library routes.
void bench_engines(size_t cores)
{
    std::printf("%-18s %-26s %10s %-8s %-24s %10s %7s\n",
                "engine",
                "shape",
                "rate",
                "unit",
                "library route",
                "rate",
                "ratio");
    // Station demo: 128 channels x 48 receivers, 1 / 144 / 576 beams;
    // direction finding: one channel, an 8-element line x 181 beams and a
    // 5-element ring x 360 azimuths.
    bench_beamformer("station", 128, 48, 1, cores);
    bench_beamformer("station", 128, 48, 144, cores);
    bench_beamformer("station", 128, 48, 576, cores);
    // One thread each: the per-core efficiency, less sensitive to a shared
    // machine's load than thread teams are.
    bench_beamformer("station", 128, 48, 144, cores, 1);
    bench_beamformer("station", 128, 48, 576, cores, 1);
    bench_beamformer("df line", 1, 8, 181, cores);
    bench_beamformer("df ring", 1, 5, 360, cores);
    // The direction-finding app's integration: power through the covariance.
    bench_beamformer("df ring", 1, 5, 360, cores, 0, 256);
    bench_channelizer(128, 16, 48, 0);
    bench_channelizer(128, 16, 48, 1);
    bench_phase_shift(128, 48);
    bench_convert(48);
}

int main(int argc, char** argv)
{
    bool flowgraphs_only = false;
    for (int i = 1; i < argc; i++) {
        const std::string arg = argv[i];
        if (arg == "--quick")
            quick = true;
        else if (arg == "--flowgraphs")
            flowgraphs_only = true;
        else if (arg == "--help" || arg == "-h") {
            std::printf("usage: cpu_bench [--quick] [--flowgraphs]\n"
                        "  --quick        smaller data, fewer repeats\n"
                        "  --flowgraphs   the flowgraphs only (no engine rows)\n"
                        "  -h, --help     print this text and exit\n"
                        "notes and figures: apps/cpu_bench.md in the gr-beamform sources\n");
            return 0;
        } else {
            std::fprintf(stderr,
                         "cpu_bench: %s: unknown option; accepted: --quick, --flowgraphs, --help\n",
                         arg.c_str());
            return 2;
        }
    }
    const size_t cores = std::max(1u, std::thread::hardware_concurrency());
    std::printf("cpu_bench: %zu cores; engines with threads = 0 (every core) unless "
                "named; median of %d runs, engine and library runs interleaved\n\n",
                cores,
                runs());
    if (!flowgraphs_only)
        bench_engines(cores);

    // The flowgraphs: GNU Radio's logging to warnings only (no start-up lines).
    gr::logging::singleton().set_default_level(gr::log_level::warn);
    std::printf(
        "\nflowgraphs of issue 13: median of %d runs of top_block::run() (each a fresh "
        "flowgraph; blocks with threads = 0)\n\n",
        flowgraph_runs());
    std::printf(
        "%-28s %-30s %9s %-22s %s\n", "flowgraph", "shape", "rate", "unit", "target");
    bench_station_flowgraph(false);
    bench_station_flowgraph(true);
    bench_array_source(
        48, sample_format::sc16, quick ? 1u << 19 : 1u << 21, "48 rx, sc16");
    bench_direction_finding_flowgraph();
    bench_array_source(
        5, sample_format::fc32, quick ? 2'400'000 : 12'000'000, "5 rx, fc32");
    return 0;
}
