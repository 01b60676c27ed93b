/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "block_params.h"
#include <gnuradio/beamform/runtime/gpu_api.h>
#include <cstdlib>
#include <unistd.h>
#include <algorithm>
#include <climits>
#include <numeric>
#include <stdexcept>

namespace gr {
namespace beamform {

size_t check_count(const std::string& name, long long value, long long lo, long long hi)
{
    if (value < lo || value > hi)
        throw std::invalid_argument(name + " must be in [" + std::to_string(lo) + ", " +
                                    std::to_string(hi) + "], got " +
                                    std::to_string(value));
    return static_cast<size_t>(value);
}

size_t check_item_bytes(const std::string& parameters, uint64_t bytes)
{
    constexpr uint64_t max_bytes = INT_MAX; // gr::io_signature's item size is an int
    if (bytes < 1 || bytes > max_bytes)
        throw std::invalid_argument(
            "item size " + parameters + " = " + std::to_string(bytes) +
            " bytes must be in [1, " + std::to_string(max_bytes) +
            "] (GNU Radio's item size is an int); reduce these parameters");
    return static_cast<size_t>(bytes);
}

template <typename T>
std::vector<T> expand_per_receiver(const std::string& name,
                                   const std::vector<T>& values,
                                   size_t n_receivers,
                                   T fill)
{
    if (values.empty())
        return std::vector<T>(n_receivers, fill);
    if (values.size() == 1)
        return std::vector<T>(n_receivers, values[0]);
    if (values.size() != n_receivers)
        throw std::invalid_argument(name + " must have 1 or n_receivers = " +
                                    std::to_string(n_receivers) + " entries, got " +
                                    std::to_string(values.size()));
    return values;
}

template std::vector<float>
expand_per_receiver(const std::string&, const std::vector<float>&, size_t, float);
template std::vector<double>
expand_per_receiver(const std::string&, const std::vector<double>&, size_t, double);
template std::vector<std::complex<float>>
expand_per_receiver(const std::string&,
                    const std::vector<std::complex<float>>&,
                    size_t,
                    std::complex<float>);

size_t gpu_buffer_bytes(const device_spec& dev)
{
    // BEAMFORM_GPU_BUFFER_MB (1 to 4096) sets the size, for measuring
    // flowgraphs (apps/station_bench.md).
    if (const char* mb = std::getenv("BEAMFORM_GPU_BUFFER_MB")) {
        const long v = std::atol(mb);
        if (v >= 1 && v <= 4096)
            return size_t(v) << 20;
    }
    // 1/128 of the GPU's memory, from 64 to 512 MiB: on the reference station
    // (H100) the flowgraph's steady rate rose from 7.8 GS/s at 64 MiB to 9.3 at
    // 512 (the measured pipeline's ceiling), since a work call then carries
    // more spectra; smaller GPUs keep smaller buffers. The emulation reports
    // no memory and gets the minimum.
    constexpr size_t min_bytes = size_t(64) << 20, max_bytes = size_t(512) << 20;
    size_t free_bytes = 0, total_bytes = 0;
    if (dev.uses_device_buffers())
        gpu_api_for(dev.kind).memory_info(dev.index, free_bytes, total_bytes);
    return std::clamp(total_bytes / 128, min_bytes, max_bytes);
}

size_t gpu_buffer_items(size_t item_size, const device_spec& dev)
{
    return std::max<size_t>(2, (gpu_buffer_bytes(dev) + item_size - 1) / item_size);
}

int gpu_calls_in_flight()
{
    // Two: a block enqueues one call while the GPU runs the previous one.
    // BEAMFORM_GPU_CALLS_IN_FLIGHT (2 to 8) sets another depth, for measuring
    // flowgraphs (apps/station_bench.md).
    if (const char* n = std::getenv("BEAMFORM_GPU_CALLS_IN_FLIGHT")) {
        const long v = std::atol(n);
        if (v >= 2 && v <= 8)
            return int(v);
    }
    return 2;
}

size_t host_buffer_items(size_t item_size, size_t page_size)
{
    // GNU Radio's default: 2 x 32 KiB of items (flat_flowgraph::allocate_buffer).
    constexpr size_t default_bytes = 64u << 10;
    constexpr size_t max_bytes = 16u << 20;
    if (item_size == 0 || page_size == 0)
        return 0;
    const size_t granule = page_size / std::gcd(item_size, page_size);
    const size_t default_items = std::max<size_t>(1, default_bytes / item_size);
    if (granule <= 2 * default_items || granule * item_size > max_bytes)
        return 0;
    return granule;
}

size_t cpu_buffer_items(size_t item_size, size_t page_size)
{
    // Per work call a CPU engine pays for its thread pool's wake-up, the
    // channelizer for copying its filter history (taps x channels samples of
    // every receiver) and the beamformer for packing its weights for the
    // matrix products: 8 MiB of items makes those small against the data.
    // BEAMFORM_CPU_BUFFER_MB (1 to 4096) sets another size, for measuring.
    size_t target_bytes = size_t(8) << 20;
    if (const char* mb = std::getenv("BEAMFORM_CPU_BUFFER_MB")) {
        const long v = std::atol(mb);
        if (v >= 1 && v <= 4096)
            target_bytes = size_t(v) << 20;
    }
    if (item_size == 0 || page_size == 0)
        return 0;
    // Whole memory pages (see host_buffer_items), unless that would more than
    // double the target: then the odd-size rule alone.
    const size_t granule = page_size / std::gcd(item_size, page_size);
    const size_t items = std::max<size_t>(2, (target_bytes + item_size - 1) / item_size);
    const size_t in_pages = (items + granule - 1) / granule * granule;
    return in_pages <= 2 * items ? in_pages : host_buffer_items(item_size, page_size);
}

void set_min_output_items(gr::block& block, long items)
{
    const int ports = std::max(1, block.output_signature()->max_streams());
    for (int port = 0; port < ports; port++)
        block.set_min_output_buffer(port, items);
}

void size_output_buffers(gr::block& block, size_t item_size, const device_spec& dev)
{
    if (dev.uses_device_buffers()) {
        set_min_output_items(block, static_cast<long>(gpu_buffer_items(item_size, dev)));
        return;
    }
    const long page = sysconf(_SC_PAGESIZE);
    if (const size_t items = cpu_buffer_items(item_size, page > 0 ? size_t(page) : 4096))
        set_min_output_items(block, static_cast<long>(items));
}

void forget_allocated_max_output_buffers(gr::block& block)
{
    for (int i = 0; i < block.output_signature()->max_streams(); i++)
        if (block.max_output_buffer(i) >= block.min_output_buffer(i))
            block.set_max_output_buffer(i, -1);
}

} // namespace beamform
} // namespace gr
