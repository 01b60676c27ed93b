/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_RUNTIME_GPU_API_H
#define INCLUDED_BEAMFORM_RUNTIME_GPU_API_H

#include <gnuradio/beamform/runtime/device.h>
#include <cstddef>
#include <string>

namespace gr {
namespace beamform {

//! A backend's stream (cudaStream_t, hipStream_t; nullptr for cpu/emu).
using stream_handle = void*;
//! A backend's event.
using event_handle = void*;

enum class copy_kind { host_to_device, device_to_host, device_to_device };

/*!
 * \brief The operations the module needs from a GPU runtime, one instance per
 * compiled backend (cuda, hip, and emu, the host-memory stand-in).
 *
 * Everything above this interface (device_buffer, memory owners, blocks) is
 * backend-neutral; everything below it is a thin wrapper over the vendor
 * runtime that turns every error into std::runtime_error with the runtime's
 * message and the call site. Calls that name a device make it current first.
 */
class gpu_api
{
public:
    virtual ~gpu_api() = default;
    virtual backend kind() const = 0;
    virtual int device_count() const = 0;
    virtual std::string device_name(int device) const = 0;
    //! Free and total memory of \p device in bytes.
    virtual void memory_info(int device, size_t& free, size_t& total) const = 0;

    virtual void* alloc_device(int device, size_t bytes) const = 0;
    virtual void free_device(int device, void* ptr) const = 0;
    //! Page-locked host memory, so that copies can run asynchronously.
    virtual void* alloc_pinned(size_t bytes) const = 0;
    virtual void free_pinned(void* ptr) const = 0;

    virtual stream_handle create_stream(int device) const = 0;
    virtual void destroy_stream(int device, stream_handle s) const = 0;
    virtual void synchronize(int device, stream_handle s) const = 0;

    //! Enqueue a copy on \p s; the caller synchronizes where the host needs it.
    virtual void copy_async(int device,
                            void* dst,
                            const void* src,
                            size_t bytes,
                            copy_kind kind,
                            stream_handle s) const = 0;
    //! Fill with a byte value (tests poison outputs with 0xff = float NaN).
    virtual void
    fill_async(int device, void* dst, int byte, size_t bytes, stream_handle s) const = 0;

    //! An event; \p timing false makes one that only orders work (cheaper).
    virtual event_handle create_event(int device, bool timing) const = 0;
    virtual void destroy_event(int device, event_handle e) const = 0;
    virtual void record_event(int device, event_handle e, stream_handle s) const = 0;
    //! Work enqueued on \p s after this call waits for the last record of \p e.
    virtual void stream_wait_event(int device, stream_handle s, event_handle e) const = 0;
    //! The host waits for the last record of \p e.
    virtual void synchronize_event(int device, event_handle e) const = 0;
    //! Whether the last record of \p e has completed (the host does not wait).
    virtual bool query_event(int device, event_handle e) const = 0;
    //! Milliseconds between two recorded events (waits for \p end).
    virtual float elapsed_ms(int device, event_handle start, event_handle end) const = 0;
};

//! The runtime of a backend; std::runtime_error if this build lacks it.
const gpu_api& gpu_api_for(backend kind);

} // namespace beamform
} // namespace gr

#endif
