/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CUDA tensor-core beamformer engine: runs one compiled tile variant
 * (tensor_beamformer_tiles_cuda.h; make_tensor_beamformer_gpu picks it),
 * expands the weights once per set_weights() into the operand layout of
 * tensor_beamformer_expand.h, and launches one kernel per execute() (plus,
 * for int1, a small pass that counts the set bits of each sample row, and for
 * power output with windows that cross thread blocks, a memset of the output).
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_CUDA_H
#define INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_CUDA_H

#include "tensor_beamformer_tiles_cuda.h"
#include "tensor_beamformer_weights.h"
#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <memory>

namespace gr {
namespace beamform {
namespace cuda {

//! What the test and benchmark support library (beamform-testing) reaches inside.
struct tb_engine_access;
class tb_input_range; // tensor_beamformer_input_range.h, CUDA sources only

class tensor_beamformer_cuda final : public tensor_beamformer_engine
{
public:
    //! \p weights empty: the device weights are left as allocated (unset).
    tensor_beamformer_cuda(const tensor_beamformer_config& c,
                           const std::vector<std::complex<float>>& weights,
                           const device_spec& dev,
                           const tb_variant& variant);

    ~tensor_beamformer_cuda() override;

    void set_weights(const std::vector<std::complex<float>>& w) override;
    void
    execute(const void* in, void* out, size_t n_times, stream_handle stream) override;
    float16_range_counts input_range(bool include_latest) const override;

    const tb_variant& variant() const { return *d_variant; }
    //! Shared memory per block of the chosen kernel, registers are in the build log.
    size_t smem_bytes() const { return d_smem; }

private:
    friend struct tb_engine_access;

    void
    run(const tb_variant& v, const void* in, void* out, size_t n_times, cudaStream_t s);

    device_spec d_device;
    const tb_variant* d_variant;
    size_t d_smem;
    size_t d_sms = 0;                 // multiprocessors of the device
    size_t d_resident_max_blocks = 0; // resident-weights kernel: SMs x blocks per SM
    tb_device_weights d_w;
    device_memory d_col_popc;
    device_memory d_x16; // fp16 rows of the "+pass" and "+ipass" variants
    device_memory d_pass_ready; // "+ipass": parts converted per (channel, time tile)
    device_memory d_power_major; // power written channel-major, then transposed
    std::unique_ptr<tb_input_range> d_input_range; // float16 precision only
};

} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
