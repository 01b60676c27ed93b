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
 * Usage: cpu_bench [--quick]   (--quick: smaller data, fewer repeats)
 */
#include <gnuradio/beamform/engines/convert_engine.h>
#include <gnuradio/beamform/engines/pfb_channelizer_engine.h>
#include <gnuradio/beamform/engines/phase_shift_engine.h>
#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <algorithm>
#include <cblas.h>
#include <chrono>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fftw3.h>
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
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
            cblas_cgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(T), int(B), int(R),
                        &one, &x[c * R], int(C * R), &w[c * B * R], int(R), &zero,
                        &blas_out[c * B], int(C * B));
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
        row("beamform 1 thread", shape, "GFLOP/s", ops / t_v / 1e9, "cgemm 1 thread",
            ops / t_blas / 1e9);
        return;
    }
    row("beamformer volt", shape, "GFLOP/s", ops / t_v / 1e9, "OpenBLAS cgemm", ops / t_blas / 1e9);
    char power_name[32];
    std::snprintf(power_name, sizeof power_name, "power n_int=%zu", n_int);
    row(power_name, shape, "GFLOP/s", ops / t_p / 1e9, "engine voltage", ops / t_v2 / 1e9);
    std::printf("%-18s %-26s %10.2f MS/s in (voltage), %.2f MS/s in (power)\n",
                "", "", samples / t_v / 1e6, samples / t_p / 1e6);
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
    auto* in_buf = reinterpret_cast<fftwf_complex*>(fftwf_malloc(n_out * N * R * sizeof(cf)));
    auto* out_buf = reinterpret_cast<fftwf_complex*>(fftwf_malloc(n_out * N * R * sizeof(cf)));
    std::memcpy(in_buf, x.data(), n_out * N * R * sizeof(cf));
    const int n = int(N);
    fftwf_plan plan = fftwf_plan_many_dft(1, &n, int(R), in_buf, nullptr, int(R), 1,
                                          out_buf, nullptr, int(R), 1, FFTW_BACKWARD,
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
    row(threads == 1 ? "pfb_chan 1 thread" : "pfb_channelizer", shape, "MS/s in", samples / t_engine / 1e6, "FFTW alone",
        samples / t_fftw / 1e6);
}

//! The engine's seconds and memcpy's of \p bytes, interleaved.
std::pair<double, double> against_memcpy(const std::function<void()>& engine, size_t bytes)
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
    row("phase_shift", shape, "GB/s out", bytes / t / 1e9, "memcpy", bytes / t_copy / 1e9);
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

} // namespace

int main(int argc, char** argv)
{
    quick = argc > 1 && std::string(argv[1]) == "--quick";
    const size_t cores = std::max(1u, std::thread::hardware_concurrency());
    std::printf("cpu_bench: %zu cores; engines with threads = 0 (every core) unless "
                "named; median of %d runs, engine and library runs interleaved\n\n",
                cores,
                runs());
    std::printf("%-18s %-26s %10s %-8s %-24s %10s %7s\n", "engine", "shape", "rate", "unit",
                "library route", "rate", "ratio");
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
    return 0;
}
