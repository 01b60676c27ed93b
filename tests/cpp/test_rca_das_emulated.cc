/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rca_das GPU kernels (kernels/gpu/rca_das_*.cuh) run on the host through
 * kernels/emulation/gpu_emulation.h, with the GPU engine's own parameters and
 * launch dispatch (lib/engines/rca_das/rca_das_gpu_plan.h), against the CPU
 * engine: pre-processing (int16 and float32 RF, I/Q and real), stage 1,
 * stage 2 and the axial pass of real processing, every stage_variant (half2_real
 * and half2_sectors with a split of the emissions between calls that is not a
 * multiple of their frame pairs and octets; half2_sectors' and half2_mixed's
 * stored filtered data and images, sample for sample the transposed
 * half2_pipelined ones), the variants that
 * rca_das_config::gpu_precision selects, block
 * shapes with partly filled and empty warps, multi-pixel on and off, and a
 * grid coarse enough that side pixels take the stray path. The geometry is
 * small (the emulator runs each GPU thread as a fiber); the GPU tests
 * (test_rca_das_gpu.cc) run the same cases at speed on hardware.
 */
#include <emulation/gpu_emulation.h>
// The kernels, compiled for the emulation (namespace gr::beamform::emulated).
#include <gpu/rca_das_beamform.cuh>
#include <gpu/rca_das_preprocess.cuh>
#include <gpu/rca_das_volume.cuh>

#include "engines/rca_das/rca_das_gpu_plan.h"
#include <gnuradio/beamform/engines/rca_das_engine.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

using namespace gr::beamform;
namespace rca = gr::beamform::emulated::rca;

namespace {

struct kernel_choice {
    rca::stage_shape shape1{ 4, 8 }, shape2{ 4, 8 };
    int tile1 = 8, tile2 = 8;
    bool multi_pixel = true;
    int variant = rca::variant_reference;
};

/*!
 * The GPU engine's add_emissions + finish_volume for the dual-stage method
 * with output iq, in host memory with emulated launches.
 */
class emulated_rca
{
public:
    emulated_rca(const rca_das_config& c, const kernel_choice& k)
        : d_config(c), d_geometry(rca_das_geometry::from(c)), d_kernels(k)
    {
        const auto& g = d_geometry;
        d_half = rca::variant_stores_half(k.variant);
        const size_t sample_bytes = rca::stored_sample_bytes(g.iq, k.variant);
        auto floats = [&](size_t elements) { return (elements * sample_bytes + 3) / 4; };
        // Zero guards and padding frames, as the engine's memsets leave them.
        d_filtered.assign(floats(rca::filtered_elements(g)), 0.0f);
        d_lri.assign(floats(rca::lri_elements(g)), 0.0f);
        d_real_volume.assign(g.iq ? 0 : c.n_voxels(), 0.0f);
        d_taps = rca::taps_of(g);
        d_sources = rca::sources_of(g);
        if (d_half)
            d_gains = rca::half_gains_for(g);
    }

    //! \p split: emissions of the first of the two calls per volume (0: half).
    void execute(const uint8_t* rf, std::complex<float>* out, size_t n_volumes, size_t split = 0)
    {
        const size_t in_bytes = d_config.input_item_bytes() * d_config.n_emissions();
        if (split == 0)
            split = d_config.n_emissions() / 2;
        for (size_t v = 0; v < n_volumes; v++) {
            // Two calls, as a stream of emissions would arrive.
            add_emissions(rf + v * in_bytes, 0, split);
            add_emissions(rf + v * in_bytes + split * d_config.input_item_bytes(),
                          split,
                          d_config.n_emissions() - split);
            finish_volume(out + v * d_config.n_voxels());
        }
    }

