/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The expanded weights of a GPU tensor beamformer engine (CUDA and HIP share
 * this header; compiled into namespace cuda by nvcc, hip by hipcc): device
 * memory in the operand layout (tensor_beamformer_expand.h), a pinned staging
 * copy that set_weights() fills on the host, and the events that order its
 * upload with the kernels that read it:
 *  - stage() waits until the previous upload has left the staging buffer;
 *  - upload(s) copies staged weights in stream order on s, after the last
 *    kernel of the engine (possibly on another stream) that read the old ones.
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_WEIGHTS_H
#define INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_WEIGHTS_H

#include <gnuradio/beamform/runtime/gpu_memory.h>
#include "tensor_beamformer_expand.h"
#include <common/gpu_portable.h>
#include <complex>
#include <vector>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {

//! Makes \p dev current (the device of an engine's events and kernel settings).
inline const device_spec& tb_make_current(const device_spec& dev)
{
    BF_GPU_CHECK(gpuSetDevice(dev.index));
    return dev;
}

class tb_device_weights
{
public:
    tb_device_weights(const device_spec& dev,
                      const tensor_beamformer_config& config,
                      const tb_operand_layout& layout)
        : d_config(config), d_layout(layout), d_weights(dev, layout.total_bytes())
    {
        if (config.precision == beam_precision::int1)
            d_row_popc = device_memory(dev, layout.total_rows() * sizeof(int32_t));
        BF_GPU_CHECK(gpuEventCreateWithFlags(&d_upload_done, gpuEventDisableTiming));
        BF_GPU_CHECK(gpuEventCreateWithFlags(&d_last_use, gpuEventDisableTiming));
    }
    ~tb_device_weights()
    {
        (void)gpuEventDestroy(d_upload_done);
        (void)gpuEventDestroy(d_last_use);
    }
    tb_device_weights(const tb_device_weights&) = delete;
    tb_device_weights& operator=(const tb_device_weights&) = delete;

    //! Expand \p w into the staging buffer; the copy waits for upload().
    void stage(const std::vector<std::complex<float>>& w)
    {
        check_tensor_beamformer_weights(d_config, w);
        // The staging buffer may still feed the previous upload.
        if (d_upload_recorded)
            BF_GPU_CHECK(gpuEventSynchronize(d_upload_done));
        if (!d_staging.get()) {
            d_staging = pinned_memory(kind, d_layout.total_bytes());
            if (d_config.precision == beam_precision::int1)
                d_staging_popc =
                    pinned_memory(kind, d_layout.total_rows() * sizeof(int32_t));
        }
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

    //! Weights staged since the last upload: copy them in stream order on \p s.
    void upload(gpuStream_t s)
    {
        if (!d_pending)
            return;
        wait_last_use(s); // a kernel on another stream may still read them
        BF_GPU_CHECK(gpuMemcpyAsync(d_weights.get(),
                                    d_staging.get(),
                                    d_layout.total_bytes(),
                                    gpuMemcpyHostToDevice,
                                    s));
        if (d_config.precision == beam_precision::int1)
            BF_GPU_CHECK(gpuMemcpyAsync(d_row_popc.get(),
                                        d_staging_popc.get(),
                                        d_row_popc.size(),
                                        gpuMemcpyHostToDevice,
                                        s));
        BF_GPU_CHECK(gpuEventRecord(d_upload_done, s));
        d_upload_recorded = true;
        d_pending = false;
    }

    //! Make \p s wait for the last kernel that used the weights.
    void wait_last_use(gpuStream_t s) const
    {
        if (d_used)
            BF_GPU_CHECK(gpuStreamWaitEvent(s, d_last_use, 0));
    }
    //! Wait on the host for the last kernel that used the weights.
    void sync_last_use() const
    {
        if (d_used)
            BF_GPU_CHECK(gpuEventSynchronize(d_last_use));
    }
    //! A kernel that reads the weights was enqueued on \p s.
    void record_use(gpuStream_t s)
    {
        BF_GPU_CHECK(gpuEventRecord(d_last_use, s));
        d_used = true;
    }
    bool used() const { return d_used; }
    //! The device copy was written directly: drop what stage() left pending.
    void drop_pending() { d_pending = false; }

    const tb_operand_layout& layout() const { return d_layout; }
    const device_memory& weights() const { return d_weights; }
    const device_memory& row_popc() const { return d_row_popc; }

private:
#ifdef BF_BACKEND_HIP
    static constexpr backend kind = backend::hip;
#else
    static constexpr backend kind = backend::cuda;
#endif

    tensor_beamformer_config d_config;
    tb_operand_layout d_layout;
    device_memory d_weights;
    device_memory d_row_popc;
    pinned_memory d_staging;
    pinned_memory d_staging_popc;
    gpuEvent_t d_upload_done = nullptr;
    gpuEvent_t d_last_use = nullptr;
    bool d_pending = false;
    bool d_upload_recorded = false;
    bool d_used = false;
};

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr

#endif
