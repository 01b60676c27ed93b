/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rfi_flagger: spectral-kurtosis flagging of spectra [item][channel][receiver]
 * (the engine's contract: include/gnuradio/beamform/engines/rfi_flagger_engine.h),
 * in four kernels per group of blocks of M items:
 *   rfi_segment_kernel   the sums of P and P^2 over segments of 16 spectra, one
 *                        thread per (segment, channel, receiver): enough loads
 *                        in flight even when a group is a single block;
 *   rfi_decide_kernel    S1, S2 from the segments (added in order) and the SK
 *                        flag of each (block, channel, receiver);
 *   rfi_receiver_kernel  per (block, receiver): the power-outlier criterion over
 *                        channels (median and MAD by rank selection) and the
 *                        scale of the replacement noise; launched only when
 *                        either is asked for;
 *   rfi_apply_kernel     the copy, with flagged values replaced.
 * The engine runs them on groups of blocks small enough to stay in L2
 * (rfi_group_blocks), so that the apply kernel's second read of the input
 * comes from L2 and the DRAM traffic is that of a copy (plus the segment
 * sums, 1/8 of the input, which stay in L2 too).
 *
 * All arithmetic is kernels/common/rfi_flagger_math.h's, shared with the CPU
 * engine: masks and replaced values are bit-identical.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_RFI_FLAGGER_CUH
#define INCLUDED_BEAMFORM_KERNELS_RFI_FLAGGER_CUH

#include <common/gpu_portable.h>
#include <common/rfi_flagger_math.h>
#include <cstdint>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

constexpr int rfi_threads = 256;
constexpr int rfi_receiver_threads = 128;
constexpr int rfi_apply_items_per_thread = 8;

//! Blocks of M items per group: input of about 24 MiB (half an H100's L2),
//! at most 65535 (the receiver kernel's grid y).
inline size_t rfi_group_blocks(size_t block_size, size_t n_elements)
{
    const size_t block_bytes = block_size * n_elements * 8;
    const size_t target = size_t(24) << 20;
    const size_t blocks = block_bytes >= target ? 1 : target / block_bytes;
    return blocks < 65535 ? blocks : 65535;
}

//! Segments of rfi_math::sum_segment spectra in a block of \p block_size.
__host__ __device__ inline unsigned rfi_segments(unsigned block_size)
{
    return (block_size + rfi_math::sum_segment - 1) / rfi_math::sum_segment;
}

/*!
 * The sums of one segment: grid x over (channel, receiver) elements
 * (coalesced), y over the group's (block, segment) pairs (grid-stride). Each
 * thread sums its element's powers over up to rfi_math::sum_segment spectra,
 * all loads issued before the sums. seg_s1, seg_s2: [block][segment][element].
 */
__global__ void __launch_bounds__(rfi_threads) rfi_segment_kernel(const float2* in,
                                                                  double* seg_s1,
                                                                  double* seg_s2,
                                                                  unsigned n_elements,
                                                                  unsigned block_size,
                                                                  unsigned n_blocks)
{
    const unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n_elements)
        return;
    constexpr unsigned L = rfi_math::sum_segment;
    const unsigned n_seg = rfi_segments(block_size);
    const size_t n_pairs = size_t(n_blocks) * n_seg;
    for (size_t bs = blockIdx.y; bs < n_pairs; bs += gridDim.y) {
        const size_t b = bs / n_seg;
        const unsigned t0 = unsigned(bs % n_seg) * L;
        const unsigned len = block_size - t0 < L ? block_size - t0 : L;
        const float2* x = in + (b * block_size + t0) * n_elements + j;
        double s1 = 0.0, s2 = 0.0;
        if (len == L) {
            float2 v[L];
#pragma unroll
            for (unsigned k = 0; k < L; k++)
                v[k] = x[size_t(k) * n_elements];
#pragma unroll
            for (unsigned k = 0; k < L; k++)
                rfi_math::accumulate(s1, s2, rfi_math::power(v[k].x, v[k].y));
        } else {
            for (unsigned k = 0; k < len; k++) {
                const float2 v = x[size_t(k) * n_elements];
                rfi_math::accumulate(s1, s2, rfi_math::power(v.x, v.y));
            }
        }
        seg_s1[bs * n_elements + j] = s1;
        seg_s2[bs * n_elements + j] = s2;
    }
}

/*!
 * S1, S2 of each (block, element) from its segments, added in order, and the
 * SK flag: grid x over elements, y over the group's blocks (grid-stride).
 */
