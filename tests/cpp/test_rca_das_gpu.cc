/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rca_das: the GPU engines against the CPU reference on random RF data, with
 * odd grid sizes, outputs poisoned (NaN) before every run, int16 and float32
 * input, I/Q and real processing, every output type, both methods, and the
 * GPU kernel variants (batch sizes, multi-pixel on and off, the stage
 * variants of rca::stage_variant). Every output element must be finite and
 * ||gpu - cpu|| / ||cpu|| < 1e-4 (2e-3 for the half2 variants 2 to 6,
 * whose samples carry 11 significant bits: apps/rca_bench.md, Versions), the
 * same for rca_das_config::gpu_precision float16 through rca_das_engine::make.
 * And the physical criteria of tests/python/test_rca_das.py (single-scatterer
 * peak and widths, dual-stage against conventional) on the GPU engines, with
 * RF from the same point-scatterer model, since the Python tests need GNU
 * Radio, which the GPU machine does not have.
 */
#include "engines/rca_das/rca_das_gpu.h"
#include "test_util.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>

using namespace gr::beamform;
using namespace beamform_test;

namespace {

//! A small RCA set-up with odd sizes everywhere; the grid lies inside the data.
rca_das_config small_config()
{
    rca_das_config c;
    c.n_elements = 37;
    c.pitch = 200e-6;
    c.center_frequency = 6e6;
    c.sampling_frequency = 31.25e6;
    c.speed_of_sound = 1540;
    c.t_start = 1e-6;
    c.n_samples = 301;
    const size_t n_tx = 13;
    for (size_t j = 0; j < n_tx; j++) {
        c.source_positions.push_back(-1.5e-3 + 3e-3 * double(j) / double(n_tx - 1));
        c.source_depths.push_back(-2.4e-3);
    }
    c.x = { -2.0e-3, 1.5e-4, 27 };
    c.y = { -1.8e-3, 1.7e-4, 23 };
    c.z = { 3.1e-3, 7e-5, 61 };
    c.f_number = 1.0;
    c.filter_taps = rca_gaussian_pulse_taps(6e6, 31.25e6, 0.5, 23);
    c.decimation = 3;
    c.input = rca_sample_type::int16;
    c.output = rca_output::iq;
    return c;
}

std::vector<uint8_t> random_rf(const rca_das_config& c, size_t n_volumes, unsigned seed)
{
    const size_t n = c.n_emissions() * c.n_elements * c.n_samples * n_volumes;
    std::vector<uint8_t> bytes(n * (c.input == rca_sample_type::int16 ? 2 : 4));
    std::mt19937 gen(seed);
    if (c.input == rca_sample_type::int16) {
        std::uniform_int_distribution<int> u(-20000, 20000);
        auto* p = reinterpret_cast<int16_t*>(bytes.data());
        for (size_t i = 0; i < n; i++)
            p[i] = int16_t(u(gen));
    } else {
        std::normal_distribution<float> u(0.0f, 1.0f);
        auto* p = reinterpret_cast<float*>(bytes.data());
        for (size_t i = 0; i < n; i++)
            p[i] = u(gen);
    }
    return bytes;
}

//! Output of n_volumes as complex values (real outputs in the real part).
std::vector<std::complex<float>> as_complex(const rca_das_config& c, const std::vector<uint8_t>& raw)
{
    const size_t n = raw.size() / (c.output == rca_output::iq ? 8 : 4);
    std::vector<std::complex<float>> out(n);
    if (c.output == rca_output::iq)
        std::memcpy(out.data(), raw.data(), raw.size());
    else
        for (size_t i = 0; i < n; i++)
            out[i] = reinterpret_cast<const float*>(raw.data())[i];
    return out;
}

std::vector<uint8_t> run_cpu(const rca_das_config& c, const std::vector<uint8_t>& rf, size_t n_volumes)
{
    auto engine = rca_das_engine::make(c, device_spec{ backend::cpu, 0 });
    std::vector<uint8_t> out(c.output_item_bytes() * n_volumes);
    engine->execute(rf.data(), out.data(), n_volumes, nullptr);
    return out;
}

std::vector<uint8_t> run_gpu(const device_spec& gpu,
                             const rca_das_config& c,
                             const std::vector<uint8_t>& rf,
                             size_t n_volumes,
                             const rca_das_gpu_tuning& tuning,
                             std::string* description = nullptr)
{
    auto engine = make_rca_das_gpu_for(c, gpu, tuning);
    if (description)
        *description = engine->describe();
    device_memory d_in = to_device(gpu, rf);
    device_memory d_out(gpu, c.output_item_bytes() * n_volumes);
    poison(gpu, d_out);
    gpu_stream stream(gpu);
    engine->execute(d_in.get(), d_out.get(), n_volumes, stream.get());
    stream.synchronize();
    return to_host<uint8_t>(gpu, d_out, d_out.size());
}

struct case_result {
    double error;
    size_t non_finite;
};

case_result compare(const rca_das_config& c,
                    const std::vector<uint8_t>& gpu_raw,
                    const std::vector<uint8_t>& cpu_raw)
{
    const auto g = as_complex(c, gpu_raw);
    const auto r = as_complex(c, cpu_raw);
    size_t bad = 0;
    for (const auto& v : g)
        bad += !(std::isfinite(v.real()) && std::isfinite(v.imag()));
    double num = 0, den = 0;
    for (size_t i = 0; i < g.size(); i++) {
        num += std::norm(std::complex<double>(g[i]) - std::complex<double>(r[i]));
        den += std::norm(std::complex<double>(r[i]));
    }
    return { den > 0 ? std::sqrt(num / den) : NAN, bad };
}

std::string name_of(const rca_das_config& c)
{
    std::string s = c.method == rca_method::dual_stage ? "dual_stage" : "conventional";
    s += c.processing == rca_processing::iq ? "/iq" : "/real";
    s += c.input == rca_sample_type::int16 ? "/int16" : "/float32";
    s += c.output == rca_output::iq ? "/out_iq" : c.output == rca_output::envelope ? "/out_env" : "/out_db";
    s += c.transmit == rca_transmit::rows ? "/rows" : "/columns";
    return s;
}

void expect_match(const device_spec& gpu,
                  const rca_das_config& c,
                  const rca_das_gpu_tuning& tuning,
                  size_t n_volumes,
                  unsigned seed,
                  double tolerance = 1e-4)
{
    const auto rf = random_rf(c, n_volumes, seed);
    const auto cpu = run_cpu(c, rf, n_volumes);
    std::string description;
    const auto gpu_out = run_gpu(gpu, c, rf, n_volumes, tuning, &description);
    const case_result res = compare(c, gpu_out, cpu);
    std::cout << "[ rca_das ] " << name_of(c) << " volumes=" << n_volumes
              << " grid=" << c.x.count << "x" << c.y.count << "x" << c.z.count
              << " rel_err=" << res.error << " non_finite=" << res.non_finite << "  ("
              << description << ")" << std::endl;
    EXPECT_EQ(res.non_finite, 0u) << name_of(c);
    EXPECT_LT(res.error, tolerance) << name_of(c);
}

// --- A single point scatterer: tests/python/test_rca_das.py's set-up (a 64 + 64
// element probe, 32 emissions), RF from the model of python/beamform/rca_sim.py ---

constexpr double psf_c = 1540.0, psf_f0 = 6e6, psf_fs = 31.25e6, psf_pitch = 200e-6;
constexpr double psf_bandwidth = 0.5; // fractional -6 dB bandwidth of the pulse
const double psf_scatterer[3] = { 0.1e-3, -0.2e-3, 8e-3 };

rca_das_config psf_config()
{
    rca_das_config c;
    c.n_elements = 64;
    c.pitch = psf_pitch;
    c.center_frequency = psf_f0;
    c.sampling_frequency = psf_fs;
    c.speed_of_sound = psf_c;
    c.t_start = 0.0;
    c.n_samples = 600;
    // 32 virtual sources at F# -1 behind a sliding 16-element sub-aperture.
    const size_t n_tx = 32, active = 16;
    const double half_span = 0.5 * double(c.n_elements - active) * psf_pitch;
    for (size_t j = 0; j < n_tx; j++) {
        c.source_positions.push_back(-half_span + 2 * half_span * double(j) / double(n_tx - 1));
        c.source_depths.push_back(-1.0 * double(active) * psf_pitch);
    }
    c.f_number = 1.0;
    c.decimation = 3;
    c.filter_taps = rca_gaussian_pulse_taps(psf_f0, psf_fs, psf_bandwidth, 23);
    c.input = rca_sample_type::int16;
    c.output = rca_output::envelope;
    return c;
}

/*!
 * int16 RF of one point scatterer at p, rows transmitting: the Gaussian pulse
 * exp(-t^2 / 2 sigma^2) cos(2 pi f0 t) delayed by the time of flight
 * (sqrt((y - y_j)^2 + (z - z_j)^2) + z_j + sqrt((x - x_i)^2 + z^2)) / c,
 * scaled to a peak of 8192.
 */
std::vector<uint8_t> psf_rf(const rca_das_config& c, const double p[3])
{
    const double sigma = std::sqrt(2 * std::log(2.0)) / (M_PI * psf_bandwidth * psf_f0);
    const size_t n_tx = c.n_emissions(), n_el = c.n_elements, n_s = c.n_samples;
    std::vector<double> rf(n_tx * n_el * n_s, 0.0);
    for (size_t j = 0; j < n_tx; j++)
        for (size_t i = 0; i < n_el; i++) {
            const double xi = (double(i) - 0.5 * double(n_el - 1)) * c.pitch;
            const double tof =
                (std::hypot(p[1] - c.source_positions[j], p[2] - c.source_depths[j]) +
                 c.source_depths[j] + std::hypot(p[0] - xi, p[2])) /
                c.speed_of_sound;
            for (size_t k = 0; k < n_s; k++) {
                const double t = c.t_start + double(k) / c.sampling_frequency - tof;
                if (std::abs(t) < 6 * sigma)
                    rf[(j * n_el + i) * n_s + k] = std::exp(-0.5 * (t / sigma) * (t / sigma)) *
                                                    std::cos(2 * M_PI * psf_f0 * t);
            }
        }
    double peak = 0;
    for (double v : rf)
        peak = std::max(peak, std::abs(v));
    std::vector<uint8_t> bytes(rf.size() * sizeof(int16_t));
    auto* out = reinterpret_cast<int16_t*>(bytes.data());
    for (size_t n = 0; n < rf.size(); n++)
        out[n] = int16_t(std::lrint(rf[n] * 8192.0 / peak));
    return bytes;
}

//! count voxels along one axis, centred (count / 2 steps below) on centre.
rca_grid_axis psf_axis(double centre, size_t count, double step)
{
    return { centre - double(count / 2) * step, step, count };
}

//! Full width of the main lobe of |profile| at level_db, linearly interpolated
//! (test_rca_das.py's width()); NaN where the lobe reaches an end.
double lobe_width(const std::vector<float>& profile, double step, double level_db)
{
    const double top = *std::max_element(profile.begin(), profile.end());
    const double level = std::pow(10.0, level_db / 20.0);
    const size_t k = size_t(std::max_element(profile.begin(), profile.end()) - profile.begin());
    auto p = [&](size_t i) { return profile[i] / top; };
    size_t i = k;
    while (i > 0 && p(i - 1) >= level)
        i--;
    if (i == 0)
        return NAN;
    const double left = double(i) - (p(i) - level) / (p(i) - p(i - 1));
    i = k;
    while (i + 1 < profile.size() && p(i + 1) >= level)
        i++;
    if (i + 1 == profile.size())
        return NAN;
    const double right = double(i) + (p(i) - level) / (p(i) - p(i + 1));
    return (right - left) * step;
}

//! The envelope on a line of n voxels through the scatterer along axis a.
std::vector<float> psf_line(const device_spec& gpu, rca_das_config c, const std::vector<uint8_t>& rf,
                            int a, size_t n, double step)
{
    rca_grid_axis* axes[3] = { &c.x, &c.y, &c.z };
    for (int k = 0; k < 3; k++)
        *axes[k] = k == a ? psf_axis(psf_scatterer[k], n, step) : psf_axis(psf_scatterer[k], 1, 1e-4);
    const auto raw = run_gpu(gpu, c, rf, 1, {});
    std::vector<float> out(n);
    std::memcpy(out.data(), raw.data(), n * sizeof(float));
    return out;
}

} // namespace

