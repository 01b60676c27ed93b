/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "tensor_beamformer_cublas_cuda.h"
#include "tensor_beamformer_cuda.h"
#include "tensor_beamformer_input_range.h"
#include <cuda/tensor_beamformer_mma_kernel.cuh>
#include <gpu/float16_gemm_input.cuh>
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace beamform {
namespace cuda {

namespace {

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
    // The "+pass" variants count the float16 range in their conversion pass.
    if (d_input_range && n_times > 0 && !d_variant->fp16_pass) {
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
    if (plan.zero_output_bytes) // windows that cross thread blocks are atomic sums
        BF_GPU_CHECK(cudaMemsetAsync(out, 0, plan.zero_output_bytes, s));
    if (v.fp16_pass) {
        // fc32 -> fp16 rows of the padded k (zeros past the receivers), read by
        // TMA as fp16 samples of row_bytes / 4 "receivers". The rows may still
        // feed the previous call's kernel (another stream).
        const size_t need = n_times * c.n_channels * layout.row_bytes;
        if (d_x16.size() < need) {
            d_w.sync_last_use();
            d_x16 = device_memory(d_device, need);
        } else
            d_w.wait_last_use(s);
        args.input = d_x16.get();
        args.n_receivers = int(layout.row_bytes / 4);
        pass_and_product(v, in, args, n_times, s);
        d_input_range->publish(s);
        d_w.record_use(s);
        return;
    }
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
    d_w.record_use(s);
}

//! The second stream of the "+pass" overlap and its events.
struct tensor_beamformer_cuda::pass_overlap {
    explicit pass_overlap(const device_spec& dev)
        : stream(dev),
          fork(dev, gpu_event::use::ordering),
          converted(dev, gpu_event::use::ordering)
    {
    }
    gpu_stream stream;
    gpu_event fork;      //!< the call's start on the caller's stream
    gpu_event converted; //!< the latest range's pass
};

void tensor_beamformer_cuda::pass_and_product(const tb_variant& v,
                                              const void* in,
                                              const tb::kernel_args& args,
                                              size_t n_times,
                                              cudaStream_t s)
{
    const auto& c = d_config;
    const size_t tiles_per_channel = size_t(args.m_tiles) * size_t(args.n_tiles);
    unsigned long long* counts = d_input_range->device_counts(); // float16: always made
    const size_t pass_sms = std::min(d_pass_sms, d_sms / 2);
    const auto ranges =
        pass_channel_ranges(c.n_channels,
                            tiles_per_channel,
                            d_sms - pass_sms,
                            d_pass_ranges,
                            d_pass_min_rounds);
    auto product = [&](const channel_range& r, size_t grid_limit) {
        tb::kernel_args a = args;
        a.channel_first = int(r.first);
        a.channel_count = int(r.count);
        a.grid_limit = int(grid_limit);
        const size_t tiles = r.count * tiles_per_channel;
        if (tiles >= (size_t(1) << 31))
            throw std::invalid_argument("tensor_beamformer: batch too large for one launch; "
                                        "pass fewer time steps per execute()");
        v.launch(&a, unsigned(tiles), d_smem, s);
    };
    if (ranges.size() == 1) { // the whole input at once, then the product on every SM
        launch_fc32_to_fp16_rows(in,
                                 d_x16.get(),
                                 n_times * c.n_channels,
                                 unsigned(c.n_receivers),
                                 unsigned(args.row_bytes / 4),
                                 counts,
                                 s);
        product(ranges[0], 0);
        return;
    }
    // Range 0's pass on every SM; then the pass of range i + 1 on the second
    // stream (pass_sms blocks of 1024 threads, one per SM) while the product
    // of range i runs on the other SMs; the product of range i + 1 waits for
    // its pass. The second stream starts after the caller's earlier work (the
    // previous call's product may still read d_x16).
    if (!d_overlap)
        d_overlap = std::make_unique<pass_overlap>(d_device);
    const cudaStream_t p = static_cast<cudaStream_t>(d_overlap->stream.get());
    d_overlap->fork.record(s);
    d_overlap->fork.make_wait(p);
    auto pass = [&](const channel_range& r, size_t blocks, cudaStream_t st) {
        launch_fc32_to_fp16_channel_rows(in,
                                         d_x16.get(),
                                         n_times,
                                         unsigned(c.n_channels),
                                         unsigned(r.first),
                                         unsigned(r.count),
                                         unsigned(c.n_receivers),
                                         unsigned(args.row_bytes / 4),
                                         unsigned(blocks),
                                         counts,
                                         st);
    };
    pass(ranges[0], d_sms, s);
    for (size_t i = 0; i < ranges.size(); i++) {
        const bool next = i + 1 < ranges.size();
        if (next) {
            pass(ranges[i + 1], pass_sms, p);
            d_overlap->converted.record(p);
        }
        product(ranges[i], next ? d_sms - pass_sms : 0);
        if (next)
            d_overlap->converted.make_wait(s);
    }
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
