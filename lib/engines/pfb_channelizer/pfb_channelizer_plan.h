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
#include <type_traits>
#include <utility>
#include <vector>

namespace gr {
namespace beamform {
namespace pfb_plan {

constexpr int fused_max_taps = 16; //!< T_MAX: the register window of the fused kernel
constexpr int fused_max_channels = 1024; //!< register windows of one block
constexpr int fft_kernel_max_channels = 4096;
constexpr int tiled_max_channels = 1024; //!< S RB rows of N + 1 in shared memory
//! Up to this the tiled path is the default, above it the two-pass path. At
//! N = 1024 the tiled kernel reads each sample 3.5 times from L2 (its tiles
//! hold 24 rows of 8 KB) and two_pass with its register-FFT pass 2 measured
//! faster in every row (H200: 1.14-1.25x at sc16, 1.40-1.74x at fc32,
//! apps/channelizer_bench.md version 11; pass 1's lane groups of version 12
//! then made sc16 another 1.09-1.34x faster); at N = 512 two_pass measured
//! 1.17-1.24x faster in all four rows (sc16, fc32, O = 1, 2; version 16).
constexpr int tiled_default_max_channels = 256;
//! The general path's shared-memory FFT (pfb_general_fft_kernel): rows per
//! block as fit in this, so that two blocks share an SM; threads per block.
constexpr size_t general_fft_smem_budget = size_t(100) << 10;
constexpr unsigned general_fft_threads = 256;

/*!
 * The tiled kernels' taps, branch-major: [N][T_MAX] with h[p + kN] at
 * p T_MAX + k and zeros past T (pfb_branch_taps in kernels/gpu/pfb_tiled.cuh
 * reads a branch's window as T_MAX / 4 16-byte loads). \p prototype holds
 * the N T taps h[p + kN]; T <= T_MAX.
 */
inline std::vector<float>
tiled_branch_taps(const std::vector<float>& prototype, size_t n, size_t t)
{
    if (t > size_t(fused_max_taps) || prototype.size() != n * t)
        throw std::invalid_argument("tiled_branch_taps: N T taps with T <= " +
                                    std::to_string(fused_max_taps) + " needed");
    std::vector<float> b(n * fused_max_taps, 0.0f);
    for (size_t p = 0; p < n; p++)
        for (size_t k = 0; k < t; k++)
            b[p * fused_max_taps + k] = prototype[p + k * n];
    return b;
}

inline bool is_power_of_two(size_t n) { return n >= 1 && (n & (n - 1)) == 0; }

inline int log2_exact(size_t n)
{
    int l = 0;
    while ((size_t(1) << l) < n)
        l++;
    return l;
}

enum class path {
    tiled,          //!< pfb_tiled_kernel: FIR + FFT in one pass, tiles of steps
    two_pass,       //!< pfb_fir_columns_kernel -> columns -> pass 2 (two_pass_launch)
    fused,          //!< pfb_fused_kernel: FIR + FFT in one pass
    fir_smem_fft,   //!< pfb_general_fir_kernel -> workspace -> pfb_general_fft_kernel
    fir_library_fft //!< pfb_general_fir_kernel -> workspace -> cuFFT + transpose (HIP:
                    //!< direct DFT)
};

/*!
 * Whether \p p can run configuration \p c; \p library_fft: the backend has a
 * library FFT (cuFFT on CUDA; not on HIP).
 */
inline bool path_applies(path p, const pfb_channelizer_config& c, bool library_fft = true)
{
    const bool pow2 = is_power_of_two(c.n_channels);
    const bool short_branches = c.taps_per_branch <= size_t(fused_max_taps);
    switch (p) {
    case path::tiled:
        return pow2 && c.n_channels <= size_t(tiled_max_channels) && short_branches;
    case path::two_pass: // any T: pass 1 in blocks of 16 taps
        // With a library FFT as pass 2 any N (one step's N R outputs indexed
        // in 32 bits by pfb_spectra_to_output_kernel).
        return (pow2 && c.n_channels <= size_t(fft_kernel_max_channels)) ||
               (library_fft && c.n_channels * c.n_receivers < (size_t(1) << 31));
    case path::fused:
        return pow2 && c.n_channels <= size_t(fused_max_channels) && short_branches;
    case path::fir_smem_fft:
        return pow2 && c.n_channels <= size_t(fft_kernel_max_channels);
    case path::fir_library_fft:
        return true;
    }
    return false;
}

inline const char* path_name(path p)
{
    return p == path::tiled          ? "tiled"
           : p == path::two_pass     ? "two_pass"
           : p == path::fused        ? "fused"
           : p == path::fir_smem_fft ? "fir_smem_fft"
                                     : "fir_library_fft";
}

/*!
 * The path a configuration takes: tiled up to tiled_default_max_channels
 * (256) and T <= 16, else two_pass where it applies (any T; with a library
 * FFT any N), else fir_library_fft (measured in apps/channelizer_bench.md).
 * fir_smem_fft, the general path with its FFT in shared memory, is no
 * default (apps/channelizer_bench.md, version 16).
 * BEAMFORM_PFB_PATH = tiled | two_pass | fused | fir_smem_fft |
 * fir_library_fft forces one where it applies (for measuring the paths
 * against each other).
 */
inline path path_for(const pfb_channelizer_config& c, bool library_fft = true)
{
    if (const char* forced = std::getenv("BEAMFORM_PFB_PATH")) {
        for (path p : { path::tiled,
                        path::two_pass,
                        path::fused,
                        path::fir_smem_fft,
                        path::fir_library_fft })
            if (path_name(p) == std::string(forced) && path_applies(p, c, library_fft))
                return p;
    }
    if (path_applies(path::tiled, c) && c.n_channels <= size_t(tiled_default_max_channels))
        return path::tiled;
    if (path_applies(path::two_pass, c, library_fft))
        return path::two_pass;
    return path::fir_library_fft;
}

/*!
 * Template shape of a tiled launch (kernels/gpu/pfb_tiled.cuh): tiles of
 * `steps` steps x `receivers` receivers (a power of two). An entry with
 * register_log2_n = 0 runs pfb_tiled_kernel (shared-memory in-place FFT) and
 * serves N >= min_channels; one with register_log2_n > 0 runs
 * pfb_tiled_register_fft_kernel (kernels/gpu/pfb_tiled_register_fft.cuh) and
 * serves only N = 2^register_log2_n.
 */
struct tiled_shape {
    size_t min_channels;
    int steps;     //!< S
    int receivers; //!< RB
    int pairs;     //!< P: (branch, receiver) pairs a thread filters at once
    int register_log2_n = 0; //!< > 0: the register-FFT kernel for this N only
    int min_blocks = 2;      //!< the kernel's launch bound: blocks per SM
    bool default_choice = true; //!< false: only through BEAMFORM_PFB_TILED_SHAPE
    int threads = 256;          //!< per block (register FFT; the in-place kernel: 256)
    //! P = 2, register FFT: a thread filters branches p and p + N/2 (with
    //! O = 2 the same samples one step apart: L1 hits; pfb_tiled_fir).
    bool branch_halves = false;
    int oversample = 0; //!< a default for this O only (0: any O)
    //! a default for inputs of this many bytes per complex sample only (0: any)
    int sample_bytes = 0;
    //! register FFT: blocks walk tiles in time with the input staged in a
    //! shared-memory ring (pfb_tiled_ring_kernel, kernels/gpu/pfb_tiled_ring.cuh)
    bool ring = false;
    //! the choice for calls of at most tiled_short_call_steps steps (of its
    //! oversample and format), where it is faster than the default
    bool short_calls = false;
};

inline constexpr tiled_shape tiled_shapes[] = {
    { 1024, 4, 4, 2 },
    { 128, 8, 4, 2 },
    // One pair per thread: the default below N = 128 (1.27-1.74x entry 1 at
    // N = 16, 32, 64 in every row, H200, apps/channelizer_bench.md version
    // 16); the other shapes of version 4 measured slower and were removed.
    { 0, 8, 4, 1 },
    // The register FFT (apps/channelizer_bench.md, version 5), N = 256: 3 the
    // tile of entry 1; 4 eight receivers (a whole 32-byte sector of sc16 per
    // input row); 5 twelve steps (fewer re-reads), one pair per thread. All
    // 2 blocks per SM (128 registers, as entry 1; 4 and 5 use the 99 KB of
    // shared memory that this leaves). 6 and 7: N = 512 and 128, entry 1's tile.
    // 3 was the N = 256 default until entry 9 measured faster (H100: 256x16
    // sc16 0.772 ms against 0.585, fc32 0.910 against 0.694).
    { 0, 8, 4, 2, 8, 2, false },
    { 0, 6, 8, 2, 8, 2, false },
    { 0, 12, 4, 1, 8, 2, false },
    { 0, 8, 4, 2, 9, 1, true },
    { 0, 8, 4, 2, 7, 2, true },
    // N = 256, 512 threads, one block (16 warps) per SM: whole sc16 sectors
    // and S = 8 (8), or S = 12 (9: 195 KiB of shared memory; the N = 256
    // default at O = 1, the fastest of entries 1-9 in every 256-channel row
    // of apps/channelizer_bench.md version 5).
    { 0, 8, 8, 2, 8, 1, false, 512 },
    { 0, 12, 8, 1, 8, 1, true, 512, false, 1 },
    // N = 1024 = 32 x 32 (apps/channelizer_bench.md, version 6): one warp per
    // row, one block per SM; a row is 8 KB, so a tile holds at most 27 rows
    // (24 here: 200 KiB). 384 threads (168 registers: no spill; 24 rows are
    // two whole FFT passes of 12 warps). The tiled path at N = 1024 runs only
    // when forced (BEAMFORM_PFB_PATH=tiled): two_pass is the default there.
    // 10 (the tiled choice, but for sc16 at O = 2): S = 6,
    // RB = 4, branches p and p + N/2 per thread; 11: whole sc16 sectors
    // (RB = 8, S = 3; the choice for sc16 at O = 2: 17 % faster than 10 there,
    // 2 % slower at O = 1, apps/channelizer_bench.md version 10); 12: fewest
    // re-reads (S = 12, RB = 2; spills at O = 2);
    // 13: entry 10 without branch_halves (what the pairing gains at O = 2);
    // 14: entry 10 with 512 threads (16 warps, 128 registers: spills).
    { 0, 6, 4, 2, 10, 1, true, 384, true },
    { 0, 3, 8, 2, 10, 1, true, 384, true, 2, 4 },
    { 0, 12, 2, 2, 10, 1, false, 384, true },
    { 0, 6, 4, 2, 10, 1, false, 384, false },
    { 0, 6, 4, 2, 10, 1, false, 512, true },
    // 15: N = 256, entry 8 with branch_halves (the O = 2 carry; no spill):
    // the N = 256 default at O = 2 (8-13 % faster than entry 9 there,
    // apps/channelizer_bench.md version 7).
    { 0, 8, 8, 2, 8, 1, true, 512, true, 2 },
    // 16: N = 256 with the input in a shared-memory ring (pfb_tiled_ring.cuh;
    // samples of up to 4 bytes): S = 4, RB = 8 (whole sectors of sc16 rows),
    // 512 threads, 223 KiB at sc16. The choice for short calls at sc16 and
    // O = 1: there it beat entry 9 in calls of 170 and 682 steps (1.6x and
    // 1.26x on an H200) and lost in calls of 2730 (0.93x); at O = 2 it lost
    // to entry 15 (apps/channelizer_bench.md, version 14).
    { 0, 4, 8, 2, 8, 1, false, 512, false, 1, 4, true, true },
};
constexpr size_t tiled_shape_count = sizeof(tiled_shapes) / sizeof(tiled_shapes[0]);

//! Dynamic shared memory of a tiled block: N twiddles + S RB rows of N + 1,
//! and a ring entry's input ring of \p sample_bytes per complex sample (0: not
//! known, fc32's 8 assumed) at O = 1, where it is largest.
inline size_t tiled_shared_bytes(size_t n, const tiled_shape& s, size_t sample_bytes = 0)
{
    const size_t ring = s.ring
                            ? size_t(pfb_fft::ring_blocks(s.steps, fused_max_taps, 1)) *
                                  n * size_t(s.receivers) *
                                  (sample_bytes ? sample_bytes : 2 * sizeof(float))
                            : 0;
    return (n + size_t(s.steps * s.receivers) * size_t(pfb_fft::row_stride(int(n)))) * 2 *
               sizeof(float) +
           ring;
}

constexpr size_t tiled_shared_limit = 227 * 1024; //!< per block (sm_90 opt-in)

//! Whether entry \p s can run N = \p n channels (the tiled path applies) on
//! samples of \p sample_bytes (0: not known): any N for the shared-memory FFT,
//! its own N for the register FFT, and it fits in shared memory.
inline bool tiled_shape_can_run(size_t n, const tiled_shape& s, size_t sample_bytes = 0)
{
    const bool fft = s.register_log2_n == 0 || n == (size_t(1) << s.register_log2_n);
    return fft && tiled_shared_bytes(n, s, sample_bytes) <= tiled_shared_limit;
}

/*!
 * Index in tiled_shapes of N = \p n channels, oversample \p o and input
 * samples of \p sample_bytes bytes (0: not known; entries for one format are
 * then skipped): among the default entries that serve the case, made for
 * exactly this N (register FFT) if there is one, else by N >= min_channels,
 * the most specific (an O and a format named, then either), the first of
 * equals. BEAMFORM_PFB_TILED_SHAPE = i forces entry i where it applies (a
 * bench knob; elsewhere the default).
 */
inline size_t tiled_shape_index(size_t n, unsigned o, size_t sample_bytes = 0)
{
    if (const char* forced = std::getenv("BEAMFORM_PFB_TILED_SHAPE")) {
        const long i = std::atol(forced);
        if (i >= 0 && size_t(i) < tiled_shape_count &&
            tiled_shape_can_run(n, tiled_shapes[i], sample_bytes))
            return size_t(i);
    }
    for (int exact = 1; exact >= 0; exact--) {
        size_t best = tiled_shape_count;
        int best_named = -1;
        for (size_t i = 0; i < tiled_shape_count; i++) {
            const tiled_shape& s = tiled_shapes[i];
            const bool serves =
                s.default_choice && (s.register_log2_n > 0) == (exact == 1) &&
                n >= s.min_channels && tiled_shape_can_run(n, s, sample_bytes) &&
                (s.oversample == 0 || s.oversample == int(o)) &&
                (s.sample_bytes == 0 || size_t(s.sample_bytes) == sample_bytes);
            const int named = (s.oversample != 0) + (s.sample_bytes != 0);
            if (serves && named > best_named) {
                best = i;
                best_named = named;
            }
        }
        if (best < tiled_shape_count)
            return best;
    }
    throw std::logic_error("pfb_channelizer: no tiled launch shape");
}

//! Calls of at most this many steps run the short-call entry where one
//! serves the case (between the 682 steps measured faster with it and the
//! 2730 measured slower).
constexpr size_t tiled_short_call_steps = 1024;

/*!
 * Index in tiled_shapes of the entry for short calls of N = \p n, oversample
 * \p o, samples of \p sample_bytes: a short_calls entry made for exactly this
 * case; tiled_shape_count if none (or BEAMFORM_PFB_TILED_SHAPE forces one
 * entry for every call).
 */
inline size_t tiled_short_call_shape(size_t n, unsigned o, size_t sample_bytes)
{
    if (std::getenv("BEAMFORM_PFB_TILED_SHAPE"))
        return tiled_shape_count;
    for (size_t i = 0; i < tiled_shape_count; i++) {
        const tiled_shape& s = tiled_shapes[i];
        if (s.short_calls && n == (size_t(1) << s.register_log2_n) &&
            s.oversample == int(o) && size_t(s.sample_bytes) == sample_bytes &&
            tiled_shape_can_run(n, s, sample_bytes))
            return i;
    }
    return tiled_shape_count;
}

//! The entry a call of \p n_out steps runs: \p short_calls (an index from
//! tiled_short_call_shape) for short calls where there is one, else \p whole,
//! which also computes the rest of a call from \p first_receiver > 0 on (the
//! short-call ring kernel computes every receiver: pfb_tiled_ring.cuh).
inline size_t
tiled_shape_for_call(size_t whole, size_t short_calls, size_t n_out, size_t first_receiver = 0)
{
    return short_calls < tiled_shape_count && n_out <= tiled_short_call_steps &&
                   first_receiver == 0
               ? short_calls
               : whole;
}

/*
 * The cluster kernel (kernels/cuda/pfb_cluster_kernel.cuh; CUDA on sm_90):
 * a kernel for N = 256, 512, 1024 and 2048, O = 1 and 2, T <= 16 that reads each
 * sample once into register windows and shares each step's DFT across a
 * cluster of blocks; where it runs, it takes the call instead of the
 * configuration's path (tiled at 256, two_pass from 512). At N = 256, for sc16 and fc32 in
 * whole groups of 32 receivers it measured 1.24x and 1.21x the tiled kernels
 * in calls of 2730 steps and 1.36x and 1.20x at 1024, but slower in calls
 * that leave much of the GPU idle or in warm-up, and slower for sc8
 * (apps/channelizer_bench.md, versions 19 and 20). At N = 1024 (96
 * receivers, H200) it measured 1.23x and 1.20x the two-pass path in calls
 * of 682 steps and 1.11x and 1.09x at 256 (version 21); at O = 2 1.19-1.28x
 * at 682 steps (version 22). With rounds of two steps (version 23), then of
 * four (version 24), it gained 1.16-1.24x at N = 1024 and at N = 256, O = 2,
 * where it then took 0.42 ms at 2730 steps against the tiled kernels'
 * 0.49-0.52, and 0.40 ms once the warm-up's rounds only load (version 25;
 * cluster_warm_up_cost counts them at half a step since session 45). So
 * it is the default for sc16 and fc32 in calls that use the GPU well
 * (cluster_kernel_chosen), and for sc8 from N = 512 on (session 52). At
 * N = 512 (clusters of 4 blocks, session 46) it measured 1.6-1.9x the
 * two-pass path at 1365 steps, at N = 2048 (clusters of 16) 1.6-1.8x at 341
 * steps (session 47).
 * BEAMFORM_PFB_CLUSTER = 1 runs it for every call it serves, = 0 never (bench
 * and test knob); BEAMFORM_PFB_TILED_SHAPE or BEAMFORM_PFB_PATH, which force
 * a tiled entry or a path, keep it off too.
 */
//! Blocks per cluster: 8 at N = 256 and 1024, 4 at N = 512, 16 at N = 2048
//! (each block's half-transforms then 4^passes points).
constexpr int cluster_blocks(size_t n) { return n == 512 ? 4 : n == 2048 ? 16 : 8; }
//! Receivers per cluster (blocks of 512 threads, two branches of one receiver
//! a thread): 32 at N = 256, 8 at N = 512, 1024 and 2048.
constexpr int cluster_receivers(size_t n) { return int(1024 * size_t(cluster_blocks(n)) / n); }
constexpr int cluster_window = 16; //!< the register window: T = 16
//! A segment of steps of at least this many (its warm-up re-reads O T - 1 steps).
constexpr size_t cluster_min_segment_steps = 64;

//! Steps each segment runs before its first stored one (the window's warm-up):
//! O T - 1, 15 at O = 1 and 31 at O = 2.
constexpr int cluster_warm_up_steps(size_t oversample)
{
    return int(oversample) * cluster_window - 1;
}

//! The kernel's steps a round (pfb_cluster::steps_per_round).
constexpr int cluster_steps_per_round = 4;

//! What a segment's warm-up costs, in steps: its whole rounds (12 steps at
//! O = 1, 28 at O = 2) only load their samples, measured at 0.3-0.7 of a
//! step each and counted at half (apps/channelizer_bench.md, version 25 and
//! session 45); the other 3 steps run whole. 9 at O = 1, 17 at O = 2.
constexpr double cluster_warm_up_cost(size_t oversample)
{
    const int steps = cluster_warm_up_steps(oversample);
    const int load_only = steps / cluster_steps_per_round * cluster_steps_per_round;
    return (steps - load_only) + 0.5 * load_only;
}

/*!
 * Whether the cluster kernel computes configuration \p c (any call). T < 16
 * runs as 16 taps, zero past T (tiled_branch_taps), over a history of 16
 * taps (history_taps): the window then never reaches before the history.
 */
inline bool cluster_kernel_serves(const pfb_channelizer_config& c)
{
    return (c.n_channels == 256 || c.n_channels == 512 || c.n_channels == 1024 ||
            c.n_channels == 2048) &&
           (c.oversample == 1 || c.oversample == 2) &&
           c.taps_per_branch <= size_t(cluster_window); // T >= 1: validate()
}

/*!
 * Taps' worth of history the GPU engine keeps (N history_taps - M samples):
 * T, or the cluster kernel's window of 16 where it serves \p c with fewer
 * taps. The other kernels read any longer history correctly (their taps past
 * T are zero or never read).
 */
inline size_t history_taps(const pfb_channelizer_config& c)
{
    return cluster_kernel_serves(c) ? size_t(cluster_window) : c.taps_per_branch;
}

//! BEAMFORM_PFB_CLUSTER: 1 forces the cluster kernel where it serves, 0
//! turns it off, anything else (or unset) leaves the choice to
//! cluster_kernel_chosen. Returns 1, 0 or -1.
inline int cluster_kernel_knob()
{
    const char* v = std::getenv("BEAMFORM_PFB_CLUSTER");
    if (v && std::string(v) == "1")
        return 1;
    if ((v && std::string(v) == "0") || std::getenv("BEAMFORM_PFB_TILED_SHAPE") ||
        std::getenv("BEAMFORM_PFB_PATH"))
        return 0;
    return -1;
}

//! Whether a call of \p n_out steps of \p c can run the cluster kernel, on a
//! device that can run it (its indices are 32-bit, and a segment's index runs
//! past the call by the last turn of the window ring (O T steps) and the
//! copies ahead (pfb_cluster::ring_steps, 4): well inside 3 T).
inline bool cluster_kernel_for_call(const pfb_channelizer_config& c, size_t n_out)
{
    const size_t items = (n_out + 3 * cluster_window) * c.n_channels * c.n_receivers;
    return cluster_kernel_serves(c) && items < (size_t(1) << 31);
}

struct cluster_launch {
    int receiver_groups;   //!< of cluster_receivers(N) receivers
    int segments;          //!< of steps, per receiver group
    int steps_per_segment;
    double warm_up_cost;   //!< cluster_warm_up_cost(O)
    long long clusters() const { return (long long)receiver_groups * segments; }
};

//! The launch of \p segments segments per receiver group (as many as the
//! steps need when they divide unevenly).
inline cluster_launch
cluster_launch_of(const pfb_channelizer_config& c, size_t n_out, long long segments)
{
    cluster_launch l;
    const size_t rx = size_t(cluster_receivers(c.n_channels));
    l.receiver_groups = int((c.n_receivers + rx - 1) / rx);
    l.steps_per_segment = int(((long long)n_out + segments - 1) / segments);
    l.segments = int(((long long)n_out + l.steps_per_segment - 1) / l.steps_per_segment);
    l.warm_up_cost = cluster_warm_up_cost(c.oversample);
    return l;
}

/*!
 * The share of the GPU's cluster-steps that launch \p l of \p n_out steps
 * spends on stored steps, on a GPU that holds \p clusters_at_once clusters;
 * the rest are idle slots, waves that are not full, and each segment's
 * warm-up.
 */
inline double
cluster_efficiency_of(const cluster_launch& l, size_t n_out, int clusters_at_once)
{
    const long long waves = (l.clusters() + clusters_at_once - 1) / clusters_at_once;
    const double provisioned = double(waves) * clusters_at_once *
                               (l.steps_per_segment + l.warm_up_cost);
    return double(n_out) * l.receiver_groups / provisioned;
}

/*!
 * A cluster launch of \p n_out steps: the receiver groups, and the number of
 * segments of steps (none shorter than cluster_min_segment_steps, at most
 * \p clusters_at_once per group) that spends the GPU's cluster-steps best
 * (cluster_efficiency_of; the fewest segments among equals). At N = 256 and
 * up to 96 receivers that is one wave of clusters; at N = 1024 (groups of 8
 * receivers) often several.
 */
inline cluster_launch
plan_cluster(const pfb_channelizer_config& c, size_t n_out, int clusters_at_once)
{
    const int at_once = std::max(1, clusters_at_once);
    const long long by_length =
        std::max<long long>(1, (long long)(n_out / cluster_min_segment_steps));
    cluster_launch best = cluster_launch_of(c, n_out, 1);
    double best_efficiency = cluster_efficiency_of(best, n_out, at_once);
    for (long long s = 2; s <= std::min<long long>(by_length, at_once); s++) {
        const cluster_launch l = cluster_launch_of(c, n_out, s);
        const double e = cluster_efficiency_of(l, n_out, at_once);
        if (e > best_efficiency * (1.0 + 1e-9)) {
            best = l;
            best_efficiency = e;
        }
    }
    return best;
}

/*!
 * The default rule's threshold at N = \p n channels: the cluster kernel runs
 * a call whose clusters spend at least this share of the GPU's cluster lanes
 * and steps on stored outputs (cluster_efficiency).
 *
 * N = 256, 0.75, and whole groups of 32 receivers only (H200, 15 clusters at
 * once): chosen where it was faster, at 0.76-0.97 (96 receivers from 320
 * steps, 64 from 512, 32 from 1024, 128 at 768), not at 0.43-0.68, where it
 * was level or slower (apps/channelizer_bench.md, version 20). With the
 * warm-up counted at its cost (cluster_warm_up_cost) that is 96 receivers
 * from 320 steps at O = 1 and 2 (session 45). Partial groups measured level
 * or slower than the tiled kernels (40 to 200 receivers, 1.0-1.6x their
 * time; session 46), so the tiled kernels take the receivers past the whole
 * groups (cluster_default_receivers): 1.07-1.22x the tiled kernels alone at
 * 100 and 200 receivers, level at 40 (apps/channelizer_bench.md, version 36).
 *
 * N = 512 and 1024, 0.45, any receiver count (the other choice is the
 * two-pass path). N = 1024: two-pass measured slower in every call but the
 * shortest (96 receivers, 12 to 682 steps: level at 12-22 steps of O = 1,
 * 1.1-1.6x slower from 24, and 1.2-1.4x at O = 2 from 12; 6 to 100
 * receivers in long calls, partial groups included, 1.1-1.7x slower;
 * sessions 45 and 46); 0.45 takes 96 receivers from 12 steps at O = 1 and
 * 22 at O = 2. With 1 to 4 receivers (one group, a quarter to half of its
 * lanes) the two were within 0.9-1.15x of each other either way; the rule
 * keeps two-pass below about 4. N = 512 (clusters of 4 blocks, 30 at once on
 * an H200): the cluster kernel 1.6-1.9x two-pass at 1365 steps, 1.2-1.4x at
 * 128 and 256 steps (efficiency 0.70 and above), 1.3-1.5x slower at 16 to
 * 64 steps (0.35 and below); 12 and 100 receivers 1.1-1.6x faster (session
 * 46). N = 2048 (clusters of 16 blocks, 7 at once on an H200): 1.15-1.65x
 * two-pass at O = 1 from 24 to 341 steps (session 47), 1.4-1.85x at O = 2
 * from 32 steps and with 100 receivers (session 46).
 */
inline double cluster_min_efficiency(size_t n) { return n == 256 ? 0.75 : 0.45; }
inline bool cluster_needs_whole_groups(size_t n) { return n == 256; }
/*!
 * Whether the default rule gives sc8 calls at N = \p n to the cluster kernel
 * (by cluster_min_efficiency as sc16 and fc32): from N = 512 on, where the
 * other choice is the two-pass path. Its sc8 samples are not in the copy ring
 * (version 19), and at N = 256 the tiled kernels measured faster at O = 1
 * (0.489 against 0.547 ms, 96 receivers, 2730 steps; 0.502 against 0.830
 * with 20 receivers) and at most 1.13x slower at O = 2 (0.502-0.537 against
 * 0.474), not worth a rule of its own. At 512 to 2048 the
 * cluster kernel measured 1.45-1.7x two-pass in long calls and 1.3-1.5x at
 * 256 steps, as sc16 does (H200, session 52; apps/channelizer_bench.md).
 */
inline bool cluster_default_for_sc8(size_t n) { return n >= 512; }
/*!
 * The receivers that the cluster kernel computes in a call that the default
 * rule gives it: at N = 256 (cluster_needs_whole_groups) its whole groups of
 * 32, and the tiled kernels compute the rest after it in the same call
 * (pfb_geometry::first_receiver); elsewhere all of them.
 */
inline size_t cluster_default_receivers(const pfb_channelizer_config& c)
{
    const size_t rx = size_t(cluster_receivers(c.n_channels));
    return cluster_needs_whole_groups(c.n_channels) ? c.n_receivers / rx * rx
                                                    : c.n_receivers;
}
//! \p c with \p receivers receivers (the part of a call one kernel computes).
inline pfb_channelizer_config with_receivers(pfb_channelizer_config c, size_t receivers)
{
    c.n_receivers = receivers;
    return c;
}
/*!
 * The share of the GPU's cluster lanes and steps that a call of \p n_out
 * steps of \p c spends on stored outputs: cluster_efficiency_of the plan's
 * launch, times the share of the groups' receiver lanes that hold a receiver
 * (below 1 for a partial group, whose idle lanes still run).
 */
inline double cluster_efficiency(const pfb_channelizer_config& c,
                                 size_t n_out,
                                 int clusters_at_once)
{
    const cluster_launch l = plan_cluster(c, n_out, clusters_at_once);
    const double lanes =
        double(l.receiver_groups) * double(cluster_receivers(c.n_channels));
    return cluster_efficiency_of(l, n_out, std::max(1, clusters_at_once)) *
           double(c.n_receivers) / lanes;
}

/*!
 * The default choice of the cluster kernel for a call of \p n_out steps on a
 * GPU that holds \p clusters_at_once clusters: sc16 or fc32, and sc8 from
 * N = 512 on (cluster_default_for_sc8), at least one whole group where
 * cluster_needs_whole_groups, and cluster_min_efficiency for the receivers
 * it computes (cluster_default_receivers).
 */
inline bool cluster_kernel_chosen(const pfb_channelizer_config& c,
                                  size_t n_out,
                                  int clusters_at_once)
{
    const size_t receivers = cluster_default_receivers(c);
    if (!cluster_kernel_for_call(c, n_out) ||
        (c.input == sample_format::sc8 && !cluster_default_for_sc8(c.n_channels)) ||
        receivers == 0 ||
        clusters_at_once <= 0)
        return false;
    return cluster_efficiency(with_receivers(c, receivers), n_out, clusters_at_once) >=
           cluster_min_efficiency(c.n_channels);
}

/*!
 * The receivers [0, k) that the cluster kernel computes in a call of \p n_out
 * steps of \p c (0: none; the configuration's path computes [k, R) after it,
 * at N = 256 the tiled kernels), on a GPU that holds \p clusters_at_once of
 * its clusters (0: it cannot run them) and with \p knob =
 * cluster_kernel_knob(): where 1 all of them in every call it serves, where 0
 * none, else cluster_kernel_chosen and cluster_default_receivers.
 */
inline size_t cluster_kernel_receivers(const pfb_channelizer_config& c,
                                       size_t n_out,
                                       int clusters_at_once,
                                       int knob)
{
    if (clusters_at_once <= 0 || knob == 0)
        return 0;
    if (knob == 1)
        return cluster_kernel_for_call(c, n_out) ? c.n_receivers : 0;
    return cluster_kernel_chosen(c, n_out, clusters_at_once) ? cluster_default_receivers(c) : 0;
}

//! Every entry of tiled_shapes that applies to N = \p n and samples of
//! \p sample_bytes (0: not known) (for the tests).
inline std::vector<size_t> tiled_shape_indices(size_t n, size_t sample_bytes = 0)
{
    std::vector<size_t> all;
    for (size_t i = 0; i < tiled_shape_count; i++)
        if (tiled_shape_can_run(n, tiled_shapes[i], sample_bytes))
            all.push_back(i);
    return all;
}

/*!
 * Calls launch(std::integral_constant<size_t, I>{}) with I = \p index, an
 * index in tiled_shapes (every entry is compiled; see with_fused_shape).
 */
template <typename Launch, size_t... I>
void with_tiled_shape_index(size_t index, Launch& launch, std::index_sequence<I...>)
{
    ((index == I ? launch(std::integral_constant<size_t, I>{}) : void()), ...);
}

struct tiled_launch {
    long long blocks;          //!< grid: each block loops over (group, tile) pairs
    long long tiles_per_group; //!< tiles of S steps per receiver group
    size_t shared_bytes;
};

//! \p blocks_per_sm: resident blocks of the kernel per SM (occupancy); the
//! launch computes receivers [\p first_receiver, R) (pfb_geometry).
inline tiled_launch plan_tiled(const pfb_channelizer_config& c,
                               const tiled_shape& shape,
                               size_t n_out,
                               int sm_count,
                               int blocks_per_sm,
                               size_t first_receiver = 0)
{
    tiled_launch l;
    l.tiles_per_group = ((long long)n_out + shape.steps - 1) / shape.steps;
    const long long groups =
        ((long long)(c.n_receivers - first_receiver) + shape.receivers - 1) / shape.receivers;
    const long long resident = (long long)std::max(1, sm_count) * std::max(1, blocks_per_sm);
    l.blocks = std::max<long long>(1, std::min(groups * l.tiles_per_group, resident));
    l.shared_bytes = tiled_shared_bytes(c.n_channels, shape, sample_size(c.input));
    return l;
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
    int oversample;      //!< O of the configurations it serves
    size_t min_channels; //!< it serves N >= min_channels (first match in fused_shapes)
    int bq;
    int rbt;
    int nt;
};

/*!
 * The one table of fused launch shapes: the GPU engine instantiates
 * pfb_fused_kernel for each entry (with_fused_shape) and plans its launches
 * from the same entry (plan_fused), as does the emulation test. A
 * configuration takes the first entry of its oversample with N >= min_channels.
 */
inline constexpr fused_shape fused_shapes[] = {
    { 1, 1024, 4, 1, 256 },
    { 1, 512, 2, 2, 256 },
    { 1, 0, 1, 4, 256 },
    { 2, 1024, 2, 1, 256 },
    { 2, 0, 1, 2, 256 },
    // Wider blocks (512 and 1024 threads, one or two windows per thread) were
    // measured slower than the two-pass path and removed (apps/channelizer_bench.md,
    // version 4a).
};
constexpr size_t fused_shape_count = sizeof(fused_shapes) / sizeof(fused_shapes[0]);

//! Index in fused_shapes of the shape of N = \p n channels and \p oversample.
inline size_t fused_shape_index(size_t n, unsigned oversample)
{
    for (size_t i = 0; i < fused_shape_count; i++)
        if (unsigned(fused_shapes[i].oversample) == oversample &&
            n >= fused_shapes[i].min_channels)
            return i;
    throw std::logic_error("pfb_channelizer: no fused launch shape for oversample " +
                           std::to_string(oversample));
}

inline fused_shape fused_shape_for(size_t n, unsigned oversample)
{
    return fused_shapes[fused_shape_index(n, oversample)];
}

template <typename Launch, size_t... I>
void with_fused_shape_index(size_t index, Launch& launch, std::index_sequence<I...>)
{
    ((index == I ? launch(std::integral_constant<size_t, I>{}) : void()), ...);
}

/*!
 * Calls launch(std::integral_constant<size_t, I>{}) with I the index in
 * fused_shapes of the shape of (\p n, \p oversample): the caller instantiates
 * its kernel with fused_shapes[I]'s fields as template arguments, so every
 * entry is compiled and a launch's template shape and plan share one entry.
 */
template <typename Launch>
void with_fused_shape(size_t n, unsigned oversample, Launch&& launch)
{
    with_fused_shape_index(fused_shape_index(n, oversample),
                           launch,
                           std::make_index_sequence<fused_shape_count>{});
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

/*!
 * Launch plan of the two-pass path (kernels/gpu/pfb_two_pass.cuh) for one
 * chunk of steps. Chunks bound the column workspace so that pass 2 finds
 * most of it still in L2.
 */
struct two_pass_launch {
    long long fir_blocks;    //!< grid.x of pass 1 (threads: two_pass_threads)
    long long runs;          //!< grid.y of pass 1
    long long steps_per_run; //!< steps of one pass-1 thread
    bool register_fft;       //!< pass 2 is pfb_columns_register_fft_kernel
    //! pass 2 is the library FFT: down the columns, then pfb_spectra_to_output_kernel
    //! on fft_blocks x fft_step_blocks blocks of two_pass_threads; or (library_rows)
    //! the columns transposed to rows, the library FFT on the rows, and the general
    //! path's transpose (pfb_general_transpose_kernel, kernels/gpu/pfb_general.cuh),
    //! or for fewer than two_pass_rows_transpose_receivers the same copy kernel
    bool library_fft;
    bool library_rows;
    long long fft_step_blocks;
    int cols_per_block;      //!< C of pfb_columns_fft_kernel, a power of two
    int log2_cols;
    long long fft_blocks;    //!< grid of pass 2 (register FFT: its tiles)
    size_t fft_shared_bytes; //!< twiddles + the rows (Stockham: + C output offsets)
};

constexpr int two_pass_threads = 256; //!< pfb_two_pass_threads of the kernels
constexpr size_t two_pass_fft_shared_budget = 96 * 1024;
//! Register-FFT pass 2 (kernels/gpu/pfb_columns_register_fft.cuh): its block
//! size (pfb_columns_register_fft_threads) and receivers per tile (runs of
//! 64 bytes from each column).
constexpr int two_pass_fft_threads = 256;
constexpr int two_pass_fft_receivers = 8;

/*!
 * Pass 2 for N without a register FFT, where the backend has a library FFT:
 * the library's from this N on, and for every N that pfb_columns_fft_kernel
 * cannot take (not a power of two, above fft_kernel_max_channels); below it
 * the Stockham kernel. no_library_fft: the backend has none.
 */
constexpr size_t two_pass_library_from = 2048;
constexpr size_t no_library_fft = ~size_t(0);

//! The library pass 2 on rows: the general path's transpose writes the output
//! from this many receivers on (its tiles are 32 receivers wide); below, the
//! copy kernel (a step's outputs in order, loads along the rows' bins).
constexpr size_t two_pass_rows_transpose_receivers = 32;

/*!
 * Whether the library pass 2 transposes the columns to rows first. cuFFT
 * down the columns (strided, batches adjacent) measured faster up to N = 4096
 * for powers of two and to 2048 for other N, the rows' extra transpose faster
 * above (H200: 1.11 against 1.35 ms at 2048 x 16 sc16, 1.61 against 1.43 at
 * 8192, 9.17 against 5.71 at 32768, 4.58 against 1.50 at 6000 x 16 fc32;
 * apps/channelizer_bench.md, version 18).
 */
inline bool two_pass_library_rows(size_t n_channels)
{
    return n_channels > size_t(fft_kernel_max_channels) ||
           (!is_power_of_two(n_channels) && n_channels > 2048);
}

//! Whether pass 2 runs the FFT in registers: N = A B with A <= 32 points per
//! thread (pfb_register_fft_rows), from 128 on (smaller N keep the Stockham pass).
inline bool two_pass_register_fft(const pfb_channelizer_config& c)
{
    return is_power_of_two(c.n_channels) && c.n_channels >= 128 && c.n_channels <= 1024;
}

//! Rows of one register-FFT pass-2 tile (one pass of B-thread rows over the block).
inline int two_pass_fft_rows(size_t n_channels)
{
    return two_pass_fft_threads / pfb_fft::register_fft_b(log2_exact(n_channels));
}

//! T_MAX of pass 1's register ring for T taps per branch: 8 or 16.
inline int two_pass_max_taps(size_t taps_per_branch) { return taps_per_branch <= 8 ? 8 : 16; }

/*!
 * Pass 1 of the two-pass path in blocks of at most 16 taps (any T): block b
 * filters taps 16 b ... 16 b + taps - 1, which read the samples 16 b N
 * earlier, i.e. the stream delayed by step_delay = 16 b O output steps (an
 * even number: the FFT rotation of O = 2 keeps its parity), and adds its
 * outputs to the columns of the blocks before (accumulate). The engine's
 * history (N T - M samples) covers every block.
 */
struct two_pass_tap_block {
    size_t first_tap; //!< k of the block's first tap (prototype offset first_tap N)
    int taps;
    long long step_delay;
    bool accumulate;
};

inline std::vector<two_pass_tap_block>
two_pass_tap_blocks(const pfb_channelizer_config& c)
{
    std::vector<two_pass_tap_block> blocks;
    for (size_t k = 0; k < c.taps_per_branch; k += 16)
        blocks.push_back({ k,
                           int(std::min<size_t>(16, c.taps_per_branch - k)),
                           (long long)(k * c.oversample),
                           k > 0 });
    return blocks;
}

//! Steps per chunk: \p workspace_bytes of columns (at least one step).
inline size_t two_pass_chunk_steps(const pfb_channelizer_config& c, size_t workspace_bytes)
{
    const size_t step_bytes = c.n_channels * c.n_receivers * 2 * sizeof(float);
    return std::max<size_t>(1, workspace_bytes / step_bytes);
}

/*!
 * \p max_log2_cols: pass 2 takes at most 2^max_log2_cols columns per block
 * (8: 64-byte runs of loads and stores, and six blocks per SM at N = 256).
 */
inline two_pass_launch plan_two_pass(const pfb_channelizer_config& c,
                                     size_t steps,
                                     int sm_count,
                                     int max_log2_cols = 3,
                                     size_t library_from = no_library_fft)
{
    two_pass_launch l;
    const long long threads = (long long)(c.n_channels * c.n_receivers);
    l.fir_blocks = (threads + two_pass_threads - 1) / two_pass_threads;
    // About eight blocks per SM, but runs at least four rings long so that
    // the warm-up (ring - 1 samples read again) stays under a quarter.
    const long long ring =
        (long long)c.oversample * two_pass_max_taps(c.taps_per_branch);
    const long long wanted = (8LL * std::max(1, sm_count) + l.fir_blocks - 1) / l.fir_blocks;
    const long long most = std::max<long long>(1, (long long)steps / (4 * ring));
    l.runs = std::max<long long>(1, std::min(wanted, most));
    l.steps_per_run = ((long long)steps + l.runs - 1) / l.runs;
    l.runs = ((long long)steps + l.steps_per_run - 1) / l.steps_per_run;

    const size_t row_bytes = size_t(pfb_fft::row_stride(int(c.n_channels))) * 2 * sizeof(float);
    l.register_fft = two_pass_register_fft(c);
    l.library_fft = !l.register_fft && library_from != no_library_fft &&
                    (c.n_channels >= library_from || !is_power_of_two(c.n_channels) ||
                     c.n_channels > size_t(fft_kernel_max_channels));
    l.library_rows = l.library_fft && two_pass_library_rows(c.n_channels);
    l.fft_step_blocks = 0;
    if (l.library_fft) {
        // The copy's grid: blocks over a step's N R outputs x steps.
        const long long per_step = (long long)(c.n_channels * c.n_receivers);
        l.cols_per_block = 0;
        l.log2_cols = 0;
        l.fft_blocks = std::min<long long>((per_step + two_pass_threads - 1) / two_pass_threads,
                                           4LL * std::max(1, sm_count));
        l.fft_step_blocks = std::min<long long>((long long)steps, 65535);
        l.fft_shared_bytes = 0;
        return l;
    }
    if (l.register_fft) {
        const int rows = two_pass_fft_rows(c.n_channels);
        const long long steps_per_tile = rows / two_pass_fft_receivers;
        const long long groups =
            (long long)(c.n_receivers + two_pass_fft_receivers - 1) / two_pass_fft_receivers;
        l.cols_per_block = 0;
        l.log2_cols = 0;
        l.fft_blocks = groups * (((long long)steps + steps_per_tile - 1) / steps_per_tile);
        l.fft_shared_bytes = size_t(rows) * row_bytes + c.n_channels * 2 * sizeof(float);
        return l;
    }
    const auto shared = [&](int cols) {
        return 2 * size_t(cols) * row_bytes + c.n_channels * 2 * sizeof(float) +
               size_t(cols) * sizeof(long long);
    };
    l.log2_cols = std::max(0, max_log2_cols);
    while (l.log2_cols > 0 && shared(1 << l.log2_cols) > two_pass_fft_shared_budget)
        l.log2_cols--;
    l.cols_per_block = 1 << l.log2_cols;
    const long long n_columns = (long long)(steps * c.n_receivers);
    l.fft_blocks = (n_columns + l.cols_per_block - 1) / l.cols_per_block;
    l.fft_shared_bytes = shared(l.cols_per_block);
    return l;
}

/*!
 * Calls launch(std::integral_constant<int, T_MAX>{}, std::integral_constant<int, O>{})
 * for the two-pass path's template shape of \p c.
 */
template <typename Launch>
void with_two_pass_shape(const pfb_channelizer_config& c, Launch&& launch)
{
    const bool short_ring = two_pass_max_taps(c.taps_per_branch) == 8;
    if (c.oversample == 1) {
        if (short_ring)
            launch(std::integral_constant<int, 8>{}, std::integral_constant<int, 1>{});
        else
            launch(std::integral_constant<int, 16>{}, std::integral_constant<int, 1>{});
    } else {
        if (short_ring)
            launch(std::integral_constant<int, 8>{}, std::integral_constant<int, 2>{});
        else
            launch(std::integral_constant<int, 16>{}, std::integral_constant<int, 2>{});
    }
}

/*!
 * The kernels' geometry (\p Geometry: a backend's pfb_geometry) of a call of
 * \p n_out output steps after \p steps_done steps of earlier calls.
 */
template <typename Geometry>
Geometry kernel_geometry(const pfb_channelizer_config& c, size_t n_out, size_t steps_done)
{
    Geometry g;
    g.n_channels = int(c.n_channels);
    g.log2_n = log2_exact(c.n_channels);
    g.taps_per_branch = int(c.taps_per_branch);
    g.step = int(c.input_per_output());
    g.n_receivers = int(c.n_receivers);
    g.fft_shift = c.fft_shift ? 1 : 0;
    g.first_parity = int(steps_done % c.oversample);
    g.n_out = (long long)n_out;
    g.first_receiver = 0;
    return g;
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
