/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The kernel parameters of the rca_das GPU engine, derived from its geometry:
 * one definition for the engine (rca_das_gpu.cu) and the emulated test
 * (tests/cpp/test_rca_das_emulated.cc), which runs the same kernels on the
 * host. Include after the rca_das kernel headers (it fills their structs, in
 * the namespace BF_GPU_NS they were compiled into).
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_RCA_DAS_GPU_PLAN_H
#define INCLUDED_BEAMFORM_ENGINES_RCA_DAS_GPU_PLAN_H

#include <gnuradio/beamform/engines/rca_das_engine.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {
namespace rca {

//! Stored row lengths: one zero guard sample at each end.
inline size_t filtered_row_stride(const rca_das_geometry& g) { return g.n_t + 2; }
inline size_t lri_row_stride(const rca_das_geometry& g) { return g.n_z_lri + 2; }
//! Frames, padding included, rounded up to even (half_real stores frame pairs;
//! half_sectors' octets need no more: n + 15 frames hold every octet a launch reads).
inline size_t padded_frames(size_t n) { return (n + max_batch_padding + 1) / 2 * 2; }
//! Elements of the filtered data and of the images, padding frames included.
inline size_t filtered_elements(const rca_das_geometry& g)
{
    return padded_frames(g.n_tx) * g.n_rx * filtered_row_stride(g);
}
inline size_t lri_elements(const rca_das_geometry& g)
{
    return padded_frames(g.n_lat) * g.n_tx * lri_row_stride(g);
}
//! Bytes of one stored sample of the filtered data and the images.
inline size_t stored_sample_bytes(bool iq, int variant)
{
    if (variant == variant_half_real)
        return sizeof(uint16_t);
    if (variant_stores_half(variant))
        return 2 * sizeof(uint16_t);
    return iq ? sizeof(float2) : sizeof(float);
}

inline std::vector<float2> taps_of(const rca_das_geometry& g)
{
    std::vector<float2> taps(g.n_taps);
    for (size_t m = 0; m < g.n_taps; m++)
        taps[m] = make_float2(g.taps[m].real(), g.taps[m].imag());
    return taps;
}

inline std::vector<float2> sources_of(const rca_das_geometry& g)
{
    std::vector<float2> sources(g.n_tx);
    for (size_t j = 0; j < g.n_tx; j++)
        sources[j] = make_float2(float(g.source_elev[j]), float(g.source_z[j]));
    return sources;
}

inline preprocess_params
preprocess_plan(const rca_das_config& c, const rca_das_geometry& g, const float2* taps)
{
    preprocess_params p{};
    p.n_samples = int(c.n_samples);
    p.n_rx = int(g.n_rx);
    p.n_taps = int(g.n_taps);
    p.decimation = int(g.decimation);
    p.n_t = int(g.n_t);
    p.row_stride = int(filtered_row_stride(g));
    p.phase0 = -g.demod_frequency * g.t0;
    p.phase_step = -g.demod_frequency / g.fs;
    p.taps = taps;
    p.scale = 1.0f;
    return p;
}

//! The depth grid and receive-side constants that stage 1 and the
//! conventional kernel both take (float copies of the geometry).
template <typename Params>
void set_receive_params(const rca_das_geometry& g, Params& p)
{
    p.z0 = float(g.z.start);
    p.dz = float(g.z.step);
    p.rx0 = float(g.element_first);
    p.pitch = float(g.pitch);
    p.f_number = float(g.f_number);
    p.fs_over_c = float(g.fs / g.c);
    p.t0_fs = float(g.t0 * g.fs);
    p.cycles_per_m = float(g.demod_frequency / g.c);
}

inline stage1_params
stage1_plan(const rca_das_geometry& g, const void* filtered, void* lri, int tile_z)
{
    stage1_params p{};
    p.data = filtered;
    p.lri = lri;
    p.row_stride = int(filtered_row_stride(g));
    p.frame_stride = int(g.n_rx) * p.row_stride;
    p.n_t = int(g.n_t);
    p.n_rx = int(g.n_rx);
    p.n_lat = int(g.n_lat);
    p.n_zl = int(g.n_z_lri);
    p.lri_stride = int(lri_row_stride(g));
    p.n_tx = int(g.n_tx);
    p.lat0 = float(g.lat.start);
    p.dlat = float(g.lat.step);
    set_receive_params(g, p);
    p.tile_z = tile_z;
    p.gain = 1.0f;
    return p;
}

inline stage2_params stage2_plan(const rca_das_geometry& g,
                                 const void* lri,
                                 const float2* sources,
                                 const volume_store& store,
                                 int tile_elev)
{
    stage2_params p{};
    p.lri = lri;
    p.lri_stride = int(lri_row_stride(g));
    p.lat_stride = int(g.n_tx) * p.lri_stride;
    p.n_zl = int(g.n_z_lri);
    p.n_tx = int(g.n_tx);
    p.n_lat = int(g.n_lat);
    p.n_elev = int(g.n_elev);
    p.n_z = int(g.n_z);
    p.elev0 = float(g.elev.start);
    p.delev = float(g.elev.step);
    p.z0 = float(g.z.start);
    p.dz = float(g.z.step);
    p.inv_dz = float(1.0 / g.z.step);
    p.f_number = float(g.f_number);
    p.cycles_per_m = float(2.0 * g.demod_frequency / g.c);
    p.sources = sources;
    p.store = store;
    p.tile_elev = tile_elev;
    p.gain = 1.0f;
    return p;
}

//! The voxel layout of the output (pointer, mode and peak left to the caller).
inline volume_store volume_layout(const rca_das_geometry& g)
{
    volume_store st{};
    st.stride_lat = g.stride_lat;
    st.stride_elev = g.stride_elev;
    return st;
}

//! The axial Hilbert pass of real processing, reading \p real_volume.
inline axial_params axial_plan(const rca_das_geometry& g, const float* real_volume)
{
    axial_params a{};
    a.real_volume = real_volume;
    a.n_lat = int(g.n_lat);
    a.n_elev = int(g.n_elev);
    a.n_z = int(g.n_z);
    const double k = -2.0 * g.demod_frequency / g.c;
    a.z0_cycles = k * g.z.start;
    a.dz_cycles = k * g.z.step;
    const std::vector<float> h = rca_axial_hilbert_taps();
    for (int m = 0; m < axial_hilbert_taps; m++)
        a.taps[m] = h[m];
    a.store = volume_layout(g);
    return a;
}

/*!
 * The stage_variant the engine runs with stage shapes \p shape1 and \p shape2:
 * \p requested (rca_das_gpu_tuning::kernel_variant, the benchmark's override)
 * when >= 0; else from the config's gpu_precision: float16 the half kernel of
 * its processing (I/Q: half2_pipelined, 1274 vs 997 volumes/s on an H100;
 * real: half2_real, 918 vs 733; apps/rca_bench.md), float32 folded where
 * built for both shapes (real processing 5 % faster to the same 1e-4; with
 * I/Q it is the reference loop), else the reference.
 */
inline int choose_variant(const rca_das_config& c,
                          int requested,
                          stage_shape shape1,
                          stage_shape shape2)
{
    if (requested >= 0)
        return requested;
    // float16: I/Q half2_sectors where built for both shapes (H100: 1346.8
    // vol/s at stage-1 tile 4z against 1286.7 for half2_pipelined, bit for
    // bit the same volume; apps/rca_bench.md, Version 15), real half2_real.
    if (c.gpu_precision == rca_gpu_precision::float16) {
        if (c.processing != rca_processing::iq)
            return variant_half_real;
        return variant_has_shape(variant_half_sectors, shape1.warps, shape1.batch) &&
                       variant_has_shape(variant_half_sectors, shape2.warps, shape2.batch)
                   ? variant_half_sectors
                   : variant_half_pipelined;
    }
    return variant_has_shape(variant_folded, shape1.warps, shape1.batch) &&
                   variant_has_shape(variant_folded, shape2.warps, shape2.batch)
               ? variant_folded
               : variant_reference;
}

/*!
 * Launch stage 1 or 2 (\p p) for the sample type (I/Q or real), the pixels
 * per thread (3 with multi-pixel, else 1) and the stage_variant.
 */
template <typename Params>
void launch_stage_for(bool iq,
                      bool multi_pixel,
                      int variant,
                      const Params& p,
                      int first,
                      int count,
                      stage_shape shape,
                      int tile,
                      int n_fast,
                      int n_slow,
                      gpuStream_t s)
{
    auto with_pixels = [&](auto pixels) {
        constexpr int P = decltype(pixels)::value;
        if (iq ? variant == variant_half_real
               : variant == variant_half || variant_pipelined(variant))
            throw std::invalid_argument(std::string("kernel_variant ") + std::to_string(variant) +
                                        " (" + stage_variant_name(variant) + ") is for " +
                                        (iq ? "real" : "I/Q") + " processing only");
        if (iq) {
            if (variant == variant_half)
                launch_stage<float2, P, variant_half>(p, first, count, shape, tile, n_fast, n_slow, s);
            else if (variant == variant_half_pipelined)
                launch_stage<float2, P, variant_half_pipelined>(
                    p, first, count, shape, tile, n_fast, n_slow, s);
            else if (variant == variant_half_sectors)
                launch_stage<float2, P, variant_half_sectors>(
                    p, first, count, shape, tile, n_fast, n_slow, s);
            else if (variant == variant_half_mixed) {
                // Stage 1 reads half2_pipelined's layout and stores octets;
                // stage 2 is half2_sectors'.
                if constexpr (std::is_same_v<Params, stage1_params>)
                    launch_stage<float2, P, variant_half_mixed>(
                        p, first, count, shape, tile, n_fast, n_slow, s);
                else
                    launch_stage<float2, P, variant_half_sectors>(
                        p, first, count, shape, tile, n_fast, n_slow, s);
            }
            else
                launch_stage<float2, P, variant_reference>(
                    p, first, count, shape, tile, n_fast, n_slow, s);
        } else if (variant == variant_folded) {
            launch_stage<float, P, variant_folded>(p, first, count, shape, tile, n_fast, n_slow, s);
        } else if (variant == variant_half_real) {
            launch_stage<float, P, variant_half_real>(p, first, count, shape, tile, n_fast, n_slow, s);
        } else {
            launch_stage<float, P, variant_reference>(
                p, first, count, shape, tile, n_fast, n_slow, s);
        }
    };
    if (multi_pixel)
        with_pixels(std::integral_constant<int, 3>{});
    else
        with_pixels(std::integral_constant<int, 1>{});
}

/*!
 * The half variants' power-of-two gains (half2, half2_real, half2_pipelined, half2_sectors,
 * half2_mixed;
 * for real processing the taps are real and the same bounds hold): filtered
 * samples stored as
 * filtered_scale x value (int16 full scale times the taps' absolute sum
 * within 2^15, half's largest power of two below its maximum 65504), images
 * as image_gain x the stage-1 sum (a sum of n_rx interpolations, each at
 * most 1.625 x the largest sample: the largest sum of |Lagrange weights|
 * over tau in [0, 3]), and stage 2 undoing both.
 */
struct half_gains {
    float filtered_scale, stage1_gain, stage2_gain;
};
inline half_gains half_gains_for(const rca_das_geometry& g)
{
    double taps_sum = 0;
    for (const auto& t : g.taps)
        taps_sum += std::abs(std::complex<double>(t));
    const int e1 = int(std::ceil(std::log2(32768.0 * std::max(taps_sum, 1e-30)))) - 15;
    const int e2 = int(std::ceil(std::log2(1.625 * double(g.n_rx))));
    half_gains h;
    h.filtered_scale = float(std::ldexp(1.0, -e1));
    h.stage1_gain = float(std::ldexp(1.0, -e2));
    h.stage2_gain = float(std::ldexp(1.0, e1 + e2));
    return h;
}

} // namespace rca
} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