TEST(RcaDasGpu, DualStageIqAllOutputsAndInputs)
{
    REQUIRE_GPU(gpu);
    for (auto input : { rca_sample_type::int16, rca_sample_type::float32 })
        for (auto output : { rca_output::iq, rca_output::envelope, rca_output::db }) {
            auto c = small_config();
            c.input = input;
            c.output = output;
            expect_match(gpu, c, {}, 1, 11 + int(output));
        }
}

TEST(RcaDasGpu, DualStageRealProcessing)
{
    REQUIRE_GPU(gpu);
    for (auto output : { rca_output::iq, rca_output::envelope, rca_output::db }) {
        auto c = small_config();
        c.processing = rca_processing::real;
        c.decimation = 1;
        c.z = { 3.1e-3, 3.1e-5, 97 }; // real volumes need twice the axial density
        c.output = output;
        c.input = rca_sample_type::float32;
        expect_match(gpu, c, {}, 1, 21 + int(output));
    }
}

TEST(RcaDasGpu, ConventionalIqAndReal)
{
    REQUIRE_GPU(gpu);
    auto c = small_config();
    c.method = rca_method::conventional;
    c.output = rca_output::iq;
    expect_match(gpu, c, {}, 1, 31);
    c.output = rca_output::envelope;
    c.input = rca_sample_type::float32;
    expect_match(gpu, c, {}, 1, 32);
    c.processing = rca_processing::real;
    c.decimation = 1;
    c.z = { 3.1e-3, 3.1e-5, 97 };
    c.output = rca_output::db;
    expect_match(gpu, c, {}, 1, 33);
}

TEST(RcaDasGpu, KernelVariantsBatchAndMultiPixel)
{
    REQUIRE_GPU(gpu);
    // 13 emissions and 27 lateral planes: every block shape leaves a partly
    // filled last block of frames (and some warps with no frame at all).
    const std::pair<int, int> shapes[] = { { 4, 8 }, { 4, 4 }, { 4, 1 }, { 8, 4 },
                                           { 8, 2 }, { 16, 2 }, { 16, 1 } };
    for (const auto& [warps, batch] : shapes)
        for (int multi_pixel : { 0, -1 }) {
            rca_das_gpu_tuning t;
            t.stage1_warps = t.stage2_warps = warps;
            t.stage1_batch = t.stage2_batch = batch;
            t.multi_pixel = multi_pixel;
            t.stage1_tile_z = batch == 4 ? 32 : 8;
            t.stage2_tile_elev = batch == 4 ? 4 : 32;
            auto c = small_config();
            expect_match(gpu, c, t, 1, 41 + batch + warps);
            c.processing = rca_processing::real;
            c.decimation = 1;
            c.input = rca_sample_type::float32;
            expect_match(gpu, c, t, 1, 51 + batch + warps);
        }
}

TEST(RcaDasGpu, StageVariantsAgainstCpu)
{
    REQUIRE_GPU(gpu);
    // Every variant on the shapes it is built for (rca::variant_has_shape:
    // 3 and 4 not for 12 x 8, 5 and 6 for 4 x 8 and 6 x 8 only), multi-pixel on
    // and off; folded with I/Q runs the reference loop; half2 (2),
    // half2_pipelined (4), half2_sectors (5) and half2_mixed (6) are I/Q with
    // int16 input only, half2_real (3) real with int16 input only.
    const std::pair<int, int> shapes[] = { { 4, 8 }, { 4, 4 }, { 8, 4 }, { 6, 8 }, { 12, 8 } };
    for (int variant : { 0, 1, 2, 3, 4, 5, 6 })
        for (const auto& [warps, batch] : shapes)
            for (int multi_pixel : { 0, -1 }) {
                if (variant >= 3 && warps == 12)
                    continue;
                if (variant >= 5 && !(batch == 8 && (warps == 4 || warps == 6)))
                    continue;
                rca_das_gpu_tuning t;
                t.stage1_warps = t.stage2_warps = warps;
                t.stage1_batch = t.stage2_batch = batch;
                t.multi_pixel = multi_pixel;
                t.kernel_variant = variant;
                t.stage1_tile_z = batch == 4 ? 32 : 8;
                t.stage2_tile_elev = batch == 4 ? 4 : 8;
                const double tolerance = variant >= 2 ? 2e-3 : 1e-4;
                auto c = small_config();
                if (variant != 3)
                    expect_match(gpu, c, t, 2, 91 + variant + warps + batch, tolerance);
                if (variant == 2 || variant >= 4)
                    continue;
                c.processing = rca_processing::real;
                c.decimation = 1;
                c.input = variant == 3 ? rca_sample_type::int16 : rca_sample_type::float32;
                c.z = { 3.1e-3, 3.1e-5, 97 };
                expect_match(gpu, c, t, variant == 3 ? 2 : 1, 95 + variant + warps + batch, tolerance);
            }
    // The half variants on the stray path (coarse lateral grid).
    for (int variant : { 2, 3, 4, 5, 6 }) {
        auto c = small_config();
        c.x = { -2.4e-3, 6e-4, 9 };
        c.f_number = 0.5;
        if (variant == 3) {
            c.processing = rca_processing::real;
            c.decimation = 1;
            c.z = { 3.1e-3, 3.1e-5, 97 };
        }
        rca_das_gpu_tuning t;
        t.kernel_variant = variant;
        expect_match(gpu, c, t, 1, 99 + variant, 2e-3);
    }
}

TEST(RcaDasGpu, GpuPrecisionThroughThePublicFactory)
{
    REQUIRE_GPU(gpu);
    // rca_das_config::gpu_precision through rca_das_engine::make (what the
    // block uses, no tuning): float16 runs half2_pipelined (I/Q) or half2_real
    // (real) within 2e-3 of the CPU engine, float32 the fp32 kernels within 1e-4.
    for (bool real : { false, true })
        for (auto precision : { rca_gpu_precision::float16, rca_gpu_precision::float32 })
            for (auto output : { rca_output::iq, rca_output::envelope }) {
                auto c = small_config();
                if (real) {
                    c.processing = rca_processing::real;
                    c.decimation = 1;
                    c.z = { 3.1e-3, 3.1e-5, 97 };
                }
                c.output = output;
                c.gpu_precision = precision;
                const size_t n_volumes = 2;
                const auto rf = random_rf(c, n_volumes, 131 + 4 * real + 2 * int(precision) +
                                                            int(output));
                const auto cpu = run_cpu(c, rf, n_volumes);
                auto engine = rca_das_engine::make(c, gpu);
                device_memory d_in = to_device(gpu, rf);
                device_memory d_out(gpu, c.output_item_bytes() * n_volumes);
                poison(gpu, d_out);
                gpu_stream stream(gpu);
                engine->execute(d_in.get(), d_out.get(), n_volumes, stream.get());
                stream.synchronize();
                const case_result res =
                    compare(c, to_host<uint8_t>(gpu, d_out, d_out.size()), cpu);
                const std::string kernels =
                    precision == rca_gpu_precision::float32 ? "folded" // I/Q: its reference loop
                    : real                                  ? "half2_real"
                                                            : "half2_sectors";
                std::cout << "[ rca_das ] gpu_precision " << rca_gpu_precision_name(precision)
                          << " " << name_of(c) << " rel_err=" << res.error
                          << " non_finite=" << res.non_finite << "  (" << engine->describe()
                          << ")" << std::endl;
                EXPECT_NE(engine->describe().find(kernels), std::string::npos)
                    << engine->describe();
                EXPECT_EQ(res.non_finite, 0u) << name_of(c);
                EXPECT_LT(res.error, precision == rca_gpu_precision::float16 ? 2e-3 : 1e-4)
                    << name_of(c);
            }
}