__global__ void __launch_bounds__(rfi_threads) rfi_decide_kernel(const double* seg_s1,
                                                                 const double* seg_s2,
                                                                 double* s1_out,
                                                                 uint8_t* flags,
                                                                 unsigned n_elements,
                                                                 unsigned block_size,
                                                                 unsigned n_blocks,
                                                                 double lower,
                                                                 double upper)
{
    const unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n_elements)
        return;
    const unsigned n_seg = rfi_segments(block_size);
    for (unsigned b = blockIdx.y; b < n_blocks; b += gridDim.y) {
        double s1 = 0.0, s2 = 0.0;
        for (unsigned s = 0; s < n_seg; s++) {
            const size_t k = (size_t(b) * n_seg + s) * n_elements + j;
            s1 = s1 + seg_s1[k];
            s2 = s2 + seg_s2[k];
        }
        const size_t o = size_t(b) * n_elements + j;
        s1_out[o] = s1;
        flags[o] = rfi_math::sk_flagged(s1, s2, double(block_size), lower, upper) ? 1 : 0;
    }
}

/*!
 * The value of rank \p rank (0 = smallest) among key(0..n-1), ties broken by
 * index, found by this thread block together: the thread that holds it writes
 * it to \p out. Followed by a barrier.
 */
template <typename Key>
__device__ inline void rfi_select_rank(Key key, unsigned n, unsigned rank, double* out)
{
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) {
        const double ki = key(i);
        unsigned r = 0;
        for (unsigned k = 0; k < n; k++) {
            const double kk = key(k);
            r += (kk < ki || (kk == ki && k < i)) ? 1u : 0u;
        }
        if (r == rank)
            *out = ki;
    }
    __syncthreads();
}

//! Median of key(0..n-1) through rfi_select_rank; \p slots: 2 doubles of scratch.
template <typename Key>
__device__ inline double rfi_median(Key key, unsigned n, double* slots)
{
    const unsigned h = n / 2;
    rfi_select_rank(key, n, h, &slots[1]);
    if (n % 2 == 0)
        rfi_select_rank(key, n, h - 1, &slots[0]);
    const double m = (n % 2) ? slots[1] : (slots[0] + slots[1]) * 0.5;
    __syncthreads(); // every thread has read the slots before they are reused
    return m;
}

/*!
 * Grid: x over receivers, y over the group's blocks; one thread block of
 * rfi_receiver_threads per (block, receiver). \p scratch: 2 doubles per
 * (block, receiver). Writes scale[b][a] (rfi_math::noise_scale).
 */
__global__ void __launch_bounds__(rfi_receiver_threads)
    rfi_receiver_kernel(const double* s1_all,
                        uint8_t* flags_all,
                        double* scale,
                        double* scratch,
                        unsigned n_channels,
                        unsigned n_receivers,
                        unsigned block_size,
                        double mad_threshold)
{
    const unsigned a = blockIdx.x, b = blockIdx.y;
    const size_t n_elements = size_t(n_channels) * n_receivers;
    const double* s1 = s1_all + b * n_elements + a;
    uint8_t* flags = flags_all + b * n_elements + a;
    if (mad_threshold > 0.0) {
        double* slots = scratch + 2 * (size_t(b) * n_receivers + a);
        const double median = rfi_median(
            [&](unsigned c) { return rfi_math::order_key(s1[size_t(c) * n_receivers]); },
            n_channels,
            slots);
        const double mad = rfi_median(
            [&](unsigned c) {
                return rfi_math::order_key(
                    fabs(rfi_math::order_key(s1[size_t(c) * n_receivers]) - median));
            },
            n_channels,
            slots);
        for (unsigned c = threadIdx.x; c < n_channels; c += blockDim.x)
            if (rfi_math::power_outlier(
                    s1[size_t(c) * n_receivers], median, mad, mad_threshold))
                flags[size_t(c) * n_receivers] = 1;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        // One thread, channels in order: the same sum as the CPU engine.
        double sum = 0.0;
        unsigned count = 0;
        for (unsigned c = 0; c < n_channels; c++)
            if (!flags[size_t(c) * n_receivers]) {
                sum = sum + s1[size_t(c) * n_receivers];
                count++;
            }
        const double power = count ? sum / (double(block_size) * double(count)) : 0.0;
        scale[size_t(b) * n_receivers + a] = rfi_math::noise_scale(power);
    }
}

/*!
 * Grid: x over elements, y over chunks of rfi_apply_items_per_thread items
 * (grid-stride), like the phase_shift kernel. \p first_item is the absolute
 * index of in[0] (the noise's counter). in == out is allowed.
 */
