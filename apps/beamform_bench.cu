/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tensor-core beamformer against the route a user would otherwise take
 * (a fc32 -> fp16 conversion kernel, one cuBLAS HGEMM per channel through
 * cublasGemmStridedBatchedEx with the same expanded weight matrix (fp16 in,
 * fp32 accumulate and out), and for power output a separate detect kernel),
 * all in one process, next to the ceilings measured in the same run: a
 * device-to-device copy, a cuBLAS HGEMM 8192^3, and the tensor cores' own
 * mma.sync rate (fp16 and 1-bit AND) from a loop that touches no memory.
 * Notes, counted bytes and operations, and predictions: apps/beamform_bench.md.
 *
 *   beamform_bench [--config=N] [--quick] [--runs=N] [--json=path]
 *                  [--tune [--tuning-file=path]]
 *
 * Configurations (TOPs/s = 8 * beams * samples * receivers * channels / s):
 *   1  GEMM core: 1 ch x 8192 beams x 8192 samples x 8192 receivers, fp16 in
 *   2  LOFAR survey: 256 ch, 64 dual-pol stations (128 rx), 155 beams, 768 samples
 *   3  256 ch x 1024 beams x 1024 samples, 64/128/512 rx, fc32 in, voltage out
 *   4  the same, power out (n_int 16)
 *   5  int1: 1 ch x 8192 beams x 8192 samples x 262144 receivers
 * --quick shrinks every configuration for a smoke run (figures meaningless).
 * --tune times every compiled tile for each configuration's shape class and
 * writes the fastest per class to a tuning file (BEAMFORM_TUNING_FILE).
 */
#include "bench_common.h"
#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include "tensor_beamformer_testing.h"
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>

using namespace gr::beamform;
using bench::device_array;

namespace {

#define CUBLAS_CHECK(call)                                                    \
    do {                                                                      \
        cublasStatus_t s_ = (call);                                           \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                      \
            throw std::runtime_error(std::string("cuBLAS error ") +           \
                                     std::to_string(int(s_)) + " in " #call); \
    } while (0)

//---------------------------------------------------------------------------
// Kernels of the cuBLAS route and helpers
//---------------------------------------------------------------------------

//! fc32 -> interleaved fp16, 2 complex values per thread.
__global__ void convert_fc32_to_fp16(const float4* in, uint2* out, size_t n_pairs)
{
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n_pairs;
         i += size_t(gridDim.x) * blockDim.x) {
        const float4 v = in[i];
        const __half2 a = __floats2half2_rn(v.x, v.y), b = __floats2half2_rn(v.z, v.w);
        out[i] = make_uint2(*reinterpret_cast<const uint32_t*>(&a),
                            *reinterpret_cast<const uint32_t*>(&b));
    }
}

//! fc32 [T][C][2a+p] -> fp16 [T][C][p][a]: what a per-polarization GEMM needs.
__global__ void convert_fc32_to_fp16_split(const float4* in,
                                           __half2* out,
                                           size_t n_ant_total,
                                           size_t n_ant)
{
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n_ant_total;
         i += size_t(gridDim.x) * blockDim.x) {
        const size_t row = i / n_ant, a = i % n_ant; // row = t * C + c
        const float4 v = in[i];
        out[(row * 2 + 0) * n_ant + a] = __floats2half2_rn(v.x, v.y);
        out[(row * 2 + 1) * n_ant + a] = __floats2half2_rn(v.z, v.w);
    }
}

//! Detect: voltage [T][C][B] complex fp32 -> power [T/n_int][B][C].
__global__ void detect_power(const float2* v, float* out, int T, int C, int B, int n_int)
{
    const size_t n = size_t(T / n_int) * C * B;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x) {
        const int b = int(i % B); // fastest: coalesced reads
        const int c = int((i / B) % C);
        const int w = int(i / (size_t(B) * C));
        float sum = 0.0f;
        for (int t = w * n_int; t < (w + 1) * n_int; t++) {
            const float2 x = v[(size_t(t) * C + c) * B + b];
            sum += x.x * x.x + x.y * x.y;
        }
        out[(size_t(w) * B + b) * C + c] = sum;
    }
}

/*!
 * sum (a - b)^2 and sum b^2 in double. map = 1: a is [T][C][B][2 pol] complex
 * (ours, xy_pairs) and b is [T][C][2 pol][B] (the per-polarization GEMMs).
 */
__global__ void
error_sums(const float* a, const float* b, size_t n, int map, int C, int B, double* sums)
{
    double num = 0, den = 0;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x) {
        size_t j = i;
        if (map == 1) {
            const size_t part = i % 2, p = (i / 2) % 2, beam = (i / 4) % B,
                         row = i / (4 * size_t(B));
            j = ((row * 2 + p) * B + beam) * 2 + part;
        }
        const double d = double(a[i]) - double(b[j]);
        num += isfinite(a[i]) ? d * d : 1e300;
        den += double(b[j]) * double(b[j]);
    }
    for (int o = 16; o > 0; o >>= 1) {
        num += __shfl_xor_sync(0xffffffffu, num, o);
        den += __shfl_xor_sync(0xffffffffu, den, o);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&sums[0], num);
        atomicAdd(&sums[1], den);
    }
}

