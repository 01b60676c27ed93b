/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * gpu_api over the CUDA or HIP runtime. Compiled once per GPU backend
 * (see kernels/common/gpu_portable.h).
 */
#include "backends.h"
#include <common/gpu_portable.h>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {
namespace {

constexpr backend this_backend =
#ifdef BF_BACKEND_HIP
    backend::hip;
#else
    backend::cuda;
#endif

class runtime_api final : public gpu_api
{
public:
    backend kind() const override { return this_backend; }

    int device_count() const override
    {
        int n = 0;
        // No driver or no device is "zero devices", not an error.
        if (gpuGetDeviceCount(&n) != gpuSuccess) {
            (void)gpuGetLastError();
            return 0;
        }
        return n;
    }

    std::string device_name(int device) const override
    {
        gpuDeviceProp_t prop;
        BF_GPU_CHECK(gpuGetDeviceProperties(&prop, device));
        return prop.name;
    }

    void memory_info(int device, size_t& free, size_t& total) const override
    {
        BF_GPU_CHECK(gpuSetDevice(device));
        BF_GPU_CHECK(gpuMemGetInfo(&free, &total));
    }

    void* alloc_device(int device, size_t bytes) const override
    {
        BF_GPU_CHECK(gpuSetDevice(device));
        void* p = nullptr;
        BF_GPU_CHECK(gpuMalloc(&p, bytes));
        return p;
    }

    void free_device(int device, void* ptr) const override
    {
        // Called from destructors: report, never throw.
        if (gpuSetDevice(device) != gpuSuccess || gpuFree(ptr) != gpuSuccess)
            (void)gpuGetLastError();
    }

    void* alloc_pinned(size_t bytes) const override
    {
        void* p = nullptr;
        BF_GPU_CHECK(gpuHostAlloc(&p, bytes));
        return p;
    }

    void free_pinned(void* ptr) const override
    {
        if (gpuFreeHost(ptr) != gpuSuccess)
            (void)gpuGetLastError();
    }

    stream_handle create_stream(int device) const override
    {
        BF_GPU_CHECK(gpuSetDevice(device));
        gpuStream_t s;
        BF_GPU_CHECK(gpuStreamCreateWithFlags(&s, gpuStreamNonBlocking));
        return s;
    }

    void destroy_stream(int device, stream_handle s) const override
    {
        if (gpuSetDevice(device) != gpuSuccess ||
            gpuStreamDestroy(static_cast<gpuStream_t>(s)) != gpuSuccess)
            (void)gpuGetLastError();
    }

    void synchronize(int device, stream_handle s) const override
    {
        BF_GPU_CHECK(gpuSetDevice(device));
        BF_GPU_CHECK(gpuStreamSynchronize(static_cast<gpuStream_t>(s)));
    }

    void copy_async(int device,
                    void* dst,
                    const void* src,
                    size_t bytes,
                    copy_kind kind,
                    stream_handle s) const override
    {
        if (bytes == 0)
            return;
        BF_GPU_CHECK(gpuSetDevice(device));
        auto dir = kind == copy_kind::host_to_device   ? gpuMemcpyHostToDevice
                   : kind == copy_kind::device_to_host ? gpuMemcpyDeviceToHost
                                                       : gpuMemcpyDeviceToDevice;
        BF_GPU_CHECK(gpuMemcpyAsync(dst, src, bytes, dir, static_cast<gpuStream_t>(s)));
    }

    void fill_async(
        int device, void* dst, int byte, size_t bytes, stream_handle s) const override
    {
        BF_GPU_CHECK(gpuSetDevice(device));
        BF_GPU_CHECK(gpuMemsetAsync(dst, byte, bytes, static_cast<gpuStream_t>(s)));
    }

    event_handle create_event(int device, bool timing) const override
    {
        BF_GPU_CHECK(gpuSetDevice(device));
        gpuEvent_t e;
        BF_GPU_CHECK(gpuEventCreateWithFlags(&e, timing ? gpuEventDefault : gpuEventDisableTiming));
        return e;
    }

    void destroy_event(int device, event_handle e) const override
    {
        if (gpuSetDevice(device) != gpuSuccess ||
            gpuEventDestroy(static_cast<gpuEvent_t>(e)) != gpuSuccess)
            (void)gpuGetLastError();
    }

    void record_event(int device, event_handle e, stream_handle s) const override
    {
        BF_GPU_CHECK(gpuSetDevice(device));
        BF_GPU_CHECK(
            gpuEventRecord(static_cast<gpuEvent_t>(e), static_cast<gpuStream_t>(s)));
    }

    void stream_wait_event(int device, stream_handle s, event_handle e) const override
    {
        BF_GPU_CHECK(gpuSetDevice(device));
        BF_GPU_CHECK(gpuStreamWaitEvent(
            static_cast<gpuStream_t>(s), static_cast<gpuEvent_t>(e), 0));
    }

    void synchronize_event(int device, event_handle e) const override
    {
        BF_GPU_CHECK(gpuSetDevice(device));
        BF_GPU_CHECK(gpuEventSynchronize(static_cast<gpuEvent_t>(e)));
    }

    bool query_event(int device, event_handle e) const override
    {
        BF_GPU_CHECK(gpuSetDevice(device));
        const gpuError_t r = gpuEventQuery(static_cast<gpuEvent_t>(e));
        if (r == gpuErrorNotReady) {
            // Not a failure; cleared in case the runtime kept it as the
            // thread's last error, which a later launch check would report.
            if (gpuPeekAtLastError() == gpuErrorNotReady)
                (void)gpuGetLastError();
            return false;
        }
        BF_GPU_CHECK(r);
        return true;
    }

    float elapsed_ms(int device, event_handle start, event_handle end) const override
    {
        BF_GPU_CHECK(gpuSetDevice(device));
        BF_GPU_CHECK(gpuEventSynchronize(static_cast<gpuEvent_t>(end)));
        float ms = 0;
        BF_GPU_CHECK(gpuEventElapsedTime(
            &ms, static_cast<gpuEvent_t>(start), static_cast<gpuEvent_t>(end)));
        return ms;
    }
};

} // namespace

const gpu_api* api()
{
    static const runtime_api instance;
    return &instance;
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr
