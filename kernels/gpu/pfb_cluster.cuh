/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The channelizer over thread-block clusters (sm_90; notation of
 * pfb_channelizer.cuh, critically sampled: O = 1, M = N).
 *
 * Why: the tiled kernels (pfb_tiled.cuh) keep no FIR state between tiles, so
 * every tile of S steps loads the T - 1 steps before it again (3.5 times each
 * sample at N = 1024, 2.25 at N = 256), and one SM's shared memory bounds the
 * tile. Keeping each (branch, receiver) pair's window of T_MAX = 16 samples in
 * registers for the whole call loads every sample once, but the windows of one
 * FFT's worth of pairs (N branches x RB receivers, 32 registers each) are more
 * than one SM holds. So the C blocks of a cluster split the branches: block c
 * filters branches [c N / C, (c + 1) N / C) of RB receivers, one pair per
 * thread, and walks through the steps of its segment; each step loads one
 * sample per pair (RB = 8 sc16: whole 32-byte sectors). Every 16 steps (one
 * turn of the window ring, a "tile") it writes step u's branch outputs into
 * the shared memory of block u / (16 / C) (distributed shared memory), and
 * each block then runs the FFTs of its 16 / C steps x RB receivers
 * (pfb_register_fft_rows) and writes them out (pfb_tiled_store).
 *
 * Pipeline, per tile t of a block, with B = BUFFERS row buffers: FIR(t) into
 * buffer t mod B of the peers; wait for the cluster barrier of tile t - 1;
 * FFT and store of tile t - 1 from buffer (t - 1) mod B; arrive (FIR(t)
 * written, tile t - 1 read). A block writes buffer t mod 3 only after the
 * barrier that says every peer has arrived after reading tile t - 3 from it
 * (hence three buffers), and the barrier's latency hides behind the FIR. The arrive's release is a
 * GPU-wide fence (MEMBAR.ALL.GPU in the SASS) that waits for the block's
 * output stores too; with four buffers the arrive comes before them (a peer
 * may then run one tile further ahead).
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_PFB_CLUSTER_CUH
#define INCLUDED_BEAMFORM_KERNELS_PFB_CLUSTER_CUH

#include <gpu/pfb_tiled_register_fft.cuh>
#if defined(BF_BACKEND_HIP)
#error "pfb_cluster.cuh: thread-block clusters are CUDA (sm_90) only"
#endif
#if !defined(BF_GPU_EMULATION) && defined(BF_BACKEND_CUDA)
#include <cooperative_groups.h>
#endif

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

//! The cluster operations of the kernel: rank in the cluster, the
//! shared::cluster address of a location in a peer's shared memory and a
//! store there, the split barrier.
struct pfb_cluster_ops {
#if defined(BF_GPU_EMULATION)
    static __device__ unsigned rank() { return emu::cluster_rank(); }
    static __device__ uint32_t address(const float2* p, unsigned r)
    {
        return emu::cluster_address(p, r);
    }
    static __device__ void store(uint32_t a, float2 v) { emu::cluster_store(a, v); }
    static __device__ void arrive() { emu::cluster_arrive(); }
    static __device__ void wait() { emu::cluster_wait(); }
    static __device__ float2* shared() { return reinterpret_cast<float2*>(emu::dynamic_smem()); }
#elif defined(BF_BACKEND_CUDA)
    static __device__ __forceinline__ unsigned rank()
    {
        return cooperative_groups::this_cluster().block_rank();
    }
    //! The shared::cluster address of \p p in block \p r (mapa): a 32-bit
    //! address, so that a row's stores are this plus a constant.
    static __device__ __forceinline__ uint32_t address(const float2* p, unsigned r)
    {
        const uint32_t local = static_cast<uint32_t>(__cvta_generic_to_shared(p));
        uint32_t a;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(local), "r"(r));
        return a;
    }
    static __device__ __forceinline__ void store(uint32_t a, float2 v)
    {
        asm volatile("st.shared::cluster.v2.f32 [%0], {%1, %2};" ::"r"(a), "f"(v.x), "f"(v.y));
    }
    static __device__ __forceinline__ void arrive()
    {
        asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
    }
    static __device__ __forceinline__ void wait()
    {
        asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
    }
    static __device__ __forceinline__ float2* shared()
    {
        extern __shared__ float2 pfb_smem[];
        return pfb_smem;
    }
#endif
};

