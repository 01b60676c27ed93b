/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The two stages of the dual-stage RCA beamformer (Algorithms 1 and 2 with the
 * optimizations of section III).
 *
 * Both stages are the same 2D delay-and-sum: a thread owns P adjacent pixels of
 * one image and B "frames" that share every time of flight, apodization and
 * interpolation weight (multi-frame beamforming, section III-A):
 *   stage 1: pixels (lateral, z) of the xz image; terms = receivers; frames =
 *            emissions (eq. 21 does not depend on the emission);
 *   stage 2: voxels (elevation, z) of one yz plane; terms = emissions; frames =
 *            lateral planes (eq. 22 does not depend on the lateral position).
 * For each term the geometry is evaluated once per pixel and reused B times;
 * B is a template parameter so that the B x P accumulators stay in registers.
 *
 * Multi-pixel (section III-C): the P = 3 pixels of a thread are adjacent along
 * the axis where their sample addresses differ by at most one, so one window of
 * six samples (the middle pixel's four plus one on each side) serves all three.
 * Stage 1 puts them along the lateral axis (|d| <= 1 where the lateral sampling
 * criterion, eq. 7, holds), stage 2 along z (the look-up f(y, z) of eq. 22
 * grows by at most one LRI sample per voxel, so the first pixel is at d in
 * {-1, 0} and the last at d in {0, 1}: five-slot weights). Instead of choosing
 * samples per frame, each side pixel's four weights are placed once per term
 * into the window's slots (zeros elsewhere), which costs two extra FMAs per
 * slot but no selects in the frame loop. A pixel whose address falls outside
 * its slots (a grid coarser than criterion 11) is not dropped: it takes a
 * separate path with its own four loads, so results never depend on the
 * criterion, only the speed does.
 *
 * Early exit (section III-D): a term is skipped when every pixel of the thread
 * has zero apodization or a look-up outside the data.
 *
 * Rows of the inputs carry one zero guard sample at each end (stored index =
 * sample + 1), so the window loads never leave the row.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_RCA_DAS_BEAMFORM_CUH
#define INCLUDED_BEAMFORM_KERNELS_RCA_DAS_BEAMFORM_CUH

#include "rca_das_common.cuh"
#include <type_traits>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {
namespace rca {

constexpr int max_block_threads = 256;

/*!
 * The per-term state of a thread's P pixels and its accumulation over the B
 * frames. LO/HI: the range of address offsets d (relative to the middle
 * pixel) that the first (0) and last (2) pixel can take in the window.
 */
template <typename S, int B, int P, int LO0, int HI0, int LO2, int HI2>
struct pixel_terms {
    using O = ops<S>;
    using R = typename O::rot_t;
    static constexpr int MID = P / 2;
    //! Window: samples first[MID] - 1 .. first[MID] + 4 for P = 3, the four of the pixel for P = 1.
    static constexpr int WIN = (P == 1) ? 4 : 6;
    //! Window slot of first[MID].
    static constexpr int SLOT0 = (P == 1) ? 0 : 1;

    float w[P][WIN]; //!< interpolation weights placed in the window's slots
    R rot[P];        //!< apodization x phase rotation (0 for a skipped pixel)
    int first[P];    //!< first-sample index of each pixel
    bool stray[P];   //!< side pixel whose samples are outside its slots

    static __device__ __forceinline__ constexpr int lo(int p) { return p == 0 ? LO0 : LO2; }
    static __device__ __forceinline__ constexpr int hi(int p) { return p == 0 ? HI0 : HI2; }

    //! Fill from each pixel's fractional address, apodization, phase and validity.
    __device__ __forceinline__ void
    setup(const float fa[P], const float apo[P], const float cycles[P], const bool good[P], int n)
    {
        float lw[P][4];
#pragma unroll
        for (int p = 0; p < P; p++) {
            first[p] = first_sample(fa[p], n);
            lagrange_weights(fa[p] - float(first[p]), lw[p]);
            rot[p] = good[p] ? O::rotation(apo[p], cycles[p]) : O::zero_rot();
            if (!good[p]) // keep skipped pixels' terms exactly zero
#pragma unroll
                for (int m = 0; m < 4; m++)
                    lw[p][m] = 0.0f;
        }
#pragma unroll
        for (int p = 0; p < P; p++) {
            stray[p] = false;
            if (p == MID) {
#pragma unroll
                for (int k = 0; k < WIN; k++)
                    w[p][k] = (k >= SLOT0 && k < SLOT0 + 4) ? lw[p][k - SLOT0] : 0.0f;
                continue;
            }
            const int d = first[p] - first[MID];
            stray[p] = good[p] && (d < lo(p) || d > hi(p));
#pragma unroll
            for (int k = 0; k < WIN; k++) {
                float v = 0.0f;
#pragma unroll
                for (int dd = -1; dd <= 1; dd++) {
                    const int m = k - SLOT0 - dd; // weight index if d == dd
                    if (dd >= lo(p) && dd <= hi(p) && m >= 0 && m < 4)
                        v = (d == dd) ? lw[p][m] : v;
                }
                w[p][k] = v;
            }
        }
    }

    //! Slots a pixel can use (compile-time: the loops below stay unrolled).
    static __device__ __forceinline__ constexpr int slot_begin(int p)
    {
        return p == MID ? SLOT0 : SLOT0 + lo(p);
    }
    static __device__ __forceinline__ constexpr int slot_end(int p)
    {
        return p == MID ? SLOT0 + 4 : SLOT0 + hi(p) + 4;
    }

    /*!
     * acc[p][b] += rot[p] * sum_k w[p][k] * window_b[k], where window_b starts at
     * \p row + b * frame_stride (stored index of sample first[MID] - SLOT0).
     */
    __device__ __forceinline__ void
    accumulate(const S* __restrict__ row, size_t frame_stride, S (&acc)[P][B]) const
    {
#pragma unroll
        for (int b = 0; b < B; b++) {
            const S* __restrict__ rb = row + size_t(b) * frame_stride;
            S s[WIN];
#pragma unroll
            for (int k = 0; k < WIN; k++)
                s[k] = __ldg(rb + k);
#pragma unroll
            for (int p = 0; p < P; p++) {
                S d = O::scale(w[p][slot_begin(p)], s[slot_begin(p)]);
#pragma unroll
                for (int k = slot_begin(p) + 1; k < slot_end(p); k++)
                    d = O::madd(d, w[p][k], s[k]);
                acc[p][b] = O::rotate_add(acc[p][b], d, rot[p]);
            }
        }
    }

    //! The rare side pixel outside its slots: its own four samples per frame.
    __device__ __forceinline__ void accumulate_strays(const S* __restrict__ term_row,
                                                      size_t frame_stride,
                                                      const float fa[P],
                                                      S (&acc)[P][B]) const
    {
#pragma unroll
        for (int p = 0; p < P; p++) {
            if (p == MID || !stray[p])
                continue;
            float lw[4];
            lagrange_weights(fa[p] - float(first[p]), lw);
#pragma unroll
            for (int b = 0; b < B; b++) {
                const S* __restrict__ rb = term_row + size_t(b) * frame_stride + first[p] + 1;
                S d = O::scale(lw[0], __ldg(rb));
                d = O::madd(d, lw[1], __ldg(rb + 1));
                d = O::madd(d, lw[2], __ldg(rb + 2));
                d = O::madd(d, lw[3], __ldg(rb + 3));
                acc[p][b] = O::rotate_add(acc[p][b], d, rot[p]);
            }
        }
    }
};

// ---------------------------------------------------------------------------
// Stage 1: one xz image per emission (Algorithm 1, eq. 21)
// ---------------------------------------------------------------------------

struct stage1_params {
    const void* data;    //!< filtered RF [emission][receiver][row_stride]
    void* lri;           //!< [lateral][n_tx][lri_stride]
    size_t frame_stride; //!< n_rx * row_stride
    int row_stride;      //!< n_t + 2
    int n_t;
    int n_rx;
    int n_lat;
    int n_zl;            //!< depth samples of the images
    int lri_stride;      //!< n_zl + 2
    int n_tx;
    int frame0;          //!< first emission of this launch
    float lat0, dlat;    //!< lateral grid
    float z0, dz;        //!< image depth grid
    float rx0, pitch;    //!< receiver i at rx0 + i * pitch
    float f_number;
    float fs_over_c;     //!< fs_eff / c: fractional samples per metre of path
    float t0_fs;         //!< t0 * fs_eff
    float cycles_per_m;  //!< f_d / c: phase of (r - z) [cycles / m]
};

template <typename S, int B, int P>
__global__ void __launch_bounds__(max_block_threads) rca_stage1_kernel(stage1_params prm)
{
    using O = ops<S>;
    using T = pixel_terms<S, B, P, -1, 1, -1, 1>;
    const int iz = blockIdx.x * blockDim.x + threadIdx.x;
    const int lat_first = (blockIdx.y * blockDim.y + threadIdx.y) * P;
    if (iz >= prm.n_zl || lat_first >= prm.n_lat)
        return;
    const int frame = prm.frame0 + int(blockIdx.z) * B;

    const float z = fmaf(float(iz), prm.dz, prm.z0);
    const float z2 = z * z;
    const float inv_z = 1.0f / z;
    const float fa_of_z = fmaf(z, prm.fs_over_c, -prm.t0_fs); // (z/c - t0) * fs
    const float last = float(prm.n_t - 1);
    float x[P];
    bool in_grid[P];
#pragma unroll
    for (int p = 0; p < P; p++) {
        x[p] = fmaf(float(lat_first + p), prm.dlat, prm.lat0);
        in_grid[p] = lat_first + p < prm.n_lat;
    }

    S acc[P][B];
#pragma unroll
    for (int p = 0; p < P; p++)
#pragma unroll
        for (int b = 0; b < B; b++)
            acc[p][b] = O::zero();

    const S* __restrict__ data = static_cast<const S*>(prm.data) + size_t(frame) * prm.frame_stride;
    for (int i = 0; i < prm.n_rx; i++) {
        const float xr = fmaf(float(i), prm.pitch, prm.rx0);
        float fa[P], apo[P], cycles[P];
        bool good[P];
        bool any = false;
#pragma unroll
        for (int p = 0; p < P; p++) {
            const float dx = x[p] - xr;
            const float u = prm.f_number * dx * inv_z;
            const float r = sqrtf(fmaf(dx, dx, z2));
            fa[p] = fmaf(r, prm.fs_over_c, fa_of_z);
            good[p] = in_grid[p] && fabsf(u) <= 0.5f && fa[p] >= 0.0f && fa[p] <= last;
            apo[p] = hann(u);
            cycles[p] = prm.cycles_per_m * __fdividef(dx * dx, r + z); // (r - z) f_d / c
            any |= good[p];
        }
        if (!any)
            continue; // early exit: no pixel of this thread uses receiver i
        T t;
        t.setup(fa, apo, cycles, good, prm.n_t);
        const S* term_row = data + size_t(i) * prm.row_stride;
        t.accumulate(term_row + t.first[T::MID] + 1 - T::SLOT0, prm.frame_stride, acc);
        if (P > 1 && (t.stray[0] || t.stray[P - 1]))
            t.accumulate_strays(term_row, prm.frame_stride, fa, acc);
    }

    S* lri = static_cast<S*>(prm.lri);
#pragma unroll
    for (int p = 0; p < P; p++) {
        if (!in_grid[p])
            continue;
#pragma unroll
        for (int b = 0; b < B; b++)
            lri[(size_t(lat_first + p) * prm.n_tx + frame + b) * prm.lri_stride + 1 + iz] =
                acc[p][b];
    }
}

// ---------------------------------------------------------------------------
// Stage 2: extrapolate and sum the images (Algorithm 2, eqs. 5 and 22)
// ---------------------------------------------------------------------------

struct stage2_params {
    const void* lri;       //!< [lateral][n_tx][lri_stride]
    size_t lat_stride;     //!< n_tx * lri_stride: from one lateral plane to the next
    int lri_stride;
    int n_zl;
    int n_tx;
    int n_lat, n_elev, n_z;
    int lat0;              //!< first lateral plane of this launch
    float elev0, delev;
    float z0, dz, inv_dz;
    float f_number;
    float cycles_per_m;    //!< 2 f_d / c: phase of f(y, z) - z [cycles / m]
    const float2* sources; //!< [n_tx] (elevation position, depth)
    volume_store store;
};

template <typename S, int B, int P>
__global__ void __launch_bounds__(max_block_threads) rca_stage2_kernel(stage2_params prm)
{
    using O = ops<S>;
    // Along z the look-up grows by (0.5, 1] LRI samples per voxel.
    using T = pixel_terms<S, B, P, -1, 0, 0, 1>;
    const int elev = blockIdx.x * blockDim.x + threadIdx.x;
    const int iz_first = (blockIdx.y * blockDim.y + threadIdx.y) * P;
    if (elev >= prm.n_elev || iz_first >= prm.n_z)
        return;
    const int lat = prm.lat0 + int(blockIdx.z) * B;

    const float y = fmaf(float(elev), prm.delev, prm.elev0);
    const float last = float(prm.n_zl - 1);
    float z[P];
    bool in_grid[P];
#pragma unroll
    for (int p = 0; p < P; p++) {
        z[p] = fmaf(float(iz_first + p), prm.dz, prm.z0);
        in_grid[p] = iz_first + p < prm.n_z;
    }

    S acc[P][B];
#pragma unroll
    for (int p = 0; p < P; p++)
#pragma unroll
        for (int b = 0; b < B; b++)
            acc[p][b] = O::zero();

    const S* __restrict__ planes = static_cast<const S*>(prm.lri) + size_t(lat) * prm.lat_stride;
    for (int j = 0; j < prm.n_tx; j++) {
        const float2 src = __ldg(prm.sources + j);
        const float dy = y - src.x;
        const float dy2 = dy * dy;
        float fa[P], apo[P], cycles[P];
        bool good[P];
        bool any = false;
#pragma unroll
        for (int p = 0; p < P; p++) {
            const float dz = z[p] - src.y;
            const float u = prm.f_number * __fdividef(dy, dz);
            const float r = sqrtf(fmaf(dz, dz, dy2));
            const float shift = 0.5f * __fdividef(dy2, r + dz); // f(y, z) - z
            fa[p] = fmaf(shift, prm.inv_dz, float(iz_first + p));
            good[p] = in_grid[p] && fabsf(u) <= 0.5f && fa[p] <= last;
            apo[p] = hann(u);
            cycles[p] = prm.cycles_per_m * shift;
            any |= good[p];
        }
        if (!any)
            continue;
        T t;
        t.setup(fa, apo, cycles, good, prm.n_zl);
        const S* term_row = planes + size_t(j) * prm.lri_stride;
        t.accumulate(term_row + t.first[T::MID] + 1 - T::SLOT0, prm.lat_stride, acc);
        if (P > 1 && (t.stray[0] || t.stray[P - 1]))
            t.accumulate_strays(term_row, prm.lat_stride, fa, acc);
    }

    float peak = 0.0f;
#pragma unroll
    for (int b = 0; b < B; b++) {
        const size_t base = size_t(lat + b) * prm.store.stride_lat + size_t(elev) * prm.store.stride_elev;
#pragma unroll
        for (int p = 0; p < P; p++)
            if (in_grid[p])
                store_voxel(prm.store, base + iz_first + p, acc[p][b], peak);
    }
    publish_peak(prm.store, peak);
}

//! One launch of a stage: n_chunks chunks of B frames from the parameters' first frame.
template <typename S, int B, int P, typename Params>
void launch_stage_chunk(const Params& prm, dim3 block, dim3 grid_xy, int n_chunks, gpuStream_t stream)
{
    const dim3 grid(grid_xy.x, grid_xy.y, unsigned(n_chunks));
    if constexpr (std::is_same_v<Params, stage1_params>) {
        rca_stage1_kernel<S, B, P><<<grid, block, 0, stream>>>(prm);
        BF_GPU_CHECK_LAUNCH("rca_stage1_kernel");
    } else {
        rca_stage2_kernel<S, B, P><<<grid, block, 0, stream>>>(prm);
        BF_GPU_CHECK_LAUNCH("rca_stage2_kernel");
    }
}

/*!
 * Frames [first, first + count) of a stage, in as few launches as the batch
 * sizes allow: chunks of max_batch, then of the smaller powers of two.
 * \p set_first writes the chunk's first frame into the parameters.
 */
template <typename S, int P, typename Params, typename SetFirst>
void launch_stage(Params prm,
                  SetFirst set_first,
                  int first,
                  int count,
                  int max_batch,
                  dim3 block,
                  dim3 grid_xy,
                  gpuStream_t stream)
{
    int frame = first;
    int remaining = count;
    for (int batch = 16; batch >= 1; batch /= 2) {
        if (batch > max_batch)
            continue;
        const int chunks = remaining / batch;
        if (chunks == 0)
            continue;
        for (int done = 0; done < chunks;) {
            const int n = chunks - done < 65535 ? chunks - done : 65535;
            set_first(prm, frame);
            switch (batch) {
            case 16:
                launch_stage_chunk<S, 16, P>(prm, block, grid_xy, n, stream);
                break;
            case 8:
                launch_stage_chunk<S, 8, P>(prm, block, grid_xy, n, stream);
                break;
            case 4:
                launch_stage_chunk<S, 4, P>(prm, block, grid_xy, n, stream);
                break;
            case 2:
                launch_stage_chunk<S, 2, P>(prm, block, grid_xy, n, stream);
                break;
            default:
                launch_stage_chunk<S, 1, P>(prm, block, grid_xy, n, stream);
                break;
            }
            frame += n * batch;
            remaining -= n * batch;
            done += n;
        }
    }
}

} // namespace rca
} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