    //! The stored filtered data and stage-1 images (as 32-bit words).
    const std::vector<float>& filtered() const { return d_filtered; }
    const std::vector<float>& images() const { return d_lri; }

private:
    void add_emissions(const uint8_t* in, size_t first, size_t count)
    {
        const auto& g = d_geometry;
        rca::preprocess_params p = rca::preprocess_plan(d_config, g, d_taps.data());
        p.scale = d_gains.filtered_scale;
        const size_t offset = first * g.n_rx * rca::filtered_row_stride(g);
        const int n = int(count);
        auto run = [&](auto rf) {
            if (d_kernels.variant == rca::variant_half_real) {
                p.emission0 = int(first); // emission pairs: the buffer's start
                rca::launch_rca_preprocess(
                    rf, reinterpret_cast<uint16_t*>(d_filtered.data()), p, n, nullptr);
            } else if (d_kernels.variant == rca::variant_half_sectors) {
                p.emission0 = int(first); // emission octets: the buffer's start
                p.frames_in_octets = true;
                rca::launch_rca_preprocess(
                    rf, reinterpret_cast<__half2*>(d_filtered.data()), p, n, nullptr);
            } else if (d_half)
                rca::launch_rca_preprocess(
                    rf, reinterpret_cast<__half2*>(d_filtered.data()) + offset, p, n, nullptr);
            else if (g.iq)
                rca::launch_rca_preprocess(
                    rf, reinterpret_cast<float2*>(d_filtered.data()) + offset, p, n, nullptr);
            else
                rca::launch_rca_preprocess(rf, d_filtered.data() + offset, p, n, nullptr);
        };
        if (d_config.input == rca_sample_type::int16)
            run(reinterpret_cast<const int16_t*>(in));
        else
            run(reinterpret_cast<const float*>(in));

        rca::stage1_params s1 =
            rca::stage1_plan(g, d_filtered.data(), d_lri.data(), d_kernels.tile1);
        s1.gain = d_gains.stage1_gain;
        rca::launch_stage_for(g.iq,
                              d_kernels.multi_pixel,
                              d_kernels.variant,
                              s1,
                              int(first),
                              int(count),
                              d_kernels.shape1,
                              d_kernels.tile1,
                              s1.n_zl,
                              s1.n_lat,
                              nullptr);
    }

    void finish_volume(std::complex<float>* out)
    {
        const auto& g = d_geometry;
        rca::volume_store store = rca::volume_layout(g);
        store.max_bits = nullptr;
        if (g.iq) {
            store.out = out;
            store.mode = rca::store_complex;
        } else {
            store.out = d_real_volume.data();
            store.mode = rca::store_real;
        }
        rca::stage2_params s2 =
            rca::stage2_plan(g, d_lri.data(), d_sources.data(), store, d_kernels.tile2);
        s2.gain = d_gains.stage2_gain;
        rca::launch_stage_for(g.iq,
                              d_kernels.multi_pixel,
                              d_kernels.variant,
                              s2,
                              0,
                              int(g.n_lat),
                              d_kernels.shape2,
                              d_kernels.tile2,
                              s2.n_elev,
                              s2.n_z,
                              nullptr);
        if (!g.iq) {
            rca::axial_params a = rca::axial_plan(g, d_real_volume.data());
            a.store.out = out;
            a.store.mode = rca::store_complex;
            a.store.max_bits = nullptr;
            rca::launch_rca_axial_analytic(a, nullptr);
        }
    }