TEST(RcaDasGpu, PipelinedMatchesHalf2)
{
    REQUIRE_GPU(gpu);
    // half2_pipelined (4) is half2's (2) arithmetic reordered, and
    // half2_sectors (5) is half2_pipelined on data stored in frame octets, and
    // half2_mixed (6) stage 1 of one and stage 2 of the other: on
    // the same RF the volumes agree (bit for bit in the emulated test; here up
    // to what separately compiled setups may differ in fp32 rounding), stray
    // path included.
    for (bool coarse : { false, true }) {
        auto c = small_config();
        if (coarse) {
            c.x = { -2.4e-3, 6e-4, 9 };
            c.f_number = 0.5;
        }
        const auto rf = random_rf(c, 1, 97 + unsigned(coarse));
        rca_das_gpu_tuning t;
        t.kernel_variant = 2;
        const auto half = run_gpu(gpu, c, rf, 1, t);
        t.kernel_variant = 4;
        const auto pipelined = run_gpu(gpu, c, rf, 1, t);
        const case_result res = compare(c, pipelined, half);
        std::cout << "[ rca_das ] half2_pipelined vs half2" << (coarse ? " (stray path)" : "")
                  << " rel_diff=" << res.error << " non_finite=" << res.non_finite << std::endl;
        EXPECT_EQ(res.non_finite, 0u);
        EXPECT_LT(res.error, 1e-5);
        for (int variant : { 5, 6 })
            for (int warps : { 4, 6 }) {
                t.kernel_variant = variant;
                t.stage1_warps = t.stage2_warps = warps;
                const auto sectors = run_gpu(gpu, c, rf, 1, t);
                const case_result rs = compare(c, sectors, pipelined);
                std::cout << "[ rca_das ] " << (variant == 5 ? "half2_sectors " : "half2_mixed ")
                          << warps << "x8 vs half2_pipelined" << (coarse ? " (stray path)" : "")
                          << " rel_diff=" << rs.error << " non_finite=" << rs.non_finite
                          << std::endl;
                EXPECT_EQ(rs.non_finite, 0u);
                EXPECT_LT(rs.error, 1e-5);
            }
    }
}

/*!
 * One volume of \p c with kernel_variant \p variant, its emissions added in
 * two calls on two streams (0..4 on one, 5..12 on the other, concurrently),
 * against the CPU engine: the printed and checked result of the split tests.
 */
void check_split_on_two_streams(const rca_das_config& c,
                                const device_spec& gpu,
                                int variant,
                                unsigned seed,
                                const char* name)
{
    const auto rf = random_rf(c, 1, seed);
    const auto cpu = run_cpu(c, rf, 1);
    rca_das_gpu_tuning t;
    t.kernel_variant = variant;
    auto engine = make_rca_das_gpu_for(c, gpu, t);
    device_memory d_in = to_device(gpu, rf);
    device_memory d_out(gpu, c.output_item_bytes());
    poison(gpu, d_out);
    gpu_stream a(gpu), b(gpu);
    const size_t item = c.input_item_bytes();
    engine->add_emissions(d_in.as<uint8_t>(), 0, 5, a.get());
    engine->add_emissions(d_in.as<uint8_t>() + 5 * item, 5, 8, b.get());
    a.synchronize();
    b.synchronize();
    engine->finish_volume(d_out.get(), a.get());
    a.synchronize();
    const auto res = compare(c, to_host<uint8_t>(gpu, d_out, d_out.size()), cpu);
    std::cout << "[ rca_das ] " << name << ", emissions 0..4 and 5..12 on two streams rel_err="
              << res.error << " non_finite=" << res.non_finite << std::endl;
    EXPECT_EQ(res.non_finite, 0u) << name;
    EXPECT_LT(res.error, 2e-3) << name;
}

TEST(RcaDasGpu, HalfSectorsSplitOnTwoStreams)
{
    REQUIRE_GPU(gpu);
    // half2_sectors stores emissions in octets: a call starting at emission 5
    // computes 0..4 (written concurrently by the other stream) without
    // storing them, and both calls' pre-processing write parts of the same
    // sectors. half2_mixed: both calls' stage 1 write parts of the images'
    // sectors (other emissions: other samples).
    auto c = small_config();
    c.output = rca_output::iq;
    check_split_on_two_streams(c, gpu, 5, 85, "half2_sectors");
    check_split_on_two_streams(c, gpu, 6, 85, "half2_mixed");
}

TEST(RcaDasGpu, HalfRealOddEmissionSplitOnTwoStreams)
{
    REQUIRE_GPU(gpu);
    // half2_real stores emissions in pairs: a call starting at an odd emission
    // (5) computes its even partner (4), written concurrently by the other
    // stream, without storing it.
    auto c = small_config();
    c.processing = rca_processing::real;
    c.decimation = 1;
    c.z = { 3.1e-3, 3.1e-5, 97 };
    c.output = rca_output::iq;
    check_split_on_two_streams(c, gpu, 3, 83, "half2_real");
}

TEST(RcaDasGpu, ColumnsTransmitAndSeveralVolumes)
{
    REQUIRE_GPU(gpu);
    auto c = small_config();
    c.transmit = rca_transmit::columns;
    c.output = rca_output::envelope;
    expect_match(gpu, c, {}, 3, 61);
}

TEST(RcaDasGpu, CoarseGridTakesTheStrayPath)
{
    REQUIRE_GPU(gpu);
    // Lateral steps far above the sampling criterion: side pixels' samples
    // fall outside the six-sample window and must still be summed exactly.
    auto c = small_config();
    c.x = { -2.4e-3, 6e-4, 9 };
    c.f_number = 0.5;
    expect_match(gpu, c, {}, 1, 71);
}

TEST(RcaDasGpu, StagewiseEmissionsMatchExecute)
{
    REQUIRE_GPU(gpu);
    auto c = small_config();
    c.output = rca_output::iq;
    const auto rf = random_rf(c, 1, 81);
    const auto cpu = run_cpu(c, rf, 1);
    auto engine = make_rca_das_gpu_for(c, gpu);
    device_memory d_in = to_device(gpu, rf);
    device_memory d_out(gpu, c.output_item_bytes());
    poison(gpu, d_out);
    gpu_stream a(gpu), b(gpu);
    const size_t item = c.input_item_bytes();
    // Emissions 0..5 on one stream, 6..12 on the other, then the volume.
    engine->add_emissions(d_in.as<uint8_t>(), 0, 6, a.get());
    engine->add_emissions(d_in.as<uint8_t>() + 6 * item, 6, 7, b.get());
    a.synchronize();
    b.synchronize();
    engine->finish_volume(d_out.get(), a.get());
    a.synchronize();
    const auto res = compare(c, to_host<uint8_t>(gpu, d_out, d_out.size()), cpu);
    std::cout << "[ rca_das ] stage-wise on two streams rel_err=" << res.error
              << " non_finite=" << res.non_finite << std::endl;
    EXPECT_EQ(res.non_finite, 0u);
    EXPECT_LT(res.error, 1e-4);
}

TEST(RcaDasGpu, SeveralVolumesMatchOneAtATime)
{
    REQUIRE_GPU(gpu);
    // execute() of several volumes runs them on two streams with two sets of
    // workspaces: the output must be bit for bit that of one volume per call,
    // twice in a row (the second call reuses both sets), with an odd count
    // (one stream gets one more volume), for I/Q and real processing, both
    // precisions, the dual-stage and conventional methods, and dB output with
    // the peak found per volume (one peak register per set).
    struct variant_case {
        rca_processing processing;
        rca_gpu_precision precision;
        rca_method method;
        rca_output output;
    };
    const variant_case cases[] = {
        { rca_processing::iq, rca_gpu_precision::float32, rca_method::dual_stage, rca_output::iq },
        { rca_processing::iq, rca_gpu_precision::float16, rca_method::dual_stage, rca_output::db },
        { rca_processing::real, rca_gpu_precision::float32, rca_method::dual_stage, rca_output::envelope },
        { rca_processing::real, rca_gpu_precision::float16, rca_method::dual_stage, rca_output::db },
        { rca_processing::iq, rca_gpu_precision::float32, rca_method::conventional, rca_output::iq },
    };
    unsigned seed = 171;
    for (const auto& k : cases) {
        auto c = small_config();
        c.processing = k.processing;
        if (k.processing == rca_processing::real) {
            c.decimation = 1;
            c.z = { 3.1e-3, 3.1e-5, 97 };
        }
        c.gpu_precision = k.precision;
        c.method = k.method;
        c.output = k.output;
        const size_t n_volumes = 5;
        const auto rf = random_rf(c, n_volumes, seed++);
        const size_t in_bytes = c.input_item_bytes() * c.n_emissions();
        const size_t out_bytes = c.output_item_bytes();
        device_memory d_in = to_device(gpu, rf);
        gpu_stream stream(gpu);

        auto single = rca_das_engine::make(c, gpu);
        device_memory d_one(gpu, out_bytes * n_volumes);
        poison(gpu, d_one);
        for (size_t v = 0; v < n_volumes; v++)
            single->execute(d_in.as<uint8_t>() + v * in_bytes,
                            d_one.as<uint8_t>() + v * out_bytes,
                            1,
                            stream.get());
        stream.synchronize();
        const auto one = to_host<uint8_t>(gpu, d_one, d_one.size());

        auto batched = rca_das_engine::make(c, gpu);
        for (int call = 0; call < 2; call++) {
            device_memory d_many(gpu, out_bytes * n_volumes);
            poison(gpu, d_many);
            batched->execute(d_in.get(), d_many.get(), n_volumes, stream.get());
            stream.synchronize();
            const auto many = to_host<uint8_t>(gpu, d_many, d_many.size());
            size_t differ = 0;
            for (size_t i = 0; i < many.size(); i++)
                differ += many[i] != one[i];
            const case_result res = compare(c, many, run_cpu(c, rf, n_volumes));
            std::cout << "[ rca_das ] " << n_volumes << " volumes in one call, call " << call
                      << ", " << name_of(c) << " " << rca_gpu_precision_name(k.precision)
                      << ": bytes differing from one volume per call " << differ
                      << ", rel_err against the CPU engine " << res.error << std::endl;
            EXPECT_EQ(differ, 0u) << name_of(c);
            EXPECT_EQ(res.non_finite, 0u) << name_of(c);
            EXPECT_LT(res.error, k.precision == rca_gpu_precision::float16 ? 2e-3 : 1e-4)
                << name_of(c);
        }
    }
}

TEST(RcaDasGpu, SingleScattererPsfOnTheGpu)
{
    REQUIRE_GPU(gpu);
    // The physical criteria of tests/python/test_rca_das.py (which runs them on
    // the CPU engine), here on the GPU engines, float32 and float16: the peak
    // of a 3D grid whose voxels miss the scatterer lies within half a voxel of
    // it; the -6 dB widths are within 10 % of 0.88 c / (2 BW) (axial) and
    // 2.0 lambda F# (lateral); the dual-stage -6 and -20 dB widths within 2 %
    // of the conventional beamformer's (the paper reports 1.19 %).
    const double bw6 = psf_bandwidth * psf_f0 / std::sqrt(2.0);
    const double axial = 0.8825 * psf_c / (2 * bw6);
    const double lateral = 2.0 * (psf_c / psf_f0) * 1.0; // F# 1
    const auto base = psf_config();
    const auto rf = psf_rf(base, psf_scatterer);
    for (auto precision : { rca_gpu_precision::float32, rca_gpu_precision::float16 }) {
        auto c = base;
        c.gpu_precision = precision;
        const std::string name = rca_gpu_precision_name(precision);

        // Peak on a 15 x 15 x 21 grid offset from the scatterer.
        const double steps[3] = { 0.07e-3, 0.07e-3, 0.03e-3 };
        const double offset[3] = { 0.021e-3, -0.013e-3, 0.008e-3 };
        const size_t counts[3] = { 15, 15, 21 };
        auto g = c;
        rca_grid_axis* axes[3] = { &g.x, &g.y, &g.z };
        for (int k = 0; k < 3; k++)
            *axes[k] = psf_axis(psf_scatterer[k] + offset[k], counts[k], steps[k]);
        const auto raw = run_gpu(gpu, g, rf, 1, {});
        const auto* vol = reinterpret_cast<const float*>(raw.data());
        const size_t peak = size_t(std::max_element(vol, vol + g.n_voxels()) - vol);
        const size_t idx[3] = { peak / (counts[1] * counts[2]), peak / counts[2] % counts[1],
                                peak % counts[2] };
        for (int k = 0; k < 3; k++) {
            const double error = axes[k]->at(idx[k]) - psf_scatterer[k];
            std::cout << "[ rca_das ] " << name << " PSF peak - scatterer along " << "xyz"[k]
                      << ": " << error * 1e6 << " um (voxel " << steps[k] * 1e6 << " um)\n";
            EXPECT_LE(std::abs(error), 0.5 * steps[k] + 1e-12) << name << " axis " << k;
        }

        // Widths on lines through the scatterer; dual-stage against conventional.
        const size_t n[3] = { 81, 121, 61 };
        const double step[3] = { 20e-6, 20e-6, 10e-6 };
        const double predicted[3] = { lateral, lateral, axial };
        for (int a = 0; a < 3; a++) {
            const auto dual = psf_line(gpu, c, rf, a, n[a], step[a]);
            auto conv_config = c;
            conv_config.method = rca_method::conventional;
            conv_config.gpu_precision = rca_gpu_precision::float32; // float16: dual-stage only
            const auto conv = psf_line(gpu, conv_config, rf, a, n[a], step[a]);
            const double d6 = lobe_width(dual, step[a], -6), d20 = lobe_width(dual, step[a], -20);
            const double c6 = lobe_width(conv, step[a], -6), c20 = lobe_width(conv, step[a], -20);
            std::cout << "[ rca_das ] " << name << " along " << "xyz"[a] << ": -6 dB "
                      << d6 * 1e6 << " um (predicted " << predicted[a] * 1e6
                      << ", conventional " << c6 * 1e6 << "), -20 dB " << d20 * 1e6
                      << " um (conventional " << c20 * 1e6 << ")\n";
            EXPECT_NEAR(d6, predicted[a], 0.10 * predicted[a]) << name << " axis " << a;
            EXPECT_NEAR(d6, c6, 0.02 * c6) << name << " axis " << a;
            EXPECT_NEAR(d20, c20, 0.02 * c20) << name << " axis " << a;
        }
    }
}

