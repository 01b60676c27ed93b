/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What every benchmark in apps/ shares: CUDA-event timing with warm-up and
 * the median of many runs, the device-to-device copy ceiling measured in the
 * same run, non-zero random inputs, and output as a table on stdout plus a
 * JSON file. Device memory, events and error checks are the runtime's
 * (gr::beamform::device_memory, gpu_event, BF_GPU_CHECK).
 */
#ifndef INCLUDED_BEAMFORM_APPS_BENCH_COMMON_H
#define INCLUDED_BEAMFORM_APPS_BENCH_COMMON_H

#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <common/gpu_portable.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

//! The CUDA device the benchmarks run on (the current one).
inline gr::beamform::device_spec gpu()
{
    int dev = 0;
    BF_GPU_CHECK(cudaGetDevice(&dev));
    return { gr::beamform::backend::cuda, dev };
}

//! Device memory on the current device, owned for the duration of a benchmark.
struct device_array : gr::beamform::device_memory {
    explicit device_array(size_t bytes) : device_memory(gpu(), bytes) {}
};

//! Fill device memory with uniform random floats in [-1, 1) (never zeros).
inline void fill_random_floats(void* dst, size_t n_floats, unsigned seed)
{
    std::vector<float> host(n_floats);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (auto& v : host)
        v = u(gen);
    BF_GPU_CHECK(cudaMemcpy(dst, host.data(), n_floats * sizeof(float), cudaMemcpyHostToDevice));
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
    BF_GPU_CHECK(cudaStreamSynchronize(stream));
    const gr::beamform::device_spec dev = gpu();
    const gr::beamform::gpu_event start(dev), stop(dev);
    std::vector<double> ms;
    for (int i = 0; i < runs; i++) {
        start.record(stream);
        fn();
        stop.record(stream);
        ms.push_back(stop.ms_since(start));
    }
    BF_GPU_CHECK(cudaGetLastError());
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
    fill_random_floats(a.get(), bytes / sizeof(float), 1);
    timing t = time_gpu(
        [&] {
            BF_GPU_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, stream));
        },
        stream,
        20,
        3);
    return 2.0 * double(bytes) / (t.median_ms * 1e-3) / 1e9;
}

/*!
 * The write-only ceiling: a memset of \p bytes (well beyond L2), in GB/s
 * written. Why beside the copy: an output-heavy kernel (voltage beams, the
 * channelizer's spectra) mostly writes, and DRAM takes pure writes faster
 * than the copy's even mix (H200: 4.5 against 4.2 TB/s, apps/beamform_bench.md).
 */
inline double write_ceiling_gbps(cudaStream_t stream, size_t bytes = size_t(1) << 30)
{
    device_array a(bytes);
    timing t = time_gpu(
        [&] { BF_GPU_CHECK(cudaMemsetAsync(a.get(), 0, bytes, stream)); }, stream, 20, 3);
    return double(bytes) / (t.median_ms * 1e-3) / 1e9;
}

inline std::string device_name()
{
    const auto dev = gpu();
    return gr::beamform::gpu_api_for(dev.kind).device_name(dev.index);
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

//! A bad command-line value: the apps print it and exit with code 2
//! (run_main).
class usage_error : public std::invalid_argument
{
public:
    using std::invalid_argument::invalid_argument;
};

/*!
 * Every argument is "--name" or "--name=value" for one of \p names; a
 * usage_error naming the first other one (a misspelt option would otherwise
 * run the defaults without a word) and listing the accepted options.
 * "--help" or "-h" anywhere prints \p usage (the app's usage text) and exits
 * with status 0 before the app touches a GPU; a std::logic_error first where
 * \p usage does not name "--NAME" for every accepted name, so that the text
 * and the option list cannot drift apart.
 */
inline void accept_only(int argc,
                        char** argv,
                        const std::vector<std::string>& names,
                        const char* usage)
{
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (a != "--help" && a != "-h")
            continue;
        const std::string text = usage;
        for (const auto& n : names)
            if (text.find("--" + n) == std::string::npos)
                throw std::logic_error("usage text does not name --" + n);
        std::cout << text << (!text.empty() && text.back() == '\n' ? "" : "\n")
                  << std::flush;
        std::exit(0);
    }
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        const std::string name =
            a.rfind("--", 0) == 0 ? a.substr(2, a.find('=') - 2) : "";
        if (std::find(names.begin(), names.end(), name) != names.end())
            continue;
        std::string accepted;
        for (const auto& n : names)
            accepted += (accepted.empty() ? "--" : ", --") + n;
        throw usage_error(a + ": unknown option; accepted: " + accepted);
    }
}

namespace detail {
//! \p text as an integer in [lo, hi]; usage_error naming --name otherwise.
inline long long
integer_in(const std::string& name, const std::string& text, long long lo, long long hi)
{
    size_t used = 0;
    long long v = 0;
    try {
        v = std::stoll(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || v < lo || v > hi)
        throw usage_error("--" + name + "=" + text + ": expected an integer from " +
                          std::to_string(lo) + " to " + std::to_string(hi));
    return v;
}
} // namespace detail

//! "--name=N" as an integer in [lo, hi], \p fallback where absent.
inline long long integer_option(int argc,
                                char** argv,
                                const std::string& name,
                                long long fallback,
                                long long lo,
                                long long hi)
{
    const std::string text = option(argc, argv, name, "");
    return text.empty() ? fallback : detail::integer_in(name, text, lo, hi);
}

//! "--name=X" as a number in [lo, hi], \p fallback where absent.
inline double real_option(
    int argc, char** argv, const std::string& name, double fallback, double lo, double hi)
{
    const std::string text = option(argc, argv, name, "");
    if (text.empty())
        return fallback;
    size_t used = 0;
    double v = 0;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || !(v >= lo && v <= hi)) {
        std::ostringstream why; // 1e+12, not 1000000000000.000000
        why << "--" << name << "=" << text << ": expected a number from " << lo << " to "
            << hi;
        throw usage_error(why.str());
    }
    return v;
}

//! \p text cut at each \p sep ("a:b:c" -> a, b, c; "" -> none).
inline std::vector<std::string> split(const std::string& text, char sep)
{
    std::vector<std::string> parts;
    std::stringstream s(text);
    for (std::string part; std::getline(s, part, sep);)
        parts.push_back(part);
    return parts;
}

//! The comma-separated items of \p text (the value of --\p name), each
//! through \p parse_one; usage_error when there is none.
template <class ParseOne>
auto parse_items(const std::string& name, const std::string& text, ParseOne parse_one)
{
    std::vector<decltype(parse_one(text))> out;
    for (const std::string& item : split(text, ','))
        out.push_back(parse_one(item));
    if (out.empty())
        throw usage_error("--" + name + ": no item given");
    return out;
}

//! "--name=a,b,c" (such as --channels=256,1024) as integers in [lo, hi],
//! \p fallback where absent.
inline std::vector<size_t> list_option(int argc,
                                       char** argv,
                                       const std::string& name,
                                       const std::vector<size_t>& fallback,
                                       long long lo,
                                       long long hi)
{
    const std::string text = option(argc, argv, name, "");
    if (text.empty())
        return fallback;
    std::vector<size_t> out;
    for (const std::string& part : split(text, ','))
        out.push_back(size_t(detail::integer_in(name, part, lo, hi)));
    return out;
}

/*!
 * main() of an app: \p run's exit code; a usage_error printed with exit
 * code 2, any other exception (a GPU error included) printed with 1.
 */
inline int run_main(const char* app, int argc, char** argv, int (*run)(int, char**))
{
    try {
        return run(argc, argv);
    } catch (const usage_error& e) {
        std::cerr << app << ": " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << app << ": " << e.what() << "\n";
        return 1;
    }
}

//! Median wall time in ms of \p fn over \p runs calls (after one warm-up): the
//! CPU engines' and GNU Radio blocks' side of a benchmark.
template <typename F>
double time_cpu_ms(F&& fn, int runs)
{
    fn();
    std::vector<double> ms;
    for (int i = 0; i < runs; i++) {
        const auto t0 = std::chrono::steady_clock::now();
        fn();
        const auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

} // namespace bench

#endif
