/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rca_das kernels that work on whole volumes: the conventional full 3D RCA
 * delay-and-sum (the paper's reference, Fig. 9: one thread per voxel, every
 * emission and receiver, early exit only), the axial Hilbert pass that turns a
 * real volume into base-band I/Q or its envelope, and the dB pass.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_RCA_DAS_VOLUME_CUH
#define INCLUDED_BEAMFORM_KERNELS_RCA_DAS_VOLUME_CUH

#include "rca_das_common.cuh"

namespace gr {
namespace beamform {
namespace BF_GPU_NS {
namespace rca {

struct conventional_params {
    const void* data;      //!< filtered RF [emission][receiver][row_stride]
    size_t frame_stride;   //!< n_rx * row_stride
    int row_stride;
    int n_t;
    int n_rx, n_tx;
    int n_lat, n_elev, n_z;
    float lat0, dlat, elev0, delev, z0, dz;
    float rx0, pitch;
    float f_number;
    float fs_over_c, t0_fs;
    float cycles_per_m;    //!< f_d / c
    const float2* sources; //!< [n_tx] (elevation position, depth)
    volume_store store;
};

template <typename S>
__global__ void __launch_bounds__(256) rca_conventional_kernel(conventional_params prm)
{
    using O = ops<S>;
    const int iz = blockIdx.x * blockDim.x + threadIdx.x;
    const int elev = blockIdx.y * blockDim.y + threadIdx.y;
    const int lat = blockIdx.z;
    if (iz >= prm.n_z || elev >= prm.n_elev)
        return;
    const float x = fmaf(float(lat), prm.dlat, prm.lat0);
    const float y = fmaf(float(elev), prm.delev, prm.elev0);
    const float z = fmaf(float(iz), prm.dz, prm.z0);
    const float z2 = z * z;
    const float inv_z = 1.0f / z;
    const float last = float(prm.n_t - 1);
    const S* __restrict__ data = static_cast<const S*>(prm.data);

    S sum = O::zero();
    for (int j = 0; j < prm.n_tx; j++) {
        const float2 src = __ldg(prm.sources + j);
        const float dy = y - src.x;
        const float dz = z - src.y;
        const float u_tx = prm.f_number * __fdividef(dy, dz);
        if (fabsf(u_tx) > 0.5f)
            continue;
        const float big_r = sqrtf(fmaf(dy, dy, dz * dz));
        const float apo_tx = hann(u_tx);
        // (z/c - t0) fs + (R + z_s - z) fs / c: the transmit part of the address
        const float fa_tx = fmaf(big_r + src.y, prm.fs_over_c, -prm.t0_fs);
        const float cycles_tx = prm.cycles_per_m * __fdividef(dy * dy, big_r + dz);
        const S* __restrict__ frame = data + size_t(j) * prm.frame_stride;
        for (int i = 0; i < prm.n_rx; i++) {
            const float dx = x - fmaf(float(i), prm.pitch, prm.rx0);
            const float u = prm.f_number * dx * inv_z;
            if (fabsf(u) > 0.5f)
                continue;
            const float r = sqrtf(fmaf(dx, dx, z2));
            const float fa = fmaf(r, prm.fs_over_c, fa_tx);
            if (!(fa >= 0.0f && fa <= last))
                continue;
            const int first = first_sample(fa, prm.n_t);
            float w[4];
            lagrange_weights(fa - float(first), w);
            const S* __restrict__ s = frame + size_t(i) * prm.row_stride + first + 1;
            S d = O::scale(w[0], __ldg(s));
            d = O::madd(d, w[1], __ldg(s + 1));
            d = O::madd(d, w[2], __ldg(s + 2));
            d = O::madd(d, w[3], __ldg(s + 3));
            const auto rot = O::rotation(apo_tx * hann(u),
                                         cycles_tx +
                                             prm.cycles_per_m * __fdividef(dx * dx, r + z));
            sum = O::rotate_add(sum, d, rot);
        }
    }
    float peak = 0.0f;
    store_voxel(prm.store,
                size_t(lat) * prm.store.stride_lat + size_t(elev) * prm.store.stride_elev + iz,
                sum,
                peak);
    publish_peak(prm.store, peak);
}

inline void launch_rca_conventional(bool iq, const conventional_params& prm, gpuStream_t stream)
{
    const dim3 block(32, 4);
    const dim3 grid((prm.n_z + block.x - 1) / block.x,
                    (prm.n_elev + block.y - 1) / block.y,
                    prm.n_lat);
    const auto kernel = iq ? rca_conventional_kernel<float2> : rca_conventional_kernel<float>;
    BF_RCA_LAUNCH("rca_conventional_kernel", kernel, grid, block, 0, stream, prm);
}

// ---------------------------------------------------------------------------
// Real volume -> base band (axial Hilbert FIR), envelope and dB
// ---------------------------------------------------------------------------

constexpr int axial_hilbert_taps = 33;

struct axial_params {
    const float* real_volume; //!< same voxel layout as the output
    int n_lat, n_elev, n_z;
    double z0_cycles;         //!< -(2 f_d / c) z0
    double dz_cycles;         //!< -(2 f_d / c) dz
    float taps[axial_hilbert_taps];
    volume_store store;       //!< store_complex or store_envelope
};

__global__ void __launch_bounds__(256) rca_axial_analytic_kernel(axial_params prm)
{
    const int iz = blockIdx.x * blockDim.x + threadIdx.x;
    const int elev = blockIdx.y * blockDim.y + threadIdx.y;
    const int lat = blockIdx.z;
    if (iz >= prm.n_z || elev >= prm.n_elev)
        return;
    const size_t line = size_t(lat) * prm.store.stride_lat + size_t(elev) * prm.store.stride_elev;
    const float* v = prm.real_volume + line;
    constexpr int half = axial_hilbert_taps / 2;
    float quadrature = 0.0f;
#pragma unroll
    for (int k = -half; k <= half; k++) {
        const int src = iz - k;
        if (k % 2 != 0 && src >= 0 && src < prm.n_z)
            quadrature = fmaf(prm.taps[k + half], v[src], quadrature);
    }
    double cycles = prm.z0_cycles + prm.dz_cycles * double(iz);
    cycles -= rint(cycles);
    const float2 rot = cis(float(cycles));
    const float re = v[iz];
    const float2 value = make_float2(re * rot.x - quadrature * rot.y, re * rot.y + quadrature * rot.x);
    float peak = 0.0f;
    store_voxel(prm.store, line + iz, value, peak);
    publish_peak(prm.store, peak);
}

inline void launch_rca_axial_analytic(const axial_params& prm, gpuStream_t stream)
{
    const dim3 block(64, 4);
    const dim3 grid((prm.n_z + block.x - 1) / block.x,
                    (prm.n_elev + block.y - 1) / block.y,
                    prm.n_lat);
    BF_RCA_LAUNCH("rca_axial_analytic_kernel", rca_axial_analytic_kernel, grid, block, 0, stream, prm);
}

//! out = 20 log10(max(envelope / reference, 1e-15)); reference from the bits of
//! the volume's maximum when \p max_bits is set, else \p fixed_reference.
__global__ void rca_db_kernel(float* __restrict__ volume,
                              size_t n,
                              const unsigned* __restrict__ max_bits,
                              float fixed_reference)
{
    float reference = max_bits ? __uint_as_float(*max_bits) : fixed_reference;
    if (!(reference > 0.0f))
        reference = 1.0f;
    const float inv = 1.0f / reference;
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        volume[i] = 20.0f * log10f(fmaxf(volume[i] * inv, 1e-15f));
}

inline void launch_rca_db(float* volume,
                          size_t n,
                          const unsigned* max_bits,
                          float fixed_reference,
                          gpuStream_t stream)
{
    const unsigned threads = 256;
    const size_t wanted = (n + threads - 1) / threads;
    const unsigned blocks = unsigned(wanted < 65536 ? wanted : 65536);
    BF_RCA_LAUNCH("rca_db_kernel", rca_db_kernel, dim3(blocks), dim3(threads), 0, stream,
                  volume, n, max_bits, fixed_reference);
}

} // namespace rca
} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