    rca_das_config d_config;
    rca_das_geometry d_geometry;
    kernel_choice d_kernels;
    bool d_half = false;
    rca::half_gains d_gains{ 1.0f, 1.0f, 1.0f };
    std::vector<float> d_filtered, d_lri, d_real_volume;
    std::vector<float2> d_taps, d_sources;
};

//! A small RCA set-up with odd sizes everywhere (grid inside the data).
rca_das_config small_config(bool real)
{
    rca_das_config c;
    c.n_elements = 14;
    c.pitch = 200e-6;
    c.center_frequency = 6e6;
    c.sampling_frequency = 31.25e6;
    c.speed_of_sound = 1540;
    c.t_start = 1e-6;
    c.n_samples = 150;
    const size_t n_tx = 7;
    for (size_t j = 0; j < n_tx; j++) {
        c.source_positions.push_back(-0.6e-3 + 1.2e-3 * double(j) / double(n_tx - 1));
        c.source_depths.push_back(-1.2e-3);
    }
    c.x = { -0.8e-3, 1.5e-4, 11 };
    c.y = { -0.6e-3, 1.7e-4, 8 };
    c.z = real ? rca_grid_axis{ 2.2e-3, 3.5e-5, 29 } : rca_grid_axis{ 2.2e-3, 7e-5, 17 };
    c.f_number = 1.0;
    c.filter_taps = rca_gaussian_pulse_taps(6e6, 31.25e6, 0.5, 23);
    c.decimation = real ? 1 : 3;
    c.processing = real ? rca_processing::real : rca_processing::iq;
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
            p[i] = int16_t(u(gen) | 1); // never zero
    } else {
        std::normal_distribution<float> u(0.0f, 1.0f);
        auto* p = reinterpret_cast<float*>(bytes.data());
        for (size_t i = 0; i < n; i++)
            p[i] = u(gen);
    }
    return bytes;
}

struct comparison {
    double error;
    size_t non_finite;
};

/*!
 * The emulated kernels against the CPU engine on the same random RF; the
 * output starts as NaN, so a voxel the kernels never write shows.
 */
comparison run_case(const rca_das_config& c, const kernel_choice& k, unsigned seed)
{
    const size_t n_volumes = 1;
    const auto rf = random_rf(c, n_volumes, seed);
    std::vector<std::complex<float>> cpu(c.n_voxels() * n_volumes);
    rca_das_engine::make(c, device_spec{ backend::cpu, 0 })
        ->execute(rf.data(), cpu.data(), n_volumes, nullptr);
    std::vector<std::complex<float>> emu(cpu.size(), std::complex<float>(NAN, NAN));
    emulated_rca(c, k).execute(rf.data(), emu.data(), n_volumes);
    comparison r{ 0, 0 };
    double num = 0, den = 0;
    for (size_t i = 0; i < cpu.size(); i++) {
        r.non_finite += !(std::isfinite(emu[i].real()) && std::isfinite(emu[i].imag()));
        num += std::norm(std::complex<double>(emu[i]) - std::complex<double>(cpu[i]));
        den += std::norm(std::complex<double>(cpu[i]));
    }
    r.error = den > 0 ? std::sqrt(num / den) : NAN;
    return r;
}

//! fp32 variants: the GPU test's bound. Half storage: see apps/rca_bench.md (Versions).
double tolerance_for(int variant) { return rca::variant_stores_half(variant) ? 2e-3 : 1e-4; }

//! The processing a variant runs with (folded with I/Q is the reference loop).
bool variant_runs_iq(int variant) { return variant != rca::variant_half_real; }
bool variant_runs_real(int variant)
{
    return variant != rca::variant_half && !rca::variant_pipelined(variant);
}

void expect_match(const rca_das_config& c, const kernel_choice& k, unsigned seed, const char* what)
{
    const comparison r = run_case(c, k, seed);
    std::cout << "[ rca_das emulated ] " << what << " "
              << (c.processing == rca_processing::iq ? "iq" : "real") << " "
              << (c.input == rca_sample_type::int16 ? "int16" : "float32") << " variant "
              << rca::stage_variant_name(k.variant) << " shapes " << k.shape1.warps << "x"
              << k.shape1.batch << "/" << k.shape2.warps << "x" << k.shape2.batch << " tiles "
              << k.tile1 << "/" << k.tile2 << " multi-pixel " << (k.multi_pixel ? 3 : 1)
              << ": rel_err " << r.error << " non-finite " << r.non_finite << std::endl;
    EXPECT_EQ(r.non_finite, 0u) << what;
    EXPECT_LT(r.error, tolerance_for(k.variant)) << what;
}

} // namespace

