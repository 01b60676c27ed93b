/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The two stages of the dual-stage RCA beamformer (Algorithms 1 and 2 with the
 * optimizations of section III).
 *
 * Both stages are the same 2D delay-and-sum over "frames" that share every
 * time of flight, apodization and interpolation weight (multi-frame
 * beamforming, section III-A):
 *   stage 1: pixels (lateral, z) of the xz image; terms = receivers;
 *            frames = emissions (eq. 21 does not depend on the emission);
 *   stage 2: voxels (elevation, z) of one yz plane; terms = emissions;
 *            frames = lateral planes (eq. 22 does not depend on it).
 *
 * Work split. A block is W warps over the same 32 "pixel groups" (P adjacent
 * pixels each, one per lane); warp w accumulates frames w*B .. w*B + B - 1 of
 * the block's W*B frames. The per-term setup (square roots, apodization,
 * Lagrange weights, phase rotation; ~60 instructions a pixel) is the same for
 * all frames, so the warps take turns: for each run of W terms, warp w sets up
 * term w for the 32 pixel groups into shared memory (double-buffered), and
 * after one barrier all warps accumulate their frames over the W terms. The
 * setup is amortized over W*B frames while each thread holds only B frames of
 * accumulators, so registers stay low and many warps hide the load latency.
 * W and B are template parameters: the accumulators are registers, indexed by
 * compile-time constants only (section III-F).
 *
 * Multi-pixel (section III-C): the P = 3 pixels of a group are adjacent along
 * the axis where their sample addresses differ by at most one, so one window of
 * six samples (the middle pixel's four plus one on each side) serves all three.
 * Stage 1 puts them along the lateral axis (|d| <= 1 where the lateral sampling
 * criterion, eq. 7, holds), stage 2 along z (the look-up f(y, z) of eq. 22
 * grows by (0.5, 1] image samples per voxel, so the first pixel is at d in
 * {-1, 0} and the last at d in {0, 1}: five-slot weights). Each side pixel's
 * four weights are placed once per term into the window's slots (zeros
 * elsewhere): two extra FMAs per slot, but no selects in the frame loop. A
 * pixel whose samples fall outside its slots (a grid coarser than criterion 11)
 * takes a separate path with its own four loads, so results never depend on
 * the criterion, only the speed does.
 *
 * Early exit (section III-D): a pixel group skips a term when all its pixels
 * have zero apodization or a look-up outside the data.
 *
 * Rows of the inputs carry one zero guard sample at each end (stored index =
 * sample + 1), so the window loads never leave the row; the last, partly
 * filled frames of a launch read padding frames (max_batch_padding) and are
 * not stored.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_RCA_DAS_BEAMFORM_CUH
#define INCLUDED_BEAMFORM_KERNELS_RCA_DAS_BEAMFORM_CUH

#include "rca_das_common.cuh"
#include <stdexcept>
#include <string>
#include <type_traits>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {
namespace rca {

//! Pixel groups of a block (one per lane of a warp).
constexpr int stage_groups = 32;
/*!
 * (warps per block, frames per warp) pairs the kernels are built for. A block
 * of W warps takes W * B frames; W terms are set up per barrier.
 */
struct stage_shape {
    int warps, batch;
};
constexpr stage_shape stage_shapes[] = { { 4, 8 },  { 4, 4 },  { 8, 4 }, { 8, 2 }, { 16, 2 },
                                         { 16, 1 }, { 4, 1 },  { 6, 8 }, { 12, 8 } };

/*!
 * Arithmetic of the frame loop, chosen at run time (apps/rca_bench.md, Versions):
 *   reference: fp32 samples; acc += rot * (sum of w * s) per pixel and frame;
 *   folded:    real processing only: the apodization folded into the weights
 *              once per term, so a frame's pixel is 4 FFMA straight into its
 *              accumulator (no FMUL for the first weight, no scaling FFMA);
 *              I/Q runs the reference loop (a complex rotation cannot be
 *              folded into real weights);
 *   half:      I/Q only: filtered data and stage-1 images stored as half2
 *              (scaled into half's range by power-of-two gains), the cubic
 *              interpolation of each pixel in packed half2 (HFMA2: I and Q in
 *              one instruction), its result rotated and accumulated in fp32;
 *   half_real: real processing only: filtered data and stage-1 images stored
 *              as half with two frames interleaved in each 32-bit word
 *              (frames 2m and 2m + 1 of a sample side by side), so one HFMA2
 *              interpolates one pixel for two frames with the same weights;
 *              the apodization folded into the (half) weights as in folded,
 *              each pixel's pair widened and added to fp32 accumulators, the
 *              storage gain applied in fp32 when stored;
 *   half_pipelined: I/Q only, the arithmetic and storage of half, in a frame
 *              loop without the per-lane early exit: the terms of a run that
 *              any pixel group of the block uses are walked in order,
 *              and the next term's loads are issued before this term's FMAs
 *              (the first term's under the next run's setup); the weights
 *              reach shared memory already as half2;
 *   half_sectors: I/Q only, half_pipelined's loop and arithmetic, bit for
 *              bit, on data stored with the frames in octets: sample k of
 *              frames 8m .. 8m + 7 side by side ([frame / 8][term][sample]
 *              [frame % 8], 32 bytes: one memory sector), so that a warp's
 *              eight frames of one window slot are one sector and one 16-byte
 *              load brings a slot for four frames: 12 loads a term instead
 *              of 48, all from one address. Stage 1 writes its images (and
 *              the pre-processing its output) through shared memory, as
 *              16-byte pieces of whole sectors. Built for B = 8 only;
 *   half_mixed: I/Q only, stage 1 as half_pipelined (emission-major
 *              filtered data, written by the plain pre-processing), its
 *              images stored in half_sectors' octets as half_sectors' stage 1
 *              stores them, and stage 2 as half_sectors: bit for bit the
 *              same volume; for the case that the octet loads, not stores,
 *              slowed half_sectors' stage 1 (apps/rca_bench.md, Versions
 *              14-15). Built for B = 8 only.
 */
enum stage_variant : int {
    variant_reference = 0,
    variant_folded = 1,
    variant_half = 2,
    variant_half_real = 3,
    variant_half_pipelined = 4,
    variant_half_sectors = 5,
    variant_half_mixed = 6
};
constexpr int stage_variant_count = 7;
inline const char* stage_variant_name(int v)
{
    switch (v) {
    case variant_folded:
        return "folded";
    case variant_half:
        return "half2";
    case variant_half_real:
        return "half2_real";
    case variant_half_pipelined:
        return "half2_pipelined";
    case variant_half_sectors:
        return "half2_sectors";
    case variant_half_mixed:
        return "half2_mixed";
    default:
        return "reference";
    }
}
//! Variants that store the filtered data and the images as half (int16 input only).
constexpr bool variant_stores_half(int v)
{
    return v == variant_half || v == variant_half_real || v == variant_half_pipelined ||
           v == variant_half_sectors || v == variant_half_mixed;
}
//! Variants whose weights travel through shared memory as half2 (w, w).
constexpr bool variant_half_weights(int v)
{
    return v == variant_half_real || v == variant_half_pipelined || v == variant_half_sectors ||
           v == variant_half_mixed;
}
//! Variants whose apodization (and storage gain) scale the fp32 rotation.
constexpr bool variant_gain_in_rotation(int v)
{
    return v == variant_half || v == variant_half_pipelined || v == variant_half_sectors ||
           v == variant_half_mixed;
}
//! Variants run by rca_stage_kernel_pipelined.
constexpr bool variant_pipelined(int v)
{
    return v == variant_half_pipelined || v == variant_half_sectors || v == variant_half_mixed;
}
//! Variants whose stage-1 images are stored in octets of lateral planes
//! ([lateral / 8][emission][sample][lateral % 8]), written through shared memory.
constexpr bool variant_images_in_octets(int v)
{
    return v == variant_half_sectors || v == variant_half_mixed;
}
//! Frames of padding after the last frame of the filtered data and of the images.
constexpr int max_batch_padding = 15;

// ---------------------------------------------------------------------------
// The setup of one term for one pixel group, and its trip through shared memory
// ---------------------------------------------------------------------------

template <int P>
struct window_shape {
    static constexpr int MID = P / 2;
    //! Window: samples first[MID] - 1 .. first[MID] + 4 for P = 3; the pixel's four for P = 1.
    static constexpr int WIN = (P == 1) ? 4 : 6;
    //! Window slot of first[MID].
    static constexpr int SLOT0 = (P == 1) ? 0 : 1;
};

//! Flags of a term setup.
enum : int { term_used = 1, term_stray0 = 2, term_stray2 = 4 };

template <int P>
struct term_setup {
    using shape = window_shape<P>;
    float w[P][shape::WIN]; //!< interpolation weights placed in the window's slots
    float2 rot[P];          //!< apodization x phase rotation (real processing: .x only)
    int first_mid;          //!< first-sample index of the middle pixel
    int flags;
    int first[2];           //!< side pixels' first samples (stray path)
    float fa[2];            //!< side pixels' fractional addresses (stray path)

