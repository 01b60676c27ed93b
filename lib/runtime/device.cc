/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "backends.h"
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gnuradio/beamform/runtime/log.h>
#include <atomic>
#include <mutex>
#include <stdexcept>

namespace gr {
namespace beamform {

namespace {

std::atomic<long long> g_allocated[4]; // indexed by backend

const char* backend_name(backend kind)
{
    switch (kind) {
    case backend::cpu:
        return "cpu";
    case backend::cuda:
        return "cuda";
    case backend::hip:
        return "hip";
    case backend::emu:
        return "emu";
    }
    return "?";
}

const gpu_api* find_api(backend kind)
{
    using api_getter = const gpu_api* (*)();
    api_getter getter = nullptr;
    switch (kind) {
    case backend::cpu:
        break;
    case backend::emu:
        getter = emu_api;
        break;
    case backend::cuda:
        getter = BEAMFORM_IF_CUDA(cuda::api);
        break;
    case backend::hip:
        getter = BEAMFORM_IF_HIP(hip::api);
        break;
    }
    return getter ? getter() : nullptr;
}

const char* const device_syntax =
    "device must be \"auto\", \"cpu\", \"cuda[:N]\", \"hip[:N]\" or \"emu[:N]\"";

} // namespace

std::string device_spec::name() const
{
    if (kind == backend::cpu)
        return "cpu";
    return std::string(backend_name(kind)) + ":" + std::to_string(index);
}

const gpu_api& gpu_api_for(backend kind)
{
    const gpu_api* api = find_api(kind);
    if (!api)
        throw std::runtime_error(std::string("gr-beamform was built without the ") +
                                 backend_name(kind) + " backend");
    return *api;
}

void count_device_allocation(backend kind, long long bytes)
{
    g_allocated[static_cast<int>(kind)] += bytes;
}

uint64_t allocated_device_bytes(backend kind)
{
    return static_cast<uint64_t>(g_allocated[static_cast<int>(kind)].load());
}

std::vector<std::string> compiled_backends()
{
    std::vector<std::string> out{ "cpu" };
    for (backend b : { backend::cuda, backend::hip, backend::emu })
        if (find_api(b))
            out.push_back(backend_name(b));
    return out;
}

std::vector<std::string> available_devices()
{
    std::vector<std::string> out{ "cpu" };
    for (backend b : { backend::cuda, backend::hip, backend::emu }) {
        const gpu_api* api = find_api(b);
        for (int i = 0; api && i < api->device_count(); i++)
            out.push_back(device_spec{ b, i }.name());
    }
    return out;
}

device_spec select_device(const std::string& device)
{
    if (device == "cpu")
        return device_spec{};

    // An empty string is a mistake (an unset variable, a blank GRC field), not
    // a request for "auto": say so rather than guess.
    if (device.empty())
        throw std::invalid_argument(std::string(device_syntax) +
                                    ", got \"\" (an empty string; use \"auto\" to pick "
                                    "the first GPU, else the CPU)");
    if (device == "auto") {
        for (backend b : { backend::cuda, backend::hip }) {
            const gpu_api* api = find_api(b);
            if (api && api->device_count() > 0)
                return device_spec{ b, 0 };
        }
        static std::once_flag warned;
        std::call_once(warned, [] {
            std::string built;
            for (const auto& b : compiled_backends())
                built += (built.empty() ? "" : ", ") + b;
            warn("device=\"auto\": no usable GPU (backends built: " + built +
                 "); running on the CPU");
        });
        return device_spec{};
    }

    const auto colon = device.find(':');
    const std::string kind_text = device.substr(0, colon);
    device_spec spec;
    if (kind_text == "cuda")
        spec.kind = backend::cuda;
    else if (kind_text == "hip")
        spec.kind = backend::hip;
    else if (kind_text == "emu")
        spec.kind = backend::emu;
    else
        throw std::invalid_argument(std::string(device_syntax) + ", got \"" + device +
                                    "\"");
    if (colon != std::string::npos) {
        const std::string idx = device.substr(colon + 1);
        if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos ||
            idx.size() > 4)
            throw std::invalid_argument(std::string(device_syntax) + ", got \"" +
                                        device + "\"");
        spec.index = std::stoi(idx);
    }

    const gpu_api& api = gpu_api_for(spec.kind); // throws if not built
    const int count = api.device_count();
    if (spec.index >= count)
        throw std::runtime_error("device \"" + device + "\" is not present: " +
                                 std::to_string(count) + " " + backend_name(spec.kind) +
                                 " device(s) found");
    return spec;
}

device_memory::device_memory(const device_spec& dev, size_t bytes)
    : d_api(&gpu_api_for(dev.kind)), d_device(dev.index), d_bytes(bytes)
{
    d_ptr = d_api->alloc_device(d_device, bytes);
    count_device_allocation(dev.kind, static_cast<long long>(bytes));
}

void device_memory::release()
{
    if (d_ptr) {
        d_api->free_device(d_device, d_ptr);
        count_device_allocation(d_api->kind(), -static_cast<long long>(d_bytes));
    }
    d_ptr = nullptr;
    d_bytes = 0;
}

} // namespace beamform
} // namespace gr