TEST(RcaDasEmulated, PreprocessingAndBothStagesIqAndReal)
{
    for (bool real : { false, true })
        for (auto input : { rca_sample_type::int16, rca_sample_type::float32 }) {
            auto c = small_config(real);
            c.input = input;
            expect_match(c, {}, 11 + real + 2 * int(input), "default kernels");
        }
}

TEST(RcaDasEmulated, EveryVariantAndShape)
{
    // Shapes: every frame of a block filled (4 x 1), partly filled blocks with
    // empty warps (4 x 8: 7 emissions, 11 lateral planes, 32 frames a block),
    // and the new wide blocks (6 x 8, 12 x 8); tiles that split the groups
    // along both axes.
    const rca::stage_shape shapes[] = { { 4, 8 }, { 4, 4 }, { 6, 8 }, { 12, 8 } };
    for (int variant = 0; variant < rca::stage_variant_count; variant++)
        for (const auto& shape : shapes)
            for (bool multi_pixel : { true, false }) {
                if (!rca::variant_has_shape(variant, shape.warps, shape.batch))
                    continue;
                kernel_choice k;
                k.shape1 = k.shape2 = shape;
                k.multi_pixel = multi_pixel;
                k.variant = variant;
                k.tile1 = shape.batch == 4 ? 32 : 4;
                k.tile2 = shape.batch == 4 ? 2 : 8;
                const unsigned seed = 100 + 10 * unsigned(variant) + unsigned(shape.warps);
                if (variant_runs_iq(variant))
                    expect_match(small_config(false), k, seed, "variants");
                if (variant_runs_real(variant))
                    expect_match(small_config(true), k, seed + 1, "variants");
            }
    // The reference-only shape with single-frame warps.
    kernel_choice k;
    k.shape1 = k.shape2 = { 4, 1 };
    expect_match(small_config(false), k, 7, "4x1");
}

TEST(RcaDasEmulated, GpuPrecisionPicksTheEnginesKernels)
{
    // rca_das_config::gpu_precision as the GPU engine maps it (rca::choose_variant,
    // the engine's own function), run through the emulated kernels against the
    // CPU engine: float16 the half kernels (bound 2e-3), float32 the fp32
    // ones (1e-4); a tuning's explicit kernel_variant overrides it.
    for (bool real : { false, true })
        for (auto precision : { rca_gpu_precision::float32, rca_gpu_precision::float16 }) {
            auto c = small_config(real);
            c.gpu_precision = precision;
            kernel_choice k;
            k.variant = rca::choose_variant(c, -1, k.shape1, k.shape2);
            const int expected = precision == rca_gpu_precision::float32 ? rca::variant_folded
                                 : real ? rca::variant_half_real
                                        : rca::variant_half_sectors;
            EXPECT_EQ(k.variant, expected) << rca::stage_variant_name(k.variant);
            const std::string what = "gpu_precision " + rca_gpu_precision_name(precision);
            expect_match(c, k, 200 + 2 * unsigned(real) + unsigned(precision), what.c_str());
            EXPECT_EQ(rca::choose_variant(c, rca::variant_reference, k.shape1, k.shape2),
                      rca::variant_reference);
        }
}

