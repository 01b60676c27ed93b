/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * incoherent_beam on a GPU (CUDA or HIP; see kernels/common/gpu_portable.h).
 */
#include <gnuradio/beamform/engines/incoherent_beam_engine.h>
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gpu/incoherent_beam.cuh>
#include <algorithm>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {
namespace {

class incoherent_beam_gpu final : public incoherent_beam_engine
{
public:
    incoherent_beam_gpu(const incoherent_beam_config& config, const device_spec& dev)
        : d_config(config),
          d_device(dev),
          d_iquv(config.stokes == stokes_mode::IQUV),
          d_partial_per_out(config.n_stokes() * config.n_channels *
                            incoherent_lanes(unsigned(config.n_receivers), d_iquv)),
          d_chunk(std::max<size_t>(1, (size_t(64) << 20) / (4 * d_partial_per_out))),
          d_partial(dev, d_chunk * d_partial_per_out * sizeof(float))
    {
    }

    void execute(const std::complex<float>* in,
                 float* out,
                 size_t n_out,
                 stream_handle stream) override
    {
        BF_GPU_CHECK(gpuSetDevice(d_device.index));
        auto s = static_cast<gpuStream_t>(stream);
        const size_t in_per_out =
            d_config.n_int * d_config.n_channels * d_config.n_receivers;
        const size_t out_per_out = d_config.n_stokes() * d_config.n_channels;
        // Chunks of outputs whose partials fit the buffer; a kernel of the
        // next chunk runs after the previous chunk's, in stream order.
        for (size_t o0 = 0; o0 < n_out; o0 += d_chunk) {
            const size_t n = std::min(d_chunk, n_out - o0);
            launch_incoherent_beam(reinterpret_cast<const float2*>(in) + o0 * in_per_out,
                                   d_partial.as<float>(),
                                   out + o0 * out_per_out,
                                   unsigned(d_config.n_channels),
                                   unsigned(d_config.n_receivers),
                                   unsigned(d_config.n_int),
                                   unsigned(n),
                                   d_iquv,
                                   s);
        }
    }

private:
    const incoherent_beam_config d_config;
    const device_spec d_device;
    const bool d_iquv;
    const size_t d_partial_per_out; // floats
    const size_t d_chunk;           // outputs per launch pair
    device_memory d_partial;
};

} // namespace

std::unique_ptr<incoherent_beam_engine>
make_incoherent_beam_gpu(const incoherent_beam_config& config, const device_spec& device)
{
    config.validate();
    return std::make_unique<incoherent_beam_gpu>(config, device);
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr
