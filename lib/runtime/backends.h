/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Which backends this build has, and the one place that picks code by backend
 * (private to the engine library). Every GPU source is compiled once per
 * vendor into namespace cuda or hip (kernels/common/gpu_portable.h); a backend
 * that is not built yields nullptr here instead of an #ifdef at each use.
 */
#ifndef INCLUDED_BEAMFORM_RUNTIME_BACKENDS_H
#define INCLUDED_BEAMFORM_RUNTIME_BACKENDS_H

#include <gnuradio/beamform/runtime/gpu_api.h>
#include <memory>
#include <stdexcept>
#include <string>

#ifdef BEAMFORM_HAVE_CUDA
#define BEAMFORM_IF_CUDA(x) x
#else
#define BEAMFORM_IF_CUDA(x) nullptr
#endif
#ifdef BEAMFORM_HAVE_HIP
#define BEAMFORM_IF_HIP(x) x
#else
#define BEAMFORM_IF_HIP(x) nullptr
#endif

namespace gr {
namespace beamform {

// The runtimes (gpu_api_emu.cc, and gpu_api_gpu.cu once per GPU backend).
const gpu_api* emu_api();
namespace cuda {
const gpu_api* api();
}
namespace hip {
const gpu_api* api();
}

//! Bookkeeping shared by the backends' allocation paths (allocated_device_bytes()).
void count_device_allocation(backend kind, long long bytes);

//! A GPU engine factory of each GPU backend (nullptr where not built).
template <typename Maker>
struct gpu_makers {
    Maker cuda;
    Maker hip;
};

/*!
 * Declares the factory \p name that an engine's *_gpu.cu defines in both GPU
 * namespaces, for use with BEAMFORM_GPU_MAKERS.
 */
#define BEAMFORM_DECLARE_GPU_MAKER(engine, name, ...) \
    namespace cuda {                                  \
    std::unique_ptr<engine> name(__VA_ARGS__);        \
    }                                                 \
    namespace hip {                                   \
    std::unique_ptr<engine> name(__VA_ARGS__);        \
    }

//! The compiled GPU factories named \p name (see BEAMFORM_DECLARE_GPU_MAKER).
#define BEAMFORM_GPU_MAKERS(name)                                          \
    ::gr::beamform::gpu_makers<decltype(&::gr::beamform::cuda::name)>      \
    {                                                                      \
        BEAMFORM_IF_CUDA(&::gr::beamform::cuda::name),                     \
            BEAMFORM_IF_HIP(&::gr::beamform::hip::name)                    \
    }

/*!
 * The engine for \p device: the CPU engine for cpu and emu (emu computes on
 * the host and only moves items as a GPU would), else the backend's GPU
 * engine, made from \p gpu_args. std::runtime_error naming \p engine when this
 * build has no engine for the device.
 */
template <typename CpuMaker, typename Maker, typename... Args>
auto make_for_device(const char* engine,
                     const device_spec& device,
                     CpuMaker make_cpu,
                     const gpu_makers<Maker>& gpu,
                     const Args&... gpu_args) -> decltype(make_cpu())
{
    Maker maker = nullptr;
    switch (device.kind) {
    case backend::cpu:
    case backend::emu:
        return make_cpu();
    case backend::cuda:
        maker = gpu.cuda;
        break;
    case backend::hip:
        maker = gpu.hip;
        break;
    }
    if (!maker)
        throw std::runtime_error(std::string(engine) + ": no engine for device " +
                                 device.name() + " in this build");
    return maker(gpu_args...);
}

} // namespace beamform
} // namespace gr

#endif
