/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A host model of the CUDA/HIP built-ins that the kernels under kernels/ use,
 * so that the C++ tests run the kernels' own code on a CPU (no GPU on the
 * build machine). Included by the emulated tests (tests/cpp/test_..._emulated.cc)
 * BEFORE any kernel header: it stands in for kernels/common/gpu_portable.h,
 * defines BF_GPU_EMULATION (the kernels' switch between their PTX/builtin
 * wrappers and the models below) and compiles the portable kernels
 * (kernels/gpu/) into namespace gr::beamform::emulated (BF_GPU_NS).
 *
 * Each GPU thread of a block is a fiber (fiber_context.h); fibers switch only at
 * __syncthreads, at warp-collective operations and at waits, in a shuffled
 * order (fixed seed: reproducible), so that a missing barrier tends to show
 * as a wrong result. Blocks run one after the other, in a shuffled order.
 * Modelled:
 *   - __syncthreads: block barrier; __syncwarp: warp barrier (full mask only);
 *   - ldmatrix.x4, mma.sync m16n8k16 (f16 -> f32) and m16n8k256 (b1 AND
 *     popc -> s32), __shfl_xor_sync: warp-collective, with the register
 *     layouts of the PTX ISA (each lane's registers are exchanged and every
 *     lane computes its own result);
 *   - v_mfma_f32_16x16x16f16 on 64-lane wavefronts (AMD);
 *   - cp.async: copies are queued per thread in commit groups; each lands at
 *     random either when issued or only at its cp.async.wait_group, so a stage
 *     read before its wait, or rewritten while still in use, shows;
 *   - mbarriers, TMA tensor copies (cp.async.bulk.tensor, 128-byte swizzle;
 *     loads landing at issue or at the wait, at random; stores in bulk
 *     groups, reading shared memory at issue or at their bulk wait, at
 *     random, and a thread that ends with stores not waited for is an
 *     error), named barriers (bar.sync
 *     id, count), setmaxnreg (no effect); a block whose threads all wait on
 *     barriers that nobody completes is reported as a deadlock;
 *   - wgmma (sm_90a): each thread's part of the product is computed from
 *     shared memory at its wgmma.wait_group (the latest the GPU may read it),
 *     after the other threads have run (a fiber switch there),
 *     through the matrix descriptor with the 128-byte swizzle on absolute
 *     shared-memory addresses;
 *   - dynamic shared memory is filled with garbage before each block (0xA5
 *     for emu::launch, 0xFF, a float NaN, for the dim3 launch of the
 *     portable kernels);
 *   - blocks of up to three dimensions (threadIdx.x fastest; warps are runs
 *     of 32 consecutive linear thread indices, as on the GPU) and grids of
 *     three;
 *   - the read-only load __ldg, the fast intrinsics __sincosf, __cosf,
 *     __fdividef, __frcp_rn, __fsqrt_rn (as the exact operations), bit casts,
 *     atomicMax, flags between blocks (flag_load_acquire,
 *     flag_add_release: the waiting block's own threads must set them, since
 *     blocks run one after the other), __popc, __ffs, and the packed-half operations __hmul2,
 *     __hfma2 (each half rounded once, as the hardware does), __half22float2,
 *     __float2half2_rn.
 * Not modelled: timing, bank conflicts, memory spaces, preemption between
 * sync points, register limits: a kernel that passes here can still be slow
 * or have a race that only hardware shows; the GPU tests run the real thing.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_GPU_EMULATION_H
#define INCLUDED_BEAMFORM_KERNELS_GPU_EMULATION_H

#ifdef INCLUDED_BEAMFORM_GPU_PORTABLE_H
#error "emulation/gpu_emulation.h must come before any GPU header"
#endif
#define INCLUDED_BEAMFORM_GPU_PORTABLE_H // the kernels' portability header, replaced
#define BF_GPU_NS emulated
#define BF_GPU_EMULATION 1

#include <common/half_bits.h>
#include <emulation/fiber_context.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__
#define __launch_bounds__(...)

struct float2 {
    float x, y;
};
struct float4 {
    float x, y, z, w;
};
struct uint2 {
    uint32_t x, y;
};
struct uint4 {
    uint32_t x, y, z, w;
};
struct __half2 {
    uint16_t x, y;
};
struct short2 {
    short x, y;
};
struct char2 {
    signed char x, y;
};
struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    dim3() = default;
    dim3(unsigned a, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
inline float2 make_float2(float x, float y) { return float2{ x, y }; }
inline float4 make_float4(float x, float y, float z, float w)
{
    return float4{ x, y, z, w };
}
inline __half2 __floats2half2_rn(float a, float b)
{
    return __half2{ gr::beamform::half_bits::from_float(a),
                    gr::beamform::half_bits::from_float(b) };
}
inline float2 __half22float2(__half2 h)
{
    return float2{ gr::beamform::half_bits::to_float(h.x), gr::beamform::half_bits::to_float(h.y) };
}
inline __half2 __float2half2_rn(float a) { return __floats2half2_rn(a, a); }
//! a * b + c per half, rounded once (the product of two halves is exact in double).
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c)
{
    const float2 fa = __half22float2(a), fb = __half22float2(b), fc = __half22float2(c);
    return __floats2half2_rn(float(double(fa.x) * fb.x + fc.x), float(double(fa.y) * fb.y + fc.y));
}
inline __half2 __hmul2(__half2 a, __half2 b)
{
    const float2 fa = __half22float2(a), fb = __half22float2(b);
    return __floats2half2_rn(fa.x * fb.x, fa.y * fb.y);
}
inline int __popc(uint32_t v) { return __builtin_popcount(v); }
inline int __ffs(int v) { return __builtin_ffs(v); }
inline int min(int a, int b) { return a < b ? a : b; }
template <class T>
inline T __ldg(const T* p)
{
    return *p;
}
inline void __sincosf(float x, float* s, float* c)
{
    *s = std::sin(x);
    *c = std::cos(x);
}
inline float __cosf(float x) { return std::cos(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
//! The bits of \p from as a To of the same size (the CUDA bit-cast intrinsics).
template <typename To, typename From>
inline To emu_bit_cast(From from)
{
    static_assert(sizeof(To) == sizeof(From), "bit casts keep the size");
    To to;
    std::memcpy(&to, &from, sizeof(To));
    return to;
}
inline int __float_as_int(float v) { return emu_bit_cast<int>(v); }
inline unsigned __float_as_uint(float v) { return emu_bit_cast<unsigned>(v); }
inline float __int_as_float(int i) { return emu_bit_cast<float>(i); }
inline float __uint_as_float(unsigned i) { return emu_bit_cast<float>(i); }

namespace gr {
namespace beamform {
namespace emulated {

using std::fmaf;
using std::max;
using std::min;

/*!
 * Storage of the dynamic shared memory of the block being run (one block at a
 * time), for every launch. Its name is the one the portable kernels give
 * their `extern __shared__ float2 pfb_smem[]`, which in namespace emulated
 * refers to this array.
 */
constexpr size_t shared_floats = size_t(1) << 17; // 1 MiB
alignas(16) inline float2 pfb_smem[shared_floats / 2];

} // namespace emulated
} // namespace beamform
} // namespace gr

namespace emu {

struct idx3 {
    unsigned x = 0, y = 0, z = 0;
};

struct async_copy {
    unsigned char* dst;
    const unsigned char* src;
    int bytes;
    int src_bytes;
};

//! One wgmma.mma_async of one thread, performed at its wgmma.wait_group.
struct wgmma_op {
    bool b1;
    int n;
    void* acc; // the thread's [n/8][4] accumulators
    uint64_t desc_a, desc_b;
};

struct fiber {
    fiber_context ctx;
    bool done = false;
    std::deque<std::vector<async_copy>> groups; // committed, oldest first
    std::vector<async_copy> open;
    std::deque<std::vector<wgmma_op>> wgmma_groups;
    std::vector<wgmma_op> wgmma_open;
    //! TMA stores (cp.async.bulk.tensor ... bulk_group), committed, oldest first
    std::deque<std::vector<std::function<void()>>> bulk_groups;
    std::vector<std::function<void()>> bulk_open;
};

struct warp_state {
    unsigned count = 0;
    unsigned gen = 0;
    uint32_t slot[64][10]; // up to 64 lanes (HIP wavefronts)
};

//! An mbarrier (sm_90): arrivals and transaction bytes still owed this phase.
struct mbarrier_state {
    unsigned expected = 0, pending = 0;
    long long tx = 0;
    unsigned phase = 0; //!< completed phases
};

//! A TMA copy issued but not landed yet (it lands at the latest when its
//! mbarrier is waited on).
struct pending_tma {
    uint32_t bar;
    std::function<void()> land; //!< copies the box and completes its bytes
};

struct block_state {
    std::vector<fiber> fibers;
    std::map<uint32_t, mbarrier_state> mbarriers; //!< by shared-memory address
    std::vector<pending_tma> tma_in_flight;
    std::map<unsigned, std::pair<unsigned, unsigned>> named; //!< bar.sync id: (arrived, generation)
    size_t idle_yields = 0; //!< spin-wait yields since the last synchronisation progress
    std::vector<warp_state> warps;
    fiber_context scheduler;
    unsigned char* smem = nullptr; //!< dynamic shared memory (in emulated::pfb_smem)
    size_t smem_bytes = 0;
    unsigned barrier_count = 0;
    unsigned barrier_gen = 0;
    int current = 0;
    std::function<void()> body;
    std::string error;         //!< first exception thrown by a thread; aborts the block
    std::mt19937 landing{ 7 }; //!< when cp.async copies land
};

struct global_state {
    idx3 thread, block, dim, grid;
    unsigned linear = 0;     //!< thread index in the block, x fastest (warps are runs of these)
    unsigned warp_size = 32; //!< 32 (CUDA warps) or 64 (AMD wavefronts)
    block_state* blk = nullptr;
};

inline global_state& state()
{
    static global_state s;
    return s;
}

inline void yield()
{
    block_state* b = state().blk;
    fiber_switch(b->fibers[b->current].ctx, b->scheduler);
}

//! Some thread changed synchronisation state (arrived somewhere).
inline void note_progress() { state().blk->idle_yields = 0; }

/*!
 * One yield of a spin wait (mbarrier, named barrier). If every thread of the
 * block has yielded several times over without anyone arriving anywhere,
 * nothing can change any more: a deadlock, reported instead of hanging.
 */
inline void wait_yield()
{
    block_state* b = state().blk;
    if (++b->idle_yields > 4 * b->fibers.size() + 16)
        throw std::logic_error("emulation: deadlock (every thread waits on a barrier "
                               "that no thread will complete)");
    yield();
}

inline void block_barrier()
{
    block_state* b = state().blk;
    note_progress();
    const unsigned gen = b->barrier_gen;
    if (++b->barrier_count == b->fibers.size()) {
        b->barrier_count = 0;
        b->barrier_gen++;
        return;
    }
    while (b->barrier_gen == gen)
        yield();
}

inline unsigned lane() { return state().linear % state().warp_size; }
inline warp_state& my_warp()
{
    return state().blk->warps[state().linear / state().warp_size];
}

inline void warp_barrier()
{
    if ((state().linear / state().warp_size + 1) * state().warp_size >
        state().blk->fibers.size())
        throw std::logic_error("emulation: warp-collective operation in a partial warp");
    warp_state& w = my_warp();
    const unsigned gen = w.gen;
    note_progress();
    if (++w.count == state().warp_size) {
        w.count = 0;
        w.gen++;
        return;
    }
    while (w.gen == gen)
        yield();
}

/*!
 * Shared-memory addresses (what smem_u32 returns) start at this offset, not
 * at 0, so that kernels which need 1024-byte aligned tiles must align them
 * themselves, as on the GPU, where dynamic shared memory need not start on a
 * 1024-byte boundary.
 */
constexpr uint32_t smem_window = 400;

inline unsigned char* dynamic_smem() { return state().blk->smem; }
inline uint32_t smem_u32(const void* p)
{
    const auto* q = static_cast<const unsigned char*>(p);
    const auto* base = state().blk->smem;
    if (q < base || q > base + state().blk->smem_bytes)
        throw std::logic_error("emulation: smem_u32 of a pointer outside shared memory");
    return uint32_t(q - base) + smem_window;
}
//! The byte at shared-memory address a (as smem_u32 gives them).
inline unsigned char* smem_at(uint32_t a, uint32_t bytes)
{
    block_state* b = state().blk;
    if (a < smem_window || a - smem_window + bytes > b->smem_bytes)
        throw std::logic_error("emulation: shared-memory access out of range");
    return b->smem + (a - smem_window);
}

inline fiber& me() { return state().blk->fibers[state().blk->current]; }

//! Close the open group of asynchronous operations (commit_group).
template <class Op>
inline void commit_group(std::deque<std::vector<Op>>& groups, std::vector<Op>& open)
{
    groups.push_back(std::move(open));
    open.clear();
}
//! Perform the oldest groups until only \p keep are pending (wait_group).
template <class Op, class F>
inline void retire_groups(std::deque<std::vector<Op>>& groups, size_t keep, F perform)
{
    while (groups.size() > keep) {
        for (const auto& op : groups.front())
            perform(op);
        groups.pop_front();
    }
}

//! A cp.async copy lands: src_bytes copied, the rest zero-filled.
inline void land(const async_copy& c)
{
    std::memcpy(c.dst, c.src, size_t(c.src_bytes));
    std::memset(c.dst + c.src_bytes, 0, size_t(c.bytes - c.src_bytes));
}

//! A cp.async copy to \p dst, a pointer into the block's shared memory (the
//! portable kernels' arrays); cp_async below takes a shared-memory address.
inline void cp_async_to(void* dst, const void* src, int bytes, bool valid)
{
    if (reinterpret_cast<uintptr_t>(dst) % unsigned(bytes) != 0)
        throw std::logic_error("emulation: cp.async destination misaligned");
    if (valid && reinterpret_cast<uintptr_t>(src) % unsigned(bytes) != 0)
        throw std::logic_error("emulation: cp.async source misaligned");
    const async_copy c{ static_cast<unsigned char*>(dst),
                        static_cast<const unsigned char*>(src),
                        bytes,
                        valid ? bytes : 0 };
    // The copy may land any time between issue and wait: here at random
    // either at once or (again) at the wait, so that reads that come too late
    // (a stage overwritten while still in use) and reads that come too early
    // (a missing wait) both show.
    if (state().blk->landing() & 1u)
        land(c);
    me().open.push_back(c);
}
inline void cp_async(uint32_t dst, const void* src, int bytes, bool valid)
{
    if (dst % unsigned(bytes) != 0)
        throw std::logic_error("emulation: cp.async destination misaligned");
    cp_async_to(smem_at(dst, unsigned(bytes)), src, bytes, valid);
}
inline void cp_async16(uint32_t dst, const void* src, bool valid)
{
    cp_async(dst, src, 16, valid);
}
inline void cp_async8(uint32_t dst, const void* src, bool valid)
{
    cp_async(dst, src, 8, valid);
}
inline void cp_async_commit() { commit_group(me().groups, me().open); }
template <int N>
inline void cp_async_wait()
{
    retire_groups(me().groups, size_t(N), land);
}

//! ldmatrix.x4: lane L supplies row L%8 of matrix L/8; lane L receives, from
//! matrix i, the 4 bytes at column 4*(L%4) of row L/4.
inline void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr)
{
    warp_state& w = my_warp();
    const unsigned l = lane();
    if (addr % 16 != 0)
        throw std::logic_error("emulation: ldmatrix row address not 16-byte aligned");
    w.slot[l][0] = addr;
    warp_barrier();
    for (int i = 0; i < 4; i++) {
        const uint32_t row = w.slot[i * 8 + l / 4][0];
        std::memcpy(&r[i], smem_at(row + 4 * (l % 4), 4), 4);
    }
    warp_barrier();
}

inline float half_lo(uint32_t v)
{
    return gr::beamform::half_bits::to_float(uint16_t(v & 0xffffu));
}
inline float half_hi(uint32_t v)
{
    return gr::beamform::half_bits::to_float(uint16_t(v >> 16));
}
inline float half_at(uint32_t v, int i) { return i ? half_hi(v) : half_lo(v); }

//! Every lane of the warp publishes its A (slots 0-3) and B (4-5) registers.
inline warp_state& share_mma_operands(const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    warp_state& w = my_warp();
    const unsigned l = lane();
    for (int i = 0; i < 4; i++)
        w.slot[l][i] = a[i];
    w.slot[l][4] = b[0];
    w.slot[l][5] = b[1];
    warp_barrier();
    return w;
}

/*!
 * mma.sync.m16n8k16.row.col.f32.f16.f16.f32 with the PTX fragment layouts
 * (g = lane/4, t = lane%4): a0 (row g, k 2t..2t+1), a1 (row g+8, same k),
 * a2 (row g, k 2t+8..), a3 (row g+8, k 2t+8..); b0 (k 2t..2t+1, col g),
 * b1 (k 2t+8.., col g); c0, c1 (row g, cols 2t, 2t+1), c2, c3 (row g+8).
 */
inline void
mma_m16n8k16_f16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    warp_state& w = share_mma_operands(a, b);
    const unsigned l = lane();
    auto A = [&](int row, int k) {
        const int g = row % 8, reg = (row / 8) + 2 * (k / 8), kk = k % 8;
        return half_at(w.slot[g * 4 + kk / 2][reg], kk % 2);
    };
    auto B = [&](int k, int col) {
        const int kk = k % 8;
        return half_at(w.slot[col * 4 + kk / 2][4 + k / 8], kk % 2);
    };
    for (int r = 0; r < 4; r++) {
        const int row = int(l / 4) + 8 * (r / 2);
        const int col = 2 * int(l % 4) + r % 2;
        float sum = 0.0f;
        for (int k = 0; k < 16; k++)
            sum += A(row, k) * B(k, col);
        d[r] += sum;
    }
    warp_barrier();
}

/*!
 * mma.sync.m16n8k256.row.col.s32.b1.b1.s32.and.popc: a0 (row g, bits
 * 32t..32t+31), a1 (row g+8), a2 (row g, bits 128+32t..), a3 (row g+8);
 * b0 (bits 32t.., col g), b1 (bits 128+32t.., col g); accumulators as f16.
 */
inline void
mma_m16n8k256_b1_and(int (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    warp_state& w = share_mma_operands(a, b);
    const unsigned l = lane();
    auto A = [&](int row, int word) { // word 0..7 of the 256 bits
        return w.slot[(row % 8) * 4 + word % 4][(row / 8) + 2 * (word / 4)];
    };
    auto B = [&](int word, int col) { return w.slot[col * 4 + word % 4][4 + word / 4]; };
    for (int r = 0; r < 4; r++) {
        const int row = int(l / 4) + 8 * (r / 2);
        const int col = 2 * int(l % 4) + r % 2;
        int sum = 0;
        for (int word = 0; word < 8; word++)
            sum += __builtin_popcount(A(row, word) & B(word, col));
        d[r] += sum;
    }
    warp_barrier();
}

/*!
 * AMD v_mfma_f32_16x16x16f16 (wave64), register layouts of the AMD matrix
 * instruction calculator: lane l holds A[l % 16][4 (l / 16) + j],
 * B[4 (l / 16) + j][l % 16] and D[4 (l / 16) + j][l % 16], j = 0..3.
 */
inline void
mfma_16x16x16_f16(const uint16_t (&a)[4], const uint16_t (&b)[4], float (&d)[4])
{
    if (state().warp_size != 64)
        throw std::logic_error("emulation: MFMA needs 64-lane wavefronts");
    warp_state& w = my_warp();
    const unsigned l = lane();
    w.slot[l][0] = uint32_t(a[0]) | (uint32_t(a[1]) << 16);
    w.slot[l][1] = uint32_t(a[2]) | (uint32_t(a[3]) << 16);
    w.slot[l][2] = uint32_t(b[0]) | (uint32_t(b[1]) << 16);
    w.slot[l][3] = uint32_t(b[2]) | (uint32_t(b[3]) << 16);
    warp_barrier();
    auto element = [&](unsigned holder, int reg0, int j) {
        return half_at(w.slot[holder][reg0 + j / 2], j % 2);
    };
    for (int j = 0; j < 4; j++) {
        const int row = 4 * int(l / 16) + j, col = int(l % 16);
        float sum = 0.0f;
        for (int k = 0; k < 16; k++)
            sum += element(unsigned(row + 16 * (k / 4)), 0, k % 4) *
                   element(unsigned(col + 16 * (k / 4)), 2, k % 4);
        d[j] += sum;
    }
    warp_barrier();
}

template <class T>
inline T shfl_xor(T v, int mask)
{
    static_assert(sizeof(T) == 4, "32-bit shuffles only");
    warp_state& w = my_warp();
    const unsigned l = lane();
    std::memcpy(&w.slot[l][0], &v, 4);
    warp_barrier();
    T out;
    std::memcpy(&out, &w.slot[l ^ unsigned(mask)][0], 4);
    warp_barrier();
    return out;
}

//---------------------------------------------------------------------------
// wgmma (sm_90a): asynchronous; each thread's part is computed at its
// wgmma.wait_group, from shared memory as it is then.
//---------------------------------------------------------------------------
inline void fence_proxy_async() {}
inline void fence_proxy_async_global() {}
//! Flags between thread blocks: in the emulation the blocks run one after the
//! other, so a flag waited for must be set by the waiting block's own threads.
inline unsigned flag_load_acquire(const unsigned* p) { return *p; }
inline void flag_add_release(unsigned* p, unsigned v)
{
    *p += v;
    note_progress();
}
//! One round of a spin wait on a flag.
inline void spin_pause() { wait_yield(); }
inline void wgmma_fence() {}

/*!
 * Address of byte kb of row r of a K-major operand with 128-byte swizzle:
 * rows of 128 bytes, 8-row groups SBO apart; the swizzle XORs address bits
 * [6:4] with bits [9:7] of the absolute shared-memory address.
 */
inline uint32_t wgmma_address(uint64_t desc, int r, int kb)
{
    const uint32_t start = uint32_t(desc & 0x3fffu) << 4;
    const uint32_t sbo = uint32_t((desc >> 32) & 0x3fffu) << 4;
    if ((desc >> 62) != 1)
        throw std::logic_error(
            "emulation: wgmma descriptor: only the 128-byte swizzle is modelled");
    if (((start >> 7) & 7u) != 0)
        throw std::logic_error(
            "emulation: wgmma operand not in a 1024-byte aligned swizzle atom");
    uint32_t a = start + uint32_t(r / 8) * sbo + uint32_t(r % 8) * 128 + uint32_t(kb);
    a ^= ((a >> 7) & 7u) << 4;
    return a;
}

inline void wgmma_run(const wgmma_op& op)
{
    // The thread's accumulators acc[4 j + 2 i + h]: row R0 + 8 i of the warp's
    // 16 (R0 = lane / 4), column 8 j + 2 (lane % 4) + h. Each operand row is
    // read once per op, and every sum runs over k in order.
    const unsigned t = state().linear % 128, warp = t / 32, lane = t % 32;
    const int rows[2] = { int(warp * 16 + lane / 4), int(warp * 16 + lane / 4) + 8 };
    auto each_column = [&](auto&& column) { // column(col, index of its row-0 accumulator)
        for (int j = 0; j < op.n / 8; j++)
            for (int h = 0; h < 2; h++)
                column(8 * j + 2 * int(lane % 4) + h, 4 * j + h);
    };
    if (op.b1) {
        auto* acc = static_cast<int*>(op.acc);
        uint8_t a[2][32], b[32];
        for (int i = 0; i < 2; i++)
            for (int kb = 0; kb < 32; kb++)
                a[i][kb] = *smem_at(wgmma_address(op.desc_a, rows[i], kb), 1);
        each_column([&](int col, int first) {
            for (int kb = 0; kb < 32; kb++)
                b[kb] = *smem_at(wgmma_address(op.desc_b, col, kb), 1);
            for (int i = 0; i < 2; i++) {
                int sum = 0;
                for (int kb = 0; kb < 32; kb++)
                    sum += __builtin_popcount(unsigned(a[i][kb] & b[kb]));
                acc[first + 2 * i] += sum;
            }
        });
    } else {
        auto* acc = static_cast<float*>(op.acc);
        auto half_at = [](uint64_t desc, int r, int k) {
            uint16_t h;
            std::memcpy(&h, smem_at(wgmma_address(desc, r, 2 * k), 2), 2);
            return gr::beamform::half_bits::to_float(h);
        };
        float a[2][16], b[16];
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < 16; k++)
                a[i][k] = half_at(op.desc_a, rows[i], k);
        each_column([&](int col, int first) {
            for (int k = 0; k < 16; k++)
                b[k] = half_at(op.desc_b, col, k);
            for (int i = 0; i < 2; i++) {
                float sum = 0.0f;
                for (int k = 0; k < 16; k++)
                    sum += a[i][k] * b[k];
                acc[first + 2 * i] += sum;
            }
        });
    }
}

template <int N>
inline void wgmma_f16(float (&d)[N / 8][4], uint64_t a, uint64_t b)
{
    me().wgmma_open.push_back(wgmma_op{ false, N, &d[0][0], a, b });
}
template <int N>
inline void wgmma_b1(int (&d)[N / 8][4], uint64_t a, uint64_t b)
{
    me().wgmma_open.push_back(wgmma_op{ true, N, &d[0][0], a, b });
}
inline void wgmma_commit() { commit_group(me().wgmma_groups, me().wgmma_open); }
template <int N>
inline void wgmma_wait()
{
    // The GPU may read the operands until here: other threads run first, so
    // that a stage released before this wait shows as a wrong product.
    if (me().wgmma_groups.size() > size_t(N))
        yield();
    retire_groups(me().wgmma_groups, size_t(N), wgmma_run);
}

//---------------------------------------------------------------------------
// Hopper asynchronous operations (sm_90): mbarriers, TMA tensor copies, named
// barriers, setmaxnreg. A TMA copy lands at random either when issued or only
// when its mbarrier is waited on, so a read before the wait, or a stage
// rewritten while the tensor cores may still read it, shows.
//---------------------------------------------------------------------------
inline mbarrier_state& mbarrier_at(uint32_t bar)
{
    if (bar % 8 != 0)
        throw std::logic_error("emulation: mbarrier not 8-byte aligned");
    (void)smem_at(bar, 8);
    auto& m = state().blk->mbarriers;
    const auto it = m.find(bar);
    if (it == m.end())
        throw std::logic_error("emulation: mbarrier used before mbarrier.init");
    return it->second;
}
inline void mbar_init(uint32_t bar, unsigned count)
{
    (void)smem_at(bar, 8);
    mbarrier_state s;
    s.expected = s.pending = count;
    state().blk->mbarriers[bar] = s;
}
inline void fence_barrier_init() {}
inline void mbar_complete_if_done(mbarrier_state& s)
{
    if (s.pending == 0 && s.tx == 0) {
        s.phase++;
        s.pending = s.expected;
    }
}
inline void mbar_arrive(uint32_t bar)
{
    mbarrier_state& s = mbarrier_at(bar);
    if (s.pending == 0)
        throw std::logic_error("emulation: mbarrier arrival beyond its count");
    s.pending--;
    note_progress();
    mbar_complete_if_done(s);
}
inline void mbar_expect_tx(uint32_t bar, uint32_t bytes)
{
    mbarrier_at(bar).tx += bytes;
}
inline void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes)
{
    mbar_expect_tx(bar, bytes);
    mbar_arrive(bar);
}
//! The TMA copies still in flight towards \p bar land now.
inline void land_tma(uint32_t bar)
{
    auto& q = state().blk->tma_in_flight;
    std::vector<pending_tma> now;
    for (size_t i = 0; i < q.size();)
        if (q[i].bar == bar) {
            now.push_back(std::move(q[i]));
            q.erase(q.begin() + long(i));
        } else
            i++;
    for (auto& t : now)
        t.land();
}
inline bool mbar_try_wait(uint32_t bar, uint32_t parity)
{
    land_tma(bar);
    return (mbarrier_at(bar).phase & 1u) != (parity & 1u);
}
inline void mbar_wait(uint32_t bar, uint32_t parity)
{
    while (!mbar_try_wait(bar, parity))
        wait_yield();
}

//! bar.sync id, count: \p count threads (whole warps) meet at barrier \p id.
inline void named_barrier_sync(unsigned id, unsigned count)
{
    if (id == 0 || id > 15 || count % 32 != 0)
        throw std::logic_error("emulation: named barrier id 1..15, whole warps");
    auto& n = state().blk->named[id];
    const unsigned gen = n.second;
    note_progress();
    if (++n.first == count) {
        n.first = 0;
        n.second++;
        return;
    }
    while (n.second == gen)
        wait_yield();
}

template <int REGS>
inline void setmaxnreg_inc() {}
template <int REGS>
inline void setmaxnreg_dec() {}

/*!
 * A tiled TMA tensor map as the emulation keeps it: 3 dimensions of bytes
 * (dimension 0 innermost), strides of dimensions 1 and 2 in bytes, a box of
 * box[0] = 128 bytes x box[1] x box[2], 128-byte swizzle, zeros outside.
 */
struct tensor_map {
    const unsigned char* base;
    unsigned long long dim[3];
    unsigned long long stride[2];
    unsigned box[3];
};

/*!
 * The rows of a TMA box of \p m at shared-memory address \p smem (128-byte
 * rows, 128-byte swizzle, so 1024-byte aligned), checked; \p what names the
 * side for the error.
 */
inline uint32_t tma_box_rows(const tensor_map& m, uint32_t smem, const char* what)
{
    if (m.box[0] != 128)
        throw std::logic_error("emulation: TMA boxes of 128-byte rows only");
    if (smem % 1024 != 0)
        throw std::logic_error(std::string("emulation: TMA 128-byte swizzle ") + what +
                               " not 1024-byte aligned");
    const uint32_t rows = m.box[1] * m.box[2];
    (void)smem_at(smem, rows * 128);
    return rows;
}

/*!
 * Each byte of the box at (x, y, z) of \p m as laid out in shared memory at
 * \p smem (box[1] x box[2] rows of 128 bytes, the 16-byte chunks of each
 * row XORed with address bits [9:7]): f(its shared-memory address, its byte
 * offset in the tensor, or -1 outside the tensor).
 */
template <class F>
inline void
for_each_tma_box_byte(const tensor_map& m, uint32_t smem, int x, int y, int z, F f)
{
    const uint32_t rows = m.box[1] * m.box[2];
    for (uint32_t r = 0; r < rows; r++) {
        const long long yy = y + (long long)(r % m.box[1]);
        const long long zz = z + (long long)(r / m.box[1]);
        for (uint32_t b = 0; b < 128; b++) {
            const long long xx = x + (long long)b;
            const bool inside =
                xx >= 0 && yy >= 0 && zz >= 0 && (unsigned long long)xx < m.dim[0] &&
                (unsigned long long)yy < m.dim[1] && (unsigned long long)zz < m.dim[2];
            uint32_t a = smem + r * 128 + b;
            a ^= ((a >> 7) & 7u) << 4;
            f(a,
              inside ? (long long)((unsigned long long)zz * m.stride[1] +
                                   (unsigned long long)yy * m.stride[0] +
                                   (unsigned long long)xx)
                     : -1ll);
        }
    }
}

/*!
 * cp.async.bulk.tensor.3d (tile mode, 128-byte swizzle): the box at (x, y, z)
 * into shared memory at \p dst (for_each_tma_box_byte's layout), zeros
 * outside the tensor; complete_tx of the whole box on \p bar.
 */
inline void
tma_load_3d(uint32_t dst, const void* map_ptr, int x, int y, int z, uint32_t bar)
{
    const tensor_map m = *static_cast<const tensor_map*>(map_ptr);
    const uint32_t rows = tma_box_rows(m, dst, "destination");
    (void)mbarrier_at(bar);
    note_progress();
    auto land = [m, dst, x, y, z, bar, rows]() {
        for_each_tma_box_byte(m, dst, x, y, z, [&](uint32_t a, long long at) {
            *smem_at(a, 1) = at < 0 ? 0 : m.base[at];
        });
        mbarrier_state& s = mbarrier_at(bar);
        s.tx -= (long long)rows * 128;
        mbar_complete_if_done(s);
    };
    if (state().blk->landing() & 1u)
        land();
    else
        state().blk->tma_in_flight.push_back(pending_tma{ bar, land });
}

/*!
 * cp.async.bulk.tensor.3d.global.shared::cta (tile mode, 128-byte swizzle,
 * bulk_group): the box at (x, y, z) from shared memory at \p src
 * (for_each_tma_box_byte's layout) into the tensor; bytes outside the tensor
 * are not written. It reads shared memory at random at issue or only at the
 * bulk wait that covers it, so that a source rewritten too early shows.
 */
inline void tma_store_3d(const void* map_ptr, int x, int y, int z, uint32_t src)
{
    const tensor_map m = *static_cast<const tensor_map*>(map_ptr);
    (void)tma_box_rows(m, src, "source");
    note_progress();
    auto land = [m, src, x, y, z]() {
        unsigned char* const base = const_cast<unsigned char*>(m.base);
        for_each_tma_box_byte(m, src, x, y, z, [&](uint32_t a, long long at) {
            if (at >= 0)
                base[at] = *smem_at(a, 1);
        });
    };
    if (state().blk->landing() & 1u)
        land();
    else
        me().bulk_open.push_back(land);
}
inline void bulk_commit() { commit_group(me().bulk_groups, me().bulk_open); }
//! cp.async.bulk.wait_group(.read) N: only this thread's newest N groups pending.
template <int N>
inline void bulk_wait()
{
    retire_groups(
        me().bulk_groups, size_t(N), [](const std::function<void()>& f) { f(); });
}
template <int N>
inline void bulk_wait_read()
{
    bulk_wait<N>();
}

inline void fiber_entry()
{
    block_state* b = state().blk;
    try {
        b->body();
    } catch (const std::exception& e) {
        if (b->error.empty())
            b->error = e.what();
    } catch (...) { // nothing may unwind past a fiber's first frame
        if (b->error.empty())
            b->error = "a thread threw an exception that is not a std::exception";
    }
    if (b->error.empty() && (!b->fibers[b->current].bulk_groups.empty() ||
                             !b->fibers[b->current].bulk_open.empty()))
        b->error = "emulation: a thread ended with TMA stores not waited for";
    b->fibers[b->current].done = true;
    b->idle_yields = 0;
    for (;;) // the scheduler never resumes a finished thread
        fiber_switch(b->fibers[b->current].ctx, b->scheduler);
}