TEST(RcaDasEmulated, PipelinedHalf2IsTheHalf2ArithmeticReordered)
{
    // half2_pipelined runs the half2 variant's operations on every sample in
    // the same order (a lane that does not use a term adds exact zeros), so
    // on the same data the two volumes must agree bit for bit (up to the
    // sign of zero), on the stray path too. half2_sectors is half2_pipelined
    // with the samples stored elsewhere: bit for bit again, for its shapes
    // (4 x 8, 6 x 8) and an emission split (3 + 4) that is not a multiple
    // of its octets; half2_mixed (stage 1 of one, stage 2 of the other) too.
    for (bool coarse : { false, true }) {
        auto c = small_config(false);
        if (coarse) {
            c.x = { -1.2e-3, 6e-4, 5 };
            c.f_number = 0.5;
        }
        const auto rf = random_rf(c, 1, 301 + unsigned(coarse));
        kernel_choice k;
        k.variant = rca::variant_half;
        std::vector<std::complex<float>> half(c.n_voxels());
        emulated_rca(c, k).execute(rf.data(), half.data(), 1);
        const std::pair<int, rca::stage_shape> cases[] = {
            { rca::variant_half_pipelined, { 4, 8 } }, { rca::variant_half_sectors, { 4, 8 } },
            { rca::variant_half_sectors, { 6, 8 } },   { rca::variant_half_mixed, { 4, 8 } },
            { rca::variant_half_mixed, { 6, 8 } },
        };
        for (const auto& [variant, shape] : cases) {
            k.variant = variant;
            k.shape1 = k.shape2 = shape;
            std::vector<std::complex<float>> reordered(c.n_voxels());
            emulated_rca(c, k).execute(rf.data(), reordered.data(), 1);
            size_t differ = 0;
            for (size_t i = 0; i < half.size(); i++)
                differ += half[i] != reordered[i];
            std::cout << "[ rca_das emulated ] " << rca::stage_variant_name(variant) << " "
                      << shape.warps << "x" << shape.batch << " vs half2"
                      << (coarse ? " (stray path)" : "") << ": " << differ << " of "
                      << half.size() << " voxels differ" << std::endl;
            EXPECT_EQ(differ, 0u) << rca::stage_variant_name(variant);
        }
    }
}

TEST(RcaDasEmulated, OctetLayoutsHoldThePipelinedSamples)
{
    // half2_sectors writes the filtered data and the images through shared
    // memory as 16-byte pieces (rca_preprocess_octets_kernel,
    // stage1_pixels::store_octets); half2_mixed writes half2_pipelined's
    // filtered data and half2_sectors' images. Every stored word, guards and
    // padding included, must be the half2_pipelined word at the transposed
    // place ([frame][term][sample] -> [frame / 8][term][sample][frame % 8]),
    // zeros where no frame is: for 19 emissions split 5 + 14 (launches that
    // start and end inside octets), 29 lateral planes (blocks whose laterals
    // start at a half octet and end inside one) and every stage-1 tile (6 and
    // 3 laterals a block at tiles 16 and 32: pieces held in part); and with
    // decimation 16, whose input spans fill the pre-processing's shared memory
    // four emissions at a time (rca::octet_spans_for).
    for (size_t decimation : { 3, 16 }) {
        auto c = small_config(false);
        c.decimation = decimation;
        c.source_positions.clear();
        c.source_depths.clear();
        const size_t n_tx = 19;
        for (size_t j = 0; j < n_tx; j++) {
            c.source_positions.push_back(-0.6e-3 + 1.2e-3 * double(j) / double(n_tx - 1));
            c.source_depths.push_back(-1.2e-3);
        }
        c.x = { -1.4e-3, 1e-4, 29 };
        const auto g = rca_das_geometry::from(c);
        const auto rf = random_rf(c, 1, 401);
        const size_t split = 5;
        // [frames][terms][samples] (32-bit words) in octets of frames.
        auto octets_of = [](const std::vector<float>& plain,
                            size_t frames,
                            size_t terms,
                            size_t samples) {
            std::vector<float> out(plain.size(), 0.0f);
            for (size_t f = 0; f < frames; f++)
                for (size_t t = 0; t < terms; t++)
                    for (size_t k = 0; k < samples; k++)
                        out[(((f / 8) * terms + t) * samples + k) * 8 + f % 8] =
                            plain[(f * terms + t) * samples + k];
            return out;
        };
        auto differ = [](const std::vector<float>& a, const std::vector<float>& b) {
            EXPECT_EQ(a.size(), b.size());
            size_t n = 0;
            for (size_t i = 0; i < std::min(a.size(), b.size()); i++)
                n += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
            return n;
        };
        {
            rca::preprocess_params p = rca::preprocess_plan(c, g, nullptr);
            EXPECT_EQ(rca::octet_spans_for(p), decimation == 3 ? 8 : 4);
        }
        for (int tile1 : { 8, 4, 16, 32, 2 })
            for (bool multi_pixel : { true, false }) {
                if (decimation != 3 && (tile1 != 8 || !multi_pixel))
                    continue;
                kernel_choice k;
                k.tile1 = tile1;
                k.multi_pixel = multi_pixel;
                k.variant = rca::variant_half_pipelined;
                std::vector<std::complex<float>> plain_volume(c.n_voxels()),
                    volume(c.n_voxels());
                emulated_rca plain(c, k);
                plain.execute(rf.data(), plain_volume.data(), 1, split);
                const auto filtered = octets_of(
                    plain.filtered(), g.n_tx, g.n_rx, rca::filtered_row_stride(g));
                const auto images =
                    octets_of(plain.images(), g.n_lat, g.n_tx, rca::lri_row_stride(g));
                for (int variant :
                     { rca::variant_half_sectors, rca::variant_half_mixed }) {
                    k.variant = variant;
                    emulated_rca octets(c, k);
                    octets.execute(rf.data(), volume.data(), 1, split);
                    const bool mixed = variant == rca::variant_half_mixed;
                    const size_t filtered_differ =
                        differ(octets.filtered(), mixed ? plain.filtered() : filtered);
                    const size_t images_differ = differ(octets.images(), images);
                    size_t voxels_differ = 0;
                    for (size_t i = 0; i < volume.size(); i++)
                        voxels_differ += volume[i] != plain_volume[i];
                    std::cout << "[ rca_das emulated ] "
                              << rca::stage_variant_name(variant) << " decimation "
                              << decimation << " tile1 " << tile1 << " multi-pixel "
                              << (multi_pixel ? 3 : 1) << ": " << filtered_differ
                              << " filtered words, " << images_differ << " image words, "
                              << voxels_differ << " voxels differ from half2_pipelined"
                              << std::endl;
                    EXPECT_EQ(filtered_differ, 0u)
                        << rca::stage_variant_name(variant) << " tile1 " << tile1;
                    EXPECT_EQ(images_differ, 0u)
                        << rca::stage_variant_name(variant) << " tile1 " << tile1;
                    EXPECT_EQ(voxels_differ, 0u)
                        << rca::stage_variant_name(variant) << " tile1 " << tile1;
                }
            }
    }
}

