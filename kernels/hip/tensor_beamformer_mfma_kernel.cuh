/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The MFMA kernels of the tensor-core beamformer on AMD matrix cores (CDNA2
 * gfx90a, CDNA3 gfx940), HIP only, and their builtin wrappers. Included by
 * the HIP engine (tensor_beamformer_hip.cu) and by
 * test_tensor_beamformer_hip_emulated.cc. Compile-checked here; untested on
 * hardware (no AMD GPU).
 *
 * float16: the same expanded weights as the CUDA engine
 * (tensor_beamformer_expand.h: rows g and g+8 of each 16-row tile are the
 * real and imaginary part of beam g), multiplied by the samples (k =
 * interleaved re/im, converted from fc32 while staged into LDS) with
 * v_mfma_f32_16x16x16f16 (__builtin_amdgcn_mfma_f32_16x16x16f16). Register
 * layouts (AMD matrix instruction calculator; wave64, l = lane):
 *   A 16x16: lane l holds A[l % 16][4 (l / 16) + j], j = 0..3
 *   B 16x16: lane l holds B[4 (l / 16) + j][l % 16]
 *   D 16x16: lane l holds D[4 (l / 16) + j][l % 16]
 * so lanes 0-31 hold the real rows (0-7) and lanes 32-63 the imaginary rows
 * of the same beams and times: one __shfl_xor by 32 pairs them.
 * A thread block of 4 wavefronts computes 64 rows (32 beams) x 64 time steps
 * per polarization; each wavefront a 32 x 32 quarter (2 x 2 MFMA tiles).
 * Power output: every |b|^2 / Stokes value is an atomic add into the output,
 * which the engine zeroes first (simple; the CUDA engine reduces in shared
 * memory first).
 *
 * int1: no 1-bit matrix instructions on AMD GPUs: a plain kernel, one thread
 * per output value, with the same AND/popcount identity as the CUDA engine
 * (sum a x = 4 popc(A & X) - 2 popc(A) - 2 popc(X) + K over ±1 values).
 */
#ifndef INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_MFMA_KERNEL_CUH
#define INCLUDED_BEAMFORM_KERNELS_TENSOR_BEAMFORMER_MFMA_KERNEL_CUH

// In the emulated tests, kernels/emulation/gpu_emulation.h comes first and
// replaces this header (and defines BF_GPU_EMULATION).
#include <common/gpu_portable.h>
#include <common/load_store_as.h>
#include <common/tensor_beamformer_layout.h>
#include <cstdint>
#include <cstring>

namespace gr {
namespace beamform {
namespace hip {
namespace mfma {

#ifdef BF_GPU_EMULATION
typedef _Float16 half4_t __attribute__((vector_size(8)));
typedef float float4_t __attribute__((vector_size(16)));
struct uint4_t {
    uint32_t x, y, z, w;
};

inline unsigned char* lds() { return emu::dynamic_smem(); }

inline float4_t mfma_16x16x16(half4_t a, half4_t b, float4_t c)
{
    uint16_t ah[4], bh[4];
    float d[4];
    std::memcpy(ah, &a, 8);
    std::memcpy(bh, &b, 8);
    std::memcpy(d, &c, 16);
    emu::mfma_16x16x16_f16(ah, bh, d);
    std::memcpy(&c, d, 16);
    return c;
}
inline float shfl_xor(float v, int mask) { return emu::shfl_xor(v, mask); }
#else
typedef _Float16 half4_t __attribute__((ext_vector_type(4)));
typedef float float4_t __attribute__((ext_vector_type(4)));
typedef uint4 uint4_t;

//! The block's dynamic LDS.
__device__ __forceinline__ unsigned char* lds()
{
    extern __shared__ __attribute__((aligned(16))) unsigned char tb_lds[];
    return tb_lds;
}

__device__ __forceinline__ float4_t mfma_16x16x16(half4_t a, half4_t b, float4_t c)
{
    return __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, 0, 0, 0);
}
__device__ __forceinline__ float shfl_xor(float v, int mask)
{
    return __shfl_xor(v, mask);
}
#endif

using tb::load_as;
using tb::store_as;

constexpr int BM = 64;       // rows per polarization per block (32 beams)
constexpr int BN = 64;       // time steps per block
constexpr int BK = 32;       // halves of k per LDS stage (16 complex receivers)
constexpr int BKB = BK * 2;  // bytes
constexpr int THREADS = 256; // 4 wavefronts of 64

struct args_t {
    const unsigned char* weights; // [C][npol][rows][row_bytes] fp16
    const float2* input;          // [T][C][R] fc32
    float* out;
    int n_channels, n_beams, n_times, n_receivers;
    int rows, row_bytes, k_tiles;
    int power, iquv, n_int;
};

__device__ __forceinline__ uint32_t pack_half2(float a, float b)
{
    const _Float16 ha = _Float16(a), hb = _Float16(b);
    uint16_t ua, ub;
    std::memcpy(&ua, &ha, 2);
    std::memcpy(&ub, &hb, 2);
    return uint32_t(ua) | (uint32_t(ub) << 16);
}

//! Dynamic LDS of the float16 kernel: NPOL A tiles and NPOL B tiles.
template <int NPOL>
constexpr int lds_bytes()
{
    return NPOL * (BM + BN) * BKB;
}

/*!
 * grid: (n tiles, m tiles, channels). NPOL = 2: receivers (2a, 2a+1) are
 * (X, Y) of antenna a, each polarization multiplied by its own matrix.
 */
template <int NPOL>
__global__ void __launch_bounds__(THREADS) beamformer_mfma_kernel(const args_t a)
{
    unsigned char* const lds_a = lds();                   // [NPOL][BM][BKB]
    unsigned char* const lds_b = lds_a + NPOL * BM * BKB; // [NPOL][BN][BKB]

    const int tid = threadIdx.x;
    const int lane = tid & 63;
    const int wave = tid >> 6;
    const int wm = wave & 1;  // 32-row half of the block
    const int wn = wave >> 1; // 32-column half
    const int c = blockIdx.z;
    const int m0 = blockIdx.y * BM;
    const int n0 = blockIdx.x * BN;
    const int R = a.n_receivers;
    const size_t matrix_bytes = size_t(a.rows) * a.row_bytes;

    float4_t acc[NPOL][2][2];
    for (int p = 0; p < NPOL; p++)
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                acc[p][i][j] = float4_t{ 0.0f, 0.0f, 0.0f, 0.0f };

    for (int kt = 0; kt < a.k_tiles; kt++) {
        // A: BM rows x 64 bytes per polarization, 16 bytes per thread.
        for (int p = 0; p < NPOL; p++) {
            const int row = tid / 4, chunk = tid % 4;
            const unsigned char* src = a.weights + (size_t(c) * NPOL + p) * matrix_bytes +
                                       size_t(m0 + row) * a.row_bytes + kt * BKB +
                                       chunk * 16;
            store_as(lds_a + (p * BM + row) * BKB + chunk * 16, load_as<uint4_t>(src));
        }
        // B: BN time steps x 16 complex values per polarization, converted to fp16.
        for (int e = tid; e < BN * 16; e += THREADS) {
            const int row = e / 16, q = e % 16; // q: complex slot of the k tile
            const int n = n0 + row;
            const float2* x = a.input + (size_t(n) * a.n_channels + c) * R;
            if (NPOL == 1) {
                const int r = kt * 16 + q;
                float2 v = make_float2(0.0f, 0.0f);
                if (n < a.n_times && r < R)
                    v = x[r];
                store_as(lds_b + row * BKB + q * 4, pack_half2(v.x, v.y));
            } else {
                const int ant = kt * 16 + q;
                float2 vx = make_float2(0.0f, 0.0f), vy = vx;
                if (n < a.n_times && 2 * ant + 1 < R) {
                    vx = x[2 * ant];
                    vy = x[2 * ant + 1];
                }
                store_as(lds_b + row * BKB + q * 4, pack_half2(vx.x, vx.y));
                store_as(lds_b + ((NPOL - 1) * BN + row) * BKB + q * 4,
                         pack_half2(vy.x, vy.y));
            }
        }
        __syncthreads();
        for (int ks = 0; ks < BK / 16; ks++) {
            const int kbyte = ks * 32 + (lane / 16) * 8; // 4 halves per lane
            for (int p = 0; p < NPOL; p++) {
                half4_t af[2], bf[2];
                for (int i = 0; i < 2; i++) {
                    const int row = wm * 32 + i * 16 + lane % 16;
                    af[i] = load_as<half4_t>(lds_a + (p * BM + row) * BKB + kbyte);
                }
                for (int j = 0; j < 2; j++) {
                    const int col = wn * 32 + j * 16 + lane % 16;
                    bf[j] = load_as<half4_t>(lds_b + (p * BN + col) * BKB + kbyte);
                }
                for (int i = 0; i < 2; i++)
                    for (int j = 0; j < 2; j++)
                        acc[p][i][j] = mfma_16x16x16(af[i], bf[j], acc[p][i][j]);
            }
        }
        __syncthreads();
    }

    // Lane l holds rows 4 (l/16) + r of each 16x16 tile: real parts (rows 0-7)
    // in lanes 0-31, imaginary parts in lanes 32-63, same beams and times.
    const bool real_half = lane < 32;
    const int n_stokes = (NPOL == 2 && a.iquv) ? 4 : 1;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            for (int r = 0; r < 4; r++) {
                float re[NPOL], im[NPOL];
                for (int p = 0; p < NPOL; p++) {
                    const float mine = acc[p][i][j][r];
                    const float other = shfl_xor(mine, 32);
                    re[p] = real_half ? mine : other;
                    im[p] = real_half ? other : mine;
                }
                if (!real_half)
                    continue;
                const int row_in_tile = 4 * (lane / 16) + r; // 0..7
                const int beam = (m0 + wm * 32 + i * 16) / 2 + row_in_tile;
                const int n = n0 + wn * 32 + j * 16 + lane % 16;
                if (beam >= a.n_beams || n >= a.n_times)
                    continue;
                if (!a.power) {
                    float* o =
                        a.out +
                        ((size_t(n) * a.n_channels + c) * a.n_beams + beam) * 2 * NPOL;
                    for (int p = 0; p < NPOL; p++) {
                        o[2 * p] = re[p];
                        o[2 * p + 1] = im[p];
                    }
                    continue;
                }
                float st[4];
                const float px = re[0] * re[0] + im[0] * im[0];
                st[0] = px;
                if (NPOL == 2) {
                    const float py =
                        re[NPOL - 1] * re[NPOL - 1] + im[NPOL - 1] * im[NPOL - 1];
                    st[0] = px + py;
                    st[1] = px - py;
                    st[2] = 2.0f * (re[0] * re[NPOL - 1] + im[0] * im[NPOL - 1]);
                    st[3] = 2.0f * (im[0] * re[NPOL - 1] - re[0] * im[NPOL - 1]);
                }
                const int window = n / a.n_int;
                for (int s = 0; s < n_stokes; s++)
                    atomicAdd(a.out +
                                  ((size_t(window) * n_stokes + s) * a.n_beams + beam) *
                                      a.n_channels +
                                  c,
                              st[s]);
            }
}

struct int1_args_t {
    const uint32_t* weights; // [C][npol][rows][row_words] (expand_weights_int1)
    const int* row_popc;     // [C][npol][rows]
    const uint32_t* input;   // [T][C][2][words]
    float* out;
    int n_channels, n_beams, n_times, n_receivers, words;
    int rows, row_words, npol, k_valid;
    int power, iquv, n_int;
};

//! One thread per (t, c, beam); plain popcounts.
__global__ void beamformer_int1_kernel(const int1_args_t a)
{
    const size_t total = size_t(a.n_times) * a.n_channels * a.n_beams;
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t e = size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += stride) {
        const int beam = int(e % a.n_beams);
        const int c = int((e / a.n_beams) % a.n_channels);
        const int n = int(e / (size_t(a.n_beams) * a.n_channels));
        const uint32_t* x = a.input + (size_t(n) * a.n_channels + c) * 2 * a.words;
        float re[2] = { 0, 0 }, im[2] = { 0, 0 };
        for (int p = 0; p < a.npol; p++) {
            const size_t matrix = size_t(c) * a.npol + p;
            const int row_re = tb::a_row_of(beam, 0), row_im = tb::a_row_of(beam, 1);
            const uint32_t* w_re = a.weights + (matrix * a.rows + row_re) * a.row_words;
            const uint32_t* w_im = a.weights + (matrix * a.rows + row_im) * a.row_words;
            int and_re = 0, and_im = 0, popc_x = 0;
            for (int w = 0; w < 2 * a.words; w++) {
                const int wd = w % a.words;
                const int valid = a.n_receivers - 32 * wd;
                uint32_t keep = valid >= 32 ? 0xffffffffu : ((1u << valid) - 1u);
                if (a.npol == 2)
                    keep &= p == 0 ? 0x55555555u : 0xaaaaaaaau;
                const uint32_t xb = x[w] & keep;
                and_re += __popc(w_re[w] & xb);
                and_im += __popc(w_im[w] & xb);
                popc_x += __popc(xb);
            }
            const int* pc = a.row_popc + matrix * a.rows;
            re[p] = float(4 * and_re - 2 * pc[row_re] - 2 * popc_x + a.k_valid);
            im[p] = float(4 * and_im - 2 * pc[row_im] - 2 * popc_x + a.k_valid);
        }
        if (!a.power) {
            float* o =
                a.out + ((size_t(n) * a.n_channels + c) * a.n_beams + beam) * 2 * a.npol;
            for (int p = 0; p < a.npol; p++) {
                o[2 * p] = re[p];
                o[2 * p + 1] = im[p];
            }
            continue;
        }
        const int n_stokes = (a.npol == 2 && a.iquv) ? 4 : 1;
        float st[4];
        const float px = re[0] * re[0] + im[0] * im[0];
        st[0] = px;
        if (a.npol == 2) {
            const float py = re[1] * re[1] + im[1] * im[1];
            st[0] = px + py;
            st[1] = px - py;
            st[2] = 2.0f * (re[0] * re[1] + im[0] * im[1]);
            st[3] = 2.0f * (im[0] * re[1] - re[0] * im[1]);
        }
        const int window = n / a.n_int;
        for (int s = 0; s < n_stokes; s++)
            atomicAdd(a.out +
                          ((size_t(window) * n_stokes + s) * a.n_beams + beam) *
                              a.n_channels +
                          c,
                      st[s]);
    }
}

} // namespace mfma
} // namespace hip
} // namespace beamform
} // namespace gr

#endif
