/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The route a user would otherwise take: a fc32 -> fp16 conversion kernel,
 * one cuBLAS HGEMM per channel (strided batched, same expanded weights),
 * and for power output a separate detect kernel; and the HGEMM ceiling.
 */
#include "beamform_bench.h"

namespace bf_bench {

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
 * Detect X/Y pairs: voltage [T][C][2 pol][B] complex fp32 -> power
 * [T/n_int][S][B][C], Stokes I (S = 1) or I, Q, U, V (S = 4) as the CPU
 * engine defines them. A kernel of its own: one template for both detects
 * made the single-polarization route 5 % slower (H200, 4/rx64: 1.431 ms
 * against 1.347-1.361), and the route is the baseline of every ratio.
 */
__global__ void
detect_power_xy(const float2* v, float* out, int T, int C, int B, int n_int, int n_stokes)
{
    const size_t n = size_t(T / n_int) * C * B;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x) {
        const int b = int(i % B);
        const int c = int((i / B) % C);
        const int w = int(i / (size_t(B) * C));
        float s[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
        for (int t = w * n_int; t < (w + 1) * n_int; t++) {
            const float2 x = v[((size_t(t) * C + c) * 2 + 0) * B + b];
            const float2 y = v[((size_t(t) * C + c) * 2 + 1) * B + b];
            const float xx = x.x * x.x + x.y * x.y, yy = y.x * y.x + y.y * y.y;
            s[0] += xx + yy;
            s[1] += xx - yy;
            s[2] += 2.0f * (x.x * y.x + x.y * y.y);
            s[3] += 2.0f * (x.y * y.x - x.x * y.y);
        }
        for (int k = 0; k < n_stokes; k++)
            out[((size_t(w) * n_stokes + k) * B + b) * C + c] = s[k];
    }
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
    BF_GPU_CHECK(
        cudaMemcpy(d_a.get(), host_a.data(), d_a.size(), cudaMemcpyHostToDevice));
    std::unique_ptr<device_array> d_x16;
    if (!b.fp16_input)
        d_x16 = std::make_unique<device_array>(T * C * R * 4);
    const void* x16 = b.fp16_input ? d_in : d_x16->get();
    std::unique_ptr<device_array> d_volt;
    const bool power = c.output == beam_output::power;
    if (power)
        d_volt = std::make_unique<device_array>(T * C * npol * B * 8);
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
            else {
                convert_fc32_to_fp16<<<4096, 256, 0, ctx.stream>>>(
                    static_cast<const float4*>(d_in), d_x16->as<uint2>(), T * C * R / 2);
                if ((T * C * R) % 2 != 0) // the pairs' kernel leaves the last value
                    convert_last_fc32_to_fp16<<<1, 1, 0, ctx.stream>>>(
                        static_cast<const float2*>(d_in), d_x16->as<__half2>(), T * C * R);
            }
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
        if (power && xy) {
            detect_power_xy<<<4096, 256, 0, ctx.stream>>>(
                static_cast<const float2*>(volt),
                route_out.as<float>(),
                int(T),
                int(C),
                int(B),
                int(c.n_int),
                int(c.n_stokes()));
            BF_GPU_CHECK_LAUNCH("detect_power_xy");
        } else if (power) {
            detect_power<<<4096, 256, 0, ctx.stream>>>(static_cast<const float2*>(volt),
                                                       route_out.as<float>(),
                                                       int(T),
                                                       int(C),
                                                       int(B),
                                                       int(c.n_int));
            BF_GPU_CHECK_LAUNCH("detect_power");
        }
    };
    const auto t = bench::time_gpu(run, ctx.stream, ctx.runs, 3);
    return t.median_ms;
}

} // namespace bf_bench
