/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The thin portability layer between CUDA and HIP. Every GPU source of the
 * module (kernels/ and lib/engines/<name>_gpu.cu) is written once against the names
 * below and compiled twice: by nvcc into namespace gr::beamform::cuda and by
 * hipcc (-x hip) into namespace gr::beamform::hip.
 */
#ifndef INCLUDED_BEAMFORM_GPU_PORTABLE_H
#define INCLUDED_BEAMFORM_GPU_PORTABLE_H

#include <sstream>
#include <stdexcept>
#include <string>

#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#define BF_GPU_NS hip
#define BF_BACKEND_HIP 1
#define BF_GPU_API_NAME "HIP"
using gpuError_t = hipError_t;
using gpuStream_t = hipStream_t;
using gpuEvent_t = hipEvent_t;
#define gpuSuccess hipSuccess
#define gpuGetErrorString hipGetErrorString
#define gpuGetLastError hipGetLastError
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuSetDevice hipSetDevice
#define gpuGetDevice hipGetDevice
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuHostAlloc(p, n) hipHostMalloc(p, n, hipHostMallocDefault)
#define gpuFreeHost hipHostFree
#define gpuMemcpyAsync hipMemcpyAsync
#define gpuMemsetAsync hipMemsetAsync
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define gpuStreamCreateWithFlags hipStreamCreateWithFlags
#define gpuStreamNonBlocking hipStreamNonBlocking
#define gpuStreamDestroy hipStreamDestroy
#define gpuStreamSynchronize hipStreamSynchronize
#define gpuEventCreate hipEventCreate
#define gpuEventCreateWithFlags hipEventCreateWithFlags
#define gpuEventDefault hipEventDefault
#define gpuEventDisableTiming hipEventDisableTiming
#define gpuStreamWaitEvent hipStreamWaitEvent
#define gpuEventDestroy hipEventDestroy
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventQuery hipEventQuery
#define gpuErrorNotReady hipErrorNotReady
#define gpuPeekAtLastError hipPeekAtLastError
#define gpuEventElapsedTime hipEventElapsedTime
#define gpuMemGetInfo hipMemGetInfo
#define gpuDeviceProp_t hipDeviceProp_t
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuFuncSetAttribute(f, a, v) hipFuncSetAttribute((const void*)(f), a, v)
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor
#define gpuFuncAttributeMaxDynamicSharedMemorySize \
    hipFuncAttributeMaxDynamicSharedMemorySize
#else
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#define BF_GPU_NS cuda
#define BF_BACKEND_CUDA 1
#define BF_GPU_API_NAME "CUDA"
using gpuError_t = cudaError_t;
using gpuStream_t = cudaStream_t;
using gpuEvent_t = cudaEvent_t;
#define gpuSuccess cudaSuccess
#define gpuGetErrorString cudaGetErrorString
#define gpuGetLastError cudaGetLastError
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuSetDevice cudaSetDevice
#define gpuGetDevice cudaGetDevice
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuHostAlloc(p, n) cudaHostAlloc(p, n, cudaHostAllocDefault)
#define gpuFreeHost cudaFreeHost
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuMemsetAsync cudaMemsetAsync
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define gpuStreamCreateWithFlags cudaStreamCreateWithFlags
#define gpuStreamNonBlocking cudaStreamNonBlocking
#define gpuStreamDestroy cudaStreamDestroy
#define gpuStreamSynchronize cudaStreamSynchronize
#define gpuEventCreate cudaEventCreate
#define gpuEventCreateWithFlags cudaEventCreateWithFlags
#define gpuEventDefault cudaEventDefault
#define gpuEventDisableTiming cudaEventDisableTiming
#define gpuStreamWaitEvent cudaStreamWaitEvent
#define gpuEventDestroy cudaEventDestroy
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventQuery cudaEventQuery
#define gpuErrorNotReady cudaErrorNotReady
#define gpuPeekAtLastError cudaPeekAtLastError
#define gpuEventElapsedTime cudaEventElapsedTime
#define gpuMemGetInfo cudaMemGetInfo
#define gpuDeviceProp_t cudaDeviceProp
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuFuncSetAttribute cudaFuncSetAttribute
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#define gpuFuncAttributeMaxDynamicSharedMemorySize \
    cudaFuncAttributeMaxDynamicSharedMemorySize
#endif

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

//! Turns a failed runtime call into an exception that carries the runtime's
//! own message and the call site.
[[noreturn]] inline void
throw_gpu_error(gpuError_t err, const char* call, const char* file, int line)
{
    std::ostringstream msg;
    msg << BF_GPU_API_NAME << " error in " << call << " at " << file << ":" << line
        << ": " << gpuGetErrorString(err);
    throw std::runtime_error(msg.str());
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

//! Check a CUDA/HIP runtime call.
#define BF_GPU_CHECK(call)                                                         \
    do {                                                                           \
        gpuError_t bf_err_ = (call);                                               \
        if (bf_err_ != gpuSuccess)                                                 \
            ::gr::beamform::BF_GPU_NS::throw_gpu_error(                            \
                bf_err_, #call, __FILE__, __LINE__);                               \
    } while (0)

//! Check the launch that was just enqueued (bad configuration, missing image).
#define BF_GPU_CHECK_LAUNCH(kernel_name)                                           \
    do {                                                                           \
        gpuError_t bf_err_ = gpuGetLastError();                                    \
        if (bf_err_ != gpuSuccess)                                                 \
            ::gr::beamform::BF_GPU_NS::throw_gpu_error(                            \
                bf_err_, "launch of " kernel_name, __FILE__, __LINE__);            \
    } while (0)

#endif