    //! float4 groups in shared memory.
    static constexpr int groups = (P == 1) ? 2 : 7;
};

//! Side pixel s (0: first, 1: last) may sit at offsets [lo, hi] from the middle one.
template <int LO0, int HI0, int LO2, int HI2>
struct side_offsets {
    static __device__ __forceinline__ constexpr int lo(int s) { return s == 0 ? LO0 : LO2; }
    static __device__ __forceinline__ constexpr int hi(int s) { return s == 0 ? HI0 : HI2; }
};

/*!
 * Fill a term setup from each pixel's fractional address, apodization, phase
 * and validity (n: samples in the row).
 */
template <typename S, int P, class Offsets, int V = variant_reference>
__device__ __forceinline__ void make_setup(term_setup<P>& ts,
                                           const float fa[P],
                                           const float apo[P],
                                           const float cycles[P],
                                           const bool good[P],
                                           int n)
{
    using shape = window_shape<P>;
    constexpr int WIN = shape::WIN, SLOT0 = shape::SLOT0, MID = shape::MID;
    float lw[P][4];
    int first[P];
    bool any = false;
#pragma unroll
    for (int p = 0; p < P; p++) {
        first[p] = first_sample(fa[p], n);
        lagrange_weights(fa[p] - float(first[p]), lw[p]);
        if constexpr (std::is_same_v<S, float2>) {
            const float2 r = cis(cycles[p]);
            ts.rot[p] = good[p] ? make_float2(apo[p] * r.x, apo[p] * r.y) : make_float2(0.f, 0.f);
        } else {
            ts.rot[p] = make_float2(good[p] ? apo[p] : 0.0f, 0.0f);
        }
        if (!good[p]) // keep skipped pixels' terms exactly zero
#pragma unroll
            for (int m = 0; m < 4; m++)
                lw[p][m] = 0.0f;
        if constexpr ((V == variant_folded || V == variant_half_real) &&
                      !std::is_same_v<S, float2>) {
            // Real data: the apodization rides in the weights.
#pragma unroll
            for (int m = 0; m < 4; m++)
                lw[p][m] *= ts.rot[p].x;
        }
        any |= good[p];
    }
    ts.first_mid = first[MID];
    ts.flags = any ? term_used : 0;
#pragma unroll
    for (int p = 0; p < P; p++) {
        if (p == MID) {
#pragma unroll
            for (int k = 0; k < WIN; k++)
                ts.w[p][k] = (k >= SLOT0 && k < SLOT0 + 4) ? lw[p][k - SLOT0] : 0.0f;
            continue;
        }
        const int s = p == 0 ? 0 : 1;
        const int d = first[p] - first[MID];
        const bool stray = good[p] && (d < Offsets::lo(s) || d > Offsets::hi(s));
        if (stray)
            ts.flags |= (s == 0 ? term_stray0 : term_stray2);
        ts.first[s] = first[p];
        ts.fa[s] = fa[p];
#pragma unroll
        for (int k = 0; k < WIN; k++) {
            float v = 0.0f;
#pragma unroll
            for (int dd = -1; dd <= 1; dd++) {
                const int m = k - SLOT0 - dd; // weight index if d == dd
                if (dd >= Offsets::lo(s) && dd <= Offsets::hi(s) && m >= 0 && m < 4)
                    v = (d == dd && !stray) ? lw[p][m] : v;
            }
            ts.w[p][k] = v;
        }
    }
}

//! The half-weight variants: each weight w as the bits of the half2 (w, w),
//! converted once by the warp that sets the term up, not by every warp using it.
template <int P>
__device__ __forceinline__ void weights_to_half2_bits(term_setup<P>& ts)
{
#pragma unroll
    for (int p = 0; p < P; p++)
#pragma unroll
        for (int k = 0; k < window_shape<P>::WIN; k++)
            ts.w[p][k] = half2_as_float(__float2half2_rn(ts.w[p][k]));
}

template <int P>
__device__ __forceinline__ void pack_setup(const term_setup<P>& ts, float4* g, int stride)
{
    if constexpr (P == 1) {
        g[0] = make_float4(ts.w[0][0], ts.w[0][1], ts.w[0][2], ts.w[0][3]);
        g[stride] = make_float4(ts.rot[0].x, ts.rot[0].y, __int_as_float(ts.first_mid), __int_as_float(ts.flags));
    } else {
        g[0] = make_float4(ts.w[0][0], ts.w[0][1], ts.w[0][2], ts.w[0][3]);
        g[stride] = make_float4(ts.w[0][4], ts.w[0][5], ts.w[1][1], ts.w[1][2]);
        g[2 * stride] = make_float4(ts.w[1][3], ts.w[1][4], ts.w[2][0], ts.w[2][1]);
        g[3 * stride] = make_float4(ts.w[2][2], ts.w[2][3], ts.w[2][4], ts.w[2][5]);
        g[4 * stride] = make_float4(ts.rot[0].x, ts.rot[0].y, ts.rot[1].x, ts.rot[1].y);
        g[5 * stride] = make_float4(ts.rot[2].x, ts.rot[2].y, __int_as_float(ts.first_mid), __int_as_float(ts.flags));
        g[6 * stride] = make_float4(__int_as_float(ts.first[0]), __int_as_float(ts.first[1]), ts.fa[0], ts.fa[1]);
    }
}

//! Read the flags only (the early exit needs nothing else).
template <int P>
__device__ __forceinline__ int setup_flags(const float4* g, int stride)
{
    return __float_as_int(g[(P == 1 ? 1 : 5) * stride].w);
}

template <int P>
__device__ __forceinline__ void unpack_setup(term_setup<P>& ts, const float4* g, int stride)
{
    if constexpr (P == 1) {
        const float4 a = g[0], b = g[stride];
        ts.w[0][0] = a.x, ts.w[0][1] = a.y, ts.w[0][2] = a.z, ts.w[0][3] = a.w;
        ts.rot[0] = make_float2(b.x, b.y);
        ts.first_mid = __float_as_int(b.z);
        ts.flags = __float_as_int(b.w);
    } else {
        const float4 a = g[0], b = g[stride], c = g[2 * stride], d = g[3 * stride];
        const float4 e = g[4 * stride], f = g[5 * stride];
        ts.w[0][0] = a.x, ts.w[0][1] = a.y, ts.w[0][2] = a.z, ts.w[0][3] = a.w;
        ts.w[0][4] = b.x, ts.w[0][5] = b.y;
        ts.w[1][0] = 0.f, ts.w[1][1] = b.z, ts.w[1][2] = b.w, ts.w[1][3] = c.x, ts.w[1][4] = c.y;
        ts.w[1][5] = 0.f;
        ts.w[2][0] = c.z, ts.w[2][1] = c.w, ts.w[2][2] = d.x, ts.w[2][3] = d.y;
        ts.w[2][4] = d.z, ts.w[2][5] = d.w;
        ts.rot[0] = make_float2(e.x, e.y);
        ts.rot[1] = make_float2(e.z, e.w);
        ts.rot[2] = make_float2(f.x, f.y);
        ts.first_mid = __float_as_int(f.z);
        ts.flags = __float_as_int(f.w);
    }
}

template <typename S>
__device__ __forceinline__ S rotate_add(S acc, S d, float2 rot)
{
    if constexpr (std::is_same_v<S, float2>)
        return ops<float2>::rotate_add(acc, d, rot);
    else
        return fmaf(d, rot.x, acc);
}

//! Window slots [first, end) that pixel p of a group may use (fixed at compile time).
template <int p, int P, class Offsets>
struct pixel_slots {
    using shape = window_shape<P>;
    static constexpr int side = p == 0 ? 0 : 1;
    static constexpr int first = p == shape::MID ? shape::SLOT0 : shape::SLOT0 + Offsets::lo(side);
    static constexpr int end =
        p == shape::MID ? shape::SLOT0 + 4 : shape::SLOT0 + Offsets::hi(side) + 4;
};

//! acc += rot[p] * sum over pixel p's slots of w[p][k] * s[k].
template <int p, int V, typename S, int P, class Offsets>
__device__ __forceinline__ void accumulate_pixel(const term_setup<P>& ts,
                                                 const S (&s)[window_shape<P>::WIN],
                                                 S& acc)
{
    using O = ops<S>;
    constexpr int k0 = pixel_slots<p, P, Offsets>::first, k1 = pixel_slots<p, P, Offsets>::end;
    if constexpr (V == variant_folded && std::is_same_v<S, float>) {
        // The weights carry the apodization: straight into the accumulator.
#pragma unroll
        for (int k = k0; k < k1; k++)
            acc = fmaf(ts.w[p][k], s[k], acc);
    } else {
        S d = O::scale(ts.w[p][k0], s[k0]);
#pragma unroll
        for (int k = k0 + 1; k < k1; k++)
            d = O::madd(d, ts.w[p][k], s[k]);
        acc = rotate_add(acc, d, ts.rot[p]);
    }
}

//! The half2 variant's pixel: sum of w * s in packed half2 (I and Q in one
//! HFMA2), widened to fp32, rotated and accumulated in fp32.
template <int p, int P, class Offsets>
__device__ __forceinline__ void accumulate_pixel_half(const __half2 (&w)[P][window_shape<P>::WIN],
                                                      const float2 rot,
                                                      const __half2 (&s)[window_shape<P>::WIN],
                                                      float2& acc)
{
    constexpr int k0 = pixel_slots<p, P, Offsets>::first, k1 = pixel_slots<p, P, Offsets>::end;
    __half2 d = __hmul2(w[p][k0], s[k0]);
#pragma unroll
    for (int k = k0 + 1; k < k1; k++)
        d = __hfma2(w[p][k], s[k], d);
    acc = ops<float2>::rotate_add(acc, __half22float2(d), rot);
}

//! A stored sample as the arithmetic's type.
template <typename S>
__device__ __forceinline__ S widen(S v)
{
    return v;
}
__device__ __forceinline__ float2 widen(__half2 v) { return __half22float2(v); }

//! An accumulated value as stored.
template <typename T, typename S>
__device__ __forceinline__ T narrow(S v)
{
    if constexpr (std::is_same_v<T, __half2>)
        return __floats2half2_rn(v.x, v.y);
    else
        return v;
}

/*!
 * acc[p][b] += rot[p] * sum_k w[p][k] * window_b[k] for the frames of one
 * term; window_b starts at \p row + b * frame_stride.
 */
template <typename S, int B, int P, class Offsets, int V>
__device__ __forceinline__ void
accumulate(const term_setup<P>& ts, const S* __restrict__ row, int frame_stride, S (&acc)[P][B])
{
    constexpr int WIN = window_shape<P>::WIN;
#pragma unroll
    for (int b = 0; b < B; b++) {
        const S* __restrict__ rb = row + b * frame_stride;
        S s[WIN];
#pragma unroll
        for (int k = 0; k < WIN; k++)
            s[k] = __ldg(rb + k);
        if constexpr (P == 3) {
            accumulate_pixel<0, V, S, P, Offsets>(ts, s, acc[0][b]);
            accumulate_pixel<1, V, S, P, Offsets>(ts, s, acc[1][b]);
            accumulate_pixel<2, V, S, P, Offsets>(ts, s, acc[2][b]);
        } else {
            accumulate_pixel<0, V, S, P, Offsets>(ts, s, acc[0][b]);
        }
    }
}

//! The half2 variant of accumulate: half2 samples, weights converted once per term.
template <typename S, int B, int P, class Offsets, int V>
__device__ __forceinline__ void accumulate(const term_setup<P>& ts,
                                           const __half2* __restrict__ row,
                                           int frame_stride,
                                           float2 (&acc)[P][B])
{
    constexpr int WIN = window_shape<P>::WIN;
    __half2 w[P][WIN]; // slots a pixel never uses are never read (and never converted)
#pragma unroll
    for (int p = 0; p < P; p++)
#pragma unroll
        for (int k = 0; k < WIN; k++)
            w[p][k] = __float2half2_rn(ts.w[p][k]);
#pragma unroll
    for (int b = 0; b < B; b++) {
        const __half2* __restrict__ rb = row + b * frame_stride;
        __half2 s[WIN];
#pragma unroll
        for (int k = 0; k < WIN; k++)
            s[k] = __ldg(rb + k);
        if constexpr (P == 3) {
            accumulate_pixel_half<0, P, Offsets>(w, ts.rot[0], s, acc[0][b]);
            accumulate_pixel_half<1, P, Offsets>(w, ts.rot[1], s, acc[1][b]);
            accumulate_pixel_half<2, P, Offsets>(w, ts.rot[2], s, acc[2][b]);
        } else {
            accumulate_pixel_half<0, P, Offsets>(w, ts.rot[0], s, acc[0][b]);
        }
    }
}

//! The rare side pixel outside its slots: its own four samples per frame
//! (SAMPLE_STRIDE: elements from one sample of a frame to the next; 8 for
//! half_sectors' frame octets, whose frame_stride is then 1).
template <typename S, int B, int P, typename T, int SAMPLE_STRIDE = 1>
__device__ __forceinline__ void accumulate_strays(const term_setup<P>& ts,
                                                  const T* __restrict__ term_row,
                                                  int frame_stride,
                                                  S (&acc)[P][B])
{
    constexpr int SS = SAMPLE_STRIDE;
    using O = ops<S>;
#pragma unroll
    for (int s = 0; s < 2; s++) {
        if (!(ts.flags & (s == 0 ? term_stray0 : term_stray2)))
            continue;
        const int p = s == 0 ? 0 : P - 1;
        float lw[4];
        lagrange_weights(ts.fa[s] - float(ts.first[s]), lw);
#pragma unroll
        for (int b = 0; b < B; b++) {
            const T* __restrict__ rb = term_row + b * frame_stride + (ts.first[s] + 1) * SS;
            S d = O::scale(lw[0], widen(__ldg(rb)));
            d = O::madd(d, lw[1], widen(__ldg(rb + SS)));
            d = O::madd(d, lw[2], widen(__ldg(rb + 2 * SS)));
            d = O::madd(d, lw[3], widen(__ldg(rb + 3 * SS)));
            acc[p][b] = rotate_add(acc[p][b], d, ts.rot[p]);
        }
    }
}

/*!
 * The half_real variant's frame loop: \p row points at frame pairs (frames
 * 2m and 2m + 1 of a sample in one __half2), frames b = 2m, 2m + 1 of the
 * warp's B. Per pixel and pair: one HMUL2 and three to five HFMA2 with the
 * weights (apodization folded in) as (w, w), the pair widened and added to
 * the two fp32 accumulators.
 */
template <int B, int P, class Offsets>
__device__ __forceinline__ void accumulate_half_pairs(const term_setup<P>& ts,
                                                      const __half2* __restrict__ row,
                                                      int pair_stride,
                                                      float (&acc)[P][B])
{
    static_assert(B % 2 == 0, "half_real: frames in pairs");
    constexpr int WIN = window_shape<P>::WIN;
#pragma unroll
    for (int m = 0; m < B / 2; m++) {
        const __half2* __restrict__ rb = row + m * pair_stride;
        __half2 s[WIN];
#pragma unroll
        for (int k = 0; k < WIN; k++)
            s[k] = __ldg(rb + k);
        auto pixel = [&](auto pc) {
            constexpr int p = decltype(pc)::value;
            constexpr int k0 = pixel_slots<p, P, Offsets>::first;
            constexpr int k1 = pixel_slots<p, P, Offsets>::end;
            __half2 d = __hmul2(float_as_half2(ts.w[p][k0]), s[k0]);
#pragma unroll
            for (int k = k0 + 1; k < k1; k++)
                d = __hfma2(float_as_half2(ts.w[p][k]), s[k], d);
            const float2 f = __half22float2(d);
            acc[p][2 * m] += f.x;
            acc[p][2 * m + 1] += f.y;
        };
        pixel(std::integral_constant<int, 0>{});
        if constexpr (P == 3) {
            pixel(std::integral_constant<int, 1>{});
            pixel(std::integral_constant<int, 2>{});
        }
    }
}

//! The half_real variant's stray side pixels: own four samples per frame pair, fp32 weights.
template <int B, int P>
__device__ __forceinline__ void accumulate_strays_pairs(const term_setup<P>& ts,
                                                        const __half2* __restrict__ term_row,
                                                        int pair_stride,
                                                        float (&acc)[P][B])
{
    using O = ops<float2>;
#pragma unroll
    for (int s = 0; s < 2; s++) {
        if (!(ts.flags & (s == 0 ? term_stray0 : term_stray2)))
            continue;
        const int p = s == 0 ? 0 : P - 1;
        float lw[4];
        lagrange_weights(ts.fa[s] - float(ts.first[s]), lw);
#pragma unroll
        for (int m = 0; m < B / 2; m++) {
            const __half2* __restrict__ rb = term_row + m * pair_stride + ts.first[s] + 1;
            float2 d = O::scale(lw[0], __half22float2(__ldg(rb)));
            d = O::madd(d, lw[1], __half22float2(__ldg(rb + 1)));
            d = O::madd(d, lw[2], __half22float2(__ldg(rb + 2)));
            d = O::madd(d, lw[3], __half22float2(__ldg(rb + 3)));
            acc[p][2 * m] = fmaf(d.x, ts.rot[p].x, acc[p][2 * m]);
            acc[p][2 * m + 1] = fmaf(d.y, ts.rot[p].x, acc[p][2 * m + 1]);
        }
    }
}

// ---------------------------------------------------------------------------
// Stage 1: one xz image per emission (Algorithm 1, eq. 21)
// ---------------------------------------------------------------------------

struct stage1_params {
    const void* data;   //!< filtered RF [emission][receiver][row_stride]
    void* lri;          //!< [lateral][n_tx][lri_stride]
    int frame_stride;   //!< n_rx * row_stride (elements)
    int row_stride;     //!< n_t + 2
    int n_t;
    int n_rx;
    int n_lat;
    int n_zl;           //!< depth samples of the images
    int lri_stride;     //!< n_zl + 2
    int n_tx;
    int frame0;         //!< first emission of this launch (half_real: rounded down to even)
    int frame_begin;    //!< first emission stored (half_real: frame0 or frame0 + 1)
    int frame_end;      //!< one past its last emission
    int tile_z;         //!< pixel groups along z in a block's 32 (the rest along lateral)
    float lat0, dlat;   //!< lateral grid
    float z0, dz;       //!< image depth grid
    float rx0, pitch;   //!< receiver i at rx0 + i * pitch
    float f_number;
    float fs_over_c;    //!< fs_eff / c: fractional samples per metre of path
    float t0_fs;        //!< t0 * fs_eff
    float cycles_per_m; //!< f_d / c: phase of (r - z) [cycles / m]
    float gain;         //!< half variants: images stored as gain x the fp32 ones
};

//! Stage 1's pixel group: P lateral pixels at one depth.
template <int P>
struct stage1_pixels {
    using offsets = side_offsets<-1, 1, -1, 1>;
    static constexpr bool is_stage1 = true;
    int iz, lat_first;
    bool in_grid[P];
    float z, z2, inv_z, fa_of_z;
    float x[P];

    __device__ __forceinline__ stage1_pixels(const stage1_params& prm, int group)
    {
        const int groups_lat = stage_groups / prm.tile_z;
        iz = blockIdx.x * prm.tile_z + group % prm.tile_z;
        lat_first = (blockIdx.y * groups_lat + group / prm.tile_z) * P;
        z = fmaf(float(iz), prm.dz, prm.z0);
        z2 = z * z;
        inv_z = fast_rcp(z);
        fa_of_z = fmaf(z, prm.fs_over_c, -prm.t0_fs); // (z / c - t0) fs
#pragma unroll
        for (int p = 0; p < P; p++) {
            x[p] = fmaf(float(lat_first + p), prm.dlat, prm.lat0);
            in_grid[p] = iz < prm.n_zl && lat_first + p < prm.n_lat;
        }
    }

    template <typename S, int V>
    __device__ __forceinline__ void setup(const stage1_params& prm, int i, term_setup<P>& ts) const
    {
        const float xr = fmaf(float(i), prm.pitch, prm.rx0);
        const float last = float(prm.n_t - 1);
        float fa[P], apo[P], cycles[P];
        bool good[P];
#pragma unroll
        for (int p = 0; p < P; p++) {
            const float dx = x[p] - xr;
            const float u = prm.f_number * dx * inv_z;
            const float r = fast_sqrt(fmaf(dx, dx, z2));
            fa[p] = fmaf(r, prm.fs_over_c, fa_of_z);
            good[p] = in_grid[p] && fabsf(u) <= 0.5f && fa[p] >= 0.0f && fa[p] <= last;
            apo[p] = hann(u);
            if constexpr (variant_gain_in_rotation(V))
                apo[p] *= prm.gain;
            cycles[p] = prm.cycles_per_m * dx * dx * fast_rcp(r + z); // (r - z) f_d / c
        }
        make_setup<S, P, offsets, V>(ts, fa, apo, cycles, good, prm.n_t);
    }

    static __device__ __forceinline__ int n_terms(const stage1_params& prm) { return prm.n_rx; }
    static __device__ __forceinline__ int frame_stride(const stage1_params& prm)
    {
        return prm.frame_stride;
    }
    template <typename S>
    static __device__ __forceinline__ const S* frame(const stage1_params& prm, int f)
    {
        return static_cast<const S*>(prm.data) + size_t(f) * prm.frame_stride;
    }
    static __device__ __forceinline__ int term_offset(const stage1_params& prm, int i)
    {
        return i * prm.row_stride;
    }

    template <typename S, int B, typename T, int V>
    __device__ __forceinline__ void
    store(const stage1_params& prm, int frame, int valid, const S (&acc)[P][B]) const
    {
        if constexpr (V == variant_half_real) {
            // Half, lateral planes 2m and 2m + 1 interleaved (stage 2's frame pairs);
            // a launch rounded down to an even emission stores from frame_begin on.
            uint16_t* lri = static_cast<uint16_t*>(prm.lri);
            const int lo = prm.frame_begin - frame;
#pragma unroll
            for (int p = 0; p < P; p++) {
                if (!in_grid[p])
                    continue;
                const int lat = lat_first + p;
#pragma unroll
                for (int b = 0; b < B; b++)
                    if (b < valid && b >= lo)
                        lri[((size_t(lat >> 1) * prm.n_tx + frame + b) * prm.lri_stride + 1 + iz) * 2 +
                            (lat & 1)] = half_bits_of(acc[p][b] * prm.gain);
            }
        } else {
            T* lri = static_cast<T*>(prm.lri);
#pragma unroll
            for (int p = 0; p < P; p++) {
                if (!in_grid[p])
                    continue;
#pragma unroll
                for (int b = 0; b < B; b++)
                    if (b < valid)
                        lri[(size_t(lat_first + p) * prm.n_tx + frame + b) * prm.lri_stride + 1 +
                            iz] = narrow<T>(acc[p][b]);
            }
        }
    }

    /*!
     * The images in octets of lateral planes (stage 2's frames):
     * [lateral / 8][emission][sample][lateral % 8]. A lane's pixels are three
     * laterals at one depth, 4 bytes 32 bytes apart in this layout, so the
     * warp first places its B x 32 x P values in \p staged (shared memory, the
     * warp's own: [frame][z of the block][lateral of the block]), then writes
     * 16-byte pieces (4 laterals of an octet, aligned) in memory order: a
     * block's depths of one octet and emission are contiguous, so adjacent
     * lanes fill whole 32-byte sectors where the block holds the octet's 8
     * laterals (tile_z 8: 12 laterals a block, one whole octet and one half).
     * Pieces the block holds only in part (the edges of its laterals, the
     * grid's end) are written sample by sample. A launch rounded down to a
     * multiple of 8 emissions (half_sectors' stage 1) stores from frame_begin on.
     * Called by every warp of the block (warp_sync); a warp without frames
     * (valid <= 0) stores nothing.
     */
    template <int B>
    __device__ __forceinline__ void store_octets(const stage1_params& prm,
                                                 int frame,
                                                 int valid,
                                                 const float2 (&acc)[P][B],
                                                 __half2* __restrict__ staged,
                                                 int lane) const
    {
        constexpr int E = sector_frames;
        const int tile_z = prm.tile_z;
        const int n_lat_block = stage_groups / tile_z * P; // laterals of the block
        const int lat_base = int(blockIdx.y) * n_lat_block;
        const int iz_base = int(blockIdx.x) * tile_z;
        // This lane's values: z iz - iz_base, laterals lat_first - lat_base + p.
        __half2* mine = staged + (iz - iz_base) * n_lat_block + (lat_first - lat_base);
#pragma unroll
        for (int b = 0; b < B; b++)
#pragma unroll
            for (int p = 0; p < P; p++)
                mine[b * stage_groups * P + p] = narrow<__half2>(acc[p][b]);
        warp_sync();

        __half2* lri = static_cast<__half2*>(prm.lri);
        const int lo = prm.frame_begin - frame;
        const int lat_end = min(lat_base + n_lat_block, prm.n_lat);
        const int oct_first = lat_base / E;
        const int n_oct = (lat_base + n_lat_block - 1) / E - oct_first + 1;
        const int log_tile = __ffs(tile_z) - 1; // tile_z divides 32
        // Piece i: half i % 2 of the octet, z (i / 2) % tile_z, then frame, then octet.
        for (int i = lane; i < n_oct * B * tile_z * 2; i += stage_groups) {
            const int z = (i >> 1) & (tile_z - 1);
            const int fo = i >> (1 + log_tile);
            const int b = fo % B;
            const int oct = oct_first + fo / B;
            if (b >= valid || b < lo || iz_base + z >= prm.n_zl)
                continue;
            const int quad = oct * E + (i & 1) * 4; // its first lateral
            __half2* dst = lri +
                           ((size_t(oct) * prm.n_tx + frame + b) * prm.lri_stride + 1 + iz_base + z) * E +
                           (i & 1) * 4;
            const __half2* src = staged + (b * tile_z + z) * n_lat_block + (quad - lat_base);
            if (quad >= lat_base && quad + 4 <= lat_end) {
                *reinterpret_cast<float4*>(dst) = make_float4(half2_as_float(src[0]),
                                                              half2_as_float(src[1]),
                                                              half2_as_float(src[2]),
                                                              half2_as_float(src[3]));
            } else {
#pragma unroll
                for (int j = 0; j < 4; j++)
                    if (quad + j >= lat_base && quad + j < lat_end)
                        dst[j] = src[j];
            }
        }
    }
};

// ---------------------------------------------------------------------------
// Stage 2: extrapolate and sum the images (Algorithm 2, eqs. 5 and 22)
// ---------------------------------------------------------------------------

struct stage2_params {
    const void* lri;       //!< [lateral][n_tx][lri_stride]
    int lat_stride;        //!< n_tx * lri_stride: from one lateral plane to the next
    int lri_stride;
    int n_zl;
    int n_tx;
    int n_lat, n_elev, n_z;
    int frame0;            //!< first lateral plane of this launch
    int frame_begin;       //!< first lateral plane stored (half_real: frame0 or frame0 + 1)
    int frame_end;         //!< one past its last lateral plane
    int tile_elev;         //!< pixel groups along elevation in a block's 32 (the rest along z)
    float elev0, delev;
    float z0, dz, inv_dz;
    float f_number;
    float cycles_per_m;    //!< 2 f_d / c: phase of f(y, z) - z [cycles / m]
    const float2* sources; //!< [n_tx] (elevation position, depth)
    volume_store store;
    float gain;            //!< half variants: undoes the scaling of the stored data
};

//! Stage 2's pixel group: P voxels along z at one elevation.
template <int P>
struct stage2_pixels {
    // Along z the look-up grows by (0.5, 1] image samples per voxel.
    using offsets = side_offsets<-1, 0, 0, 1>;
    static constexpr bool is_stage1 = false;
    int elev, iz_first;
    bool in_grid[P];
    float y;
    float z[P];

    __device__ __forceinline__ stage2_pixels(const stage2_params& prm, int group)
    {
        const int groups_z = stage_groups / prm.tile_elev;
        elev = blockIdx.x * prm.tile_elev + group % prm.tile_elev;
        iz_first = (blockIdx.y * groups_z + group / prm.tile_elev) * P;
        y = fmaf(float(elev), prm.delev, prm.elev0);
#pragma unroll
        for (int p = 0; p < P; p++) {
            z[p] = fmaf(float(iz_first + p), prm.dz, prm.z0);
            in_grid[p] = elev < prm.n_elev && iz_first + p < prm.n_z;
        }
    }

    template <typename S, int V>
    __device__ __forceinline__ void setup(const stage2_params& prm, int j, term_setup<P>& ts) const
    {
        const float2 src = __ldg(prm.sources + j);
        const float dy = y - src.x;
        const float dy2 = dy * dy;
        const float last = float(prm.n_zl - 1);
        float fa[P], apo[P], cycles[P];
        bool good[P];
#pragma unroll
        for (int p = 0; p < P; p++) {
            const float dz = z[p] - src.y;
            const float u = prm.f_number * dy * fast_rcp(dz);
            const float r = fast_sqrt(fmaf(dz, dz, dy2));
            const float shift = 0.5f * dy2 * fast_rcp(r + dz); // f(y, z) - z
            fa[p] = fmaf(shift, prm.inv_dz, float(iz_first + p));
            good[p] = in_grid[p] && fabsf(u) <= 0.5f && fa[p] <= last;
            apo[p] = hann(u);
            if constexpr (variant_gain_in_rotation(V))
                apo[p] *= prm.gain;
            cycles[p] = prm.cycles_per_m * shift;
        }
        make_setup<S, P, offsets, V>(ts, fa, apo, cycles, good, prm.n_zl);
    }

    static __device__ __forceinline__ int n_terms(const stage2_params& prm) { return prm.n_tx; }
    static __device__ __forceinline__ int frame_stride(const stage2_params& prm)
    {
        return prm.lat_stride;
    }
    template <typename S>
    static __device__ __forceinline__ const S* frame(const stage2_params& prm, int f)
    {
        return static_cast<const S*>(prm.lri) + size_t(f) * prm.lat_stride;
    }
    static __device__ __forceinline__ int term_offset(const stage2_params& prm, int j)
    {
        return j * prm.lri_stride;
    }

    template <typename S, int B, typename T, int V>
    __device__ __forceinline__ void
    store(const stage2_params& prm, int frame, int valid, const S (&acc)[P][B]) const
    {
        // half_real: the storage gains undone here, in fp32 (the others carry
        // them in the rotation); stage 2 always starts at an even plane.
        float peak = 0.0f;
        // half_sectors: a launch rounded down to a multiple of 8 stores from frame_begin on.
        const int lo = V == variant_half_sectors ? prm.frame_begin - frame : 0;
#pragma unroll
        for (int b = 0; b < B; b++) {
            if (b < valid && b >= lo) {
                const size_t base = size_t(frame + b) * prm.store.stride_lat +
                                    size_t(elev) * prm.store.stride_elev;
#pragma unroll
                for (int p = 0; p < P; p++)
                    if (in_grid[p]) {
                        S v = acc[p][b];
                        if constexpr (V == variant_half_real)
                            v *= prm.gain;
                        store_voxel(prm.store, base + iz_first + p, v, peak);
                    }
            }
        }
        publish_peak(prm.store, peak);
    }
};

// ---------------------------------------------------------------------------
// The kernel shared by both stages
// ---------------------------------------------------------------------------

/*!
 * Registers a thread may use: enough for B frames of P pixels of accumulators,
 * the sample window and the term setup without local memory, small enough that
 * several blocks share a multiprocessor.
 */
template <typename S, int B, int P>
constexpr int stage_register_budget()
{
    if constexpr (P == 3 && std::is_same_v<S, float2>)
        return B >= 6 ? 168 : B >= 4 ? 128 : 96;
    else
        return B >= 4 ? 96 : 64;
}

template <typename S, int B, int P, int W>
constexpr int stage_min_blocks()
{
    const int blocks = 65536 / (32 * W * stage_register_budget<S, B, P>());
    return blocks < 1 ? 1 : blocks;
}

//! Shared memory of a block: two buffers of W term setups for 32 pixel groups.
template <int P, int W>
constexpr size_t stage_shared_bytes()
{
    return size_t(2) * W * term_setup<P>::groups * stage_groups * sizeof(float4);
}

template <class Pixels, typename S, int B, int P, int W, int V, typename Params>
__global__ void __launch_bounds__(32 * W, (stage_min_blocks<S, B, P, W>()))
    rca_stage_kernel(Params prm)
{
    using O = ops<S>;
    using T = std::conditional_t<variant_stores_half(V), __half2, S>; // stored samples (or pairs)
    // half_real: a T holds frames 2m and 2m + 1, so frame f's data start at pair f / 2.
    constexpr int frames_per_t = V == variant_half_real ? 2 : 1;
    using shape = window_shape<P>;
    constexpr int G = term_setup<P>::groups;
    // [buffer][warp = term of the run][float4 group][pixel group]
    BF_RCA_DYNAMIC_SHARED(float4, setups);
    auto slot = [&](int buffer, int term_in_run, int lane) {
        return setups + ((buffer * W + term_in_run) * G) * stage_groups + lane;
    };

    const int lane = threadIdx.x;
    const int warp = threadIdx.y;
    const Pixels px(prm, lane);
    const int frame = prm.frame0 + (int(blockIdx.z) * W + warp) * B;
    const int valid = min(B, prm.frame_end - frame); // frames this warp stores (may be <= 0)

    S acc[P][B];
#pragma unroll
    for (int p = 0; p < P; p++)
#pragma unroll
        for (int b = 0; b < B; b++)
            acc[p][b] = O::zero();

    const T* frames =
        Pixels::template frame<T>(prm, (valid > 0 ? frame : prm.frame0) / frames_per_t);
    const int stride = Pixels::frame_stride(prm);
    const int n_terms = Pixels::n_terms(prm);
    for (int run = 0, buffer = 0; run < n_terms; run += W, buffer ^= 1) {
        {
            // This warp's share of the setup: term run + warp, all pixel groups.
            term_setup<P> ts;
            const int term = run + warp;
            if (term < n_terms)
                px.template setup<S, V>(prm, term, ts);
            else
                ts = term_setup<P>{};
            if constexpr (variant_half_weights(V))
                weights_to_half2_bits(ts);
            pack_setup<P>(ts, slot(buffer, warp, lane), stage_groups);
        }
        __syncthreads();
        if (valid <= 0)
            continue;
        const int n_run = min(W, n_terms - run);
        for (int k = 0; k < n_run; k++) {
            const float4* g = slot(buffer, k, lane);
            if (!(setup_flags<P>(g, stage_groups) & term_used))
                continue; // early exit
            term_setup<P> ts;
            unpack_setup<P>(ts, g, stage_groups);
            const T* term_row = frames + Pixels::term_offset(prm, run + k);
            if constexpr (V == variant_half_real)
                accumulate_half_pairs<B, P, typename Pixels::offsets>(
                    ts, term_row + ts.first_mid + 1 - shape::SLOT0, stride, acc);
            else
                accumulate<S, B, P, typename Pixels::offsets, V>(
                    ts, term_row + ts.first_mid + 1 - shape::SLOT0, stride, acc);
            if (P > 1 && (ts.flags & (term_stray0 | term_stray2))) {
                const float4 st = g[6 * stage_groups];
                ts.first[0] = __float_as_int(st.x);
                ts.first[1] = __float_as_int(st.y);
                ts.fa[0] = st.z;
                ts.fa[1] = st.w;
                if constexpr (V == variant_half_real)
                    accumulate_strays_pairs<B, P>(ts, term_row, stride, acc);
                else
                    accumulate_strays<S, B, P>(ts, term_row, stride, acc);
            }
        }
    }
    if (valid > 0)
        px.template store<S, B, T, V>(prm, frame, valid, acc);
}

/*!
 * Where the pipelined kernels read: frame b (of the warp's B), window slot m
 * of a term whose window starts at sample index \p start of the term's row.
 * half_pipelined: [frame][term][sample], frames frame_stride apart;
 * half_sectors: [frame / 8][term][sample][frame % 8] from the warp's octet
 * (the warp's first frame is a multiple of 8), so slot m of frames b .. b + 3
 * is one aligned 16-byte load.
 */
template <int V>
struct pipelined_layout {
    static constexpr bool sectors = V == variant_half_sectors;
    //! Elements from one sample of a frame to the next, and from one frame to the next.
    static constexpr int sample_step = sectors ? sector_frames : 1;
    static __device__ __forceinline__ int frame_step(int frame_stride)
    {
        return sectors ? 1 : frame_stride;
    }
};

/*!
 * Load the windows of one term, frames b0 .. b0 + N - 1 (N = 4 for
 * half_sectors: one 16-byte load per slot; one frame otherwise), from \p row
 * (the window's first slot of frame 0).
 */
template <int V, int N, int B, int WIN>
__device__ __forceinline__ void
load_windows(__half2 (&dst)[B][WIN], int b0, const __half2* __restrict__ row, int frame_stride)
{
    using L = pipelined_layout<V>;
    if constexpr (L::sectors) {
        static_assert(N == 4, "half_sectors: four frames per load");
#pragma unroll
        for (int m = 0; m < WIN; m++) {
            const float4 q =
                __ldg(reinterpret_cast<const float4*>(row + m * sector_frames + b0));
            dst[b0][m] = float_as_half2(q.x);
            dst[b0 + 1][m] = float_as_half2(q.y);
            dst[b0 + 2][m] = float_as_half2(q.z);
            dst[b0 + 3][m] = float_as_half2(q.w);
        }
    } else {
#pragma unroll
        for (int i = 0; i < N; i++)
#pragma unroll
            for (int m = 0; m < WIN; m++)
                dst[b0 + i][m] = __ldg(row + (b0 + i) * frame_stride + m);
    }
}

/*!
 * One term's frames for the pipelined variants: frame b's window comes from
 * \p next (loaded during the previous term, or before the run's setup), and,
 * if LOAD_NEXT, the same frames of the following term are loaded into \p next
 * from \p next_row before their FMAs are issued: frame by frame
 * (half_pipelined), or four frames at a time (half_sectors: one load per slot
 * for four frames). No branch between a term's loads and its FMAs: a lane that
 * does not use the term has zero weights and rotations (make_setup) and a
 * look-up clamped inside its row.
 */
template <int V, bool LOAD_NEXT, int B, int P, class Offsets>
__device__ __forceinline__ void pipelined_term(const term_setup<P>& ts,
                                               __half2 (&next)[B][window_shape<P>::WIN],
                                               const __half2* __restrict__ next_row,
                                               int frame_stride,
                                               float2 (&acc)[P][B])
{
    constexpr int WIN = window_shape<P>::WIN;
    // Frames per load step: the frames whose windows are copied out of next
    // before next is refilled.
    constexpr int N = pipelined_layout<V>::sectors ? 4 : 1;
    static_assert(B % N == 0, "half_sectors: frames in fours");
    __half2 w[P][WIN];
#pragma unroll
    for (int p = 0; p < P; p++)
#pragma unroll
        for (int k = 0; k < WIN; k++)
            w[p][k] = float_as_half2(ts.w[p][k]); // bits only: converted at setup
#pragma unroll
    for (int b0 = 0; b0 < B; b0 += N) {
        __half2 s[N][WIN];
#pragma unroll
        for (int i = 0; i < N; i++)
#pragma unroll
            for (int k = 0; k < WIN; k++)
                s[i][k] = next[b0 + i][k];
        if constexpr (LOAD_NEXT)
            load_windows<V, N>(next, b0, next_row, frame_stride);
#pragma unroll
        for (int i = 0; i < N; i++) {
            const int b = b0 + i;
            accumulate_pixel_half<0, P, Offsets>(w, ts.rot[0], s[i], acc[0][b]);
            if constexpr (P == 3) {
                accumulate_pixel_half<1, P, Offsets>(w, ts.rot[1], s[i], acc[1][b]);
                accumulate_pixel_half<2, P, Offsets>(w, ts.rot[2], s[i], acc[2][b]);
            }
        }
    }
}

/*!
 * The half_pipelined and half_sectors variants of rca_stage_kernel (I/Q,
 * half2 storage): the same work split, setups and arithmetic, with the loop
 * reordered so that a warp always has the next term's loads in flight:
 *   setup of run 0; barrier;
 *   per run: the terms any pixel group of the block uses (one bit per term,
 *   ORed over its lanes by the warp that set it up); loads of the first
 *   used term; this warp's share of the NEXT run's setup
 *   (other buffer: every warp finished reading it before the last barrier),
 *   which covers those loads' latency; then each used term with the loads
 *   of the one after it issued before its FMAs; barrier.
 * V selects the storage (pipelined_layout): the two variants differ only in
 * where a window's samples are and how many frames one load brings.
 */
template <class Pixels, int B, int P, int W, int V, typename Params>
__global__ void __launch_bounds__(32 * W, (stage_min_blocks<float2, B, P, W>()))
    rca_stage_kernel_pipelined(Params prm)
{
    static_assert(variant_pipelined(V), "the pipelined kernel runs half2_pipelined or half2_sectors");
    static_assert(W <= 32, "half_pipelined: a run's used terms are bits of one word");
    static_assert(V != variant_half_sectors || B == sector_frames,
                  "half_sectors: a warp's frames are one octet");
    using L = pipelined_layout<V>;
    using shape = window_shape<P>;
    using offsets = typename Pixels::offsets;
    constexpr int G = term_setup<P>::groups, WIN = shape::WIN;
    constexpr int N = L::sectors ? 4 : 1; // frames per load
    BF_RCA_DYNAMIC_SHARED(float4, setups);
    auto slot = [&](int buffer, int term_in_run, int lane) {
        return setups + ((buffer * W + term_in_run) * G) * stage_groups + lane;
    };
    // [buffer][term of the run]: bit k if some pixel group of the block uses
    // term k (the block's 32 groups are every warp's: one word serves all).
    unsigned* used_bits = reinterpret_cast<unsigned*>(setups + 2 * W * G * stage_groups);

    const int lane = threadIdx.x;
    const int warp = threadIdx.y;
    const Pixels px(prm, lane);
    const int frame = prm.frame0 + (int(blockIdx.z) * W + warp) * B;
    const int valid = min(B, prm.frame_end - frame); // the same in every lane of the warp

    float2 acc[P][B];
#pragma unroll
    for (int p = 0; p < P; p++)
#pragma unroll
        for (int b = 0; b < B; b++)
            acc[p][b] = make_float2(0.0f, 0.0f);

    // half_sectors: frame is a multiple of 8 (launch_stage rounds frame0 down),
    // so frame x frame_stride is where its octet starts.
    const __half2* frames = Pixels::template frame<__half2>(prm, valid > 0 ? frame : prm.frame0);
    const int stride = Pixels::frame_stride(prm);
    const int frame_step = L::frame_step(stride);
    const int n_terms = Pixels::n_terms(prm);
    auto set_up = [&](int run, int buffer) {
        term_setup<P> ts;
        const int term = run + warp;
        if (term < n_terms)
            px.template setup<float2, V>(prm, term, ts);
        else
            ts = term_setup<P>{};
        weights_to_half2_bits(ts);
        pack_setup<P>(ts, slot(buffer, warp, lane), stage_groups);
        const unsigned any = warp_or(unsigned(ts.flags & term_used));
        if (lane == 0)
            used_bits[buffer * W + warp] = any << warp;
    };
    // Where term `term` (setup at g) starts its window.
    auto window_row = [&](const float4* g, int term) {
        const int first_mid = __float_as_int(g[(P == 1 ? 1 : 5) * stage_groups].z);
        return frames + (Pixels::term_offset(prm, term) + first_mid + 1 - shape::SLOT0) *
                            L::sample_step;
    };

    set_up(0, 0);
    __syncthreads();
    for (int run = 0, buffer = 0; run < n_terms; run += W, buffer ^= 1) {
        // The terms of this run some lane uses, in order (warp-uniform; terms
        // past n_terms were set up empty). Lanes that do not use a term run it
        // with zero weights.
        unsigned used = 0;
#pragma unroll
        for (int k = 0; k < W; k++)
            used |= used_bits[buffer * W + k];
        if (valid <= 0)
            used = 0;

        __half2 next[B][WIN];
        int k = __ffs(int(used)) - 1; // -1: none
        used &= used - 1;
        const float4* const g0 = slot(buffer, 0, lane);
        const float4* g = g0 + k * (G * stage_groups);
        if (k >= 0) {
            const __half2* row = window_row(g, run + k);
#pragma unroll
            for (int b0 = 0; b0 < B; b0 += N)
                load_windows<V, N>(next, b0, row, frame_step);
        }
        if (run + W < n_terms)
            set_up(run + W, buffer ^ 1);

        while (k >= 0) {
            term_setup<P> ts;
            unpack_setup<P>(ts, g, stage_groups);
            const int k_next = __ffs(int(used)) - 1;
            used &= used - 1;
            const float4* g_next = g0 + k_next * (G * stage_groups); // read only if k_next >= 0
            if (k_next >= 0)
                pipelined_term<V, true, B, P, offsets>(
                    ts, next, window_row(g_next, run + k_next), frame_step, acc);
            else
                pipelined_term<V, false, B, P, offsets>(ts, next, nullptr, frame_step, acc);
            if (P > 1 && (ts.flags & (term_stray0 | term_stray2))) {
                const float4 st = g[6 * stage_groups];
                ts.first[0] = __float_as_int(st.x);
                ts.first[1] = __float_as_int(st.y);
                ts.fa[0] = st.z;
                ts.fa[1] = st.w;
                accumulate_strays<float2, B, P, __half2, L::sample_step>(
                    ts, frames + Pixels::term_offset(prm, run + k) * L::sample_step, frame_step,
                    acc);
            }
            k = k_next;
            g = g_next;
        }
        __syncthreads();
    }
    if constexpr (Pixels::is_stage1 && variant_images_in_octets(V)) {
        // Every warp has passed the loop's last barrier: the setups are read
        // no more, and each warp stages its images in its own part of them.
        static_assert(size_t(W) * B * stage_groups * P * sizeof(__half2) <= stage_shared_bytes<P, W>(),
                      "the staged images fit in the setups' shared memory");
        px.template store_octets<B>(
            prm, frame, valid, acc, reinterpret_cast<__half2*>(setups) + warp * B * stage_groups * P, lane);
    } else if (valid > 0) {
        px.template store<float2, B, __half2, V>(prm, frame, valid, acc);
    }
}

/*!
 * Whether the kernels of variant \p V are built for shape (W, B): the
 * reference for every shape, the other variants for the shapes worth timing
 * (compile time: each is a fully unrolled kernel).
 */
constexpr bool variant_has_shape(int V, int W, int B)
{
    if (V == variant_half_sectors || V == variant_half_mixed) // a warp's frames are one octet
        return (W == 4 || W == 6) && B == 8;
    if (V == variant_half_real || V == variant_half_pipelined) // the newer ones: no 12 x 8
        return (W == 4 && (B == 8 || B == 4)) || (W == 8 && B == 4) || (W == 6 && B == 8);
    return V == variant_reference || (W == 4 && (B == 8 || B == 4)) || (W == 8 && B == 4) ||
           (W == 6 && B == 8) || (W == 12 && B == 8);
}
//! The shapes of variant_has_shape, for error messages ("4x8, 4x4, ...").
inline std::string variant_shapes_text(int V)
{
    std::string text;
    for (const auto& s : stage_shapes)
        if (variant_has_shape(V, s.warps, s.batch))
            text += (text.empty() ? "" : ", ") + std::to_string(s.warps) + "x" +
                    std::to_string(s.batch);
    return text;
}

/*!
 * One launch of a stage over frames [first, first + count): blocks of
 * warps x batch frames along grid z. \p tile: pixel groups along the fast
 * axis (z for stage 1, elevation for stage 2) in a block's 32. V: the
 * stage_variant (folded with I/Q samples runs the reference loop; half2
 * needs I/Q samples).
 */
template <typename S, int P, int V, typename Params>
void launch_stage(Params prm,
                  int first,
                  int count,
                  stage_shape shape,
                  int tile,
                  int n_fast,  //!< pixels along the fast axis
                  int n_slow,  //!< pixels along the multi-pixel axis
                  gpuStream_t stream)
{
    static_assert((V != variant_half && !variant_pipelined(V)) || std::is_same_v<S, float2>,
                  "half2, half2_pipelined, half2_sectors, half2_mixed: I/Q samples only");
    static_assert(V != variant_half_mixed || std::is_same_v<Params, stage1_params>,
                  "half2_mixed: stage 2 runs half2_sectors");
    static_assert(V != variant_half_real || std::is_same_v<S, float>, "half2_real: real samples only");
    if constexpr (V == variant_folded && std::is_same_v<S, float2>) {
        launch_stage<S, P, variant_reference>(prm, first, count, shape, tile, n_fast, n_slow, stream);
        return;
    } else {
        if (count <= 0)
            return;
        // half_real reads frames in pairs, half_sectors in octets: the launch
        // starts at an even frame, or a multiple of 8 (the frames before
        // `first` are computed, not stored).
        prm.frame0 = V == variant_half_real     ? first & ~1
                     : V == variant_half_sectors ? first & ~(sector_frames - 1)
                                                 : first;
        prm.frame_begin = first;
        prm.frame_end = first + count;
        count = prm.frame_end - prm.frame0;
        const int groups_slow = stage_groups / tile;
        const int frames_per_block = shape.warps * shape.batch;
        const dim3 grid((n_fast + tile - 1) / tile,
                        ((n_slow + P - 1) / P + groups_slow - 1) / groups_slow,
                        (count + frames_per_block - 1) / frames_per_block);
        constexpr bool stage1 = std::is_same_v<Params, stage1_params>;
        using Pixels = std::conditional_t<stage1, stage1_pixels<P>, stage2_pixels<P>>;
        auto launch_one = [&](auto kernel, int warps, size_t shared) {
#ifndef BF_GPU_EMULATION
            BF_GPU_CHECK(gpuFuncSetAttribute(
                kernel, gpuFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
#endif
            BF_RCA_LAUNCH(
                "rca_stage_kernel", kernel, grid, dim3(stage_groups, warps), shared, stream, prm);
        };
#define BF_RCA_STAGE_SHAPE(W_, B_)                                                          \
    if constexpr (variant_has_shape(V, W_, B_))                                             \
        if (shape.warps == W_ && shape.batch == B_) {                                       \
            if constexpr (variant_pipelined(V))                                             \
                return launch_one(rca_stage_kernel_pipelined<Pixels, B_, P, W_, V, Params>, \
                                  W_,                                                       \
                                  stage_shared_bytes<P, W_>() + 2 * W_ * sizeof(unsigned)); \
            else                                                                            \
                return launch_one(rca_stage_kernel<Pixels, S, B_, P, W_, V, Params>,        \
                                  W_,                                                       \
                                  stage_shared_bytes<P, W_>());                             \
        }
        BF_RCA_STAGE_SHAPE(4, 8)
        BF_RCA_STAGE_SHAPE(4, 4)
        BF_RCA_STAGE_SHAPE(4, 1)
        BF_RCA_STAGE_SHAPE(8, 4)
        BF_RCA_STAGE_SHAPE(8, 2)
        BF_RCA_STAGE_SHAPE(16, 2)
        BF_RCA_STAGE_SHAPE(16, 1)
        BF_RCA_STAGE_SHAPE(6, 8)
        BF_RCA_STAGE_SHAPE(12, 8)
#undef BF_RCA_STAGE_SHAPE
        throw std::invalid_argument("rca_das: no " + std::string(stage_variant_name(V)) +
                                    " kernel for " + std::to_string(shape.warps) + " warps x " +
                                    std::to_string(shape.batch) + " frames");
    }
}

} // namespace rca
} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