double
relative_error(const void* ours, const void* ref, size_t n_floats, int map, int C, int B)
{
    device_array sums(2 * sizeof(double));
    BF_GPU_CHECK(cudaMemset(sums.get(), 0, sums.size()));
    error_sums<<<1024, 256>>>(static_cast<const float*>(ours),
                              static_cast<const float*>(ref),
                              n_floats,
                              map,
                              C,
                              B,
                              sums.as<double>());
    BF_GPU_CHECK_LAUNCH("error_sums");
    double h[2];
    BF_GPU_CHECK(cudaMemcpy(h, sums.get(), sizeof h, cudaMemcpyDeviceToHost));
    return std::sqrt(h[0] / h[1]);
}

__device__ __forceinline__ unsigned long long mix64(unsigned long long z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

//! Uniform floats in [-1, 1), never zero, from a hash (large inputs, no host copy).
__global__ void fill_random_floats_device(float* f, size_t n, unsigned long long seed)
{
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x) {
        const unsigned long long z = mix64(seed + 0x9e3779b97f4a7c15ull * (i + 1));
        const float u = float(z >> 40) * (1.0f / 16777216.0f); // [0, 1)
        const float v = 2.0f * u - 1.0f;
        f[i] = v == 0.0f ? 0.5f : v;
    }
}

void fill_random(void* dst, size_t n_floats, unsigned long long seed)
{
    fill_random_floats_device<<<4096, 256>>>(static_cast<float*>(dst), n_floats, seed);
    BF_GPU_CHECK(cudaDeviceSynchronize());
}

//! Random words with zero padding bits (int1 input), from a hash (no host copy).
__global__ void fill_random_bits(
    uint32_t* w, size_t rows, int words, int n_receivers, unsigned long long seed)
{
    const size_t n = rows * 2 * words;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x) {
        const unsigned long long z = mix64(seed + 0x9e3779b97f4a7c15ull * (i + 1));
        const int wd = int(i % words);
        const int valid = n_receivers - 32 * wd;
        w[i] = uint32_t(z) & (valid >= 32 ? 0xffffffffu : ((1u << valid) - 1u));
    }
}

//---------------------------------------------------------------------------
// Tensor-core peak: mma.sync in registers only (Table I of the paper)
//---------------------------------------------------------------------------
constexpr int PEAK_CHAINS = 8; // independent accumulators per warp

__global__ void peak_fp16_kernel(float* out, int iters)
{
    const uint32_t a[4] = {
        0x3c003c00u ^ threadIdx.x, 0x3c003800u, 0x38003c00u, 0x3c003c00u
    };
    const uint32_t b[2] = { 0x3c003c00u, 0x38003800u ^ threadIdx.x };
    float acc[PEAK_CHAINS][4] = {};
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int c = 0; c < PEAK_CHAINS; c++)
            asm volatile(
                "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    float s = 0;
    for (int c = 0; c < PEAK_CHAINS; c++)
        s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void peak_b1_and_kernel(int* out, int iters)
{
    const uint32_t a[4] = {
        0x5a5a5a5au ^ threadIdx.x, 0xf0f0f0f0u, 0x12345678u, 0x9abcdef0u
    };
    const uint32_t b[2] = { 0x0f0f0f0fu, 0xa5a5a5a5u ^ threadIdx.x };
    int acc[PEAK_CHAINS][4] = {};
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int c = 0; c < PEAK_CHAINS; c++)
            asm volatile(
                "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
                "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                : "+r"(acc[c][0]), "+r"(acc[c][1]), "+r"(acc[c][2]), "+r"(acc[c][3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    int s = 0;
    for (int c = 0; c < PEAK_CHAINS; c++)
        s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

double time_peak_fp16(cudaStream_t s)
{
    int sms = 0;
    BF_GPU_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int blocks = sms * 4, threads = 256, iters = 4096;
    device_array out(size_t(blocks) * threads * sizeof(float));
    const auto t = bench::time_gpu(
        [&] { peak_fp16_kernel<<<blocks, threads, 0, s>>>(out.as<float>(), iters); },
        s,
        10,
        2);
    const double mmas = double(blocks) * (threads / 32) * iters * PEAK_CHAINS;
    return mmas * 2.0 * 16 * 8 * 16 / (t.median_ms * 1e-3) / 1e12;
}

double time_peak_b1(cudaStream_t s)
{
    int sms = 0;
    BF_GPU_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int blocks = sms * 4, threads = 256, iters = 4096;
    device_array out(size_t(blocks) * threads * sizeof(int));
    const auto t = bench::time_gpu(
        [&] { peak_b1_and_kernel<<<blocks, threads, 0, s>>>(out.as<int>(), iters); },
        s,
        10,
        2);
    const double mmas = double(blocks) * (threads / 32) * iters * PEAK_CHAINS;
    return mmas * 2.0 * 16 * 8 * 256 / (t.median_ms * 1e-3) / 1e12;
}

//! cuBLAS HGEMM 8192^3 (fp16 in and out, fp32 accumulate), TFLOP/s.
double hgemm_ceiling(cublasHandle_t h, cudaStream_t s, size_t n)
{
    device_array a(n * n * 2), b(n * n * 2), c(n * n * 2);
    // Random fp16 in [-1, 1): fill as floats, convert.
    device_array tmp(n * n * 4);
    for (device_array* m : { &a, &b }) {
        fill_random(tmp.get(), n * n, m == &a ? 1 : 2);
        convert_fc32_to_fp16<<<1024, 256>>>(tmp.as<float4>(), m->as<uint2>(), n * n / 4);
        BF_GPU_CHECK_LAUNCH("convert_fc32_to_fp16");
    }
    const float alpha = 1.0f, beta = 0.0f;
    const int N = int(n);
    const auto t = bench::time_gpu(
        [&] {
            CUBLAS_CHECK(cublasGemmEx(h,
                                      CUBLAS_OP_N,
                                      CUBLAS_OP_N,
                                      N,
                                      N,
                                      N,
                                      &alpha,
                                      a.get(),
                                      CUDA_R_16F,
                                      N,
                                      b.get(),
                                      CUDA_R_16F,
                                      N,
                                      &beta,
                                      c.get(),
                                      CUDA_R_16F,
                                      N,
                                      CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT));
        },
        s,
        20,
        3);
    return 2.0 * double(n) * n * n / (t.median_ms * 1e-3) / 1e12;
}

//---------------------------------------------------------------------------
// Configurations
//---------------------------------------------------------------------------
struct bench_config {
    std::string id;   // "1", "3/rx64", ...
    std::string name; // what it is
    tensor_beamformer_config cfg;
    size_t n_times;
    bool fp16_input = false; // configuration 1: the GEMM core on fp16 samples
    double target = 0;       // ratio to the cuBLAS route, or TOPs/s for int1
    std::string target_text;
};

tensor_beamformer_config make_cfg(size_t C,
                                  size_t R,
                                  size_t B,
                                  beam_precision p,
                                  beam_output o,
                                  polarization_layout pol,
                                  size_t n_int)
{
    tensor_beamformer_config c;
    c.n_channels = C;
    c.n_receivers = R;
    c.n_beams = B;
    c.precision = p;
    c.output = o;
    c.polarization = pol;
    c.n_int = n_int;
    return c;
}

std::vector<bench_config> all_configs(bool quick)
{
    const auto f16 = beam_precision::float16;
    const auto volt = beam_output::voltage;
    const auto pow_ = beam_output::power;
    const auto single = polarization_layout::single;
    std::vector<bench_config> v;
    const size_t g = quick ? 1024 : 8192;
    v.push_back({ "1",
                  "GEMM core, fp16 in",
                  make_cfg(1, g, g, f16, volt, single, 1),
                  g,
                  true,
                  0.9,
                  ">= 0.9x cuBLAS" });
    v.push_back(
        { "2",
          "LOFAR survey (xy, voltage)",
          make_cfg(
              quick ? 16 : 256, 128, 155, f16, volt, polarization_layout::xy_pairs, 1),
          768,
          false,
          0,
          "report; vs 552-672 GFLOP/s GTX580" });
    for (size_t rx : { 64, 128, 512 })
        v.push_back({ "3/rx" + std::to_string(rx),
                      "fc32 in, voltage out",
                      make_cfg(quick ? 16 : 256, rx, 1024, f16, volt, single, 1),
                      1024,
                      false,
                      1.3,
                      ">= 1.3x cuBLAS route" });
    for (size_t rx : { 64, 128, 512 })
        v.push_back({ "4/rx" + std::to_string(rx),
                      "fc32 in, power out n_int 16",
                      make_cfg(quick ? 16 : 256, rx, 1024, f16, pow_, single, 16),
                      1024,
                      false,
                      3.0,
                      ">= 3x cuBLAS route" });
    v.push_back({ "5",
                  "int1",
                  make_cfg(1,
                           quick ? 16384 : 262144,
                           quick ? 1024 : 8192,
                           beam_precision::int1,
                           volt,
                           single,
                           1),
                  size_t(quick ? 1024 : 8192),
                  false,
                  4000,
                  ">= 4000 TOPs/s (reach 7000)" });
    return v;
}

double useful_ops(const bench_config& b)
{
    return 8.0 * double(b.cfg.n_beams) * double(b.n_times) * double(b.cfg.n_receivers) *
           double(b.cfg.n_channels);
}

size_t out_floats(const tensor_beamformer_config& c, size_t T)
{
    const size_t npol = c.polarization == polarization_layout::xy_pairs ? 2 : 1;
    if (c.output == beam_output::voltage)
        return T * c.n_channels * c.n_beams * 2 * npol;
    return (T / c.n_int) * c.n_stokes() * c.n_beams * c.n_channels;
}

std::vector<std::complex<float>> random_weights(size_t n, unsigned seed)
{
    std::vector<std::complex<float>> w(n);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (auto& x : w)
        x = { u(gen), u(gen) };
    return w;
}

/*!
 * The cuBLAS route's weights: per channel (and polarization) a column-major
 * [2B][K] fp16 matrix with rows m = 2b + part (real, imaginary part of beam b)
 * and k = 2r + q: the output comes out as interleaved complex beams.
 */
std::vector<uint16_t> cublas_weights(const tensor_beamformer_config& c,
                                     const std::vector<std::complex<float>>& w)
{
    const size_t npol = c.polarization == polarization_layout::xy_pairs ? 2 : 1;
    const size_t per_pol = c.n_receivers / npol;
    const size_t M = 2 * c.n_beams, K = 2 * per_pol;
    std::vector<uint16_t> a(c.n_channels * npol * M * K);
    for (size_t ch = 0; ch < c.n_channels; ch++)
        for (size_t p = 0; p < npol; p++) {
            uint16_t* m = &a[(ch * npol + p) * M * K];
            for (size_t b = 0; b < c.n_beams; b++)
                for (size_t r = 0; r < per_pol; r++) {
                    const auto v = w[(ch * c.n_beams + b) * c.n_receivers + r * npol + p];
                    const uint16_t wr = tb_testing::float_to_half_bits(v.real());
                    const uint16_t wi = tb_testing::float_to_half_bits(v.imag());
                    m[(2 * b) + (2 * r) * M] = wr;
                    m[(2 * b) + (2 * r + 1) * M] = uint16_t(wi ^ 0x8000u);
                    m[(2 * b + 1) + (2 * r) * M] = wi;
                    m[(2 * b + 1) + (2 * r + 1) * M] = wr;
                }
        }
    return a;
}

struct result {
    std::string id, name, what, tile;
    double ms = 0, tops = 0, err = NAN, ratio_route = NAN, ratio_hgemm = NAN;
    std::string target_text;
    std::string verdict;
};

struct context {
    cudaStream_t stream;
    cublasHandle_t cublas;
    double hgemm_tflops;
    int runs;
    device_spec gpu;
};

/*!
 * The cuBLAS route for a float16 configuration on the same fc32 (or fp16)
 * samples: conversion (unless fp16 in), strided-batched HGEMM, detect (power).
 * Leaves its output in \p route_out (voltage: [T][C][(pol)][B] complex).
 */
double time_cublas_route(const context& ctx,
                         const bench_config& b,
                         const std::vector<std::complex<float>>& w,
                         const void* d_in,
                         device_array& route_out)
{
    const auto& c = b.cfg;
    const bool xy = c.polarization == polarization_layout::xy_pairs;
    const size_t npol = xy ? 2 : 1, per_pol = c.n_receivers / npol;
    const size_t T = b.n_times, C = c.n_channels, B = c.n_beams, R = c.n_receivers;
    const auto host_a = cublas_weights(c, w);
    device_array d_a(host_a.size() * 2);
    BF_GPU_CHECK(cudaMemcpy(d_a.get(), host_a.data(), d_a.size(), cudaMemcpyHostToDevice));
    std::unique_ptr<device_array> d_x16;
    if (!b.fp16_input)
        d_x16 = std::make_unique<device_array>(T * C * R * 4);
    const void* x16 = b.fp16_input ? d_in : d_x16->get();
    std::unique_ptr<device_array> d_volt;
    const bool power = c.output == beam_output::power;
    if (power)
        d_volt = std::make_unique<device_array>(T * C * B * 8);
    void* volt = power ? d_volt->get() : route_out.get();

    const int M = int(2 * B), N = int(T), K = int(2 * per_pol);
    const float alpha = 1.0f, beta = 0.0f;
    auto run = [&] {
        if (!b.fp16_input) {
            if (xy)
                convert_fc32_to_fp16_split<<<4096, 256, 0, ctx.stream>>>(
                    static_cast<const float4*>(d_in),
                    d_x16->as<__half2>(),
                    T * C * per_pol,
                    per_pol);
            else
                convert_fc32_to_fp16<<<4096, 256, 0, ctx.stream>>>(
                    static_cast<const float4*>(d_in), d_x16->as<uint2>(), T * C * R / 2);
            BF_GPU_CHECK_LAUNCH("convert_fc32_to_fp16");
        }
        // batch (c, p): A [2B][K] at (c npol + p) M K; X rows k of (t, c, p) at
        // ((t C + c) npol + p) K; D [2B][T] with ldc = 2 B C npol.
        CUBLAS_CHECK(cublasGemmStridedBatchedEx(ctx.cublas,
                                                CUBLAS_OP_N,
                                                CUBLAS_OP_N,
                                                M,
                                                N,
                                                K,
                                                &alpha,
                                                d_a.get(),
                                                CUDA_R_16F,
                                                M,
                                                (long long)M * K,
                                                x16,
                                                CUDA_R_16F,
                                                int(K * C * npol),
                                                (long long)K,
                                                &beta,
                                                volt,
                                                CUDA_R_32F,
                                                int(M * C * npol),
                                                (long long)M,
                                                int(C * npol),
                                                CUBLAS_COMPUTE_32F,
                                                CUBLAS_GEMM_DEFAULT));
        if (power) {
            detect_power<<<4096, 256, 0, ctx.stream>>>(static_cast<const float2*>(volt),
                                                       route_out.as<float>(),
                                                       int(T),
                                                       int(C),
                                                       int(B),
                                                       int(c.n_int));
            BF_GPU_CHECK_LAUNCH("detect_power");
        }
    };
    if (R % 2 != 0 && !b.fp16_input)
        throw std::runtime_error(
            "bench: the route's conversion kernel needs an even receiver count");
    const auto t = bench::time_gpu(run, ctx.stream, ctx.runs, 3);
    return t.median_ms;
}

/*!
 * A wgmma tile for this configuration, or "" where there is none or this GPU
 * cannot run it: 128x256 where the samples arrive by cp.async (fp16 samples,
 * bits), 256x128 for fc32 samples (its 512 threads stage fewer loads each:
 * no spills, see beamform_bench.md).
 */
std::string wgmma_tile(const context& ctx, const bench_config& b)
{
    if (!tb_testing::wgmma_available(ctx.gpu.index))
        return "";
    const std::string preferred =
        (b.fp16_input || b.cfg.precision == beam_precision::int1) ? "128x256x128/wgmma/4"
                                                                  : "256x128x128/wgmma/4";
    std::string first;
    for (const auto& t : tb_testing::compiled_tiles(b.cfg)) {
        if (t == preferred)
            return t;
        if (first.empty() && t.find("/wgmma/") != std::string::npos)
            first = t;
    }
    return first;
}

//! One engine run; returns the median ms. Leaves the output in d_out.
double time_engine(const context& ctx,
                   tensor_beamformer_engine& engine,
                   const bench_config& b,
                   const void* d_in,
                   device_array& d_out,
                   int runs)
{
    auto run = [&] {
        if (b.fp16_input)
            tb_testing::execute_fp16_input(engine, d_in, d_out.get(), b.n_times, ctx.stream);
        else
            engine.execute(d_in, d_out.get(), b.n_times, ctx.stream);
    };
    return bench::time_gpu(run, ctx.stream, runs, 3).median_ms;
}

//! Samples for a configuration, on the device: fc32 (or fp16) random, or packed bits.
std::unique_ptr<device_array> make_input(const bench_config& b)
{
    const auto& c = b.cfg;
    const size_t T = b.n_times;
    if (c.precision == beam_precision::int1) {
        const size_t words = c.words_per_channel();
        auto d = std::make_unique<device_array>(T * c.n_channels * 2 * words * 4);
        fill_random_bits<<<4096, 256>>>(
            d->as<uint32_t>(), T * c.n_channels, int(words), int(c.n_receivers), 77);
        BF_GPU_CHECK(cudaDeviceSynchronize());
        return d;
    }
    const size_t n = T * c.n_channels * c.n_receivers; // complex values
    if (b.fp16_input) {
        auto d = std::make_unique<device_array>(n * 4);
        device_array tmp(n * 8);
        fill_random(tmp.get(), 2 * n, 5);
        convert_fc32_to_fp16<<<4096, 256>>>(tmp.as<float4>(), d->as<uint2>(), n / 2);
        BF_GPU_CHECK(cudaDeviceSynchronize());
        return d;
    }
    auto d = std::make_unique<device_array>(n * 8);
    fill_random(d->get(), 2 * n, 5);
    return d;
}

/*!
 * int1 check: 64 sampled outputs recomputed exactly on the host from the
 * input words and the weights' hash. Returns the number of mismatches.
 */
size_t check_int1_samples(const bench_config& b,
                          const device_array& d_in,
                          const device_array& d_out,
                          uint64_t seed)
{
    const auto& c = b.cfg;
    const size_t words = c.words_per_channel();
    std::mt19937 gen(9);
    size_t bad = 0;
    std::vector<uint32_t> row(2 * words);
    for (int s = 0; s < 64; s++) {
        const size_t t = gen() % b.n_times, beam = gen() % c.n_beams;
        BF_GPU_CHECK(cudaMemcpy(row.data(),
                               d_in.as<uint32_t>() + t * 2 * words,
                               row.size() * 4,
                               cudaMemcpyDeviceToHost));
        long long re = 0, im = 0;
        for (size_t r = 0; r < c.n_receivers; r++) {
            const unsigned wb = tb_testing::random_weight_bits(seed, 0, beam, r);
            const int wr = (wb & 1) ? 1 : -1, wi = (wb & 2) ? 1 : -1;
            const int xr = (row[r / 32] >> (r % 32)) & 1 ? 1 : -1;
            const int xi = (row[words + r / 32] >> (r % 32)) & 1 ? 1 : -1;
            re += wr * xr - wi * xi;
            im += wr * xi + wi * xr;
        }
        float got[2];
        BF_GPU_CHECK(cudaMemcpy(got,
                               d_out.as<float>() + (t * c.n_beams + beam) * 2,
                               8,
                               cudaMemcpyDeviceToHost));
        bad += got[0] != float(re) || got[1] != float(im);
    }
    return bad;
}

std::vector<result> run_config(const context& ctx, const bench_config& b)
{
    std::vector<result> rows;
    const auto& c = b.cfg;
    const double ops = useful_ops(b);
    std::cout << "\n== config " << b.id << ": " << b.name << " (" << c.n_channels
              << " ch x " << c.n_beams << " beams x " << b.n_times << " samples x "
              << c.n_receivers << " rx)" << std::endl;
    auto d_in = make_input(b);
    device_array d_out(out_floats(c, b.n_times) * 4);
    BF_GPU_CHECK(cudaMemset(d_out.get(), 0xff, d_out.size())); // NaN until written

    result ours;
    ours.id = b.id;
    ours.name = b.name;
    ours.what = "tensor_beamformer";
    ours.target_text = b.target_text;
    if (c.precision == beam_precision::int1) {
        const uint64_t seed = 1234;
        auto engine = tb_testing::make_gpu_tiled(c, {}, ctx.gpu, "");
        tb_testing::fill_random_weights(*engine, seed);
        ours.tile = tb_testing::tile(*engine);
        ours.ms = time_engine(ctx, *engine, b, d_in->get(), d_out, ctx.runs);
        ours.tops = ops / (ours.ms * 1e-3) / 1e12;
        const size_t bad = check_int1_samples(b, *d_in, d_out, seed);
        ours.err = double(bad);
        std::cout << "int1: " << bad
                  << " of 64 sampled outputs differ from the exact host value"
                  << std::endl;
        ours.verdict = bad ? "WRONG" : (ours.tops >= b.target ? "met" : "missed");
        rows.push_back(ours);
        if (const auto wg = wgmma_tile(ctx, b); !wg.empty() && wg != ours.tile) {
            result r = ours;
            r.what = "tensor_beamformer (wgmma)";
            auto e = tb_testing::make_gpu_tiled(c, {}, ctx.gpu, wg);
            tb_testing::fill_random_weights(*e, seed);
            BF_GPU_CHECK(cudaMemset(d_out.get(), 0xff, d_out.size()));
            r.tile = wg;
            r.ms = time_engine(ctx, *e, b, d_in->get(), d_out, ctx.runs);
            r.tops = ops / (r.ms * 1e-3) / 1e12;
            const size_t wrong = check_int1_samples(b, *d_in, d_out, seed);
            r.err = double(wrong);
            r.verdict = wrong ? "WRONG" : (r.tops >= b.target ? "met" : "missed");
            rows.push_back(r);
        }
        return rows;
    }

    const auto w = random_weights(c.weight_count(), 3);
    auto engine = tb_testing::make_gpu_tiled(c, w, ctx.gpu, "");
    ours.tile = tb_testing::tile(*engine);
    ours.ms = time_engine(ctx, *engine, b, d_in->get(), d_out, ctx.runs);
    ours.tops = ops / (ours.ms * 1e-3) / 1e12;

    const bool xy = c.polarization == polarization_layout::xy_pairs;
    device_array route_out(out_floats(c, b.n_times) * 4);
    result route;
    route.id = b.id;
    route.name = b.name;
    route.what = b.fp16_input ? "cuBLAS HGEMM (expanded W)"
                              : (c.output == beam_output::power
                                     ? "cuBLAS route: convert+HGEMM+detect"
                                     : "cuBLAS route: convert+HGEMM");
    route.ms = time_cublas_route(ctx, b, w, d_in->get(), route_out);
    route.tops = ops / (route.ms * 1e-3) / 1e12;
    route.ratio_hgemm = route.tops / ctx.hgemm_tflops;
    rows.push_back(route);

    ours.err = relative_error(d_out.get(),
                              route_out.get(),
                              out_floats(c, b.n_times),
                              xy ? 1 : 0,
                              int(c.n_channels),
                              int(c.n_beams));
    ours.ratio_route = route.ms / ours.ms;
    ours.ratio_hgemm = ours.tops / ctx.hgemm_tflops;
    if (!(ours.err < 1e-3))
        ours.verdict = "WRONG";
    else if (b.target > 0)
        ours.verdict = ours.ratio_route >= b.target ? "met" : "missed";
    else
        ours.verdict = "x" + std::to_string(int(std::round(ours.tops * 1e3 / 672.0))) +
                       "-" + std::to_string(int(std::round(ours.tops * 1e3 / 552.0))) +
                       " the GTX580's 552-672 GFLOP/s";
    rows.insert(rows.begin(), ours);

    // The wgmma kernels (sm_90a, opt-in) on the same data, where this GPU runs them.
    if (const auto wg = wgmma_tile(ctx, b); !wg.empty() && wg != ours.tile) {
        result r = ours;
        r.what = "tensor_beamformer (wgmma)";
        auto e = tb_testing::make_gpu_tiled(c, w, ctx.gpu, wg);
        BF_GPU_CHECK(cudaMemset(d_out.get(), 0xff, d_out.size()));
        r.tile = wg;
        r.ms = time_engine(ctx, *e, b, d_in->get(), d_out, ctx.runs);
        r.tops = ops / (r.ms * 1e-3) / 1e12;
        r.err = relative_error(d_out.get(),
                               route_out.get(),
                               out_floats(c, b.n_times),
                               xy ? 1 : 0,
                               int(c.n_channels),
                               int(c.n_beams));
        r.ratio_route = route.ms / r.ms;
        r.ratio_hgemm = r.tops / ctx.hgemm_tflops;
        if (!(r.err < 1e-3))
            r.verdict = "WRONG";
        else if (b.target > 0)
            r.verdict = r.ratio_route >= b.target ? "met" : "missed";
        rows.insert(rows.begin() + 1, r);
    }
    return rows;
}

/*!
 * --tune: every compiled tile on this configuration's shape; returns ms per
 * tile. A tile whose output disagrees with the cuBLAS route (float16: relative
 * error >= 1e-3) or with the exact host values (int1) is reported and left out.
 */
std::map<std::string, double> tune_config(const context& ctx, const bench_config& b)
{
    std::map<std::string, double> ms;
    const auto& c = b.cfg;
    const bool int1 = c.precision == beam_precision::int1;
    const bool xy = c.polarization == polarization_layout::xy_pairs;
    auto d_in = make_input(b);
    device_array d_out(out_floats(c, b.n_times) * 4);
    const auto w =
        int1 ? std::vector<std::complex<float>>() : random_weights(c.weight_count(), 3);
    std::unique_ptr<device_array> route_out;
    if (!int1) {
        route_out = std::make_unique<device_array>(out_floats(c, b.n_times) * 4);
        context once = ctx;
        once.runs = 1;
        time_cublas_route(once, b, w, d_in->get(), *route_out);
    }
    const uint64_t seed = 99;
    for (const auto& tile : tb_testing::compiled_tiles(c)) {
        try {
            auto engine = tb_testing::make_gpu_tiled(c, w, ctx.gpu, tile);
            if (int1)
                tb_testing::fill_random_weights(*engine, seed);
            BF_GPU_CHECK(cudaMemset(d_out.get(), 0xff, d_out.size()));
            const double t =
                time_engine(ctx, *engine, b, d_in->get(), d_out, std::max(5, ctx.runs / 3));
            const double err = int1 ? double(check_int1_samples(b, *d_in, d_out, seed))
                                    : relative_error(d_out.get(),
                                                     route_out->get(),
                                                     out_floats(c, b.n_times),
                                                     xy ? 1 : 0,
                                                     int(c.n_channels),
                                                     int(c.n_beams));
            const bool ok = int1 ? err == 0.0 : err < 1e-3;
            std::cout << "  tune " << b.id << " " << std::setw(22) << tile << " "
                      << std::fixed << std::setprecision(3) << t << " ms  "
                      << std::setprecision(1) << useful_ops(b) / (t * 1e-3) / 1e12
                      << " TOPs/s  " << (int1 ? "wrong samples " : "rel.err ")
                      << std::scientific << std::setprecision(1) << err << std::fixed
                      << (ok ? "" : "  WRONG: left out") << std::endl;
            if (ok)
                ms[tile] = t;
        } catch (const std::exception& e) {
            std::cout << "  tune " << b.id << " " << tile << " skipped: " << e.what()
                      << std::endl;
        }
    }
    return ms;
}

void print_row(const result& r)
{
    auto num = [](double v, int prec) {
        std::ostringstream s;
        if (std::isnan(v))
            s << "-";
        else
            s << std::fixed << std::setprecision(prec) << v;
        return s.str();
    };
    std::cout << std::left << std::setw(8) << r.id << std::setw(36) << r.what << std::right
              << std::setw(10) << num(r.ms, 3) << std::setw(10) << num(r.tops, 1) << std::setw(9)
              << num(r.ratio_route, 2) << std::setw(9) << num(r.ratio_hgemm, 2) << std::setw(11)
              << (std::isnan(r.err) ? std::string("-") : [&] {
                     std::ostringstream s;
                     s << std::scientific << std::setprecision(1) << r.err;
                     return s.str();
                 }())
              << "  " << std::left << std::setw(22) << r.tile << r.target_text
              << (r.verdict.empty() ? "" : " [" + r.verdict + "]") << std::right << "\n";
}

} // namespace

int main(int argc, char** argv)
{
    try {
        const bool quick = bench::option(argc, argv, "quick", "") == "1";
        const bool tune = bench::option(argc, argv, "tune", "") == "1";
        const int only = std::stoi(bench::option(argc, argv, "config", "0"));
        const std::string json = bench::option(argc, argv, "json", "beamform_bench.json");
        const std::string tuning_file =
            bench::option(argc, argv, "tuning-file", "beamform_tuning.txt");

        context ctx;
        ctx.runs = std::stoi(bench::option(argc, argv, "runs", quick ? "5" : "20"));
        ctx.gpu = select_device("cuda:0");
        BF_GPU_CHECK(cudaSetDevice(0));
        BF_GPU_CHECK(cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking));
        CUBLAS_CHECK(cublasCreate(&ctx.cublas));
        CUBLAS_CHECK(cublasSetStream(ctx.cublas, ctx.stream));

        cudaDeviceProp prop;
        BF_GPU_CHECK(cudaGetDeviceProperties(&prop, 0));
        std::cout << "device: " << prop.name << ", " << prop.multiProcessorCount
                  << " SMs, L2 " << prop.l2CacheSize / (1 << 20) << " MiB"
                  << (quick ? "   (--quick: small sizes, figures are not meaningful)"
                            : "")
                  << std::endl;
        if (const char* tf = std::getenv("BEAMFORM_TUNING_FILE"))
            std::cout << "BEAMFORM_TUNING_FILE=" << tf << std::endl;

        const double copy_gbps =
            bench::copy_ceiling_gbps(ctx.stream, quick ? (256u << 20) : (1u << 30));
        ctx.hgemm_tflops = hgemm_ceiling(ctx.cublas, ctx.stream, quick ? 2048 : 8192);
        const double peak_f16 = time_peak_fp16(ctx.stream);
        const double peak_b1 = time_peak_b1(ctx.stream);
        const double peak_wg_f16 = tb_testing::wgmma_peak_tops(0, false);
        const double peak_wg_b1 = tb_testing::wgmma_peak_tops(0, true);
        std::cout << "wgmma (sm_90a) kernels: "
                  << (tb_testing::wgmma_available(0) ? "available"
                                                  : "not available on this GPU")
                  << std::endl;
        std::cout << "ceilings: device copy " << std::fixed << std::setprecision(0)
                  << copy_gbps << " GB/s (read+write); cuBLAS HGEMM "
                  << (quick ? 2048 : 8192) << "^3 " << ctx.hgemm_tflops
                  << " TFLOP/s; mma.sync peak (no memory): fp16 m16n8k16 " << peak_f16
                  << " TOPs/s, b1 AND m16n8k256 " << peak_b1 << " TOPs/s" << std::endl;

        bench::report rep("beamform_bench");
        auto add_ceiling =
            [&](const std::string& what, double value, const std::string& unit) {
                rep.row();
                rep.set("config", "ceiling");
                rep.set("what", what);
                rep.set("value", value);
                rep.set("unit", unit);
            };
        add_ceiling("device-to-device copy", copy_gbps, "GB/s");
        add_ceiling("cuBLAS HGEMM", ctx.hgemm_tflops, "TFLOP/s");
        add_ceiling("mma.sync fp16 m16n8k16 peak", peak_f16, "TOPs/s");
        add_ceiling("mma.sync b1 AND m16n8k256 peak", peak_b1, "TOPs/s");
        if (peak_wg_f16 > 0) {
            add_ceiling("wgmma fp16 m64n256k16 peak", peak_wg_f16, "TOPs/s");
            add_ceiling("wgmma b1 AND m64n256k256 peak", peak_wg_b1, "TOPs/s");
        }

        const auto configs = all_configs(quick);
        if (tune) {
            // Fastest tile per shape class, summed over the configurations in it;
            // only tiles that were right in every one of them.
            std::map<std::string, std::map<std::string, double>> per_key;
            std::map<std::string, std::map<std::string, int>> right_in;
            std::map<std::string, int> n_configs;
            for (const auto& b : configs) {
                if (only && b.id.substr(0, b.id.find('/')) != std::to_string(only))
                    continue;
                const auto key = tb_testing::tuning_key(b.cfg);
                n_configs[key]++;
                for (const auto& [tile, ms] : tune_config(ctx, b)) {
                    per_key[key][tile] += ms;
                    right_in[key][tile]++;
                }
            }
            std::ofstream f(tuning_file);
            f << "# gr-beamform tensor_beamformer tuning for " << prop.name
              << " (beamform_bench --tune" << (quick ? " --quick" : "") << ")\n";
            for (const auto& [key, tiles] : per_key) {
                std::string best;
                double best_ms = 1e300;
                for (const auto& [tile, total] : tiles)
                    if (right_in[key][tile] == n_configs[key] && total < best_ms) {
                        best = tile;
                        best_ms = total;
                    }
                if (best.empty()) {
                    std::cout << "no tile was right in every configuration of " << key
                              << std::endl;
                    continue;
                }
                f << key << " = " << best << "\n";
                std::cout << "tuned " << key << " = " << best << std::endl;
            }
            std::cout << "wrote " << tuning_file
                      << " (use: BEAMFORM_TUNING_FILE=" << tuning_file << ")"
                      << std::endl;
            return 0;
        }

        std::vector<result> all;
        for (const auto& b : configs) {
            if (only && b.id.substr(0, b.id.find('/')) != std::to_string(only))
                continue;
            for (auto& r : run_config(ctx, b))
                all.push_back(r);
        }

        std::cout << "\n"
                  << std::left << std::setw(8) << "config" << std::setw(36) << "what"
                  << std::right << std::setw(10) << "ms" << std::setw(10) << "TOPs/s"
                  << std::setw(9) << "xRoute" << std::setw(9) << "xHGEMM" << std::setw(11)
                  << "rel.err"
                  << "  " << std::left << std::setw(22) << "tile"
                  << "target\n"
                  << std::right;
        for (const auto& r : all)
            print_row(r);
        std::cout
            << "TOPs/s = 8 x beams x samples x receivers x channels / time; xRoute = "
               "route time / our time (same data, same run); xHGEMM = rate / cuBLAS "
               "HGEMM ceiling; rel.err = ||ours - route|| / ||route|| (int1: wrong "
               "samples of 64, exact)\n";
        for (const auto& r : all) {
            rep.row();
            rep.set("config", r.id);
            rep.set("name", r.name);
            rep.set("what", r.what);
            rep.set("tile", r.tile);
            rep.set("median_ms", r.ms);
            rep.set("tops", r.tops);
            if (!std::isnan(r.ratio_route))
                rep.set("ratio_to_cublas_route", r.ratio_route);
            if (!std::isnan(r.ratio_hgemm))
                rep.set("ratio_to_hgemm_ceiling", r.ratio_hgemm);
            if (!std::isnan(r.err))
                rep.set("error", r.err);
            rep.set("target", r.target_text);
            rep.set("verdict", r.verdict);
        }
        rep.write_json(json);
        std::cout << "wrote " << json << std::endl;
        cublasDestroy(ctx.cublas);
        cudaStreamDestroy(ctx.stream);
    } catch (const std::exception& e) {
        std::cerr << "beamform_bench: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}
