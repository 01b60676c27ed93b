/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rca_das engine: execute() over add_emissions / finish_volume, the factory
 * that picks the CPU reference or a GPU engine for a device, and the GPU
 * engine with tuning for the tests and the benchmark, and the log notice
 * for a gpu_precision the device ignores.
 */
#include "rca_das_gpu.h"

namespace gr {
namespace beamform {

void rca_das_engine::execute(const void* in, void* out, size_t n_volumes, stream_handle stream)
{
    const size_t in_bytes = d_config.input_item_bytes() * d_config.n_emissions();
    const size_t out_bytes = d_config.output_item_bytes();
    for (size_t v = 0; v < n_volumes; v++) {
        add_emissions(static_cast<const uint8_t*>(in) + v * in_bytes,
                      0,
                      d_config.n_emissions(),
                      stream);
        finish_volume(static_cast<uint8_t*>(out) + v * out_bytes, stream);
    }
}

std::unique_ptr<rca_das_engine> rca_das_engine::make(const rca_das_config& config,
                                                     const device_spec& device)
{
    config.validate();
    return make_for_device("rca_das",
                           device,
                           [&] { return make_rca_das_cpu(config); },
                           BEAMFORM_GPU_MAKERS(make_rca_das_gpu),
                           config,
                           device,
                           rca_das_gpu_tuning{});
}

std::string rca_das_device_notice(const rca_das_config& config, const device_spec& device)
{
    const bool runs_cpu_engine = device.kind == backend::cpu || device.kind == backend::emu;
    if (runs_cpu_engine && config.gpu_precision == rca_gpu_precision::float16)
        return "gpu_precision \"float16\" has no effect on " + device.name() +
               ": its engine computes in float32 (the half-precision kernels run on cuda "
               "and hip devices)";
    return "";
}

std::unique_ptr<rca_das_engine> make_rca_das_gpu_for(const rca_das_config& config,
                                                     const device_spec& device,
                                                     const rca_das_gpu_tuning& tuning)
{
    return make_for_device(
        "rca_das (GPU)",
        device,
        [&]() -> std::unique_ptr<rca_das_engine> {
            throw std::runtime_error("rca_das (GPU): " + device.name() + " is not a GPU");
        },
        BEAMFORM_GPU_MAKERS(make_rca_das_gpu),
        config,
        device,
        tuning);
}

} // namespace beamform
} // namespace gr
