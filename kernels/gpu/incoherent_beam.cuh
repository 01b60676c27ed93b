/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * incoherent_beam: receiver powers summed per channel and over n_int spectra
 * (the engine's contract: include/gnuradio/beamform/engines/incoherent_beam_engine.h),
 * in two kernels, neither of which needs shared memory or warp shuffles:
 *   incoherent_partial_kernel  one thread per (channel, receiver) (or X/Y
 *                              pair): the sum over the n_int spectra of an
 *                              output, reads coalesced like a copy;
 *   incoherent_sum_kernel      one thread per (stokes, channel): the sum of
 *                              the partials over receivers, in order.
 * The partials are 1 / (2 n_int) of the input (pairs with IQUV: 1 / n_int).
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_INCOHERENT_BEAM_CUH
#define INCLUDED_BEAMFORM_KERNELS_INCOHERENT_BEAM_CUH

#include <common/gpu_portable.h>
#include <cstdint>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

constexpr int incoherent_threads = 256;

/*!
 * Grid: x over lanes (n_lanes = receivers, or pairs when iquv), y over
 * outputs (grid-stride). partial[o][s][c][lane], s < n_stokes.
 */
__global__ void __launch_bounds__(incoherent_threads)
    incoherent_partial_kernel(const float2* in,
                              float* partial,
                              unsigned n_channels,
                              unsigned n_receivers,
                              unsigned n_int,
                              unsigned n_out,
                              int iquv)
{
    const unsigned lanes_per_channel = iquv ? n_receivers / 2 : n_receivers;
    const unsigned n_lanes = n_channels * lanes_per_channel;
    const unsigned lane = blockIdx.x * blockDim.x + threadIdx.x;
    if (lane >= n_lanes)
        return;
    const size_t item = size_t(n_channels) * n_receivers;
    for (unsigned o = blockIdx.y; o < n_out; o += gridDim.y) {
        const float2* x = in + size_t(o) * n_int * item;
        if (!iquv) {
            float p = 0.0f;
            for (unsigned t = 0; t < n_int; t++) {
                const float2 v = x[size_t(t) * item + lane];
                p += v.x * v.x + v.y * v.y;
            }
            partial[size_t(o) * n_lanes + lane] = p;
            continue;
        }
        const float4* x4 = reinterpret_cast<const float4*>(x);
        float i = 0.0f, q = 0.0f, u = 0.0f, w = 0.0f;
        for (unsigned t = 0; t < n_int; t++) {
            const float4 v = x4[size_t(t) * (item / 2) + lane]; // X = (x, y), Y = (z, w)
            const float xx = v.x * v.x + v.y * v.y, yy = v.z * v.z + v.w * v.w;
            i += xx + yy;
            q += xx - yy;
            u += 2.0f * (v.x * v.z + v.y * v.w);
            w += 2.0f * (v.y * v.z - v.x * v.w);
        }
        float* p = partial + size_t(o) * 4 * n_lanes + lane;
        p[0] = i;
        p[n_lanes] = q;
        p[2 * n_lanes] = u;
        p[3 * n_lanes] = w;
    }
}

/*!
 * Grid: x over (stokes, channel), y over outputs (grid-stride).
 * out[o][s][c] = sum over lanes of partial[o][s][c][lane].
 */
__global__ void __launch_bounds__(incoherent_threads)
    incoherent_sum_kernel(const float* partial,
                          float* out,
                          unsigned n_rows,
                          unsigned lanes_per_channel,
                          unsigned n_out)
{
    const unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n_rows)
        return;
    for (unsigned o = blockIdx.y; o < n_out; o += gridDim.y) {
        const float* p = partial + (size_t(o) * n_rows + row) * lanes_per_channel;
        float s = 0.0f;
        for (unsigned k = 0; k < lanes_per_channel; k++)
            s += p[k];
        out[size_t(o) * n_rows + row] = s;
    }
}

//! Launch shapes, shared by the engine and the emulated test.
inline dim3 incoherent_grid(size_t n_threads, size_t n_out)
{
    return dim3(unsigned((n_threads + incoherent_threads - 1) / incoherent_threads),
                unsigned(n_out < 65535 ? n_out : 65535));
}

//! Lanes per channel: receivers, or X/Y pairs with IQUV.
inline unsigned incoherent_lanes(unsigned n_receivers, bool iquv)
{
    return iquv ? n_receivers / 2 : n_receivers;
}

#ifndef BF_GPU_EMULATION
inline void launch_incoherent_beam(const float2* in,
                                   float* partial,
                                   float* out,
                                   unsigned n_channels,
                                   unsigned n_receivers,
                                   unsigned n_int,
                                   unsigned n_out,
                                   bool iquv,
                                   gpuStream_t stream)
{
    if (n_out == 0)
        return;
    const unsigned lanes = incoherent_lanes(n_receivers, iquv);
    const unsigned n_stokes = iquv ? 4 : 1;
    incoherent_partial_kernel<<<incoherent_grid(size_t(n_channels) * lanes, n_out),
                                incoherent_threads,
                                0,
                                stream>>>(
        in, partial, n_channels, n_receivers, n_int, n_out, iquv ? 1 : 0);
    BF_GPU_CHECK_LAUNCH("incoherent_partial_kernel");
    incoherent_sum_kernel<<<incoherent_grid(size_t(n_stokes) * n_channels, n_out),
                            incoherent_threads,
                            0,
                            stream>>>(partial, out, n_stokes * n_channels, lanes, n_out);
    BF_GPU_CHECK_LAUNCH("incoherent_sum_kernel");
}
#endif

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
