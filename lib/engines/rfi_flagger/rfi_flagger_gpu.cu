/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rfi_flagger on a GPU (CUDA or HIP; see kernels/common/gpu_portable.h).
 */
#include "rfi_flagger_gpu_plan.h"
#include <gnuradio/beamform/engines/rfi_flagger_engine.h>
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <algorithm>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {
namespace {

class rfi_flagger_gpu final : public rfi_flagger_engine
{
public:
    rfi_flagger_gpu(const rfi_flagger_config& config, const device_spec& dev)
        : d_config(config),
          d_device(dev),
          d_n(config.n_channels * config.n_receivers),
          d_path(rfi_path_for(config.block_size)),
          d_group(rfi_group_blocks(config.block_size, d_n, d_path)),
          d_copy_stream(dev),
          d_chunk_done{ gpu_event(dev, gpu_event::use::ordering),
                        gpu_event(dev, gpu_event::use::ordering) },
          d_masks_done(dev, gpu_event::use::ordering)
    {
        const rfi_scratch_sizes sizes = rfi_scratch_for(config, d_path, d_group);
        auto allocate = [&](size_t doubles) {
            return doubles ? device_memory(dev, doubles * sizeof(double))
                           : device_memory();
        };
        d_seg_s1 = allocate(sizes.seg_sums);
        d_seg_s2 = allocate(sizes.seg_sums);
        d_s1 = allocate(sizes.s1);
        d_scale = allocate(sizes.scale);
        d_scratch = allocate(sizes.scratch);
        d_shared_args = rfi_group_plan(config,
                                       d_path,
                                       d_seg_s1.as<double>(),
                                       d_seg_s2.as<double>(),
                                       d_s1.as<double>(),
                                       d_scale.as<double>(),
                                       d_scratch.as<double>());
    }

    void execute(const std::complex<float>* in,
                 std::complex<float>* out,
                 size_t n_items,
                 uint64_t first_item,
                 uint8_t* mask,
                 stream_handle stream) override
    {
        BF_GPU_CHECK(gpuSetDevice(d_device.index));
        auto s = static_cast<gpuStream_t>(stream);
        const size_t m = d_config.block_size;
        const size_t n_blocks = n_items / m;
        if (n_blocks == 0)
            return;
        if (d_flags.size() < n_blocks * d_n)
            d_flags =
                device_memory(d_device, n_blocks * d_n); // frees after the device is idle
        // Up to mask_chunks chunks of blocks per call, each run as groups of
        // at most d_group blocks: the masks of a chunk go to the host on
        // d_copy_stream while the next chunk's kernels run (a copy to pageable
        // memory also holds the host until it is done, so the next chunk is
        // enqueued first). Two events, alternating: chunk k's is recorded
        // again at chunk k + 2, after the wait on it has been enqueued.
        const size_t chunk = (n_blocks + mask_chunks - 1) / mask_chunks;
        const stream_handle copy = d_copy_stream.get();
        auto copy_masks = [&](size_t b0, size_t nb, const gpu_event& ready) {
            ready.make_wait(copy);
            BF_GPU_CHECK(gpuMemcpyAsync(mask + b0 * d_n,
                                        d_flags.as<uint8_t>() + b0 * d_n,
                                        nb * d_n,
                                        gpuMemcpyDeviceToHost,
                                        static_cast<gpuStream_t>(copy)));
        };
        size_t previous_b0 = 0, previous_nb = 0;
        for (size_t b0 = 0, k = 0; b0 < n_blocks; b0 += chunk, k++) {
            const size_t nb = std::min(chunk, n_blocks - b0);
            rfi_for_each_group(b0, nb, d_group, [&](size_t g0, size_t group_blocks) {
                launch_rfi_flagger_group(rfi_group_at(d_shared_args,
                                                      in,
                                                      out,
                                                      d_flags.as<uint8_t>(),
                                                      first_item,
                                                      g0,
                                                      group_blocks),
                                         s);
            });
            d_chunk_done[k % 2].record(stream);
            if (k > 0)
                copy_masks(previous_b0, previous_nb, d_chunk_done[(k + 1) % 2]);
            previous_b0 = b0;
            previous_nb = nb;
        }
        const size_t n_chunks = (n_blocks + chunk - 1) / chunk;
        copy_masks(previous_b0, previous_nb, d_chunk_done[(n_chunks - 1) % 2]);
        // The caller's stream: after the copies (its next call's kernels
        // rewrite d_flags; the masks are written once the stream is synchronized).
        d_masks_done.record(copy);
        d_masks_done.make_wait(stream);
    }

private:
    const rfi_flagger_config d_config;
    const device_spec d_device;
    const size_t d_n; // values per spectrum
    const rfi_path d_path;
    const size_t d_group; // blocks per group
    // Sized by rfi_scratch_for; d_shared_args (rfi_group_plan) points into them.
    device_memory d_seg_s1, d_seg_s2, d_s1, d_scale, d_scratch;
    rfi_group_args d_shared_args; // what every group shares
    device_memory d_flags;        // [block][element] of the call, grown as needed
    static constexpr size_t mask_chunks = 8; // per call, for the copy overlap
    gpu_stream d_copy_stream;                // the masks to the host
    gpu_event d_chunk_done[2];               // a chunk's kernels are done
    gpu_event d_masks_done;                  // the copies are done
};

} // namespace

std::unique_ptr<rfi_flagger_engine> make_rfi_flagger_gpu(const rfi_flagger_config& config,
                                                         const device_spec& device)
{
    config.validate();
    return std::make_unique<rfi_flagger_gpu>(config, device);
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr
