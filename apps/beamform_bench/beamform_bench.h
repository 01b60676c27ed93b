/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * beamform_bench (main.cu): what its parts share. Parts by role:
 *   configs.cc       the benchmark configurations and their operation counts
 *   data.cu          inputs on the device, error norms, the int1 sample check
 *   cublas_route.cu  the cuBLAS route and the cuBLAS HGEMM ceiling
 *   peaks.cu         mma.sync peak micro-benchmarks (no memory)
 *   engine_runs.cu   the tensor beamformer against the route, per configuration
 *   tuner.cu         --tune: every compiled tile and the library path, the tuning file
 *   report.cc        the results table
 * The engine is reached through tensor_beamformer_engine.h and the
 * beamform-testing library (tensor_beamformer_testing.h).
 */
#ifndef INCLUDED_BEAMFORM_APPS_BEAMFORM_BENCH_H
#define INCLUDED_BEAMFORM_APPS_BEAMFORM_BENCH_H

#include "bench_common.h"
#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include "tensor_beamformer_testing.h"
#include <cublas_v2.h>
#include <cmath>
#include <complex>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace bf_bench {

using namespace gr::beamform;
using bench::device_array;

#define CUBLAS_CHECK(call)                                                    \
    do {                                                                      \
        cublasStatus_t s_ = (call);                                           \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                      \
            throw std::runtime_error(std::string("cuBLAS error ") +           \
                                     std::to_string(int(s_)) + " in " #call); \
    } while (0)

struct bench_config {
    std::string id;   // "1", "3/rx64", ...
    std::string name; // what it is
    tensor_beamformer_config cfg;
    size_t n_times;
    bool fp16_input = false; // configuration 1: the GEMM core on fp16 samples
    double target = 0;       // ratio to the cuBLAS route, or (int1) to the b1 AND peak
    std::string target_text;
};

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
    double copy_gbps = 0; //!< device-to-device copy of this run (the byte floor's rate)
    double peak_b1_tops = 0; //!< mma.sync b1 AND peak of this run (config 5's target)
    int runs;
    device_spec gpu;
    //! --others=0: no rows of the other kernels on the same data (a shorter run)
    bool others = true;
};

// configs.cc
//! The configurations; configs 3 and 4 once per receiver count in \p receivers.
std::vector<bench_config> all_configs(bool quick, const std::vector<size_t>& receivers);
//! --cases: shapes other than the configurations' (syntax in configs.cc),
//! each reported against the cuBLAS route with no target.
std::vector<bench_config> parse_cases(const std::string& text);
double useful_ops(const bench_config& b);
size_t out_floats(const tensor_beamformer_config& c, size_t T);

// data.cu
#ifdef __CUDACC__
__global__ void convert_fc32_to_fp16(const float4* in, uint2* out, size_t n_pairs);
__global__ void convert_last_fc32_to_fp16(const float2* in, __half2* out, size_t n);
#endif
//! ||ours - route|| / ||route|| over the outputs of T samples of \p c (the
//! route's voltage X/Y pairs are grouped per polarization, ours per beam).
double relative_error(const void* ours,
                      const void* route,
                      const tensor_beamformer_config& c,
                      size_t T);
void fill_random(void* dst, size_t n_floats, unsigned long long seed);
std::vector<std::complex<float>> random_weights(size_t n, unsigned seed);
std::unique_ptr<device_array> make_input(const bench_config& b);
size_t check_int1_samples(const bench_config& b,
                          const device_array& d_in,
                          const device_array& d_out,
                          uint64_t seed);

// cublas_route.cu
double hgemm_ceiling(cublasHandle_t h, cudaStream_t s, size_t n);
double time_cublas_route(const context& ctx,
                         const bench_config& b,
                         const std::vector<std::complex<float>>& w,
                         const void* d_in,
                         device_array& route_out);

// peaks.cu
double time_peak_fp16(cudaStream_t s);
double time_peak_b1(cudaStream_t s);

// configs.cc
/*!
 * Whether --config=\p only selects configuration \p id: "" selects all, a
 * number all rows of that configuration ("4": 4/rx64, 4/rx128, 4/rx512), a
 * whole id that row alone ("4/rx512").
 */
bool selected(const std::string& only, const std::string& id);

// engine_runs.cu
double time_engine(const context& ctx,
                   tensor_beamformer_engine& engine,
                   const bench_config& b,
                   const void* d_in,
                   device_array& d_out,
                   int runs);
std::vector<result> run_config(const context& ctx, const bench_config& b);

// tuner.cu
//! --tune: times every tile of every selected configuration (selected())
//! and writes the fastest per shape class to \p tuning_file.
void tune(const context& ctx,
          const std::vector<bench_config>& configs,
          const std::string& only,
          bool quick,
          const std::string& tuning_file,
          const std::string& device);

// report.cc
void print_table(const std::vector<result>& all);
void add_results(bench::report& rep, const std::vector<result>& all);

} // namespace bf_bench

#endif