__global__ void __launch_bounds__(rfi_threads) rfi_apply_kernel(const float2* in,
                                                                float2* out,
                                                                const uint8_t* flags,
                                                                const double* scale,
                                                                unsigned n_elements,
                                                                unsigned n_receivers,
                                                                unsigned block_size,
                                                                size_t n_items,
                                                                uint64_t first_item,
                                                                uint64_t seed,
                                                                int noise)
{
    const unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n_elements)
        return;
    constexpr int K = rfi_apply_items_per_thread;
    const size_t n_chunks = (n_items + K - 1) / K;
    const unsigned receiver = j % n_receivers;
    for (size_t chunk = blockIdx.y; chunk < n_chunks; chunk += gridDim.y) {
        const size_t t0 = chunk * K;
        const size_t t1 = t0 + K < n_items ? t0 + K : n_items;
        // The block of item t, kept by counting (no 64-bit division per item;
        // block_size >= 2, so at most one boundary per step).
        size_t b = t0 / block_size;
        size_t next_block = (b + 1) * block_size;
        float2 v[K];
#pragma unroll
        for (int k = 0; k < K; k++)
            if (t0 + k < t1)
                v[k] = in[(t0 + k) * n_elements + j];
#pragma unroll
        for (int k = 0; k < K; k++) {
            const size_t t = t0 + k;
            if (t >= t1)
                break;
            if (t == next_block) {
                b++;
                next_block += block_size;
            }
            float2 y = v[k];
            if (flags[b * n_elements + j]) {
                if (noise) {
                    rfi_math::noise_value(seed,
                                          first_item + t,
                                          j,
                                          scale[b * n_receivers + receiver],
                                          y.x,
                                          y.y);
                } else {
                    y.x = 0.0f;
                    y.y = 0.0f;
                }
            }
            out[t * n_elements + j] = y;
        }
    }
}

//! Launch shapes, shared by the engine and the emulated test.
inline dim3 rfi_element_grid(unsigned n_elements, size_t n_rows)
{
    return dim3((n_elements + rfi_threads - 1) / rfi_threads,
                unsigned(n_rows < 65535 ? n_rows : 65535));
}
inline dim3 rfi_apply_grid(unsigned n_elements, size_t n_items)
{
    const size_t chunks =
        (n_items + rfi_apply_items_per_thread - 1) / rfi_apply_items_per_thread;
    return dim3((n_elements + rfi_threads - 1) / rfi_threads,
                unsigned(chunks < 65535 ? chunks : 65535));
}

#ifndef BF_GPU_EMULATION
//! What one group needs: device pointers of its input, output, and scratch.
struct rfi_group_args {
    const float2* in;
    float2* out;
    double* seg_s1;  //!< [blocks][segments][elements]
    double* seg_s2;  //!< [blocks][segments][elements]
    double* s1;      //!< [blocks][elements]
    uint8_t* flags;  //!< [blocks][elements]
    double* scale;   //!< [blocks][receivers]
    double* scratch; //!< [blocks][receivers][2]
    unsigned n_channels, n_receivers, block_size, n_blocks;
    double lower, upper, mad_threshold;
    uint64_t first_item, seed;
    bool noise;
};

inline void launch_rfi_flagger_group(const rfi_group_args& g, gpuStream_t stream)
{
    if (g.n_blocks == 0)
        return;
    const unsigned n = g.n_channels * g.n_receivers;
    const size_t n_segments = size_t(g.n_blocks) * rfi_segments(g.block_size);
    rfi_segment_kernel<<<rfi_element_grid(n, n_segments), rfi_threads, 0, stream>>>(
        g.in, g.seg_s1, g.seg_s2, n, g.block_size, g.n_blocks);
    BF_GPU_CHECK_LAUNCH("rfi_segment_kernel");
    rfi_decide_kernel<<<rfi_element_grid(n, g.n_blocks), rfi_threads, 0, stream>>>(
        g.seg_s1, g.seg_s2, g.s1, g.flags, n, g.block_size, g.n_blocks, g.lower, g.upper);
    BF_GPU_CHECK_LAUNCH("rfi_decide_kernel");
    if (g.mad_threshold > 0.0 || g.noise) {
        rfi_receiver_kernel<<<dim3(g.n_receivers, g.n_blocks),
                              rfi_receiver_threads,
                              0,
                              stream>>>(g.s1,
                                        g.flags,
                                        g.scale,
                                        g.scratch,
                                        g.n_channels,
                                        g.n_receivers,
                                        g.block_size,
                                        g.mad_threshold);
        BF_GPU_CHECK_LAUNCH("rfi_receiver_kernel");
    }
    const size_t n_items = size_t(g.n_blocks) * g.block_size;
    rfi_apply_kernel<<<rfi_apply_grid(n, n_items), rfi_threads, 0, stream>>>(
        g.in,
        g.out,
        g.flags,
        g.scale,
        n,
        g.n_receivers,
        g.block_size,
        n_items,
        g.first_item,
        g.seed,
        g.noise ? 1 : 0);
    BF_GPU_CHECK_LAUNCH("rfi_apply_kernel");
}
#endif

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