//! One input sample as loaded (2 registers for fc32, 1 for sc16 and sc8), so
//! that a tile of them waits in few registers.
__device__ __forceinline__ float2 pfb_load_raw(const float* p)
{
    return *reinterpret_cast<const float2*>(p);
}
__device__ __forceinline__ uint32_t pfb_load_raw(const int16_t* p)
{
    // One 32-bit word, not a short2: the compiler keeps a short2 in two
    // registers (and spilled them as 16-bit halves).
    return *reinterpret_cast<const uint32_t*>(p);
}
__device__ __forceinline__ char2 pfb_load_raw(const int8_t* p)
{
    return *reinterpret_cast<const char2*>(p);
}
__device__ __forceinline__ float2 pfb_raw_to_float2(float2 v) { return v; }
__device__ __forceinline__ float2 pfb_raw_to_float2(uint32_t v)
{
    return make_float2(float(int16_t(v & 0xffffu)), float(int16_t(v >> 16)));
}
__device__ __forceinline__ float2 pfb_raw_to_float2(char2 v)
{
    return make_float2(float(v.x), float(v.y));
}

//! Threads of a cluster kernel's block: one (branch, receiver) pair each.
constexpr int pfb_cluster_threads(int log2_n, int cluster, int receivers)
{
    return (1 << log2_n) / cluster * receivers;
}

//! Resident blocks per SM in the launch bound: 128 registers and more at
//! 256 and 128 threads, so that two or four blocks share an SM.
constexpr int pfb_cluster_min_blocks(int threads) { return threads >= 512 ? 1 : 512 / threads; }

//! Steps of one tile: one turn of the window ring.
constexpr int pfb_cluster_tile_steps = 16;

/*!
 * Grid: whole clusters of C blocks (cluster dimension C along x); cluster k
 * takes the work items k, k + clusters, ... of the (receiver group of RB,
 * segment of \p segment_steps steps) pairs of the call, segment_steps a
 * multiple of pfb_cluster_tile_steps. Dynamic shared memory: N twiddles and
 * BUFFERS (3 or 4) buffers of (16 / C) RB rows of N + 1. TMAX must be 16
 * (the tile).
 */
template <typename Tin, int TMAX, int LOG2_N, int C, int RB, int BUFFERS>
__global__ void __launch_bounds__(pfb_cluster_threads(LOG2_N, C, RB),
                                  pfb_cluster_min_blocks(pfb_cluster_threads(LOG2_N, C, RB)))
    pfb_cluster_kernel(pfb_stream<Tin> in,
                       const float* __restrict__ taps, // prototype, N * T
                       const float2* __restrict__ twiddle_table,
                       float2* __restrict__ out,
                       pfb_geometry g,
                       long long segment_steps)
{
#if defined(BF_BACKEND_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap(); // clusters need sm_90; the engine takes this path only there
#else
    constexpr int n = 1 << LOG2_N;
    constexpr int tile = pfb_cluster_tile_steps;
    constexpr int local_steps = tile / C; // FFT steps of each block per tile
    constexpr int rows = local_steps * RB;
    static_assert(TMAX == tile, "the window ring is one tile");
    static_assert(BUFFERS == 3 || BUFFERS == 4, "three or four row buffers");
    static_assert(tile % C == 0 && n % C == 0, "C divides the tile and N");
    using ops = pfb_cluster_ops;
#ifdef BF_GPU_EMULATION
    if (g.log2_n != LOG2_N || g.step != n || segment_steps % tile != 0 ||
        int(blockDim.x) != pfb_cluster_threads(LOG2_N, C, RB))
        throw std::logic_error("pfb_cluster_kernel: launched for another shape");
#endif
    constexpr int ld = n + 1; // pfb_fft::row_stride
    float2* twiddle = ops::shared();
    float2* buffers = twiddle + n; // buffer b, row s RB + rr: step s of the block's part
    for (int k = threadIdx.x; k < n; k += blockDim.x)
        twiddle[k] = twiddle_table[k];

    const unsigned rank = ops::rank();
    const int rr = int(threadIdx.x) % RB;
    const int p = int(rank) * (n / C) + int(threadIdx.x) / RB;
    float tap[TMAX];
#pragma unroll
    for (int k = 0; k < TMAX; k++)
        tap[k] = k < g.taps_per_branch ? taps[p + k * n] : 0.0f;

    const long long groups = (g.n_receivers + RB - 1) / RB;
    const long long segments = (g.n_out + segment_steps - 1) / segment_steps;
    const long long work = groups * segments;
    const long long clusters = gridDim.x / C;

    // The tile whose FFTs are still to run (after the next barrier).
    int pending_r_first = 0;
    long long pending_t0 = 0;
    int pending_steps = 0;
    bool pending = false;
    int buffer = 0;
    // This block's part of the pending tile: steps [rank 16 / C, ...).
    const auto own_steps = [&] {
        return max(0, min(local_steps, pending_steps - int(rank) * local_steps));
    };
    const auto fft = [&](float2* own) {
        pfb_register_fft_rows<LOG2_N>(own, twiddle, own_steps() * RB, ld);
        __syncthreads(); // the store reads other threads' rows
    };
    const auto store = [&](const float2* own) {
        pfb_tiled_store<RB>(
            own, ld, out, g, pending_r_first, pending_t0 + int(rank) * local_steps, own_steps());
    };

    for (long long w = blockIdx.x / C; w < work; w += clusters) {
        const int r_first = int(w % groups) * RB;
        const long long n0 = (w / groups) * segment_steps;
        const long long n_end = min(n0 + segment_steps, g.n_out);
        const int r = r_first + rr;
        const bool live = r < g.n_receivers;
        const pfb_receiver_column<Tin> x(in, live ? r : 0);
        // Window slot (step mod 16) holds s(step) = x[(step + 1) N - 1 - p];
        // n0 is a multiple of 16, so slot j holds step n0 - 16 + j first.
        float2 window[TMAX];
#pragma unroll
        for (int j = 1; j < TMAX; j++)
            window[j] = live ? x.load((n0 - TMAX + j + 1) * n - 1 - p) : make_float2(0.f, 0.f);
        window[0] = make_float2(0.f, 0.f);

        // The samples of one tile, loaded a tile ahead: the next tile's loads
        // are in flight while this block waits, runs its FFTs and stores.
        using raw = decltype(pfb_load_raw(x.input));
        raw sample[tile];
        const auto load_tile = [&](long long t_first) {
            const int steps = int(min((long long)tile, n_end - t_first));
            const Tin* newest = x.input + ((t_first + 1) * n - 1 - p) * x.row;
#pragma unroll
            for (int u = 0; u < tile; u++) {
#ifdef BF_GPU_EMULATION
                const long long index = (t_first + u + 1) * n - 1 - p;
                if (u < steps && live && (index < 0 || index >= g.n_out * n))
                    throw std::out_of_range("pfb_cluster_kernel: input sample outside the call");
#endif
                if (u < steps && live)
                    sample[u] = pfb_load_raw(newest + (long long)u * n * x.row);
                else
                    sample[u] = raw{};
            }
        };
        load_tile(n0);

        for (long long t0 = n0; t0 < n_end; t0 += tile) {
            const int steps = int(min((long long)tile, n_end - t0));
            // This thread's slot of row rr, step 0, in each peer's buffer.
            uint32_t peer[C];
#pragma unroll
            for (int q = 0; q < C; q++)
                peer[q] = ops::address(buffers + buffer * rows * ld + rr * ld + p, unsigned(q));
#pragma unroll
            for (int u = 0; u < tile; u++) {
                window[u] = pfb_raw_to_float2(sample[u]);
                if (u < steps) {
                    float2 acc = make_float2(0.f, 0.f);
#pragma unroll
                    for (int k = 0; k < TMAX; k++) {
                        const float2 z = window[(u - k + TMAX) % TMAX];
                        acc.x = fmaf(tap[k], z.x, acc.x);
                        acc.y = fmaf(tap[k], z.y, acc.y);
                    }
                    ops::store(peer[u / local_steps] +
                                   uint32_t((u % local_steps) * RB * ld * sizeof(float2)),
                               acc);
                }
            }
            if (t0 + tile < n_end)
                load_tile(t0 + tile);
            float2* previous = buffers + ((buffer + BUFFERS - 1) % BUFFERS) * rows * ld;
            if (pending) {
                ops::wait();
                fft(previous);
            }
            if (BUFFERS == 4) {
                // The arrive before this block's output stores, so that its
                // fence does not wait for them; a peer may then write
                // buffers up to two tiles ahead, which a fourth one allows.
                ops::arrive();
                if (pending)
                    store(previous);
            } else {
                if (pending)
                    store(previous);
                ops::arrive();
            }
            pending = true;
            pending_r_first = r_first;
            pending_t0 = t0;
            pending_steps = steps;
            buffer = (buffer + 1) % BUFFERS;
        }
    }
    if (pending) {
        ops::wait();
        float2* previous = buffers + ((buffer + BUFFERS - 1) % BUFFERS) * rows * ld;
        fft(previous);
        store(previous);
    }
#endif
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
