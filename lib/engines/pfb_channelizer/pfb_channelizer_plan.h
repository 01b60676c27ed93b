/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Host-side planning of the GPU channelizer (no GPU types): which kernel
 * path a configuration takes, how a fused launch is shaped and split, and
 * how the filter history moves between calls. Shared by the GPU engine and
 * the host emulation test of the kernels (tests/cpp/test_pfb_channelizer_emulated.cc).
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_PFB_CHANNELIZER_PLAN_H
#define INCLUDED_BEAMFORM_ENGINES_PFB_CHANNELIZER_PLAN_H

#include <cstdlib>
#include <string>
#include <gnuradio/beamform/engines/pfb_channelizer_engine.h>
#include <gpu/pfb_fft.cuh>
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace gr {
namespace beamform {
namespace pfb_plan {

constexpr int fused_max_taps = 16; //!< T_MAX: the register window of the fused kernel
constexpr int fused_max_channels = 1024; //!< register windows of one block
constexpr int fft_kernel_max_channels = 4096;

inline bool is_power_of_two(size_t n) { return n >= 1 && (n & (n - 1)) == 0; }

inline int log2_exact(size_t n)
{
    int l = 0;
    while ((size_t(1) << l) < n)
        l++;
    return l;
}

enum class path {
    fused,          //!< pfb_fused_kernel: FIR + FFT in one pass
    fir_smem_fft,   //!< pfb_fir_kernel -> workspace -> pfb_fft_kernel
    fir_library_fft //!< pfb_fir_kernel -> workspace -> cuFFT (HIP: direct DFT) -> reorder
};

/*!
 * The path a configuration takes. BEAMFORM_PFB_PATH = fused | fir_smem_fft |
 * fir_library_fft forces one where it applies (for measuring the paths
 * against each other; apps/channelizer_bench.md).
 */
inline path path_for(const pfb_channelizer_config& c)
{
    if (const char* forced = std::getenv("BEAMFORM_PFB_PATH")) {
        const std::string f = forced;
        const bool pow2 = is_power_of_two(c.n_channels);
        if (f == "fir_library_fft")
            return path::fir_library_fft;
        if (f == "fir_smem_fft" && pow2 && c.n_channels <= size_t(fft_kernel_max_channels))
            return path::fir_smem_fft;
    }
    if (is_power_of_two(c.n_channels) && c.n_channels <= size_t(fused_max_channels) &&
        c.taps_per_branch <= size_t(fused_max_taps))
        return path::fused;
    if (is_power_of_two(c.n_channels) && c.n_channels <= size_t(fft_kernel_max_channels))
        return path::fir_smem_fft;
    return path::fir_library_fft;
}

inline const char* path_name(path p)
{
    return p == path::fused          ? "fused"
           : p == path::fir_smem_fft ? "fir+smem_fft"
                                     : "fir+cufft(hip: direct dft)";
}

/*!
 * Template shape of a fused launch: each thread owns bq base branches of rbt
 * receivers; nt is the launch bound. Chosen so that the register windows
 * (2 * O * T_MAX floats per branch and receiver) plus taps fit in 255
 * registers at 256 threads without spilling, with as many receivers per block
 * as fit (4 receivers of fc32 = one 32-byte sector per input row and output
 * channel).
 */
struct fused_shape {
    int bq;
    int rbt;
    int nt;
};

inline fused_shape fused_shape_for(size_t n, unsigned oversample)
{
    if (oversample == 1) {
        if (n >= 1024)
            return { 4, 1, 256 };
        if (n >= 512)
            return { 2, 2, 256 };
        return { 1, 4, 256 };
    }
    if (n >= 1024)
        return { 2, 1, 256 };
    return { 1, 2, 256 };
}

struct fused_launch {
    int threads;               //!< per block
    int receivers_per_block;   //!< RB
    long long receiver_blocks; //!< grid.x
    long long runs;            //!< grid.y: runs of consecutive steps
    long long steps_per_block; //!< steps of one run
    size_t shared_bytes;       //!< twiddles + 2 rows per receiver
};

/*!
 * Split \p n_out steps into runs: enough blocks to fill the GPU in whole
 * waves (one block per SM: the kernels are register bound), but runs long
 * against their warm-up (ring - 1 steps whose input is read a second time).
 */
inline long long
step_runs(long long receiver_blocks, size_t n_out, int ring, int sm_count)
{
    const long long slots = std::max(1, sm_count);
    long long best = 1;
    double best_score = -1.0;
    for (long long runs = 1; runs <= 512; runs++) {
        const double run_len = double(n_out) / double(runs);
        if (runs > 1 && run_len < double(ring))
            break;
        const long long blocks = receiver_blocks * runs;
        const long long waves = (blocks + slots - 1) / slots;
        const double fill = double(blocks) / double(waves * slots);
        const double useful = run_len / (run_len + double(ring - 1));
        const double score = fill * useful;
        if (score > best_score + 1e-9) {
            best_score = score;
            best = runs;
        }
    }
    return best;
}

inline fused_launch
plan_fused(const pfb_channelizer_config& c, size_t n_out, int sm_count)
{
    const fused_shape shape = fused_shape_for(c.n_channels, c.oversample);
    const int q_threads = int(c.input_per_output()) / shape.bq;
    if (q_threads > shape.nt)
        throw std::logic_error(
            "pfb_channelizer: fused launch shape does not fit its block");
    const int receivers = int(c.n_receivers);
    const int groups = std::max(
        1, std::min(shape.nt / q_threads, (receivers + shape.rbt - 1) / shape.rbt));
    fused_launch l;
    l.threads = q_threads * groups;
    l.receivers_per_block = groups * shape.rbt;
    l.receiver_blocks = (receivers + l.receivers_per_block - 1) / l.receivers_per_block;
    const long long runs =
        step_runs(l.receiver_blocks, n_out, int(c.oversample) * fused_max_taps, sm_count);
    l.steps_per_block = ((long long)n_out + runs - 1) / runs;
    l.runs = ((long long)n_out + l.steps_per_block - 1) / l.steps_per_block;
    const int n = int(c.n_channels);
    l.shared_bytes = size_t(n + 2 * l.receivers_per_block * pfb_fft::row_stride(n)) * 2 *
                     sizeof(float);
    return l;
}

//! One copy of the history update: bytes from the input or the old history.
struct history_copy {
    bool from_input;
    size_t src_offset;
    size_t dst_offset;
    size_t bytes;
};

/*!
 * The next history is the last \p history_len samples of (old history, this
 * call's \p n_in samples); \p sample_bytes per sample of all receivers.
 */
inline std::vector<history_copy>
history_update(size_t history_len, size_t n_in, size_t sample_bytes)
{
    if (history_len == 0)
        return {};
    if (n_in >= history_len)
        return {
            { true, (n_in - history_len) * sample_bytes, 0, history_len * sample_bytes }
        };
    const size_t kept = history_len - n_in;
    return { { false, n_in * sample_bytes, 0, kept * sample_bytes },
             { true, 0, kept * sample_bytes, n_in * sample_bytes } };
}

} // namespace pfb_plan
} // namespace beamform
} // namespace gr

#endif
