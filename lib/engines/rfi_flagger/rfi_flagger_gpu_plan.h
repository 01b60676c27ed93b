/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Host-side planning of the rfi_flagger GPU engine: the path a block size
 * takes, the blocks of a group, each group's scratch, the kernels' grids and
 * arguments, and the launch sequence of one group. One definition for the
 * engine (rfi_flagger_gpu.cu) and the emulated test
 * (tests/cpp/test_rfi_flagger_emulated.cc), which runs the same launches on
 * the host: there, include emulation/gpu_emulation.h first (it selects the
 * namespace BF_GPU_NS that the kernels are compiled into).
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_RFI_FLAGGER_GPU_PLAN_H
#define INCLUDED_BEAMFORM_ENGINES_RFI_FLAGGER_GPU_PLAN_H

#include <gnuradio/beamform/engines/rfi_flagger_engine.h>
#include <gpu/rfi_flagger.cuh>
#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

enum class rfi_path { fused, segments };

inline rfi_path rfi_path_for(size_t block_size)
{
    return block_size <= size_t(rfi_fused_max_segments) * rfi_math::sum_segment
               ? rfi_path::fused
               : rfi_path::segments;
}

/*!
 * Blocks of M items per group. The segment path: input of about 24 MiB (half
 * an H100's L2), so that the apply kernel's second read can come from L2. The
 * fused path reads the input once; its group only bounds the scratch (S1 per
 * (block, element): 16 MiB) and the number of launches. At most 65535 (the
 * receiver kernel's grid y).
 */
inline size_t rfi_group_blocks(size_t block_size, size_t n_elements, rfi_path path)
{
    const size_t block_bytes = path == rfi_path::fused ? n_elements * sizeof(double)
                                                       : block_size * n_elements * 8;
    const size_t target = path == rfi_path::fused ? size_t(16) << 20 : size_t(24) << 20;
    const size_t blocks = block_bytes >= target ? 1 : target / block_bytes;
    return blocks < 65535 ? blocks : 65535;
}

//! The receiver step (rfi_receiver_kernel) runs for the MAD criterion or for
//! noise replacement (the noise scale); it reads S1 per (block, element).
inline bool rfi_receiver_step(double mad_threshold, bool noise)
{
    return mad_threshold > 0.0 || noise;
}

inline bool rfi_receiver_step(const rfi_flagger_config& c)
{
    return rfi_receiver_step(c.mad_threshold, c.replacement == rfi_replacement::noise);
}

//! Doubles of each scratch array for groups of \p group blocks (0: unused).
struct rfi_scratch_sizes {
    size_t seg_sums; //!< each of seg_s1 and seg_s2: the segment path only
    size_t s1;       //!< written by the segment path, read by the receiver step
    size_t scale;
    size_t scratch;
};

inline rfi_scratch_sizes
rfi_scratch_for(const rfi_flagger_config& c, rfi_path path, size_t group)
{
    const size_t n = c.n_channels * c.n_receivers;
    rfi_scratch_sizes s;
    s.seg_sums =
        path == rfi_path::segments ? group * rfi_segments(unsigned(c.block_size)) * n : 0;
    s.s1 = path == rfi_path::segments || rfi_receiver_step(c) ? group * n : 0;
    s.scale = group * c.n_receivers;
    s.scratch = 2 * group * c.n_receivers;
    return s;
}

//! Launch shapes.
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

inline dim3 rfi_fused_grid(unsigned n_elements, unsigned block_size, size_t n_blocks)
{
    const unsigned tile = rfi_fused_shape_for(block_size).elements;
    return dim3((n_elements + tile - 1) / tile, unsigned(n_blocks)); // groups <= 65535
}
inline dim3 rfi_patch_grid(unsigned n_elements, size_t n_blocks)
{
    return dim3((n_elements + rfi_patch_threads - 1) / rfi_patch_threads,
                unsigned(n_blocks < 65535 ? n_blocks : 65535));
}

// One launch sequence for the engine and the emulated test: a launch is a
// kernel launch on a GPU, a run on the host under the emulation.
#ifdef BF_GPU_EMULATION
using rfi_stream = void*;
#define BF_RFI_LAUNCH(kernel, grid, threads, shared, stream, ...) \
    launch(grid, dim3(threads), shared, [&] { kernel(__VA_ARGS__); })
