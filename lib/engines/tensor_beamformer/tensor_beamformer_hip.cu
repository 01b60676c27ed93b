/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tensor-core beamformer on AMD GPUs (HIP): float16 on the matrix cores
 * through the MFMA builtins, int1 as a plain popcount kernel (AMD GPUs have
 * no 1-bit matrix instructions). See kernels/hip/tensor_beamformer_mfma.cuh.
 * Compile-checked for gfx90a and gfx940; untested on hardware.
 */
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include "tensor_beamformer_expand.h"
#include <hip/tensor_beamformer_mfma_kernel.cuh>
#include <stdexcept>

namespace gr {
namespace beamform {
namespace hip {
namespace {

class tensor_beamformer_hip final : public tensor_beamformer_engine
{
public:
    tensor_beamformer_hip(const tensor_beamformer_config& c,
                          const std::vector<std::complex<float>>& weights,
                          const device_spec& dev)
        : tensor_beamformer_engine(c), d_device(dev)
    {
        BF_GPU_CHECK(hipSetDevice(dev.index));
        if (c.polarization == polarization_layout::xy_pairs && c.n_receivers % 2 != 0)
            throw std::invalid_argument("n_receivers must be even with xy_pairs");
        // float16: 64-row, 64-byte tiles of the MFMA kernel; int1: any.
        d_layout = c.precision == beam_precision::float16
                       ? make_operand_layout(c, mfma::BM, mfma::BKB)
                       : make_operand_layout(c, 16, 32);
        d_weights = device_memory(dev, d_layout.total_bytes());
        if (c.precision == beam_precision::int1)
            d_row_popc = device_memory(dev, d_layout.total_rows() * sizeof(int32_t));
        d_staging = pinned_memory(backend::hip, d_layout.total_bytes());
        if (c.precision == beam_precision::int1)
            d_staging_popc =
                pinned_memory(backend::hip, d_layout.total_rows() * sizeof(int32_t));
        BF_GPU_CHECK(hipEventCreateWithFlags(&d_upload_done, hipEventDisableTiming));
        BF_GPU_CHECK(hipEventCreateWithFlags(&d_last_use, hipEventDisableTiming));
        set_weights(weights);
    }

    ~tensor_beamformer_hip() override
    {
        (void)hipEventDestroy(d_upload_done);
        (void)hipEventDestroy(d_last_use);
    }

    void set_weights(const std::vector<std::complex<float>>& w) override
    {
        check_tensor_beamformer_weights(d_config, w);
        if (d_upload_recorded) // the staging buffer may still feed the last upload
            BF_GPU_CHECK(hipEventSynchronize(d_upload_done));
        if (d_config.precision == beam_precision::float16)
            expand_weights_fp16(d_layout, d_config, w, d_staging.as<uint16_t>());
        else
            expand_weights_int1(d_layout,
                                d_config,
                                w,
                                d_staging.as<uint32_t>(),
                                d_staging_popc.as<int32_t>());
        d_pending = true;
    }

    void execute(const void* in, void* out, size_t n_times, stream_handle stream) override
    {
        const auto& c = d_config;
        const bool power = c.output == beam_output::power;
        if (power && n_times % c.n_int != 0)
            throw std::invalid_argument(
                "n_times must be a multiple of n_int = " + std::to_string(c.n_int) +
                " in power mode, got " + std::to_string(n_times));
        if (n_times == 0)
            return;
        auto s = static_cast<hipStream_t>(stream);
        BF_GPU_CHECK(hipSetDevice(d_device.index));
        if (d_pending) {
            if (d_used)
                BF_GPU_CHECK(hipStreamWaitEvent(s, d_last_use, 0));
            BF_GPU_CHECK(hipMemcpyAsync(d_weights.get(),
                                        d_staging.get(),
                                        d_weights.size(),
                                        hipMemcpyHostToDevice,
                                        s));
            if (d_row_popc.get())
                BF_GPU_CHECK(hipMemcpyAsync(d_row_popc.get(),
                                            d_staging_popc.get(),
                                            d_row_popc.size(),
                                            hipMemcpyHostToDevice,
                                            s));
            BF_GPU_CHECK(hipEventRecord(d_upload_done, s));
            d_upload_recorded = true;
            d_pending = false;
        }
        if (power) // every value is an atomic add
            BF_GPU_CHECK(hipMemsetAsync(out,
                                        0,
                                        (n_times / c.n_int) * c.n_stokes() * c.n_beams *
                                            c.n_channels * sizeof(float),
                                        s));
        const bool xy = c.polarization == polarization_layout::xy_pairs;
        if (c.precision == beam_precision::float16) {
            mfma::args_t a{};
            a.weights = d_weights.as<unsigned char>();
            a.input = static_cast<const float2*>(in);
            a.out = static_cast<float*>(out);
            a.n_channels = int(c.n_channels);
            a.n_beams = int(c.n_beams);
            a.n_times = int(n_times);
            a.n_receivers = int(c.n_receivers);
            a.rows = int(d_layout.rows);
            a.row_bytes = int(d_layout.row_bytes);
            a.k_tiles = int(d_layout.row_bytes / mfma::BKB);
            a.power = power ? 1 : 0;
            a.iquv = c.n_stokes() == 4 ? 1 : 0;
            a.n_int = int(power ? c.n_int : 1);
            const dim3 grid(unsigned((n_times + mfma::BN - 1) / mfma::BN),
                            unsigned(d_layout.rows / mfma::BM),
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
            a.weights = d_weights.as<uint32_t>();
            a.row_popc = d_row_popc.as<int>();
            a.input = static_cast<const uint32_t*>(in);
            a.out = static_cast<float*>(out);
            a.n_channels = int(c.n_channels);
            a.n_beams = int(c.n_beams);
            a.n_times = int(n_times);
            a.n_receivers = int(c.n_receivers);
            a.words = int(c.words_per_channel());
            a.rows = int(d_layout.rows);
            a.row_words = int(d_layout.row_bytes / 4);
            a.npol = int(d_layout.npol);
            a.k_valid = int(d_layout.k_valid);
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
        BF_GPU_CHECK(hipEventRecord(d_last_use, s));
        d_used = true;
    }

private:
    device_spec d_device;
    tb_operand_layout d_layout;
    device_memory d_weights;
    device_memory d_row_popc;
    pinned_memory d_staging;
    pinned_memory d_staging_popc;
    hipEvent_t d_upload_done = nullptr;
    hipEvent_t d_last_use = nullptr;
    bool d_pending = false;
    bool d_upload_recorded = false;
    bool d_used = false;
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
