/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Helpers shared by the C++ tests: the GPU to test on (or a skip reason),
 * random data, device copies, poisoning and error norms, and environment
 * knobs set for one scope.
 */
#ifndef INCLUDED_BEAMFORM_TEST_UTIL_H
#define INCLUDED_BEAMFORM_TEST_UTIL_H

#include <gnuradio/beamform/runtime/device.h>
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gtest/gtest.h>
#include <cctype>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace beamform_test {

using gr::beamform::backend;
using gr::beamform::copy_kind;
using gr::beamform::device_memory;
using gr::beamform::device_spec;
using gr::beamform::gpu_api_for;

//! The first CUDA or HIP device, if any.
inline std::optional<device_spec> first_gpu()
{
    for (const auto& name : gr::beamform::available_devices())
        if (name.rfind("cuda", 0) == 0 || name.rfind("hip", 0) == 0)
            return gr::beamform::select_device(name);
    return std::nullopt;
}

//! The devices whose blocks keep stream items in device memory: emu:0 (always)
//! and the first GPU, if any; the parameters of the flowgraph tests.
inline std::vector<std::string> device_memory_devices()
{
    std::vector<std::string> out{ "emu:0" };
    if (auto gpu = first_gpu())
        out.push_back(gpu->name());
    return out;
}

//! A test-name suffix for a device parameter ("cuda:0" -> "cuda_0").
struct device_test_name {
    template <typename Info>
    std::string operator()(const Info& info) const
    {
        std::string n = info.param;
        for (auto& c : n)
            if (!std::isalnum(static_cast<unsigned char>(c)))
                c = '_';
        return n;
    }
};

//! In a TEST body: binds `gpu` to the first GPU or skips with the reason.
#define REQUIRE_GPU(gpu)                                                           \
    auto gpu##_opt = ::beamform_test::first_gpu();                                 \
    if (!gpu##_opt)                                                                \
        GTEST_SKIP() << "no usable GPU on this machine (devices: cpu only)";       \
    const ::gr::beamform::device_spec gpu = *gpu##_opt

template <typename T>
std::vector<T> random_vector(size_t n, unsigned seed, double lo = -1.0, double hi = 1.0)
{
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(lo, hi);
    std::vector<T> v(n);
    for (auto& x : v) {
        if constexpr (std::is_same_v<T, std::complex<float>>)
            x = T(float(u(gen)), float(u(gen)));
        else
            x = T(u(gen));
    }
    return v;
}

//! A device copy of host data.
template <typename T>
device_memory to_device(const device_spec& dev, const std::vector<T>& host)
{
    device_memory d(dev, host.size() * sizeof(T));
    const auto& api = gpu_api_for(dev.kind);
    api.copy_async(dev.index, d.get(), host.data(), d.size(), copy_kind::host_to_device, nullptr);
    api.synchronize(dev.index, nullptr);
    return d;
}

template <typename T>
std::vector<T> to_host(const device_spec& dev, const device_memory& d, size_t n)
{
    std::vector<T> host(n);
    const auto& api = gpu_api_for(dev.kind);
    api.copy_async(dev.index, host.data(), d.get(), n * sizeof(T), copy_kind::device_to_host, nullptr);
    api.synchronize(dev.index, nullptr);
    return host;
}

//! Fill with 0xff bytes: NaN as float, so an unwritten output cannot pass.
inline void poison(const device_spec& dev, device_memory& d)
{
    const auto& api = gpu_api_for(dev.kind);
    api.fill_async(dev.index, d.get(), 0xff, d.size(), nullptr);
    api.synchronize(dev.index, nullptr);
}

//! ||a - b|| / ||b||, and NaN if any element of a is not finite.
template <typename T>
double relative_error(const std::vector<T>& a, const std::vector<T>& b)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < a.size(); i++) {
        if constexpr (std::is_same_v<T, std::complex<float>>) {
            if (!std::isfinite(a[i].real()) || !std::isfinite(a[i].imag()))
                return NAN;
        } else if (!std::isfinite(double(a[i]))) {
            return NAN;
        }
        num += std::norm(std::complex<double>(a[i]) - std::complex<double>(b[i]));
        den += std::norm(std::complex<double>(b[i]));
    }
    return std::sqrt(num / den);
}

/*!
 * A default Config changed by \p change must fail validate() with a
 * std::invalid_argument whose message names \p word (the parameter).
 */
template <typename Config, typename Change>
void expect_invalid_config(Change change, const char* word)
{
    Config c;
    change(c);
    try {
        c.validate();
        ADD_FAILURE() << "accepted a bad " << word;
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
    }
}

/*!
 * Sets the environment variable \p name to \p value (nullptr: unsets it)
 * for the life of this object, then puts back what it was, so that a knob a
 * test forces (BEAMFORM_PFB_PATH, ...) does not leak into the next test, even
 * when an assertion returns early.
 */
class scoped_env
{
public:
    scoped_env(const char* name, const char* value) : d_name(name)
    {
        if (const char* old = std::getenv(name))
            d_saved = old;
        set(value);
    }
    void set(const char* value)
    {
        if (value)
            setenv(d_name.c_str(), value, 1);
        else
            unsetenv(d_name.c_str());
    }
    ~scoped_env() { set(d_saved ? d_saved->c_str() : nullptr); }
    scoped_env(const scoped_env&) = delete;
    scoped_env& operator=(const scoped_env&) = delete;

private:
    std::string d_name;
    std::optional<std::string> d_saved;
};

} // namespace beamform_test

#endif