TEST(RcaDasGpu, BadTuningIsRejected)
{
    REQUIRE_GPU(gpu);
    rca_das_gpu_tuning t;
    t.stage1_batch = 3;
    rca_das_gpu_tuning u;
    u.stage2_tile_elev = 5;
    EXPECT_THROW(make_rca_das_gpu_for(small_config(), gpu, t), std::invalid_argument);
    EXPECT_THROW(make_rca_das_gpu_for(small_config(), gpu, u), std::invalid_argument);
    rca_das_gpu_tuning v;
    v.kernel_variant = 7;
    EXPECT_THROW(make_rca_das_gpu_for(small_config(), gpu, v), std::invalid_argument);
    v.kernel_variant = 3; // half2_real: real, int16, dual-stage only
    EXPECT_THROW(make_rca_das_gpu_for(small_config(), gpu, v), std::invalid_argument); // I/Q
    {
        auto r = small_config();
        r.processing = rca_processing::real;
        r.decimation = 1;
        r.input = rca_sample_type::float32;
        EXPECT_THROW(make_rca_das_gpu_for(r, gpu, v), std::invalid_argument);
        r.input = rca_sample_type::int16;
        r.method = rca_method::conventional;
        EXPECT_THROW(make_rca_das_gpu_for(r, gpu, v), std::invalid_argument);
        r.method = rca_method::dual_stage;
        rca_das_gpu_tuning wide = v;
        wide.stage1_warps = wide.stage2_warps = 12; // not built for 12 x 8
        EXPECT_THROW(make_rca_das_gpu_for(r, gpu, wide), std::invalid_argument);
        EXPECT_NE(make_rca_das_gpu_for(r, gpu, v)->describe().find("half2_real"), std::string::npos);
    }
    v.kernel_variant = 4; // half2_pipelined: I/Q, int16, dual-stage only
    {
        auto r = small_config();
        r.input = rca_sample_type::float32;
        EXPECT_THROW(make_rca_das_gpu_for(r, gpu, v), std::invalid_argument);
        r = small_config();
        r.processing = rca_processing::real;
        r.decimation = 1;
        EXPECT_THROW(make_rca_das_gpu_for(r, gpu, v), std::invalid_argument);
    }
    v.kernel_variant = 5; // half2_sectors: I/Q, int16, dual-stage, 4 x 8 and 6 x 8 only
    {
        auto r = small_config();
        r.input = rca_sample_type::float32;
        EXPECT_THROW(make_rca_das_gpu_for(r, gpu, v), std::invalid_argument);
        r = small_config();
        r.processing = rca_processing::real;
        r.decimation = 1;
        EXPECT_THROW(make_rca_das_gpu_for(r, gpu, v), std::invalid_argument);
        rca_das_gpu_tuning narrow = v;
        narrow.stage1_batch = narrow.stage2_batch = 4; // frames in octets: batch 8 only
        EXPECT_THROW(make_rca_das_gpu_for(small_config(), gpu, narrow), std::invalid_argument);
        EXPECT_NE(make_rca_das_gpu_for(small_config(), gpu, v)->describe().find("half2_sectors"),
                  std::string::npos);
    }
    v.kernel_variant = 6; // half2_mixed: as half2_sectors
    {
        auto r = small_config();
        r.input = rca_sample_type::float32;
        EXPECT_THROW(make_rca_das_gpu_for(r, gpu, v), std::invalid_argument);
        r = small_config();
        r.processing = rca_processing::real;
        r.decimation = 1;
        EXPECT_THROW(make_rca_das_gpu_for(r, gpu, v), std::invalid_argument);
        rca_das_gpu_tuning narrow = v;
        narrow.stage1_batch = narrow.stage2_batch = 4;
        EXPECT_THROW(make_rca_das_gpu_for(small_config(), gpu, narrow), std::invalid_argument);
        EXPECT_NE(make_rca_das_gpu_for(small_config(), gpu, v)->describe().find("half2_mixed"),
                  std::string::npos);
    }
    v.kernel_variant = 2; // half2: I/Q, int16, dual-stage only
    auto c = small_config();
    c.input = rca_sample_type::float32;
    EXPECT_THROW(make_rca_das_gpu_for(c, gpu, v), std::invalid_argument);
    c = small_config();
    c.processing = rca_processing::real;
    c.decimation = 1;
    EXPECT_THROW(make_rca_das_gpu_for(c, gpu, v), std::invalid_argument);
    c = small_config();
    c.method = rca_method::conventional;
    EXPECT_THROW(make_rca_das_gpu_for(c, gpu, v), std::invalid_argument);
    v.kernel_variant = 1; // folded: no kernels for 16 x 2
    v.stage1_warps = 16;
    v.stage1_batch = 2;
    auto e = make_rca_das_gpu_for(small_config(), gpu, v); // I/Q: the reference loop
    EXPECT_NE(e->describe().find("folded"), std::string::npos);
    c = small_config();
    c.processing = rca_processing::real;
    c.decimation = 1;
    EXPECT_THROW(make_rca_das_gpu_for(c, gpu, v), std::invalid_argument);
}
