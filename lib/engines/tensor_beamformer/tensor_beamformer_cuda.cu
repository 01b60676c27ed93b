/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "tensor_beamformer_cublas_cuda.h"
#include "tensor_beamformer_cuda.h"
#include "tensor_beamformer_input_range.h"
#include <cuda/tensor_beamformer_mma_kernel.cuh>
#include <cuda/tensor_beamformer_power_transpose.cuh>
#include <gpu/float16_gemm_input.cuh>
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace beamform {
namespace cuda {

namespace {

//! The channel-major power workspace (\p rows channels of \p cols floats)
//! into the output's layout.
void launch_power_transpose(
    const float* in, float* out, size_t rows, size_t cols, cudaStream_t s)
{
    const long long tiles = tb_kernels::power_transpose_tiles((long long)rows, (long long)cols);
    const unsigned grid = unsigned(std::min<long long>(tiles, 65536));
    tb_kernels::power_transpose_kernel<<<grid,
                                         dim3(32, tb_kernels::power_transpose_rows),
                                         tb_kernels::power_transpose_smem_bytes,
                                         s>>>(in, out, (long long)rows, (long long)cols);
    BF_GPU_CHECK_LAUNCH("power_transpose_kernel");
}

tb_operand_layout checked_layout(const tensor_beamformer_config& c, const tb_variant& v)
{
    const auto layout =
        make_operand_layout(c, size_t(v.block_m), size_t(v.block_k_bytes));
    const size_t limit = size_t(1) << 30;
    if (layout.row_bytes / v.block_k_bytes > limit || layout.rows > limit)
        throw std::invalid_argument("tensor_beamformer: n_receivers or n_beams too large "
                                    "for the CUDA engine");
    return layout;
}

} // namespace

tensor_beamformer_cuda::tensor_beamformer_cuda(
    const tensor_beamformer_config& c,
    const std::vector<std::complex<float>>& weights,
    const device_spec& dev,
    const tb_variant& variant)
    : tensor_beamformer_engine(c),
      d_device(tb_make_current(dev)),
      d_variant(&variant),
      d_smem(tb_smem_for(variant, c)),
      d_w(dev, c, checked_layout(c, variant))
{
    d_variant->allow_smem(int(d_smem));
    int sms = 0;
    BF_GPU_CHECK(
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d_device.index));
    d_sms = size_t(sms);
    if (d_variant->blocks_per_sm)
        d_resident_max_blocks = d_sms * size_t(d_variant->blocks_per_sm(d_smem));
    if (!weights.empty())
        set_weights(weights);
    if (c.precision == beam_precision::float16)
        d_input_range = std::make_unique<tb_input_range>(dev);
}

tensor_beamformer_cuda::~tensor_beamformer_cuda() = default;

float16_range_counts tensor_beamformer_cuda::input_range(bool include_latest) const
{
    return d_input_range ? d_input_range->totals(include_latest) : float16_range_counts{};
}

void tensor_beamformer_cuda::set_weights(const std::vector<std::complex<float>>& w)
{
    d_w.stage(w);
}

void tensor_beamformer_cuda::execute(const void* in,
                                     void* out,
                                     size_t n_times,
                                     stream_handle stream)
{
    const auto s = static_cast<cudaStream_t>(stream);
    // The "+pass" variants count the float16 range in their conversion pass,
    // the resident-samples kernels ("+rs", fc32) and the in-kernel pass
    // ("+ipass") as they convert.
    if (d_input_range && n_times > 0 && !d_variant->counts_range_on_the_way()) {
        BF_GPU_CHECK(cudaSetDevice(d_device.index));
        d_input_range->count(in, n_times * d_config.n_channels * d_config.n_receivers, s);
    }
    run(*d_variant, in, out, n_times, s);
}

void tensor_beamformer_cuda::run(
    const tb_variant& v, const void* in, void* out, size_t n_times, cudaStream_t s)
{
    const auto& c = d_config;
    check_gpu_tensor_beamformer_times(c, n_times);
    if (n_times == 0)
        return;
    BF_GPU_CHECK(cudaSetDevice(d_device.index));
    d_w.upload(s);

    const auto& layout = d_w.layout();
    const size_t npol = layout.npol;
    const size_t words = c.words_per_channel();
    if (c.precision == beam_precision::int1) {
        const size_t need = n_times * c.n_channels * npol * sizeof(int);
        if (d_col_popc.size() < need) {
            d_w.sync_last_use();
            d_col_popc = device_memory(d_device, need);
        } else // the previous call's kernel may run on another stream
            d_w.wait_last_use(s);
        const size_t n_rows = n_times * c.n_channels;
        const unsigned warps_per_block = 8;
        tb_kernels::column_popc_kernel<>
            <<<unsigned((n_rows + warps_per_block - 1) / warps_per_block),
               32 * warps_per_block,
               0,
               s>>>(static_cast<const uint32_t*>(in),
                    d_col_popc.as<int>(),
                    n_rows,
                    int(words),
                    int(c.n_receivers),
                    int(npol));
        BF_GPU_CHECK_LAUNCH("column_popc_kernel");
    }

    const tb_launch_plan plan = plan_launch(c,
                                            layout,
                                            v.block_m,
                                            v.block_n,
                                            v.block_k_bytes,
                                            n_times,
                                            d_w.weights().get(),
                                            in,
                                            out,
                                            d_w.row_popc().as<int>(),
                                            d_col_popc.as<int>());
    tb_kernels::kernel_args args = plan.args;
    if (v.fp16_pass || v.inline_pass) {
        // fc32 -> fp16 rows of the padded k (zeros past the receivers), read by
        // TMA as fp16 samples of row_bytes / 4 "receivers". The rows (and the
        // in-kernel pass's counters) may still feed the previous call's kernel
        // (another stream).
        const size_t n_rows = n_times * c.n_channels;
        // X/Y pairs: two planes per row (X, then Y), each of the padded k.
        const size_t npol = c.polarization == polarization_layout::xy_pairs ? 2 : 1;
        const size_t need = n_rows * npol * layout.row_bytes;
        // "+ipass": a counter per (channel, time tile), then the frontier.
        const size_t counters = size_t(args.n_channels) * size_t(args.n_tiles) + 1;
        const bool more_rows = d_x16.size() < need;
        const bool more_counters =
            v.inline_pass && d_pass_ready.size() < counters * sizeof(unsigned);
        if (more_rows || more_counters) {
            d_w.sync_last_use();
            if (more_rows)
                d_x16 = device_memory(d_device, need);
            if (more_counters)
                d_pass_ready = device_memory(d_device, counters * sizeof(unsigned));
        } else
            d_w.wait_last_use(s);
        if (v.fp16_pass) {
            unsigned long long* const counts =
                d_input_range->device_counts(s); // float16: always made
            if (npol == 2)
                launch_fc32_xy_to_fp16_planes(in,
                                              d_x16.get(),
                                              n_rows,
                                              unsigned(c.n_receivers / 2),
                                              unsigned(layout.row_bytes / 4),
                                              counts,
                                              s);
            else
                launch_fc32_to_fp16_rows(in,
                                         d_x16.get(),
                                         n_rows,
                                         unsigned(c.n_receivers),
                                         unsigned(layout.row_bytes / 4),
                                         counts,
                                         s);
            d_input_range->publish(s);
        } else {
            BF_GPU_CHECK(
                cudaMemsetAsync(d_pass_ready.get(), 0, counters * sizeof(unsigned), s));
            args.pass_input = in;
            args.pass_receivers = int(c.n_receivers);
            args.pass_ready = d_pass_ready.as<unsigned>();
            args.pass_lead_channels = tb::inline_pass_lead_channels;
        }
        args.input = d_x16.get();
        args.n_receivers = int(npol * layout.row_bytes / 4);
    }
    if (v.counts_range)
        args.range_counts = d_input_range->device_counts(s); // float16: always made
    // Power channel-major: the kernel writes the workspace (which the previous
    // call's transpose may still read, on another stream), a transpose the output.
    const size_t power_bytes =
        args.power_channel_major ? n_times / c.n_int * c.output_item_bytes() : 0;
    if (args.power_channel_major) {
        if (d_power_major.size() < power_bytes) {
            d_w.sync_last_use();
            d_power_major = device_memory(d_device, power_bytes);
        } else
            d_w.wait_last_use(s);
        args.out = d_power_major.get();
    }
    if (plan.zero_output_bytes) // windows that cross thread blocks are atomic sums
        BF_GPU_CHECK(cudaMemsetAsync(args.out, 0, plan.zero_output_bytes, s));
    size_t blocks = plan.blocks;
    if (v.blocks_per_sm) // persistent: every SM busy, each block loops over items
        blocks = resident_blocks(plan.args,
                                 &v == d_variant
                                     ? d_resident_max_blocks
                                     : d_sms * size_t(v.blocks_per_sm(d_smem)));
    if (blocks >= (size_t(1) << 31))
        throw std::invalid_argument("tensor_beamformer: batch too large for one launch; "
                                    "pass fewer time steps per execute()");
    v.launch(&args, unsigned(blocks), d_smem, s);
    if (args.power_channel_major)
        launch_power_transpose(d_power_major.as<float>(),
                               static_cast<float*>(out),
                               c.n_channels,
                               power_bytes / sizeof(float) / c.n_channels,
                               s);
    if (v.counts_range)
        d_input_range->publish(s);
    d_w.record_use(s);
}

std::unique_ptr<tensor_beamformer_engine>
make_tensor_beamformer_cuda(const tensor_beamformer_config& config,
                            const std::vector<std::complex<float>>& weights,
                            const device_spec& device,
                            const std::string& tile)
{
    if (tile == tb_library_path_name)
        return std::make_unique<tensor_beamformer_cublas>(config, weights, device);
    const tb_variant* v = tb_usable_variant(config, device.index, tile);
    if (!v)
        throw std::invalid_argument("tensor_beamformer: tile " + tile +
                                    " is not compiled for this configuration, "
                                    "needs too much shared memory, or needs "
                                    "sm_90a (wgmma) that this GPU lacks");
    return std::make_unique<tensor_beamformer_cuda>(config, weights, device, *v);
}

std::unique_ptr<tensor_beamformer_engine>
make_tensor_beamformer_gpu(const tensor_beamformer_config& config,
                           const std::vector<std::complex<float>>& weights,
                           const device_spec& device)
{
    config.validate();
    check_tensor_beamformer_weights(config, weights);
    return make_tensor_beamformer_cuda(
        config, weights, device, tb_choose_tile(config, device.index));
}

} // namespace cuda
} // namespace beamform
} // namespace gr
