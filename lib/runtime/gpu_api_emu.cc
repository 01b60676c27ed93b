/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The "emu" backend: host memory standing in for a GPU, so that device_buffer,
 * the copy counters and the leak checks run in CI where there is no GPU.
 * Streams are null and every operation completes before it returns.
 */
#include "backends.h"
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

namespace gr {
namespace beamform {
namespace {

class emu_runtime final : public gpu_api
{
public:
    backend kind() const override { return backend::emu; }
    int device_count() const override { return 1; }
    std::string device_name(int) const override { return "host-memory GPU emulation"; }
    void memory_info(int, size_t& free, size_t& total) const override
    {
        free = total = 0;
    }

    void* alloc_device(int, size_t bytes) const override { return alloc_pinned(bytes); }
    void free_device(int, void* ptr) const override { std::free(ptr); }
    void* alloc_pinned(size_t bytes) const override
    {
        void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
        if (!p)
            throw std::bad_alloc();
        return p;
    }
    void free_pinned(void* ptr) const override { std::free(ptr); }

    stream_handle create_stream(int) const override { return nullptr; }
    void destroy_stream(int, stream_handle) const override {}
    void synchronize(int, stream_handle) const override {}

    void copy_async(int, void* dst, const void* src, size_t bytes, copy_kind, stream_handle)
        const override
    {
        std::memmove(dst, src, bytes);
    }
    void fill_async(int, void* dst, int byte, size_t bytes, stream_handle) const override
    {
        std::memset(dst, byte, bytes);
    }

    // Events are host timestamps; the emulation runs everything at once, so
    // there is never anything to wait for.
    event_handle create_event(int, bool) const override { return new double(0.0); }
    void destroy_event(int, event_handle e) const override
    {
        delete static_cast<double*>(e);
    }
    void record_event(int, event_handle e, stream_handle) const override
    {
        using clock = std::chrono::steady_clock;
        *static_cast<double*>(e) =
            std::chrono::duration<double, std::milli>(clock::now().time_since_epoch())
                .count();
    }
    void stream_wait_event(int, stream_handle, event_handle) const override {}
    void synchronize_event(int, event_handle) const override {}
    bool query_event(int, event_handle) const override { return true; }
    float elapsed_ms(int, event_handle start, event_handle end) const override
    {
        return static_cast<float>(*static_cast<double*>(end) -
                                  *static_cast<double*>(start));
    }
};

} // namespace

const gpu_api* emu_api()
{
    static const emu_runtime instance;
    return &instance;
}

} // namespace beamform
} // namespace gr