/*!
 * Run \p kernel (a callable with the kernel's body) over a grid of
 * grid_x x grid_y x grid_z blocks of \p threads x block_y x block_z threads
 * with \p smem_bytes of dynamic shared memory (each byte \p garbage at the
 * start of a block), in warps of \p warp_size lanes (the last one may be
 * partial: warp-collective operations there throw). Blocks run one after the
 * other, in a shuffled order (the GPU promises no order, and results that
 * depend on it are races).
 */
inline void run_grid(unsigned grid_x,
                     unsigned grid_y,
                     unsigned grid_z,
                     unsigned threads_x,
                     size_t smem_bytes,
                     const std::function<void()>& kernel,
                     unsigned warp_size,
                     unsigned char garbage,
                     unsigned block_y = 1,
                     unsigned block_z = 1)
{
    const unsigned threads = threads_x * block_y * block_z;
    if (smem_bytes > sizeof(gr::beamform::emulated::pfb_smem))
        throw std::runtime_error("emulated launch: more shared memory than emulated");
    state().warp_size = warp_size;
    state().grid = idx3{ grid_x, grid_y, grid_z };
    struct block_id {
        unsigned x, y, z;
    };
    std::vector<block_id> order;
    for (unsigned bz = 0; bz < grid_z; bz++)
        for (unsigned by = 0; by < grid_y; by++)
            for (unsigned bx = 0; bx < grid_x; bx++)
                order.push_back(block_id{ bx, by, bz });
    std::mt19937 shuffle_gen(12345u + grid_x);
    std::shuffle(order.begin(), order.end(), shuffle_gen);
    for (const auto& id : order) {
        const unsigned bx = id.x, by = id.y;
        block_state b;
        b.fibers.resize(threads);
        b.warps.resize((threads + warp_size - 1) / warp_size);
        b.smem = reinterpret_cast<unsigned char*>(gr::beamform::emulated::pfb_smem);
        b.smem_bytes = smem_bytes;
        std::memset(b.smem, garbage, smem_bytes);
        b.body = kernel;
        state().blk = &b;
        state().block = idx3{ bx, by, id.z };
        state().dim = idx3{ threads_x, block_y, block_z };
        for (unsigned t = 0; t < threads; t++) {
            fiber_prepare(b.fibers[t].ctx, fiber_stack(t), fiber_entry);
        }
        // Each round resumes every unfinished thread once, in a new random
        // order, so that a missing barrier shows up as a wrong result.
        std::vector<unsigned> round(threads);
        for (unsigned t = 0; t < threads; t++)
            round[t] = t;
        size_t running = threads;
        while (running > 0 && b.error.empty()) {
            running = 0;
            std::shuffle(round.begin(), round.end(), shuffle_gen);
            for (unsigned t : round) {
                if (b.fibers[t].done)
                    continue;
                b.current = int(t);
                state().linear = t;
                state().thread = idx3{ t % threads_x, (t / threads_x) % block_y, t / (threads_x * block_y) };
                fiber_switch(b.scheduler, b.fibers[t].ctx);
                if (!b.fibers[t].done)
                    running++;
            }
        }
        bool unwaited = false;
        // An aborted block's fibers are abandoned here (their stacks are reused).
        for (auto& f : b.fibers) {
            unwaited = unwaited || !f.open.empty() || !f.groups.empty() ||
                       !f.wgmma_open.empty() || !f.wgmma_groups.empty();
        }
        unwaited = unwaited || !b.tma_in_flight.empty();
        state().blk = nullptr;
        if (!b.error.empty())
            throw std::runtime_error("emulation: block (" + std::to_string(bx) + ", " +
                                     std::to_string(by) + "): " + b.error);
        if (unwaited)
            throw std::logic_error(
                "emulation: cp.async copies or wgmma never waited for");
    }
}