TEST(RcaDasEmulated, CoarseGridTakesTheStrayPath)
{
    // Lateral steps far above the sampling criterion: side pixels' samples
    // fall outside the six-sample window and take their own four loads.
    for (int variant = 0; variant < rca::stage_variant_count; variant++)
        for (bool real : { false, true }) {
            if (real ? !variant_runs_real(variant) : !variant_runs_iq(variant))
                continue;
            auto c = small_config(real);
            c.x = { -1.2e-3, 6e-4, 5 };
            c.f_number = 0.5;
            kernel_choice k;
            k.variant = variant;
            expect_match(c, k, 71 + unsigned(variant), "stray path");
        }
}

TEST(RcaDasEmulated, HalfGainsKeepTheFullScaleInRange)
{
    // int16 full scale through the taps stays within 2^15 after the scale,
    // and the stage-1 sum bound too: half's largest finite value is 65504.
    const auto c = small_config(false);
    const auto g = rca_das_geometry::from(c);
    const rca::half_gains h = rca::half_gains_for(g);
    double taps_sum = 0;
    for (const auto& t : g.taps)
        taps_sum += std::abs(std::complex<double>(t));
    EXPECT_LE(32768.0 * taps_sum * h.filtered_scale, 32768.0);
    EXPECT_GT(32768.0 * taps_sum * h.filtered_scale, 16384.0); // and uses the range
    EXPECT_LE(1.625 * double(g.n_rx) * 32768.0 * h.stage1_gain, 32768.0);
    EXPECT_DOUBLE_EQ(double(h.filtered_scale) * h.stage1_gain * h.stage2_gain, 1.0);
}
