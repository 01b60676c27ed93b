/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rfi_flagger: spectral-kurtosis flagging of spectra [item][channel][receiver]
 * (the engine's contract: include/gnuradio/beamform/engines/rfi_flagger_engine.h).
 * Two paths, chosen by the block size M (rfi_path_for; the host side, from
 * the choice of path to the launches of a group, is
 * lib/engines/rfi_flagger/rfi_flagger_gpu_plan.h):
 *
 * The fused path (M <= 256: at most rfi_fused_max_segments segments of 16
 * spectra), which reads the input once:
 *   rfi_fused_kernel     one thread block per tile of consecutive (channel,
 *                        receiver) elements x one block of M spectra; each
 *                        thread holds one segment of 16 spectra of one element
 *                        in registers, the segments' sums are added in order
 *                        through shared memory, one thread decides the flag,
 *                        and every thread writes its values: unflagged ones
 *                        unchanged, flagged ones as zeros (replace=zeros
 *                        without the MAD criterion: this kernel is all) or
 *                        not at all (the patch follows);
 *   rfi_receiver_kernel  (noise or MAD only) as below, which may add flags;
 *   rfi_patch_kernel     (noise or MAD only) writes the replacement of the
 *                        flagged (block, element) entries only, reading the
 *                        flags, not the input.
 *
 * The segment path (longer blocks, whose values do not fit in the registers
 * of one thread block), in four kernels per group of blocks:
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
 * can come from L2 (plus the segment sums, 1/8 of the input).
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

//! Segments of rfi_math::sum_segment spectra in a block of \p block_size.
__host__ __device__ inline unsigned rfi_segments(unsigned block_size)
{
    return (block_size + rfi_math::sum_segment - 1) / rfi_math::sum_segment;
}

//! The fused path takes blocks of at most this many segments (M <= 256): one
//! thread per segment of a tile's element, 32 elements at least per tile.
constexpr unsigned rfi_fused_max_segments = 16;
constexpr unsigned rfi_fused_max_threads = 32 * rfi_fused_max_segments;
constexpr unsigned rfi_patch_threads = 256;

/*!
 * The fused kernel's tile: \p elements consecutive elements (a multiple of
 * 32: whole warps read 256 contiguous bytes per spectrum) times \p segments
 * threads each, about 256 threads (up to 512 for 9 to 16 segments).
 */
struct rfi_fused_shape {
    unsigned segments;
    unsigned elements;
    __host__ __device__ unsigned threads() const { return segments * elements; }
    //! S1 and S2 of each (segment, element) in double, one flag per element.
    __host__ __device__ size_t shared_bytes() const
    {
        return 2 * size_t(segments) * elements * sizeof(double) +
               elements * sizeof(unsigned);
    }
};

__host__ __device__ inline rfi_fused_shape rfi_fused_shape_for(unsigned block_size)
{
    const unsigned segments = rfi_segments(block_size);
    const unsigned warps = 256 / (32 * segments);
    return rfi_fused_shape{ segments, 32 * (warps > 1 ? warps : 1) };
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

//! Channels staged in shared memory at a time for the noise power's sum.
constexpr unsigned rfi_receiver_chunk = 4 * rfi_receiver_threads;
constexpr size_t rfi_receiver_shared_bytes =
    rfi_receiver_chunk * (sizeof(double) + sizeof(uint8_t));

/*!
 * Grid: x over receivers, y over the group's blocks; one thread block of
 * rfi_receiver_threads per (block, receiver), dynamic shared memory
 * rfi_receiver_shared_bytes. \p scratch: 2 doubles per (block, receiver).
 * Writes scale[b][a] (rfi_math::noise_scale).
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
    extern __shared__ float2 pfb_smem[];
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
    // The noise power: the unflagged channels' S1 added in channel order (the
    // CPU engine's sum) by one thread, from shared memory that all threads
    // fill a chunk at a time (the loads in parallel, the additions in order).
    double* chunk_s1 = reinterpret_cast<double*>(pfb_smem);
    uint8_t* chunk_flag = reinterpret_cast<uint8_t*>(chunk_s1 + rfi_receiver_chunk);
    double sum = 0.0;
    unsigned count = 0;
    for (unsigned c0 = 0; c0 < n_channels; c0 += rfi_receiver_chunk) {
        const unsigned len =
            n_channels - c0 < rfi_receiver_chunk ? n_channels - c0 : rfi_receiver_chunk;
        for (unsigned c = threadIdx.x; c < len; c += blockDim.x) {
            chunk_flag[c] = flags[size_t(c0 + c) * n_receivers];
            chunk_s1[c] = s1[size_t(c0 + c) * n_receivers];
        }
        __syncthreads();
        if (threadIdx.x == 0)
            for (unsigned c = 0; c < len; c++)
                if (!chunk_flag[c]) {
                    sum = sum + chunk_s1[c];
                    count++;
                }
        __syncthreads(); // the chunk is rewritten next
    }
    if (threadIdx.x == 0) {
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

/*!
 * The fused path's flagger: grid x over tiles of rfi_fused_shape_for(M).elements
 * consecutive elements, y over the group's blocks (at most 65535), blockDim
 * rfi_fused_shape::threads(), dynamic shared memory shared_bytes(). Thread
 * (segment s, element e) = threadIdx.x (s * elements + e) loads its up to 16
 * values (all loads issued before the sums; a warp reads 32 consecutive
 * elements of one spectrum), sums them as rfi_segment_kernel does, and the
 * segment-0 thread adds the segments in order as rfi_decide_kernel does: the
 * same bits as the CPU engine. Writes the flags, S1 when \p s1_out is not
 * null, and out: unflagged values unchanged; flagged ones zeros when
 * \p zero_flagged, else left for rfi_patch_kernel. in == out is allowed (each
 * thread writes only the values it has read).
 */
__global__ void __launch_bounds__(rfi_fused_max_threads)
    rfi_fused_kernel(const float2* in,
                     float2* out,
                     double* s1_out,
                     uint8_t* flags,
                     unsigned n_elements,
                     unsigned block_size,
                     unsigned n_blocks,
                     double lower,
                     double upper,
                     int zero_flagged)
{
    extern __shared__ float2 pfb_smem[];
    constexpr unsigned L = rfi_math::sum_segment;
    const rfi_fused_shape shape = rfi_fused_shape_for(block_size);
    const unsigned n_tile = shape.elements;
    const unsigned e = threadIdx.x % n_tile, seg = threadIdx.x / n_tile;
    double* seg_s1 = reinterpret_cast<double*>(pfb_smem); // [segment][element]
    double* seg_s2 = seg_s1 + shape.segments * n_tile;
    unsigned* flagged = reinterpret_cast<unsigned*>(seg_s2 + shape.segments * n_tile);
    const unsigned j = blockIdx.x * n_tile + e;
    const unsigned b = blockIdx.y;
    const bool active = j < n_elements;
    const unsigned t0 = seg * L;
    const unsigned len = block_size - t0 < L ? block_size - t0 : L; // >= 1
    const size_t stride = n_elements;
    const float2* x = in + (size_t(b) * block_size + t0) * stride + j;
    float2 v[L];
    double s1 = 0.0, s2 = 0.0;
    if (active) {
        if (len == L) {
#pragma unroll
            for (unsigned k = 0; k < L; k++)
                v[k] = x[k * stride];
        } else {
#pragma unroll
            for (unsigned k = 0; k < L; k++)
                if (k < len)
                    v[k] = x[k * stride];
        }
#pragma unroll
        for (unsigned k = 0; k < L; k++)
            if (k < len)
                rfi_math::accumulate(s1, s2, rfi_math::power(v[k].x, v[k].y));
    }
    seg_s1[seg * n_tile + e] = s1;
    seg_s2[seg * n_tile + e] = s2;
    __syncthreads();
    if (seg == 0 && active) {
        double t1 = 0.0, t2 = 0.0;
        for (unsigned s = 0; s < shape.segments; s++) {
            t1 = t1 + seg_s1[s * n_tile + e];
            t2 = t2 + seg_s2[s * n_tile + e];
        }
        const bool f = rfi_math::sk_flagged(t1, t2, double(block_size), lower, upper);
        flagged[e] = f ? 1u : 0u;
        const size_t o = size_t(b) * stride + j;
        flags[o] = f ? 1 : 0;
        if (s1_out)
            s1_out[o] = t1;
    }
    __syncthreads();
    if (active) {
        const bool f = flagged[e] != 0;
        if (!f || zero_flagged) {
            float2* y = out + (x - in);
#pragma unroll
            for (unsigned k = 0; k < L; k++)
                if (k < len)
                    y[k * stride] = f ? make_float2(0.0f, 0.0f) : v[k];
        }
    }
}

/*!
 * The replacement of the flagged entries, after rfi_fused_kernel (which left
 * them unwritten) and rfi_receiver_kernel (MAD flags, noise scale): grid x
 * over chunks of rfi_patch_threads elements, y over the group's blocks
 * (grid-stride); dynamic shared memory rfi_patch_shared_bytes. The chunk's
 * flagged elements are listed in order (a prefix sum over the chunk, Hillis
 * & Steele 1986, "Data parallel algorithms", CACM 29(12)), then the threads
 * share their (element, item) values, consecutive threads on consecutive
 * listed elements of one item. Reads only the flags: a chunk without flags
 * costs one read of 256 bytes.
 */
constexpr size_t rfi_patch_shared_bytes = 3 * rfi_patch_threads * sizeof(unsigned);

__global__ void __launch_bounds__(rfi_patch_threads)
    rfi_patch_kernel(float2* out,
                     const uint8_t* flags,
                     const double* scale,
                     unsigned n_elements,
                     unsigned n_receivers,
                     unsigned block_size,
                     unsigned n_blocks,
                     uint64_t first_item,
                     uint64_t seed,
                     int noise)
{
    extern __shared__ float2 pfb_smem[];
    const unsigned n_chunk = blockDim.x, e = threadIdx.x;
    unsigned* scan = reinterpret_cast<unsigned*>(pfb_smem); // [2][n_chunk]
    unsigned* list = scan + 2 * n_chunk;                    // [n_chunk]
    const unsigned j0 = blockIdx.x * n_chunk;
    for (unsigned b = blockIdx.y; b < n_blocks; b += gridDim.y) {
        const unsigned f =
            (j0 + e < n_elements && flags[size_t(b) * n_elements + j0 + e]) ? 1u : 0u;
        // Inclusive prefix sum of f over the chunk, double-buffered.
        unsigned src = 0;
        scan[e] = f;
        __syncthreads();
        for (unsigned d = 1; d < n_chunk; d *= 2) {
            const unsigned* x = scan + src * n_chunk;
            scan[(1 - src) * n_chunk + e] = x[e] + (e >= d ? x[e - d] : 0u);
            src = 1 - src;
            __syncthreads();
        }
        const unsigned count = scan[src * n_chunk + n_chunk - 1];
        if (f)
            list[scan[src * n_chunk + e] - 1] = e;
        __syncthreads();
        const size_t t_block = size_t(b) * block_size; // the block's first item
        for (unsigned i = e; i < count * block_size; i += n_chunk) {
            const unsigned j = j0 + list[i % count];
            const size_t t = t_block + i / count;
            float2 y = make_float2(0.0f, 0.0f);
            if (noise)
                rfi_math::noise_value(seed,
                                      first_item + t,
                                      j,
                                      scale[size_t(b) * n_receivers + j % n_receivers],
                                      y.x,
                                      y.y);
            out[t * n_elements + j] = y;
        }
        __syncthreads(); // scan and list are rewritten for the next block
    }
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