/*!
 * Run \p kernel (a callable with the kernel's body) over a grid of
 * grid_x x grid_y x grid_z blocks of \p threads threads (whole warps of
 * \p warp_size lanes) with \p smem_bytes of dynamic shared memory, filled
 * with 0xA5 before each block.
 */
inline void launch(unsigned grid_x,
                   unsigned grid_y,
                   unsigned threads,
                   size_t smem_bytes,
                   const std::function<void()>& kernel,
                   unsigned grid_z = 1,
                   unsigned warp_size = 32)
{
    if (threads % warp_size != 0)
        throw std::logic_error("emulation: blocks of whole warps only");
    run_grid(grid_x, grid_y, grid_z, threads, smem_bytes, kernel, warp_size, 0xA5);
}

} // namespace emu

namespace gr {
namespace beamform {
namespace emulated {

/*!
 * Run \p kernel (a callable without arguments that calls the kernel) over
 * \p grid blocks of \p block threads, with \p shared_bytes of dynamic shared
 * memory, filled with 0xFF (a float NaN) before each block.
 */
inline void
launch(dim3 grid, dim3 block, size_t shared_bytes, const std::function<void()>& kernel)
{
    emu::run_grid(
        grid.x, grid.y, grid.z, block.x, shared_bytes, kernel, 32, 0xff, block.y, block.z);
}

} // namespace emulated
} // namespace beamform
} // namespace gr

#define threadIdx (::emu::state().thread)
#define blockIdx (::emu::state().block)
#define blockDim (::emu::state().dim)
#define gridDim (::emu::state().grid)

inline void __syncthreads() { emu::block_barrier(); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu::warp_barrier(); }
inline void __threadfence() {}
template <class T>
inline T __shfl_xor_sync(unsigned, T v, int mask)
{
    return emu::shfl_xor(v, mask);
}
template <class T>
inline T atomicAdd(T* p, T v)
{
    const T old = *p;
    *p = old + v;
    return old;
}
inline unsigned atomicMax(unsigned* p, unsigned v)
{
    const unsigned old = *p;
    *p = old > v ? old : v;
    return old;
}

#endif
