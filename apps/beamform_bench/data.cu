/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Inputs on the device, error norms, and the exact int1 sample check.
 */
#include "beamform_bench.h"
#include <random>

namespace bf_bench {

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

//! The last of \p n complex values (n odd: convert_fc32_to_fp16 takes pairs).
__global__ void convert_last_fc32_to_fp16(const float2* in, __half2* out, size_t n)
{
    out[n - 1] = __floats2half2_rn(in[n - 1].x, in[n - 1].y);
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

double relative_error(const void* ours,
                      const void* route,
                      const tensor_beamformer_config& c,
                      size_t T)
{
    const size_t n_floats = out_floats(c, T);
    const int map = c.polarization == polarization_layout::xy_pairs &&
                            c.output == beam_output::voltage
                        ? 1
                        : 0;
    device_array sums(2 * sizeof(double));
    BF_GPU_CHECK(cudaMemset(sums.get(), 0, sums.size()));
    error_sums<<<1024, 256>>>(static_cast<const float*>(ours),
                              static_cast<const float*>(route),
                              n_floats,
                              map,
                              int(c.n_channels),
                              int(c.n_beams),
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

std::vector<std::complex<float>> random_weights(size_t n, unsigned seed)
{
    std::vector<std::complex<float>> w(n);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (auto& x : w)
        x = { u(gen), u(gen) };
    return w;
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

} // namespace bf_bench
