/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tensor-core beamformer on NVIDIA GPUs (sm_80 and later; tuned for sm_90)
 * through mma.sync (inline PTX): for each channel c and polarization p,
 * D (rows x T) = A_cp (expanded weights, tensor_beamformer_expand.h) . B_c
 * (the samples, k = interleaved re/im or packed bits), with the complex
 * result read straight out of the accumulators (rows g and g+8 of a fragment
 * are the real and imaginary part of one beam, see tensor_beamformer_tiles.h).
 *
 * One kernel template serves both precisions, because one mma step takes
 * 32 bytes of k per row in both:
 *   float16: mma.sync.m16n8k16 f16 x f16 -> f32
 *   int1:    mma.sync.m16n8k256 b1 AND + popc -> s32 (Hopper has no fast
 *            XOR), corrected in the epilogue: 4 acc - 2 popc(A) - 2 popc(X) + K.
 *
 * Data movement per thread block (BM rows x BN time steps of one channel):
 *   A: cp.async (16 bytes, L2 only) into a STAGES-deep shared-memory ring.
 *   B: fc32 samples: global -> registers -> fp16 conversion -> shared memory,
 *      loaded one k tile ahead, so the conversion costs no extra pass and no
 *      extra global traffic; fp16 samples and packed bits: cp.async like A.
 *   Fragments: ldmatrix.x4 from XOR-swizzled tiles (no bank conflicts).
 *   Epilogue: voltage -> interleaved fc32 stores straight from registers;
 *   power -> |b|^2 or Stokes in registers, reduced over n_int time steps
 *   (shuffles, then shared-memory atomics), one store per integrated value.
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_MMA_CUH
#define INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_MMA_CUH

// In the emulated tests, kernels/emulation/gpu_emulation.h comes first and
// replaces this header (and defines BF_GPU_EMULATION).
#include <common/gpu_portable.h>
#include <common/tensor_beamformer_tiles.h>
#include <type_traits>
#include <cstdint>

#ifdef BF_GPU_EMULATION
#define BF_UNROLL
#define BF_NO_UNROLL
#else
#define BF_UNROLL _Pragma("unroll")
#define BF_NO_UNROLL _Pragma("unroll 1")
#endif

namespace gr {
namespace beamform {
namespace cuda {
namespace tb_kernels {

using tb::swizzle_offset;

//---------------------------------------------------------------------------
// PTX wrappers
//---------------------------------------------------------------------------
#ifndef BF_GPU_EMULATION
__device__ __forceinline__ uint32_t smem_u32(const void* p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

//! The dynamic shared memory of the block.
__device__ __forceinline__ unsigned char* dynamic_smem()
{
    extern __shared__ __align__(128) unsigned char tb_smem[];
    return tb_smem;
}

//! 16-byte asynchronous copy global -> shared; zero-fills when !valid.
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, bool valid)
{
    const int bytes = valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst),
                 "l"(src),
                 "r"(bytes));
}

//! 8-byte asynchronous copy (rows that are 8- but not 16-byte aligned).
__device__ __forceinline__ void cp_async8(uint32_t dst, const void* src, bool valid)
{
    const int bytes = valid ? 8 : 0;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst),
                 "l"(src),
                 "r"(bytes));
}

__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::);
}

template <int N>
__device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

__device__ __forceinline__ void
mma_m16n8k16_f16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void
mma_m16n8k256_b1_and(int (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
#else
using emu::cp_async16;
using emu::cp_async8;
using emu::cp_async_commit;
using emu::cp_async_wait;
using emu::dynamic_smem;
using emu::ldmatrix_x4;
using emu::mma_m16n8k16_f16;
using emu::mma_m16n8k256_b1_and;
using emu::smem_u32;
#endif

/*!
 * Typed access to raw bytes. On the GPU these are plain (vector) loads and
 * stores; the host emulation copies bytes instead, which is what C++'s
 * aliasing rules allow there.
 */
template <class T>
__device__ __forceinline__ T load_as(const void* p)
{
#ifdef BF_GPU_EMULATION
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
#else
    return *static_cast<const T*>(p);
#endif
}

template <class T>
__device__ __forceinline__ void store_as(void* p, const T& v)
{
#ifdef BF_GPU_EMULATION
    std::memcpy(p, &v, sizeof(T));
#else
    *static_cast<T*>(p) = v;
#endif
}

//! The 32 bits of an fp16 pair.
__device__ __forceinline__ uint32_t bits_of(const __half2& h)
{
    return load_as<uint32_t>(&h);
}

//! The two precisions: their mma instruction and how an accumulator becomes a float.
struct op_fp16 {
    using acc_t = float;
    static __device__ __forceinline__ void
    mma(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
    {
        mma_m16n8k16_f16(d, a, b);
    }
};

struct op_int1 {
    using acc_t = int;
    static __device__ __forceinline__ void
    mma(int (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
    {
        mma_m16n8k256_b1_and(d, a, b);
    }
};

//---------------------------------------------------------------------------
// Tile shapes
//---------------------------------------------------------------------------
/*!
 * BM rows (per polarization; 16 rows = 8 beams) x BN time steps per block,
 * WM x WN per warp, BKB bytes of k per pipeline stage, STAGES stages.
 */
template <int BM_, int BN_, int WM_, int WN_, int BKB_, int STAGES_>
struct tile_shape {
    static constexpr int BM = BM_, BN = BN_, WM = WM_, WN = WN_, BKB = BKB_,
                         STAGES = STAGES_;
    static constexpr int warps_m = BM / WM, warps_n = BN / WN;
    static constexpr int warps = warps_m * warps_n;
    static constexpr int threads = warps * 32;
    static constexpr int MT = WM / 16; // m16 tiles per warp
    static constexpr int NT = WN / 8;  // n8 tiles per warp
    static constexpr int KSTEPS = BKB / 32;
    static constexpr int CPR = BKB / 16; // 16-byte chunks per tile row
    static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must divide the block tile");
    static_assert(WM % 16 == 0 && WN % 16 == 0,
                  "warp tile must be 16-row and 16-column multiples");
    static_assert(BKB == 32 || BKB == 64 || BKB == 128, "k tile of 32, 64 or 128 bytes");
    static_assert(STAGES >= 2, "at least double buffering");
};

using tb::kernel_args;

//---------------------------------------------------------------------------
// B loaders. Interface:
//   register_staged       loads go through registers (converted there)
//   npol                  B tiles per stage (2: X and Y split at load time)
//   issue(kt, stage)      cp.async loads of k tile kt into the stage
//   fetch(kt)             register loads of k tile kt
//   store(stage)          convert the fetched registers into the stage
//---------------------------------------------------------------------------

//! Interleaved complex fp16 samples [T][C][R] (the GEMM-core benchmark input).
template <class S>
struct loader_fp16_input {
    static constexpr bool register_staged = false;
    static constexpr int npol = 1;
    static constexpr int chunks = S::BN * S::CPR;
    static_assert(chunks % S::threads == 0, "B tile chunks must spread evenly");
    const unsigned char* base;
    size_t row_stride; // bytes between time steps
    int row_bytes;     // bytes of one (t, c) row
    int n0, n_times;
    uint32_t smem_b;

    __device__
    loader_fp16_input(const kernel_args& a, int c, int n0_, unsigned char* smem_b_)
        : base(static_cast<const unsigned char*>(a.input) +
               size_t(c) * a.n_receivers * 4),
          row_stride(size_t(a.n_channels) * a.n_receivers * 4),
          row_bytes(a.n_receivers * 4),
          n0(n0_),
          n_times(a.n_times),
          smem_b(smem_u32(smem_b_))
    {
    }

    __device__ void issue(int kt, int stage)
    {
        // Not unrolled: addresses are recomputed instead of held in registers
        // that the accumulators need.
        BF_NO_UNROLL
        for (int i = 0; i < chunks / S::threads; i++) {
            const int q = threadIdx.x + i * S::threads;
            const int row = q / S::CPR;
            const int byte = (q % S::CPR) * 16;
            const int kb = kt * S::BKB + byte;
            const bool valid = n0 + row < n_times && kb < row_bytes;
            const unsigned char* src =
                valid ? base + size_t(n0 + row) * row_stride + kb : base;
            cp_async16(smem_b + stage * (S::BN * S::BKB) +
                           swizzle_offset(row, byte, S::BKB),
                       src,
                       valid);
        }
    }
    __device__ void fetch(int) {}
    __device__ void store(int) {}
};

/*!
 * fc32 samples [T][C][R], single polarization: VEC complex values per load
 * (2 when R is even, so that every (t, c) row is 16-byte aligned, else 1).
 */
template <class S, int VEC>
struct loader_fc32 {
    static constexpr bool register_staged = true;
    static constexpr int npol = 1;
    static constexpr int Q = S::BKB / 4; // complex samples per row per k tile
    static constexpr int VPR = Q / VEC;  // loads per row per k tile
    static constexpr int LOADS = S::BN * VPR / S::threads;
    static_assert((S::BN * VPR) % S::threads == 0, "B tile loads must spread evenly");
    using vec_t = typename std::conditional<VEC == 2, float4, float2>::type;
    const float2* base;
    size_t row_stride; // float2 between time steps
    int n0, n_times, n_rx;
    unsigned char* smem_b;
    vec_t v[LOADS];

    __device__ loader_fc32(const kernel_args& a, int c, int n0_, unsigned char* smem_b_)
        : base(static_cast<const float2*>(a.input) + size_t(c) * a.n_receivers),
          row_stride(size_t(a.n_channels) * a.n_receivers),
          n0(n0_),
          n_times(a.n_times),
          n_rx(a.n_receivers),
          smem_b(smem_b_)
    {
    }

    __device__ void issue(int, int) {}

    __device__ void fetch(int kt)
    {
        BF_UNROLL
        for (int i = 0; i < LOADS; i++) {
            const int q = threadIdx.x + i * S::threads;
            const int row = q / VPR;
            const int rx = kt * Q + (q % VPR) * VEC;
            // VEC == 2 implies R even, so rx < R covers both samples.
            if (n0 + row < n_times && rx < n_rx)
                v[i] = load_as<vec_t>(base + size_t(n0 + row) * row_stride + rx);
            else
                v[i] = vec_t{};
        }
    }

    __device__ void store(int stage)
    {
        unsigned char* smem = smem_b + stage * (S::BN * S::BKB);
        BF_UNROLL
        for (int i = 0; i < LOADS; i++) {
            const int q = threadIdx.x + i * S::threads;
            const int row = q / VPR;
            const int byte = (q % VPR) * VEC * 4; // one half2 per complex sample
            if constexpr (VEC == 2) {
                const __half2 h0 = __floats2half2_rn(v[i].x, v[i].y);
                const __half2 h1 = __floats2half2_rn(v[i].z, v[i].w);
                uint2 u;
                u.x = bits_of(h0);
                u.y = bits_of(h1);
                store_as(smem + swizzle_offset(row, byte, S::BKB), u);
            } else {
                const __half2 h = __floats2half2_rn(v[i].x, v[i].y);
                store_as(smem + swizzle_offset(row, byte, S::BKB), h);
            }
        }
    }
};

/*!
 * fc32 samples [T][C][R] with receivers (2a, 2a+1) = (X, Y) of antenna a:
 * one 16-byte load per antenna, X to the first B tile of the stage, Y to the
 * second, so each polarization's product runs over its own antennas only.
 */
template <class S>
struct loader_fc32_xy {
    static constexpr bool register_staged = true;
    static constexpr int npol = 2;
    static constexpr int Q = S::BKB / 4; // antennas per row per k tile
    static constexpr int LOADS = S::BN * Q / S::threads;
    static_assert((S::BN * Q) % S::threads == 0, "B tile loads must spread evenly");
    const float2* base;
    size_t row_stride;
    int n0, n_times, n_ant;
    unsigned char* smem_b;
    float4 v[LOADS];

    __device__
    loader_fc32_xy(const kernel_args& a, int c, int n0_, unsigned char* smem_b_)
        : base(static_cast<const float2*>(a.input) + size_t(c) * a.n_receivers),
          row_stride(size_t(a.n_channels) * a.n_receivers),
          n0(n0_),
          n_times(a.n_times),
          n_ant(a.n_receivers / 2),
          smem_b(smem_b_)
    {
    }

    __device__ void issue(int, int) {}

    __device__ void fetch(int kt)
    {
        BF_UNROLL
        for (int i = 0; i < LOADS; i++) {
            const int q = threadIdx.x + i * S::threads;
            const int row = q / Q;
            const int ant = kt * Q + q % Q;
            if (n0 + row < n_times && ant < n_ant)
                v[i] = load_as<float4>(base + size_t(n0 + row) * row_stride + 2 * ant);
            else
                v[i] = float4{};
        }
    }

    __device__ void store(int stage)
    {
        unsigned char* smem = smem_b + stage * (2 * S::BN * S::BKB);
        BF_UNROLL
        for (int i = 0; i < LOADS; i++) {
            const int q = threadIdx.x + i * S::threads;
            const int row = q / Q;
            const int off = swizzle_offset(row, (q % Q) * 4, S::BKB);
            store_as(smem + off, __floats2half2_rn(v[i].x, v[i].y));
            store_as(smem + S::BN * S::BKB + off, __floats2half2_rn(v[i].z, v[i].w));
        }
    }
};

/*!
 * Packed 1-bit samples [T][C][2][words] (bit_packer's layout): cp.async of
 * 16 bytes when a row is a multiple of 4 words (every row 16-byte aligned),
 * else of 8 bytes (a row is 2 * words words: always 8-byte aligned).
 */
template <class S, bool WIDE>
struct loader_bits {
    static constexpr bool register_staged = false;
    static constexpr int npol = 1;
    static constexpr int UNIT = WIDE ? 16 : 8; // bytes per copy
    static constexpr int PER_ROW = S::BKB / UNIT;
    static constexpr int COPIES = S::BN * PER_ROW / S::threads;
    static_assert((S::BN * PER_ROW) % S::threads == 0,
                  "B tile copies must spread evenly");
    const unsigned char* base;
    size_t row_stride; // bytes between time steps
    int row_bytes;
    int n0, n_times;
    uint32_t smem_b;

    __device__ loader_bits(const kernel_args& a, int c, int n0_, unsigned char* smem_b_)
        : base(static_cast<const unsigned char*>(a.input) +
               size_t(c) * a.in_row_words * 4),
          row_stride(size_t(a.n_channels) * a.in_row_words * 4),
          row_bytes(a.in_row_words * 4),
          n0(n0_),
          n_times(a.n_times),
          smem_b(smem_u32(smem_b_))
    {
    }

    __device__ void issue(int kt, int stage)
    {
        // Not unrolled: addresses are recomputed instead of held in registers
        // that the accumulators need.
        BF_NO_UNROLL
        for (int i = 0; i < COPIES; i++) {
            const int q = threadIdx.x + i * S::threads;
            const int row = q / PER_ROW;
            const int byte = (q % PER_ROW) * UNIT;
            const int kb = kt * S::BKB + byte;
            const bool valid = n0 + row < n_times && kb < row_bytes;
            const unsigned char* src =
                valid ? base + size_t(n0 + row) * row_stride + kb : base;
            const uint32_t dst =
                smem_b + stage * (S::BN * S::BKB) + swizzle_offset(row, byte, S::BKB);
            if constexpr (WIDE)
                cp_async16(dst, src, valid);
            else
                cp_async8(dst, src, valid);
        }
    }
    __device__ void fetch(int) {}
    __device__ void store(int) {}
};

//---------------------------------------------------------------------------
// The kernel
//---------------------------------------------------------------------------
template <class S, class L, int NPA>
constexpr int pipeline_smem_bytes()
{
    return S::STAGES * (NPA * S::BM + L::npol * S::BN) * S::BKB;
}

/*!
 * The value of an accumulator as a float: fp16 as is; int1 through the AND
 * identity sum a x = 4 popc(A&X) - 2 popc(A) - 2 popc(X) + K over ±1 values.
 */
template <class Op>
__device__ __forceinline__ float
finish(typename Op::acc_t acc, int row_pc, int col_pc, int k_valid)
{
    if constexpr (std::is_same<Op, op_int1>::value)
        return float(4 * acc - 2 * row_pc - 2 * col_pc + k_valid);
    else
        return acc;
}

/*!
 * Epilogue shared by the mma.sync and wgmma kernels. The calling warp holds
 * accumulators acc[p][i][j][r] for A rows warp_row0 + 16 i + (r < 2 ? g : g + 8)
 * (real part of beam (warp_row0 + 16 i) / 2 + g, then its imaginary part) and
 * time steps warp_n0 + 8 j + 2 (lane % 4) + (r % 2), with g = lane / 4.
 * Voltage: stored as they are. Power: summed per integration window in
 * shared memory (which the block no longer needs for operands) and stored
 * once per window. Every thread of the block must call it (barriers).
 */
template <class Op, int NPA, int MT, int NT, int BM, int BN, int THREADS>
__device__ __forceinline__ void epilogue(const kernel_args& args,
                                         typename Op::acc_t (&acc)[NPA][MT][NT][4],
                                         unsigned char* smem,
                                         int c,
                                         int m0,
                                         int n0,
                                         int warp_row0,
                                         int warp_n0)
{
    const int lane = threadIdx.x & 31;
    const int g = lane >> 2;
    const int t4 = lane & 3;
    const int n_beams = args.n_beams;
    const int n_times = args.n_times;

    // int1 corrections: popc of each weight row and of each sample column
    // (read where used, so they hold no registers during the epilogue).
    constexpr bool is_int1 = std::is_same<Op, op_int1>::value;
    auto row_popc = [&](int p, int i, int part) -> int {
        if constexpr (is_int1)
            return args.row_popc[(size_t(c) * NPA + p) * args.rows + warp_row0 + i * 16 +
                                 part * 8 + g];
        else
            return 0;
    };
    auto col_popc = [&](int p, int n) -> int {
        if constexpr (is_int1)
            return n < n_times
                       ? args.col_popc[(size_t(n) * args.n_channels + c) * NPA + p]
                       : 0;
        else
            return 0;
    };

    if (!args.power) {
        // Voltage: [T][C][B] complex, or [T][C][B][2] complex (X, Y).
        BF_UNROLL
        for (int i = 0; i < MT; i++) {
            const int beam = (warp_row0 + i * 16) / 2 + g;
            if (beam >= n_beams)
                continue;
            BF_UNROLL
            for (int j = 0; j < NT; j++)
                BF_UNROLL
            for (int h = 0; h < 2; h++) {
                const int n = warp_n0 + j * 8 + 2 * t4 + h;
                if (n >= n_times)
                    continue;
                float re[NPA], im[NPA];
                BF_UNROLL
                for (int p = 0; p < NPA; p++) {
                    const int cp = col_popc(p, n);
                    re[p] =
                        finish<Op>(acc[p][i][j][h], row_popc(p, i, 0), cp, args.k_valid);
                    im[p] = finish<Op>(
                        acc[p][i][j][2 + h], row_popc(p, i, 1), cp, args.k_valid);
                }
                const size_t item = (size_t(n) * args.n_channels + c) * n_beams + beam;
                if constexpr (NPA == 1)
                    store_as(static_cast<float2*>(args.out) + item,
                             make_float2(re[0], im[0]));
                else
                    store_as(static_cast<float4*>(args.out) + item,
                             make_float4(re[0], im[0], re[1], im[1]));
            }
        }
        return;
    }

    // Power: |b|^2, or Stokes I / IQUV from (X, Y), summed over n_int steps.
    // Shared memory (free now) holds [n_stokes][BM/2 beams][windows] sums.
    const int n_stokes = (NPA == 2 && args.iquv) ? 4 : 1;
    const int n_int = args.n_int;
    const int windows = args.windows;
    constexpr int BEAMS = BM / 2;
    float* red = reinterpret_cast<float*>(smem);
    __syncthreads(); // every warp is done reading the pipeline buffers
    for (int e = threadIdx.x; e < n_stokes * BEAMS * windows; e += THREADS)
        red[e] = 0.0f;
    __syncthreads();

    const int w0 = n0 / n_int;                  // first window this block touches
    const bool pairs_share = (n_int % 2) == 0;  // columns 2t, 2t+1 in one window
    const bool octets_share = (n_int % 8) == 0; // all 8 columns of an n8 tile
    BF_UNROLL
    for (int i = 0; i < MT; i++) {
        const int beam_local = (warp_row0 - m0 + i * 16) / 2 + g;
        const bool beam_ok = m0 / 2 + beam_local < n_beams;
        BF_UNROLL
        for (int j = 0; j < NT; j++) {
            float st[2][4]; // [h][stokes]
            BF_UNROLL
            for (int h = 0; h < 2; h++) {
                float re[NPA], im[NPA];
                const int n = warp_n0 + j * 8 + 2 * t4 + h;
                BF_UNROLL
                for (int p = 0; p < NPA; p++) {
                    const int cp = col_popc(p, n);
                    re[p] =
                        finish<Op>(acc[p][i][j][h], row_popc(p, i, 0), cp, args.k_valid);
                    im[p] = finish<Op>(
                        acc[p][i][j][2 + h], row_popc(p, i, 1), cp, args.k_valid);
                }
                const float px = re[0] * re[0] + im[0] * im[0];
                if constexpr (NPA == 1) {
                    st[h][0] = px;
                    st[h][1] = st[h][2] = st[h][3] = 0.0f;
                } else {
                    const float py = re[1] * re[1] + im[1] * im[1];
                    st[h][0] = px + py;
                    st[h][1] = px - py;
                    st[h][2] = 2.0f * (re[0] * re[1] + im[0] * im[1]);
                    st[h][3] = 2.0f * (im[0] * re[1] - re[0] * im[1]);
                }
            }
            const int n_first = warp_n0 + j * 8 + 2 * t4; // column of h = 0
            constexpr int MAX_STOKES = NPA == 2 ? 4 : 1;
            BF_UNROLL
            for (int s = 0; s < MAX_STOKES; s++) {
                if (s >= n_stokes)
                    break;
                float* row = red + (s * BEAMS + beam_local) * windows;
                if (octets_share) {
                    float v = st[0][s] + st[1][s];
                    v += __shfl_xor_sync(0xffffffffu, v, 1);
                    v += __shfl_xor_sync(0xffffffffu, v, 2);
                    if (t4 == 0 && beam_ok && n_first < n_times)
                        atomicAdd(row + n_first / n_int - w0, v);
                } else if (pairs_share) {
                    if (beam_ok && n_first < n_times)
                        atomicAdd(row + n_first / n_int - w0, st[0][s] + st[1][s]);
                } else {
                    BF_UNROLL
                    for (int h = 0; h < 2; h++)
                        if (beam_ok && n_first + h < n_times)
                            atomicAdd(row + (n_first + h) / n_int - w0, st[h][s]);
                }
            }
        }
    }
    __syncthreads();

    // One value per (stokes, beam, window): a plain store when the window lies
    // inside this block's time range, else an atomic add into the output that
    // the engine zeroed first (windows that straddle blocks).
    float* out = static_cast<float*>(args.out);
    const int n_end = min(n0 + BN, n_times);
    for (int e = threadIdx.x; e < n_stokes * BEAMS * windows; e += THREADS) {
        const int w = e % windows;
        const int beam_local = (e / windows) % BEAMS;
        const int s = e / (windows * BEAMS);
        const int beam = m0 / 2 + beam_local;
        const int gw = w0 + w;
        if (beam >= n_beams || gw * n_int >= n_end)
            continue;
        const size_t idx =
            ((size_t(gw) * n_stokes + s) * n_beams + beam) * args.n_channels + c;
        if (gw * n_int >= n0 && (gw + 1) * n_int <= n0 + BN)
            out[idx] = red[e];
        else
            atomicAdd(out + idx, red[e]);
    }
}

template <class S, class Op, class L, int NPA>
__global__ void __launch_bounds__(S::threads, 1)
    tensor_beamformer_kernel(const kernel_args args)
{
    using acc_t = typename Op::acc_t;
    constexpr int NPB = L::npol;
    unsigned char* const smem = dynamic_smem();
    const uint32_t smem_a = smem_u32(smem);
    const uint32_t smem_b = smem_a + S::STAGES * NPA * S::BM * S::BKB;

    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int wm = warp % S::warps_m;
    const int wn = warp / S::warps_m;
    const tb::tile_coord tc = tb::map_block(blockIdx.x,
                                            args.n_channels,
                                            args.m_tiles,
                                            args.n_tiles,
                                            args.channel_group,
                                            args.m_group);
    const int c = tc.channel;
    const int m0 = tc.m_tile * S::BM;
    const int n0 = tc.n_tile * S::BN;

    // A: NPA matrices of this channel, rows m0.. of each.
    const size_t matrix_bytes = size_t(args.rows) * args.row_bytes;
    const unsigned char* a_base =
        args.weights + size_t(c) * NPA * matrix_bytes + size_t(m0) * args.row_bytes;
    constexpr int A_CHUNKS = NPA * S::BM * S::CPR;
    static_assert(A_CHUNKS % S::threads == 0, "A tile chunks must spread evenly");

    auto issue_a = [&](int kt, int stage) {
        BF_NO_UNROLL
        for (int i = 0; i < A_CHUNKS / S::threads; i++) {
            const int q = threadIdx.x + i * S::threads;
            const int p = q / (S::BM * S::CPR);
            const int row = (q / S::CPR) % S::BM;
            const int byte = (q % S::CPR) * 16;
            const unsigned char* src = a_base + p * matrix_bytes +
                                       size_t(row) * args.row_bytes + kt * S::BKB + byte;
            cp_async16(smem_a + (stage * NPA + p) * (S::BM * S::BKB) +
                           swizzle_offset(row, byte, S::BKB),
                       src,
                       true);
        }
    };

    L loader(args, c, n0, smem + S::STAGES * NPA * S::BM * S::BKB);

    acc_t acc[NPA][S::MT][S::NT][4];
    BF_UNROLL
    for (int p = 0; p < NPA; p++)
        BF_UNROLL
    for (int i = 0; i < S::MT; i++)
        BF_UNROLL
    for (int j = 0; j < S::NT; j++)
        BF_UNROLL
    for (int r = 0; r < 4; r++)
        acc[p][i][j][r] = acc_t(0);

    const int k_tiles = args.k_tiles;

    // Prologue: STAGES-1 tiles in flight (one commit group each, even if empty).
    BF_UNROLL
    for (int s = 0; s < S::STAGES - 1; s++) {
        if (s < k_tiles) {
            issue_a(s, s);
            loader.issue(s, s);
        }
        cp_async_commit();
    }
    if constexpr (L::register_staged) {
        loader.fetch(0);
        loader.store(0);
    }

    for (int kt = 0; kt < k_tiles; kt++) {
        const int stage = kt % S::STAGES;
        // Tile kt has landed (its group and all older ones are complete) and
        // every warp is done with the stage that the next copies overwrite.
        cp_async_wait<S::STAGES - 2>();
        __syncthreads();

        const int next = kt + S::STAGES - 1;
        if (next < k_tiles) {
            issue_a(next, next % S::STAGES);
            loader.issue(next, next % S::STAGES);
        }
        cp_async_commit();
        if constexpr (L::register_staged) {
            if (kt + 1 < k_tiles)
                loader.fetch(kt + 1); // in flight while this tile is multiplied
        }

        const uint32_t a_stage = smem_a + stage * NPA * (S::BM * S::BKB);
        const uint32_t b_stage = smem_b + stage * NPB * (S::BN * S::BKB);
        BF_UNROLL
        for (int ks = 0; ks < S::KSTEPS; ks++) {
            uint32_t af[NPA][S::MT][4];
            uint32_t bf[NPB][S::NT][2];
            BF_UNROLL
            for (int p = 0; p < NPA; p++)
                BF_UNROLL
            for (int i = 0; i < S::MT; i++)
                ldmatrix_x4(af[p][i],
                            a_stage + p * (S::BM * S::BKB) +
                                swizzle_offset(wm * S::WM + i * 16 + tb::a_frag_row(lane),
                                               ks * 32 + tb::a_frag_byte(lane),
                                               S::BKB));
            BF_UNROLL
            for (int p = 0; p < NPB; p++)
                BF_UNROLL
            for (int j = 0; j < S::NT; j += 2) {
                uint32_t r[4];
                ldmatrix_x4(r,
                            b_stage + p * (S::BN * S::BKB) +
                                swizzle_offset(wn * S::WN + j * 8 + tb::b_frag_row(lane),
                                               ks * 32 + tb::b_frag_byte(lane),
                                               S::BKB));
                bf[p][j][0] = r[0];
                bf[p][j][1] = r[1];
                bf[p][j + 1][0] = r[2];
                bf[p][j + 1][1] = r[3];
            }
            BF_UNROLL
            for (int p = 0; p < NPA; p++)
                BF_UNROLL
            for (int i = 0; i < S::MT; i++)
                BF_UNROLL
            for (int j = 0; j < S::NT; j++)
                Op::mma(acc[p][i][j], af[p][i], bf[NPB == 1 ? 0 : p][j]);
        }

        if constexpr (L::register_staged) {
            if (kt + 1 < k_tiles)
                loader.store((kt + 1) % S::STAGES);
        }
    }
    cp_async_wait<0>();

    epilogue<Op, NPA, S::MT, S::NT, S::BM, S::BN, S::threads>(
        args, acc, smem, c, m0, n0, m0 + wm * S::WM, n0 + wn * S::WN);
}

//---------------------------------------------------------------------------
// int1 helper: population counts of each (t, c) sample row, per polarization
// (xy_pairs: X = even receivers, Y = odd), padding bits masked off. (A
// template only so that every file including this header may define it.)
//---------------------------------------------------------------------------
template <int = 0>
__global__ void column_popc_kernel(const uint32_t* __restrict__ in,
                                   int* __restrict__ out,
                                   size_t n_rows, // T * C
                                   int words,
                                   int n_receivers,
                                   int npol)
{
    const size_t row = size_t(blockIdx.x) * (blockDim.x / 32) + (threadIdx.x >> 5);
    if (row >= n_rows)
        return;
    const int lane = threadIdx.x & 31;
    const uint32_t* r = in + row * 2 * words;
    int count[2] = { 0, 0 };
    for (int w = lane; w < 2 * words; w += 32) {
        const int wd = w % words;
        const int valid = n_receivers - 32 * wd;
        const uint32_t keep = valid >= 32 ? 0xffffffffu : ((1u << valid) - 1u);
        const uint32_t bits = r[w] & keep;
        if (npol == 1) {
            count[0] += __popc(bits);
        } else {
            count[0] += __popc(bits & 0x55555555u);
            count[1] += __popc(bits & 0xaaaaaaaau);
        }
    }
    for (int p = 0; p < npol; p++) {
        int v = count[p];
        BF_UNROLL
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, o);
        if (lane == 0)
            out[row * npol + p] = v;
    }
}

} // namespace tb_kernels
} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
