/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tensor-core beamformer on AMD GPUs (HIP): float16 on the matrix cores
 * through the MFMA builtins, int1 as a plain popcount kernel (AMD GPUs have
 * no 1-bit matrix instructions). See kernels/hip/tensor_beamformer_mfma_kernel.cuh.
 * Compile-checked for gfx90a and gfx940; untested on hardware.
 */
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include "tensor_beamformer_weights.h"
#include <hip/tensor_beamformer_mfma_kernel.cuh>
// After the kernel header: with <algorithm> or <cstring> seen first, hipcc binds
// the kernel's device-side memcpy to the host one.
#include "tensor_beamformer_input_range.h"
#include <memory>
#include <stdexcept>

namespace gr {
namespace beamform {
namespace hip {
namespace {

tb_operand_layout hip_layout(const tensor_beamformer_config& c)
{
    if (c.polarization == polarization_layout::xy_pairs && c.n_receivers % 2 != 0)
        throw std::invalid_argument("n_receivers must be even with xy_pairs");
    // float16: 64-row, 64-byte tiles of the MFMA kernel; int1: any.
    return c.precision == beam_precision::float16
               ? make_operand_layout(c, mfma::BM, mfma::BKB)
               : make_operand_layout(c, 16, 32);
}

class tensor_beamformer_hip final : public tensor_beamformer_engine
{
public:
    tensor_beamformer_hip(const tensor_beamformer_config& c,
                          const std::vector<std::complex<float>>& weights,
                          const device_spec& dev)
        : tensor_beamformer_engine(c),
          d_device(tb_make_current(dev)),
          d_w(dev, c, hip_layout(c))
    {
        set_weights(weights);
        if (c.precision == beam_precision::float16)
            d_input_range = std::make_unique<tb_input_range>(dev);
    }

    float16_range_counts input_range(bool include_latest) const override
    {
        return d_input_range ? d_input_range->totals(include_latest) : float16_range_counts{};
    }

    void set_weights(const std::vector<std::complex<float>>& w) override { d_w.stage(w); }

    void execute(const void* in, void* out, size_t n_times, stream_handle stream) override
    {
        const auto& c = d_config;
        check_tensor_beamformer_times(c, n_times);
        const bool power = c.output == beam_output::power;
        if (n_times == 0)
            return;
        auto s = static_cast<hipStream_t>(stream);
        BF_GPU_CHECK(hipSetDevice(d_device.index));
        if (d_input_range)
            d_input_range->count(in, n_times * c.n_channels * c.n_receivers, s);
        d_w.upload(s);
        if (power) // every value is an atomic add
            BF_GPU_CHECK(hipMemsetAsync(out,
                                        0,
                                        (n_times / c.n_int) * c.n_stokes() * c.n_beams *
                                            c.n_channels * sizeof(float),
                                        s));
        const bool xy = c.polarization == polarization_layout::xy_pairs;
        const auto& layout = d_w.layout();
        if (c.precision == beam_precision::float16) {
            mfma::args_t a{};
            a.weights = d_w.weights().as<unsigned char>();
            a.input = static_cast<const float2*>(in);
            a.out = static_cast<float*>(out);
            a.n_channels = int(c.n_channels);
            a.n_beams = int(c.n_beams);
            a.n_times = int(n_times);
            a.n_receivers = int(c.n_receivers);
            a.rows = int(layout.rows);
            a.row_bytes = int(layout.row_bytes);
            a.k_tiles = int(layout.row_bytes / mfma::BKB);
            a.power = power ? 1 : 0;
            a.iquv = c.n_stokes() == 4 ? 1 : 0;
            a.n_int = int(power ? c.n_int : 1);
            const dim3 grid(unsigned((n_times + mfma::BN - 1) / mfma::BN),
                            unsigned(layout.rows / mfma::BM),
                            unsigned(c.n_channels));
            if (xy)
                mfma::beamformer_mfma_kernel<2>
                    <<<grid, mfma::THREADS, mfma::lds_bytes<2>(), s>>>(a);
            else
                mfma::beamformer_mfma_kernel<1>
                    <<<grid, mfma::THREADS, mfma::lds_bytes<1>(), s>>>(a);
            BF_GPU_CHECK_LAUNCH("beamformer_mfma_kernel");
        } else {
            mfma::int1_args_t a{};
            a.weights = d_w.weights().as<uint32_t>();
            a.row_popc = d_w.row_popc().as<int>();
            a.input = static_cast<const uint32_t*>(in);
            a.out = static_cast<float*>(out);
            a.n_channels = int(c.n_channels);
            a.n_beams = int(c.n_beams);
            a.n_times = int(n_times);
            a.n_receivers = int(c.n_receivers);
            a.words = int(c.words_per_channel());
            a.rows = int(layout.rows);
            a.row_words = int(layout.row_bytes / 4);
            a.npol = int(layout.npol);
            a.k_valid = int(layout.k_valid);
            a.power = power ? 1 : 0;
            a.iquv = c.n_stokes() == 4 ? 1 : 0;
            a.n_int = int(power ? c.n_int : 1);
            const size_t total = n_times * c.n_channels * c.n_beams;
            const size_t blocks = (total + 255) / 256;
            mfma::beamformer_int1_kernel<<<unsigned(blocks < 65536 ? blocks : 65536),
                                           256,
                                           0,
                                           s>>>(a);
            BF_GPU_CHECK_LAUNCH("beamformer_int1_kernel");
        }
        d_w.record_use(s);
    }

private:
    device_spec d_device;
    tb_device_weights d_w;
    std::unique_ptr<tb_input_range> d_input_range; // float16 precision only
};

} // namespace

std::unique_ptr<tensor_beamformer_engine>
make_tensor_beamformer_gpu(const tensor_beamformer_config& config,
                           const std::vector<std::complex<float>>& weights,
                           const device_spec& device)
{
    config.validate();
    return std::make_unique<tensor_beamformer_hip>(config, weights, device);
}

} // namespace hip
} // namespace beamform
} // namespace gr
