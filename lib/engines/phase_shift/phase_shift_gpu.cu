/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * phase_shift on a GPU (CUDA or HIP; see kernels/common/gpu_portable.h).
 */
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gnuradio/beamform/engines/phase_shift_engine.h>
#include <gpu/phase_shift.cuh>
#include <cstring>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {
namespace {

class phase_shift_gpu final : public phase_shift_engine
{
public:
    phase_shift_gpu(const phase_shift_config& config,
                    const phase_shift_delays& delays,
                    const device_spec& dev)
        : d_config(config),
          d_device(dev),
          d_elements(config.n_channels * config.n_receivers),
          d_tables(dev, d_elements * table_bytes_per_element)
    {
        set_delays(delays);
    }

    //! Builds the coefficients on the host now; they are copied to the device
    //! on the stream of the next execute(), ahead of its kernel, so a kernel
    //! still running from an earlier call keeps the old ones.
    void set_delays(const phase_shift_delays& delays) override
    {
        const auto k = phase_shift_coefficients::build(d_config, delays);
        d_staged.resize(d_elements * table_bytes_per_element);
        char* p = d_staged.data();
        std::memcpy(p, k.offset.data(), d_elements * sizeof(double));
        p += d_elements * sizeof(double);
        std::memcpy(p, k.step_hi.data(), d_elements * sizeof(double));
        p += d_elements * sizeof(double);
        std::memcpy(p, k.step_lo.data(), d_elements * sizeof(double));
        p += d_elements * sizeof(double);
        std::memcpy(p, k.gains.data(), d_elements * sizeof(float2));
        d_pending = true;
    }

    void execute(const std::complex<float>* in,
                 std::complex<float>* out,
                 size_t n_items,
                 uint64_t first_item,
                 stream_handle stream) override
    {
        BF_GPU_CHECK(gpuSetDevice(d_device.index));
        auto s = static_cast<gpuStream_t>(stream);
        if (d_pending) {
            // Pageable source: the runtime stages it before returning, so the
            // host copy may change right after; the device copy is ordered on s.
            BF_GPU_CHECK(gpuMemcpyAsync(d_tables.get(),
                                        d_staged.data(),
                                        d_staged.size(),
                                        gpuMemcpyHostToDevice,
                                        s));
            d_pending = false;
        }
        const char* base = d_tables.as<char>();
        phase_shift_tables tables;
        tables.offset = reinterpret_cast<const double*>(base);
        tables.step_hi =
            reinterpret_cast<const double*>(base + d_elements * sizeof(double));
        tables.step_lo =
            reinterpret_cast<const double*>(base + 2 * d_elements * sizeof(double));
        tables.gain =
            reinterpret_cast<const float2*>(base + 3 * d_elements * sizeof(double));
        launch_phase_shift(reinterpret_cast<const float2*>(in),
                           reinterpret_cast<float2*>(out),
                           tables,
                           static_cast<unsigned>(d_elements),
                           n_items,
                           first_item,
                           s);
    }

private:
    static constexpr size_t table_bytes_per_element = 3 * sizeof(double) + sizeof(float2);

    phase_shift_config d_config;
    device_spec d_device;
    size_t d_elements;
    device_memory d_tables;
    std::vector<char> d_staged;
    bool d_pending = false;
};

} // namespace

std::unique_ptr<phase_shift_engine> make_phase_shift_gpu(const phase_shift_config& config,
                                                         const phase_shift_delays& delays,
                                                         const device_spec& device)
{
    return std::make_unique<phase_shift_gpu>(config, delays, device);
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr
