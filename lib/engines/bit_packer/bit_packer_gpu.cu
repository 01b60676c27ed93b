/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * bit_packer and bit_unpacker on a GPU (CUDA or HIP; see
 * kernels/common/gpu_portable.h and kernels/gpu/bit_packer.cuh).
 */
#include <gnuradio/beamform/engines/bit_packer_engine.h>
#include <gpu/bit_packer.cuh>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {
namespace {

class bit_packer_gpu final : public bit_packer_engine
{
public:
    bit_packer_gpu(const bit_packer_config& c, const device_spec& dev)
        : d_config(c), d_device(dev)
    {
    }

    void execute(const std::complex<float>* in,
                 uint32_t* out,
                 size_t n_times,
                 stream_handle stream) override
    {
        BF_GPU_CHECK(gpuSetDevice(d_device.index));
        launch_bit_pack(reinterpret_cast<const float2*>(in),
                        out,
                        n_times * d_config.n_channels,
                        unsigned(d_config.n_receivers),
                        unsigned(d_config.words()),
                        static_cast<gpuStream_t>(stream));
    }

private:
    bit_packer_config d_config;
    device_spec d_device;
};

class bit_unpacker_gpu final : public bit_unpacker_engine
{
public:
    bit_unpacker_gpu(const bit_packer_config& c, const device_spec& dev)
        : d_config(c), d_device(dev)
    {
    }

    void execute(const uint32_t* in,
                 std::complex<float>* out,
                 size_t n_times,
                 stream_handle stream) override
    {
        BF_GPU_CHECK(gpuSetDevice(d_device.index));
        launch_bit_unpack(in,
                          reinterpret_cast<float2*>(out),
                          n_times * d_config.n_channels,
                          unsigned(d_config.n_receivers),
                          unsigned(d_config.words()),
                          static_cast<gpuStream_t>(stream));
    }

private:
    bit_packer_config d_config;
    device_spec d_device;
};

} // namespace

std::unique_ptr<bit_packer_engine> make_bit_packer_gpu(const bit_packer_config& config,
                                                       const device_spec& device)
{
    config.validate();
    return std::make_unique<bit_packer_gpu>(config, device);
}

std::unique_ptr<bit_unpacker_engine>
make_bit_unpacker_gpu(const bit_packer_config& config, const device_spec& device)
{
    config.validate();
    return std::make_unique<bit_unpacker_gpu>(config, device);
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr
