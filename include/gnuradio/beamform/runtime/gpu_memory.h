/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_RUNTIME_GPU_MEMORY_H
#define INCLUDED_BEAMFORM_RUNTIME_GPU_MEMORY_H

#include <gnuradio/beamform/runtime/gpu_api.h>
#include <cstddef>
#include <utility>

namespace gr {
namespace beamform {

/*!
 * \brief Owners of GPU resources: each releases what it holds when destroyed,
 * and is movable but not copyable.
 */
class device_memory
{
public:
    device_memory() = default;
    device_memory(const device_spec& dev, size_t bytes);
    ~device_memory() { release(); }
    device_memory(device_memory&& o) noexcept { swap(o); }
    device_memory& operator=(device_memory&& o) noexcept
    {
        device_memory tmp(std::move(o));
        swap(tmp);
        return *this;
    }
    device_memory(const device_memory&) = delete;
    device_memory& operator=(const device_memory&) = delete;

    void* get() const { return d_ptr; }
    template <typename T>
    T* as() const
    {
        return static_cast<T*>(d_ptr);
    }
    size_t size() const { return d_bytes; }
    void release();

private:
    void swap(device_memory& o) noexcept
    {
        std::swap(d_api, o.d_api);
        std::swap(d_device, o.d_device);
        std::swap(d_ptr, o.d_ptr);
        std::swap(d_bytes, o.d_bytes);
    }
    const gpu_api* d_api = nullptr;
    int d_device = 0;
    void* d_ptr = nullptr;
    size_t d_bytes = 0;
};

//! Page-locked host memory for asynchronous copies.
class pinned_memory
{
public:
    pinned_memory() = default;
    pinned_memory(backend kind, size_t bytes)
        : d_api(&gpu_api_for(kind)), d_ptr(d_api->alloc_pinned(bytes)), d_bytes(bytes)
    {
    }
    ~pinned_memory()
    {
        if (d_ptr)
            d_api->free_pinned(d_ptr);
    }
    pinned_memory(pinned_memory&& o) noexcept { swap(o); }
    pinned_memory& operator=(pinned_memory&& o) noexcept
    {
        pinned_memory tmp(std::move(o));
        swap(tmp);
        return *this;
    }
    pinned_memory(const pinned_memory&) = delete;
    pinned_memory& operator=(const pinned_memory&) = delete;

    void* get() const { return d_ptr; }
    template <typename T>
    T* as() const
    {
        return static_cast<T*>(d_ptr);
    }
    size_t size() const { return d_bytes; }

private:
    void swap(pinned_memory& o) noexcept
    {
        std::swap(d_api, o.d_api);
        std::swap(d_ptr, o.d_ptr);
        std::swap(d_bytes, o.d_bytes);
    }
    const gpu_api* d_api = nullptr;
    void* d_ptr = nullptr;
    size_t d_bytes = 0;
};

//! One stream on one device.
class gpu_stream
{
public:
    gpu_stream() = default;
    explicit gpu_stream(const device_spec& dev)
        : d_api(&gpu_api_for(dev.kind)),
          d_device(dev.index),
          d_handle(d_api->create_stream(dev.index))
    {
    }
    ~gpu_stream()
    {
        if (d_api)
            d_api->destroy_stream(d_device, d_handle);
    }
    gpu_stream(const gpu_stream&) = delete;
    gpu_stream& operator=(const gpu_stream&) = delete;

    stream_handle get() const { return d_handle; }
    void synchronize() const
    {
        if (d_api)
            d_api->synchronize(d_device, d_handle);
    }

private:
    const gpu_api* d_api = nullptr;
    int d_device = 0;
    stream_handle d_handle = nullptr;
};

//! An event, for timing and for ordering work between streams.
class gpu_event
{
public:
    enum class use { timing, ordering };
    explicit gpu_event(const device_spec& dev, use u = use::timing)
        : d_api(&gpu_api_for(dev.kind)),
          d_device(dev.index),
          d_handle(d_api->create_event(dev.index, u == use::timing))
    {
    }
    ~gpu_event() { d_api->destroy_event(d_device, d_handle); }
    gpu_event(const gpu_event&) = delete;
    gpu_event& operator=(const gpu_event&) = delete;

    void record(stream_handle s) const { d_api->record_event(d_device, d_handle, s); }
    //! Work enqueued on \p s from now on runs after the last record() completed.
    void make_wait(stream_handle s) const { d_api->stream_wait_event(d_device, s, d_handle); }
    //! The host waits until the last record() completed.
    void synchronize() const { d_api->synchronize_event(d_device, d_handle); }
    //! Whether the last record() has completed, without waiting.
    bool completed() const { return d_api->query_event(d_device, d_handle); }
    //! Milliseconds from \p start to this event.
    float ms_since(const gpu_event& start) const
    {
        return d_api->elapsed_ms(d_device, start.d_handle, d_handle);
    }

private:
    const gpu_api* d_api;
    int d_device;
    event_handle d_handle;
};

} // namespace beamform
} // namespace gr

#endif