#else
using rfi_stream = gpuStream_t;
#define BF_RFI_LAUNCH(kernel, grid, threads, shared, stream, ...) \
    do {                                                          \
        kernel<<<grid, threads, shared, stream>>>(__VA_ARGS__);   \
        BF_GPU_CHECK_LAUNCH(#kernel);                             \
    } while (0)
#endif

//! What one group needs: pointers of its input, output, and scratch.
struct rfi_group_args {
    const float2* in;
    float2* out;
    double* seg_s1;  //!< [blocks][segments][elements] (segment path)
    double* seg_s2;  //!< [blocks][segments][elements] (segment path)
    double* s1;      //!< [blocks][elements]
    uint8_t* flags;  //!< [blocks][elements]
    double* scale;   //!< [blocks][receivers]
    double* scratch; //!< [blocks][receivers][2]
    unsigned n_channels, n_receivers, block_size, n_blocks;
    double lower, upper, mad_threshold;
    uint64_t first_item, seed;
    bool noise;
    rfi_path path; //!< rfi_path_for(block_size) (the test also runs the other)
};

/*!
 * The arguments that every group of a configuration shares, on scratch of
 * rfi_scratch_for(c, path, group) (null where a size is 0); rfi_group_at
 * completes them for one group.
 */
inline rfi_group_args rfi_group_plan(const rfi_flagger_config& c,
                                     rfi_path path,
                                     double* seg_s1,
                                     double* seg_s2,
                                     double* s1,
                                     double* scale,
                                     double* scratch)
{
    const sk_thresholds th = sk_thresholds_for(c.block_size, c.pfa);
    rfi_group_args g{};
    g.seg_s1 = seg_s1;
    g.seg_s2 = seg_s2;
    g.s1 = s1;
    g.scale = scale;
    g.scratch = scratch;
    g.n_channels = unsigned(c.n_channels);
    g.n_receivers = unsigned(c.n_receivers);
    g.block_size = unsigned(c.block_size);
    g.lower = th.lower;
    g.upper = th.upper;
    g.mad_threshold = c.mad_threshold;
    g.seed = c.seed;
    g.noise = c.replacement == rfi_replacement::noise;
    g.path = path;
    return g;
}

/*!
 * \p shared on blocks [first_block, first_block + n_blocks) of a call whose
 * in[0] is item \p first_item; \p mask holds the call's flags [block][element].
 */
inline rfi_group_args rfi_group_at(rfi_group_args shared,
                                   const std::complex<float>* in,
                                   std::complex<float>* out,
                                   uint8_t* mask,
                                   uint64_t first_item,
                                   size_t first_block,
                                   size_t n_blocks)
{
    const size_t n = size_t(shared.n_channels) * shared.n_receivers;
    const size_t offset = first_block * shared.block_size * n;
    shared.in = reinterpret_cast<const float2*>(in) + offset;
    shared.out = reinterpret_cast<float2*>(out) + offset;
    shared.flags = mask + first_block * n;
    shared.n_blocks = unsigned(n_blocks);
    shared.first_item = first_item + first_block * shared.block_size;
    return shared;
}

//! Calls f(first_block, n_blocks) on [b0, b0 + nb) in order, in groups of at
//! most \p group blocks.
template <typename F>
void rfi_for_each_group(size_t b0, size_t nb, size_t group, F&& f)
{
    for (size_t g0 = b0; g0 < b0 + nb; g0 += group)
        f(g0, std::min(group, b0 + nb - g0));
}

inline void launch_rfi_flagger_group(const rfi_group_args& g, rfi_stream stream)
{
    if (g.n_blocks == 0)
        return;
    const unsigned n = g.n_channels * g.n_receivers;
    const bool receiver_step = rfi_receiver_step(g.mad_threshold, g.noise);
    if (g.path == rfi_path::fused) {
        const rfi_fused_shape shape = rfi_fused_shape_for(g.block_size);
        BF_RFI_LAUNCH(rfi_fused_kernel,
                      rfi_fused_grid(n, g.block_size, g.n_blocks),
                      shape.threads(),
                      shape.shared_bytes(),
                      stream,
                      g.in,
                      g.out,
                      receiver_step ? g.s1 : nullptr,
                      g.flags,
                      n,
                      g.block_size,
                      g.n_blocks,
                      g.lower,
                      g.upper,
                      receiver_step ? 0 : 1);
    } else {
        const size_t n_segments = size_t(g.n_blocks) * rfi_segments(g.block_size);
        BF_RFI_LAUNCH(rfi_segment_kernel,
                      rfi_element_grid(n, n_segments),
                      rfi_threads,
                      0,
                      stream,
                      g.in,
                      g.seg_s1,
                      g.seg_s2,
                      n,
                      g.block_size,
                      g.n_blocks);
        BF_RFI_LAUNCH(rfi_decide_kernel,
                      rfi_element_grid(n, g.n_blocks),
                      rfi_threads,
                      0,
                      stream,
                      g.seg_s1,
                      g.seg_s2,
                      g.s1,
                      g.flags,
                      n,
                      g.block_size,
                      g.n_blocks,
                      g.lower,
                      g.upper);
    }
    if (receiver_step)
        BF_RFI_LAUNCH(rfi_receiver_kernel,
                      dim3(g.n_receivers, g.n_blocks),
                      rfi_receiver_threads,
                      rfi_receiver_shared_bytes,
                      stream,
                      g.s1,
                      g.flags,
                      g.scale,
                      g.scratch,
                      g.n_channels,
                      g.n_receivers,
                      g.block_size,
                      g.mad_threshold);
    if (g.path == rfi_path::fused) {
        if (receiver_step)
            BF_RFI_LAUNCH(rfi_patch_kernel,
                          rfi_patch_grid(n, g.n_blocks),
                          rfi_patch_threads,
                          rfi_patch_shared_bytes,
                          stream,
                          g.out,
                          g.flags,
                          g.scale,
                          n,
                          g.n_receivers,
                          g.block_size,
                          g.n_blocks,
                          g.first_item,
                          g.seed,
                          g.noise ? 1 : 0);
    } else {
        const size_t n_items = size_t(g.n_blocks) * g.block_size;
        BF_RFI_LAUNCH(rfi_apply_kernel,
                      rfi_apply_grid(n, n_items),
                      rfi_threads,
                      0,
                      stream,
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
    }
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
