/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The channelizer in two coalesced passes (CUDA and HIP; notation of
 * pfb_channelizer.cuh: N channels, T taps per branch, O oversample, M = N/O).
 *
 * Why: the fused kernel gives each block all N branches of very few receivers,
 * so its loads and stores touch 4-16 bytes of each 32-byte sector and little
 * memory is in flight (apps/channelizer_bench.md). Here every warp reads and
 * writes runs of consecutive receivers, at the price of one round trip of the
 * FFT inputs through a workspace (which stays in L2 for chunks of a few MB).
 *
 * Pass 1, pfb_fir_columns_kernel: one thread per (branch p, receiver r),
 * receivers fastest, for a run of consecutive steps. It keeps the window
 * z_j = x[m_t - p - j M], j < O T_MAX, in a register ring (one new sample per
 * step, as the fused kernel does) and writes y_p at its FFT input position
 * pos into columns[pos][t][r]: the FFT input of (step t, receiver r) is the
 * column t R + r, read with stride S R (S steps in the chunk). At sc16 and sc8
 * neighbouring lanes may share their loads (lane groups, pfb_raw_group).
 * T > T_MAX: once per block of T_MAX taps, adding to the columns (the
 * engine's loop over pfb_plan::two_pass_tap_blocks).
 *
 * Pass 2 for N = 128 ... 1024: pfb_columns_register_fft_kernel
 * (pfb_columns_register_fft.cuh), the register FFT of the tiled kernels on
 * tiles of columns. For larger N and N that are not powers of two, where the
 * backend has one, a library FFT down the columns in place (or on rows after
 * a transpose) and pfb_spectra_to_output_kernel. For other N,
 * pfb_columns_fft_kernel: one block per C consecutive columns loads them (C
 * consecutive elements of each row), runs the shared-memory Stockham FFT of
 * pfb_channelizer.cuh on them and writes out[t][k][r], again C consecutive
 * elements per output channel.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_PFB_TWO_PASS_CUH
#define INCLUDED_BEAMFORM_KERNELS_PFB_TWO_PASS_CUH

#include <gpu/pfb_channelizer.cuh>
#include <gpu/warp_shuffle.cuh>
#include <cstring>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

//! One receiver's samples: pfb_stream::load with the receiver's offset and
//! the row stride folded into two pointers (fewer live 64-bit registers).
template <typename Tin>
struct pfb_receiver_column {
    const Tin* input;
    const Tin* history_end; //!< history + history_len rows
    long long history_len;
    long long row; //!< values per sample row: 2 R

    __device__ __forceinline__ pfb_receiver_column(const pfb_stream<Tin>& st, int r)
        : input(st.input + 2 * r),
          history_end(st.history + 2 * r + st.history_len * 2 * st.n_receivers),
          history_len(st.history_len),
          row(2LL * st.n_receivers)
    {
    }

    //! Sample s (negative: history) as loaded, before its conversion to fc32;
    //! zero before the history.
    __device__ __forceinline__ typename pfb_raw_sample<Tin>::type load_raw(long long s) const
    {
        if (s >= 0)
            return pfb_raw_sample<Tin>::load(input + s * row);
        if (s >= -history_len)
            return pfb_raw_sample<Tin>::load(history_end + s * row);
        return {};
    }

    __device__ __forceinline__ float2 load(long long s) const
    {
        return pfb_raw_sample<Tin>::value(load_raw(s));
    }
};

//! Pass 1's block size, and two blocks per SM (at most 128 registers).
constexpr int pfb_two_pass_threads = 256;

/*!
 * Raw samples of G neighbouring receivers (r0 = r - r mod G ... r0 + G - 1) at
 * one step, as one load: G x 4 bytes at sc16, G x 2 at sc8. Pass 1's lane
 * groups load these so that a warp's request covers its 32 receivers in G
 * rows with 1/G of the load instructions. Each sample is handled as 32 bits
 * (sc8: the low 16). Little-endian: receiver r0 first.
 */
template <typename Tin, int G>
struct pfb_raw_group {
    using raw_t = typename pfb_raw_sample<Tin>::type;
    static_assert(sizeof(raw_t) <= 4, "a group of fc32 samples is not one load");
    static_assert(G == 2 || G == 4, "groups of 2 or 4 lanes");
    static constexpr int bytes = G * int(sizeof(raw_t)); // 4, 8 or 16
    using load_t = typename std::conditional<
        bytes == 16,
        uint4,
        typename std::conditional<bytes == 8, uint2, unsigned>::type>::type;

    __device__ __forceinline__ static void load(const Tin* p, unsigned (&s)[G])
    {
        const load_t v = *reinterpret_cast<const load_t*>(p);
        unsigned w[bytes / 4];
        memcpy(w, &v, bytes);
#pragma unroll
        for (int k = 0; k < G; k++)
            s[k] = sizeof(raw_t) == 4 ? w[k] : (w[k / 2] >> (16 * (k % 2))) & 0xffffu;
    }
    __device__ __forceinline__ static unsigned bits(raw_t v)
    {
        unsigned b = 0;
        memcpy(&b, &v, sizeof v);
        return b;
    }
    __device__ __forceinline__ static raw_t raw(unsigned b)
    {
        raw_t v;
        memcpy(&v, &b, sizeof v);
        return v;
    }
};

/*!
 * The lanes that pass 1 groups for its loads (pfb_raw_group; 1: none): sc16
 * or sc8, a receiver count that G divides (groups never straddle a branch, and
 * every warp is whole groups), and input and history aligned to a group's
 * load. H200, 1024 x 16 sc16 (apps/channelizer_bench.md version 12): groups
 * of 4 1.34x faster than single loads at O = 1, 1.09x at O = 2 (where the
 * kernel spills 52 bytes); groups of 2 1.16x at O = 1.
 */
template <typename Tin>
inline int pfb_lane_group(const pfb_stream<Tin>& in)
{
    constexpr size_t raw_bytes = sizeof(typename pfb_raw_sample<Tin>::type);
    const auto fits = [&](int g) {
        const size_t load = g * raw_bytes;
        return in.n_receivers % g == 0 &&
               reinterpret_cast<uintptr_t>(in.input) % load == 0 &&
               reinterpret_cast<uintptr_t>(in.history) % load == 0;
    };
    if (raw_bytes > 4)
        return 1;
    return fits(4) ? 4 : fits(2) ? 2 : 1;
}

/*!
 * Pass 1 over the chunk of \p n_steps steps that starts at local step
 * \p t_first. Grid: x covers N R threads, y = runs of \p steps_per_run steps.
 * Taps beyond T are zero, so one T_MAX serves every T <= T_MAX. ACCUMULATE:
 * add to the columns instead of writing them (a block of taps beyond the
 * first T_MAX; pfb_plan::two_pass_tap_blocks).
 */
template <typename Tin, int TMAX, int O, int LANES, bool ACCUMULATE = false>
__global__ void __launch_bounds__(pfb_two_pass_threads, 2)
    pfb_fir_columns_kernel(pfb_stream<Tin> in,
                           const float* __restrict__ taps, // N * T
                           float2* __restrict__ columns,
                           pfb_geometry g,
                           long long t_first,
                           long long n_steps,
                           long long steps_per_run)
{
    constexpr int W = O * TMAX; // ring length
    const int n = g.n_channels;
    const int m = g.step;
    const long long n_threads = (long long)n * g.n_receivers;
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    // Lane groups exchange samples, so every lane of a warp stays to the end:
    // one past the last (branch, receiver) works on the last group and stores
    // nothing (LANES divides n_threads there).
    const bool stores = idx < n_threads;
    if (!stores) {
        if (LANES == 1)
            return; // no barrier or lane exchange in this kernel
        idx = n_threads - LANES + idx % LANES;
    }
    const int r = int(idx % g.n_receivers);
    const int p = int(idx / g.n_receivers);
    const long long u_begin = (long long)blockIdx.y * steps_per_run; // chunk-local
    long long u_end = u_begin + steps_per_run;
    if (u_end > n_steps)
        u_end = n_steps;
    if (u_begin >= u_end)
        return;
    const pfb_receiver_column<Tin> x(in, r);

    float tap[TMAX];
#pragma unroll
    for (int k = 0; k < TMAX; k++)
        tap[k] = k < g.taps_per_branch ? taps[p + k * n] : 0.0f;

    // Ring: at ring step u (mod W) z_j sits in slot (u - j) mod W; slot 0 is
    // filled by the first step. The new samples come in batches of B steps,
    // loaded raw (unconverted) one batch ahead of the batch being filtered,
    // so that 2 B loads per thread are in flight while it multiplies. B = 8,
    // but at most 64 / O bytes (fc32 at O = 2: 4, the 32-sample ring leaves
    // no registers for more). Measured (H200, apps/channelizer_bench.md
    // version 11): sc16 with 16 loads at O = 1 was 8 % slower than with 8,
    // and with 4 at O = 2 19 % slower than with 8.
    using raw_t = typename pfb_raw_sample<Tin>::type;
    constexpr int B_bytes = int(64 / (sizeof(raw_t) * O));
    constexpr int B_most = B_bytes < 8 ? B_bytes : 8;
    constexpr int B = W < B_most ? W : B_most;
    float2 window[W];
    const long long newest_first = (t_first + u_begin + 1) * m - 1 - p;
    // The W - 1 older samples, loaded raw in groups of B and converted after
    // the group's last load, so that sc16 and sc8 do not wait for each load
    // in turn at a run's start (H200: 1024x16 sc16 at O = 2 3 % faster, the
    // other rows level; apps/channelizer_bench.md version 11).
#pragma unroll
    for (int j0 = 1; j0 < W; j0 += B) {
        raw_t older[B];
#pragma unroll
        for (int i = 0; i < B; i++)
            if (j0 + i < W)
                older[i] = x.load_raw(newest_first - (long long)(j0 + i) * m);
#pragma unroll
        for (int i = 0; i < B; i++)
            if (j0 + i < W)
                window[W - j0 - i] = pfb_raw_sample<Tin>::value(older[i]);
    }

    // Fresh sample of run step v (0, 1, ...): newest_first + v M. Every one
    // is in this call's input when the first is (the usual case): plain
    // loads from a pointer that moves by M rows.
    const bool in_input = newest_first >= 0;
    const long long fresh_stride = (long long)m * x.row;
    const long long run_steps = u_end - u_begin;
    const auto fetch = [&](raw_t* batch, long long v0) {
        if constexpr (LANES > 1) {
            // Lane q of a group loads the group's receivers at the batch's
            // steps q, q + G, ...; a transpose across the group's lanes (log2
            // G rounds of exchanges) gives each lane its own receiver's.
            constexpr int G = LANES;
            static_assert(B % G == 0, "lane groups load batches of whole groups");
            using group = pfb_raw_group<Tin, G>;
            const int q = r % G;
            const pfb_receiver_column<Tin> first(in, r - q);
            const Tin* ptr =
                first.input + (in_input ? newest_first + (v0 + q) * m : 0) * first.row;
#pragma unroll
            for (int i = 0; i < B / G; i++, ptr += G * fresh_stride) {
                const long long v = v0 + G * i + q;
                unsigned a[G] = {}; // a[k]: receiver r - q + k at step G i + q
                if (v < run_steps && in_input) {
                    group::load(ptr, a);
                } else if (v < run_steps) {
#pragma unroll
                    for (int k = 0; k < G; k++)
                        a[k] = group::bits(pfb_receiver_column<Tin>(in, r - q + k)
                                               .load_raw(newest_first + v * m));
                }
#pragma unroll
                for (int bit = 1; bit < G; bit <<= 1) {
#pragma unroll
                    for (int k = 0; k < G; k++) {
                        if ((k & bit) != 0)
                            continue;
                        const bool upper = q & bit;
                        const unsigned got =
                            lane_xor_shuffle(upper ? a[k] : a[k ^ bit], bit);
                        a[k] = upper ? got : a[k];
                        a[k ^ bit] = upper ? a[k ^ bit] : got;
                    }
                }
                // Now a[k]: receiver r at step G i + k.
#pragma unroll
                for (int k = 0; k < G; k++)
                    batch[G * i + k] = group::raw(a[k]);
            }
        } else {
            const Tin* q = x.input + (in_input ? newest_first + v0 * m : 0) * x.row;
#pragma unroll
            for (int i = 0; i < B; i++, q += fresh_stride) {
                const long long v = v0 + i;
                batch[i] = v >= run_steps ? raw_t{}
                           : in_input     ? pfb_raw_sample<Tin>::load(q)
                                          : x.load_raw(newest_first + v * m);
            }
        }
    };

    const long long column_stride = n_steps * g.n_receivers;
    float2* column = columns + u_begin * g.n_receivers + r;
    raw_t current[B];
    fetch(current, 0);
    for (long long v0 = 0; v0 < run_steps; v0 += W) {
#pragma unroll
        for (int b0 = 0; b0 < W; b0 += B) {
            raw_t next[B];
            fetch(next, v0 + b0 + B);
#pragma unroll
            for (int i = 0; i < B; i++) {
                const int slot = b0 + i; // ring slot of run step v
                const long long v = v0 + slot;
                if (v < run_steps && stores) {
                    // Slots above `slot` still hold the previous group's samples.
                    window[slot] = pfb_raw_sample<Tin>::value(current[i]);
                    float2 acc = make_float2(0.f, 0.f);
#pragma unroll
                    for (int k = 0; k < TMAX; k++) {
                        const float2 z = window[(slot - k * O + 2 * W) % W];
                        acc.x = fmaf(tap[k], z.x, acc.x);
                        acc.y = fmaf(tap[k], z.y, acc.y);
                    }
                    const int pos = pfb_fft_position_any_n<O>(p, t_first + u_begin + v, g);
                    float2& out = column[pos * column_stride + v * g.n_receivers];
                    if (ACCUMULATE) {
                        const float2 before = out;
                        acc.x += before.x;
                        acc.y += before.y;
                    }
                    out = acc;
                }
            }
#pragma unroll
            for (int i = 0; i < B; i++)
                current[i] = next[i];
        }
    }
}

/*!
 * Pass 2: block b transforms columns [b C, b C + C) of the chunk (C =
 * 2^\p log2_cols) and writes their spectra to out (the call's output,
 * [t][channel][receiver]). Dynamic shared memory: N twiddles + 2 C rows + C
 * output offsets. N and C are powers of two: index arithmetic by shifts and
 * masks, and the one 64-bit division per column (its step and receiver) done
 * once per block.
 */
__global__ void pfb_columns_fft_kernel(const float2* __restrict__ columns,
                                       const float2* __restrict__ twiddle_table,
                                       float2* __restrict__ out,
                                       pfb_geometry g,
                                       long long t_first,
                                       long long n_steps,
                                       int log2_cols)
{
    extern __shared__ float2 pfb_smem[];
    const int n = g.n_channels;
    const int c_count = 1 << log2_cols;
    const int ld = pfb_fft::row_stride(n);
    float2* twiddle = pfb_smem;
    float2* buf_a = twiddle + n;
    float2* buf_b = buf_a + c_count * ld;
    long long* out_offset = reinterpret_cast<long long*>(buf_b + c_count * ld);
    const long long n_columns = n_steps * g.n_receivers;
    const long long j0 = (long long)blockIdx.x * c_count;

    for (int k = threadIdx.x; k < n; k += blockDim.x)
        twiddle[k] = twiddle_table[k];
    for (int c = threadIdx.x; c < c_count; c += blockDim.x) {
        const long long j = j0 + c;
        const long long t = t_first + j / g.n_receivers;
        out_offset[c] = j < n_columns ? t * n * g.n_receivers + j % g.n_receivers : -1;
    }
    // Eight loads in flight per thread before their shared-memory stores.
    constexpr int batch = 8;
    const int total = n * c_count;
    for (int base = threadIdx.x; base < total; base += batch * blockDim.x) {
        float2 v[batch];
#pragma unroll
        for (int i = 0; i < batch; i++) {
            const int idx = base + i * blockDim.x;
            const int pos = idx >> log2_cols;
            const long long j = j0 + (idx & (c_count - 1));
            v[i] = idx < total && j < n_columns ? columns[pos * n_columns + j]
                                                : make_float2(0.f, 0.f);
        }
#pragma unroll
        for (int i = 0; i < batch; i++) {
            const int idx = base + i * blockDim.x;
            if (idx < total)
                buf_a[(idx & (c_count - 1)) * ld + (idx >> log2_cols)] = v[i];
        }
    }
    __syncthreads();
    const float2* spectrum = pfb_block_fft(buf_a, buf_b, twiddle, g.log2_n, c_count, ld);
    const int shift = g.fft_shift ? n / 2 : 0; // output channel k holds FFT bin k + N/2
    for (int idx = threadIdx.x; idx < total; idx += blockDim.x) {
        const int k = idx >> log2_cols;
        const int c = idx & (c_count - 1);
        const long long o = out_offset[c];
        if (o >= 0)
            out[o + (long long)k * g.n_receivers] =
                spectrum[c * ld + ((k + shift) & (n - 1))];
    }
}

/*!
 * Pass 2's last step where a library FFT transformed the chunk's spectra in
 * place (CUDA: cuFFT): spectrum element (local step t, receiver r, bin b) at
 * t step_stride + r receiver_stride + b bin_stride to out[t_first + t]
 * [channel][r]. The columns [bin][t][r] (cuFFT down them,
 * pfb_inverse_fft::run_columns) and, for few receivers, the rows [t][r][bin]
 * (run on rows, where the general path's 32 x 32 transpose tiles would run
 * nearly empty). A step's N R outputs are contiguous in out, so blocks
 * (grid.x) walk them in order and each warp's stores are whole sectors; the
 * loads read runs of R receivers of a bin (columns) or of consecutive bins of
 * a receiver (rows). Steps: grid.y, y, y + gridDim.y, ... N R < 2^31 (the
 * path's condition, pfb_plan::path_applies).
 */
__global__ void pfb_spectra_to_output_kernel(const float2* __restrict__ spectra,
                                             float2* __restrict__ out,
                                             pfb_geometry g,
                                             long long t_first,
                                             long long n_steps,
                                             long long step_stride,
                                             long long receiver_stride,
                                             long long bin_stride)
{
    const unsigned n = unsigned(g.n_channels);
    const unsigned n_rx = unsigned(g.n_receivers);
    const unsigned per_step = n * n_rx;
    // fft_shift: output channel k holds bin (k + N - N/2) mod N.
    const unsigned half = n / 2, upper = n - n / 2;
    for (long long t = blockIdx.y; t < n_steps; t += gridDim.y) {
        float2* o = out + (t_first + t) * per_step;
        const float2* s = spectra + t * step_stride;
        for (unsigned f = blockIdx.x * blockDim.x + threadIdx.x; f < per_step;
             f += gridDim.x * blockDim.x) {
            const unsigned k = f / n_rx;
            const unsigned r = f - k * n_rx;
            const unsigned bin = !g.fft_shift ? k : k < half ? k + upper : k - half;
            o[f] = s[bin * bin_stride + r * receiver_stride];
        }
    }
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
