/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * convert on a GPU (CUDA or HIP; see kernels/common/gpu_portable.h).
 */
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gnuradio/beamform/engines/convert_engine.h>
#include <gpu/convert.cuh>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {
namespace {

class convert_gpu final : public convert_engine
{
public:
    convert_gpu(const convert_config& c, const device_spec& dev)
        : d_config(c), d_device(dev), d_scale(dev, c.n_receivers * sizeof(float))
    {
        // The scale vector is tiny and static: copy it once and wait.
        const gpu_api& api = gpu_api_for(dev.kind);
        api.copy_async(dev.index,
                       d_scale.get(),
                       c.scale.data(),
                       d_scale.size(),
                       copy_kind::host_to_device,
                       nullptr);
        api.synchronize(dev.index, nullptr);
    }

    void execute(const void* in,
                 std::complex<float>* out,
                 size_t n_items,
                 stream_handle stream) override
    {
        BF_GPU_CHECK(gpuSetDevice(d_device.index));
        const size_t n = n_items * d_config.n_receivers;
        auto* o = reinterpret_cast<float2*>(out);
        auto s = static_cast<gpuStream_t>(stream);
        const auto nr = static_cast<unsigned>(d_config.n_receivers);
        switch (d_config.input) {
        case sample_format::sc8:
            launch_convert(static_cast<const int8_t*>(in), o, d_scale.as<float>(), nr, n, s);
            break;
        case sample_format::sc16:
            launch_convert(static_cast<const int16_t*>(in), o, d_scale.as<float>(), nr, n, s);
            break;
        case sample_format::fc32:
            launch_convert(static_cast<const float*>(in), o, d_scale.as<float>(), nr, n, s);
            break;
        }
    }

private:
    convert_config d_config;
    device_spec d_device;
    device_memory d_scale;
};

} // namespace

std::unique_ptr<convert_engine> make_convert_gpu(const convert_config& config,
                                                 const device_spec& device)
{
    return std::make_unique<convert_gpu>(config, device);
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr
