/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What every benchmark in apps/ shares (design.md, "Measuring"): CUDA-event
 * timing with warm-up and the median of many runs, the device-to-device copy
 * ceiling measured in the same run, non-zero random inputs, and output as a
 * table on stdout plus a JSON file.
 */
#ifndef INCLUDED_BEAMFORM_APPS_BENCH_COMMON_H
#define INCLUDED_BEAMFORM_APPS_BENCH_COMMON_H

#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

inline void check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess)
        throw std::runtime_error(std::string("CUDA error in ") + what + ": " +
                                 cudaGetErrorString(e));
}
#define BENCH_CHECK(call) ::bench::check((call), #call)

//! Device memory owned for the duration of a benchmark.
struct device_array {
    void* ptr = nullptr;
    size_t bytes = 0;
    explicit device_array(size_t n) : bytes(n) { BENCH_CHECK(cudaMalloc(&ptr, n)); }
    ~device_array() { cudaFree(ptr); }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;
    template <typename T>
    T* as() const
    {
        return static_cast<T*>(ptr);
    }
};

//! Fill device memory with uniform random floats in [-1, 1) (never zeros).
inline void fill_random_floats(void* dst, size_t n_floats, unsigned seed)
{
    std::vector<float> host(n_floats);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (auto& v : host)
        v = u(gen);
    BENCH_CHECK(cudaMemcpy(dst, host.data(), n_floats * sizeof(float), cudaMemcpyHostToDevice));
}

struct timing {
    double median_ms;
    double min_ms;
    double max_ms;
    int runs;
};

/*!
 * Time \p fn (which enqueues work on \p stream) with CUDA events: \p warmup
 * untimed calls, then \p runs timed ones; median, min and max in ms.
 */
inline timing time_gpu(const std::function<void()>& fn,
                       cudaStream_t stream,
                       int runs = 50,
                       int warmup = 5)
{
    for (int i = 0; i < warmup; i++)
        fn();
    BENCH_CHECK(cudaStreamSynchronize(stream));
    cudaEvent_t start, stop;
    BENCH_CHECK(cudaEventCreate(&start));
    BENCH_CHECK(cudaEventCreate(&stop));
    std::vector<double> ms;
    for (int i = 0; i < runs; i++) {
        BENCH_CHECK(cudaEventRecord(start, stream));
        fn();
        BENCH_CHECK(cudaEventRecord(stop, stream));
        BENCH_CHECK(cudaEventSynchronize(stop));
        float t = 0;
        BENCH_CHECK(cudaEventElapsedTime(&t, start, stop));
        ms.push_back(t);
    }
    BENCH_CHECK(cudaGetLastError());
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(ms.begin(), ms.end());
    return timing{ ms[ms.size() / 2], ms.front(), ms.back(), runs };
}

/*!
 * The memory-bandwidth ceiling: a device-to-device copy of \p bytes (well
 * beyond L2), in GB/s counting bytes read plus bytes written.
 */
inline double copy_ceiling_gbps(cudaStream_t stream, size_t bytes = size_t(1) << 30)
{
    device_array a(bytes), b(bytes);
    fill_random_floats(a.ptr, bytes / sizeof(float), 1);
    timing t = time_gpu(
        [&] {
            BENCH_CHECK(cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice, stream));
        },
        stream,
        20,
        3);
    return 2.0 * double(bytes) / (t.median_ms * 1e-3) / 1e9;
}

inline std::string device_name()
{
    int dev = 0;
    BENCH_CHECK(cudaGetDevice(&dev));
    cudaDeviceProp p;
    BENCH_CHECK(cudaGetDeviceProperties(&p, dev));
    return p.name;
}

//! A flat JSON object per result row, written as an array.
class report
{
public:
    explicit report(std::string bench) : d_bench(std::move(bench)) {}

    //! Start a row; values are added with set().
    void row() { d_rows.emplace_back(); }
    void set(const std::string& key, double v)
    {
        std::ostringstream s;
        s.precision(6);
        s << v;
        d_rows.back()[key] = s.str();
    }
    void set(const std::string& key, const std::string& v)
    {
        d_rows.back()[key] = "\"" + v + "\"";
    }

    void write_json(const std::string& path) const
    {
        std::ofstream f(path);
        f << "{\"benchmark\": \"" << d_bench << "\", \"device\": \"" << device_name()
          << "\", \"results\": [\n";
        for (size_t i = 0; i < d_rows.size(); i++) {
            f << "  {";
            bool first = true;
            for (const auto& [k, v] : d_rows[i]) {
                f << (first ? "" : ", ") << "\"" << k << "\": " << v;
                first = false;
            }
            f << "}" << (i + 1 < d_rows.size() ? "," : "") << "\n";
        }
        f << "]}\n";
    }

private:
    std::string d_bench;
    std::vector<std::map<std::string, std::string>> d_rows;
};

//! Value of "--name=value" in argv, or \p fallback.
inline std::string option(int argc, char** argv, const std::string& name, const std::string& fallback)
{
    const std::string prefix = "--" + name + "=";
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a.rfind(prefix, 0) == 0)
            return a.substr(prefix.size());
        if (a == "--" + name)
            return "1";
    }
    return fallback;
}

} // namespace bench

#endif
