/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * pfb_channelizer on a GPU (CUDA or HIP; see kernels/common/gpu_portable.h).
 * Kernels and their data flow: kernels/gpu/pfb_channelizer.cuh (notation,
 * the fused kernel), pfb_tiled*.cuh, pfb_two_pass.cuh, pfb_general.cuh.
 */
#include "pfb_channelizer_plan.h"
#include "pfb_tiled_kernels.cuh"
#include "pfb_two_pass_kernels.cuh"
#include <gnuradio/beamform/engines/pfb_channelizer_engine.h>
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gpu/pfb_general.cuh>
#ifdef BF_BACKEND_CUDA
#include "pfb_channelizer_cluster.h"
#include "pfb_channelizer_cufft.h"
#endif
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {
namespace {

using namespace pfb_plan;

constexpr size_t workspace_budget = size_t(64) << 20;

#ifdef BF_BACKEND_CUDA
constexpr bool gpu_library_fft = true; // cuFFT
#else
constexpr bool gpu_library_fft = false; // hipFFT is not in Debian
#endif

/*!
 * From which N the two-pass path's pass 2 is the library FFT
 * (pfb_plan::two_pass_library_from; BEAMFORM_PFB_LIBRARY_FROM overrides it,
 * for apps/channelizer_bench); no_library_fft where the backend has none.
 */
size_t two_pass_library_from()
{
    if (!gpu_library_fft)
        return no_library_fft;
    if (const char* v = std::getenv("BEAMFORM_PFB_LIBRARY_FROM"))
        if (const long n = std::atol(v); n > 0)
            return size_t(n);
    return pfb_plan::two_pass_library_from;
}

// The plan (host only) and the kernel's launch bound name the same block size.
static_assert(two_pass_threads == pfb_two_pass_threads, "pass 1's block size");
static_assert(two_pass_fft_threads == pfb_columns_register_fft_threads, "pass 2's block size");

//! Column workspace of one two-pass chunk (BEAMFORM_PFB_CHUNK_MB overrides it,
//! for apps/channelizer_bench). Chunks that stay in L2 (8, 24 MB) measured
//! slower than 96 and 256 MB: more steps per chunk fill the GPU better.
size_t two_pass_workspace_bytes()
{
    if (const char* mb = std::getenv("BEAMFORM_PFB_CHUNK_MB"))
        if (const long v = std::atol(mb); v > 0)
            return size_t(v) << 20;
    return size_t(256) << 20;
}

//! Pass 2's columns per block as log2 (BEAMFORM_PFB_LOG2_COLS, for the bench).
int two_pass_max_log2_cols()
{
    if (const char* v = std::getenv("BEAMFORM_PFB_LOG2_COLS"))
        return std::max(0, std::min(4, std::atoi(v)));
    return 3;
}

class pfb_channelizer_gpu final : public pfb_channelizer_engine
{
public:
    pfb_channelizer_gpu(const pfb_channelizer_config& c, const device_spec& dev)
        : d_config(c),
          d_device(dev),
          d_step(c.input_per_output()),
          d_history_len(c.n_channels * history_taps(c) - d_step),
          d_history_bytes(d_history_len * c.n_receivers * sample_size(c.input)),
          d_taps(dev, c.n_channels * c.taps_per_branch * sizeof(float)),
          d_twiddle(dev, c.n_channels * sizeof(float2)),
          d_path(path_for(c, gpu_library_fft))
    {
        BF_GPU_CHECK(gpuSetDevice(dev.index));
        d_history[0] = device_memory(dev, std::max<size_t>(d_history_bytes, 1));
        d_history[1] = device_memory(dev, std::max<size_t>(d_history_bytes, 1));

        const std::vector<float> taps = c.prototype();
        std::vector<float2> twiddle(c.n_channels);
        for (size_t k = 0; k < c.n_channels; k++) {
            // exp(+2 pi i k / N) in double, then rounded once.
            const double a = 2.0 * M_PI * double(k) / double(c.n_channels);
            twiddle[k] = make_float2(float(std::cos(a)), float(std::sin(a)));
        }
        const gpu_api& api = gpu_api_for(dev.kind);
        api.copy_async(dev.index,
                       d_taps.get(),
                       taps.data(),
                       d_taps.size(),
                       copy_kind::host_to_device,
                       nullptr);
        api.copy_async(dev.index,
                       d_twiddle.get(),
                       twiddle.data(),
                       d_twiddle.size(),
                       copy_kind::host_to_device,
                       nullptr);
        // The tiled and cluster kernels read the taps branch-major (tiled_branch_taps).
        std::vector<float> branch_taps;
        if (d_path == path::tiled || cluster_kernel_serves(c)) {
            branch_taps = tiled_branch_taps(taps, c.n_channels, c.taps_per_branch);
            d_branch_taps = device_memory(dev, branch_taps.size() * sizeof(float));
            api.copy_async(dev.index,
                           d_branch_taps.get(),
                           branch_taps.data(),
                           d_branch_taps.size(),
                           copy_kind::host_to_device,
                           nullptr);
        }
        api.synchronize(dev.index, nullptr); // before the host vectors go
        reset();

        gpuDeviceProp_t prop;
        BF_GPU_CHECK(gpuGetDeviceProperties(&prop, dev.index));
        d_sm_count = prop.multiProcessorCount;

        if (d_path == path::tiled)
            prepare_tiled();
        prepare_cluster();
        if (d_path == path::two_pass) {
            const auto l = plan_two_pass(c, 1, d_sm_count, d_max_log2_cols, d_library_from);
            if (l.register_fft) {
                const auto pass2 = pfb_columns_register_fft_kernel_of(log2_exact(c.n_channels));
                BF_GPU_CHECK(gpuFuncSetAttribute(pass2,
                                                 gpuFuncAttributeMaxDynamicSharedMemorySize,
                                                 int(l.fft_shared_bytes)));
                BF_GPU_CHECK(gpuOccupancyMaxActiveBlocksPerMultiprocessor(
                    &d_fft_blocks_per_sm, pass2, two_pass_fft_threads, l.fft_shared_bytes));
            } else if (!l.library_fft) { // the copy after a library FFT: no shared memory
                BF_GPU_CHECK(gpuFuncSetAttribute(pfb_columns_fft_kernel,
                                                 gpuFuncAttributeMaxDynamicSharedMemorySize,
                                                 int(l.fft_shared_bytes)));
            }
        }
        if (d_path == path::fir_smem_fft) {
            d_fft_rows = pfb_general_fft_rows(int(c.n_channels), general_fft_smem_budget);
            BF_GPU_CHECK(gpuFuncSetAttribute(
                pfb_general_fft_kernel,
                gpuFuncAttributeMaxDynamicSharedMemorySize,
                int(pfb_general_fft_smem_bytes(int(c.n_channels), d_fft_rows))));
        }
    }

    void reset() override
    {
        const gpu_api& api = gpu_api_for(d_device.kind);
        for (auto& h : d_history)
            api.fill_async(d_device.index, h.get(), 0, h.size(), nullptr);
        api.synchronize(d_device.index, nullptr);
        d_steps_done = 0;
    }

    void execute(const void* in,
                 std::complex<float>* out,
                 size_t n_out_items,
                 stream_handle stream) override
    {
        if (n_out_items == 0)
            return;
        BF_GPU_CHECK(gpuSetDevice(d_device.index));
        auto s = static_cast<gpuStream_t>(stream);
        auto* o = reinterpret_cast<float2*>(out);
        switch (d_config.input) {
        case sample_format::sc8:
            run(static_cast<const int8_t*>(in), o, n_out_items, s);
            break;
        case sample_format::sc16:
            run(static_cast<const int16_t*>(in), o, n_out_items, s);
            break;
        case sample_format::fc32:
            run(static_cast<const float*>(in), o, n_out_items, s);
            break;
        }
        update_history(in, n_out_items * d_step, s);
        d_steps_done += n_out_items;
    }

private:
    pfb_geometry geometry(size_t n_out) const
    {
        return kernel_geometry<pfb_geometry>(d_config, n_out, d_steps_done);
    }

    template <typename Tin>
    pfb_stream<Tin> stream_of(const Tin* in) const
    {
        pfb_stream<Tin> st;
        st.input = in;
        st.history = d_history[d_current].as<Tin>();
        st.history_len = (long long)d_history_len;
        st.n_receivers = int(d_config.n_receivers);
        return st;
    }

    template <typename Tin>
    void run(const Tin* in, float2* out, size_t n_out, gpuStream_t s)
    {
        const size_t first = run_cluster(in, out, n_out, s); // receivers [0, first)
        if (first == d_config.n_receivers)
            return;
        if (first > 0 && d_path != path::tiled) // the plan splits calls at N = 256 only
            throw std::logic_error("pfb_channelizer: the cluster kernel left receivers to the " +
                                   std::string(path_name(d_path)) + " path");
        if (d_path == path::tiled)
            run_tiled(in, out, n_out, s, first);
        else if (d_path == path::two_pass)
            run_two_pass(in, out, n_out, s);
        else if (d_path == path::fused)
            run_fused(in, out, n_out, s);
        else
            run_general(in, out, n_out, s);
    }

    template <typename Tin, int O, int BQ, int RBT, int NT>
    void launch_fused(const Tin* in, float2* out, size_t n_out, gpuStream_t s)
    {
        const fused_launch l = plan_fused(d_config, n_out, d_sm_count);
        dim3 grid(unsigned(l.receiver_blocks), unsigned(l.runs));
        pfb_fused_kernel<Tin, fused_max_taps, O, BQ, RBT, NT>
            <<<grid, l.threads, l.shared_bytes, s>>>(stream_of(in),
                                                     d_taps.as<float>(),
                                                     d_twiddle.as<float2>(),
                                                     out,
                                                     geometry(n_out),
                                                     l.steps_per_block);
        BF_GPU_CHECK_LAUNCH("pfb_fused_kernel");
    }

    template <typename Tin>
    void run_fused(const Tin* in, float2* out, size_t n_out, gpuStream_t s)
    {
        with_fused_shape(d_config.n_channels, d_config.oversample, [&](auto index) {
            constexpr fused_shape shape = fused_shapes[decltype(index)::value];
            launch_fused<Tin, shape.oversample, shape.bq, shape.rbt, shape.nt>(
                in, out, n_out, s);
        });
    }

    //! Calls launch(kernel, shape) with the tiled kernel of entry \p index
    //! and input Tin.
    template <typename Tin, typename Launch>
    void with_tiled_kernel(size_t index, Launch&& launch) const
    {
        auto with_shape = [&](auto i) {
            constexpr size_t I = decltype(i)::value;
            launch(pfb_tiled_kernel_of<Tin, I>(d_config.oversample), tiled_shapes[I]);
        };
        with_tiled_shape_index(
            index, with_shape, std::make_index_sequence<tiled_shape_count>{});
    }

    //! The tiled entries for whole and short calls of this input format, their
    //! shared memory and occupancy.
    void prepare_tiled()
    {
        const size_t bytes_per_sample = sample_size(d_config.input);
        d_tiled_shape[0] =
            tiled_shape_index(d_config.n_channels, d_config.oversample, bytes_per_sample);
        d_tiled_shape[1] = tiled_short_call_shape(
            d_config.n_channels, d_config.oversample, bytes_per_sample);
        for (int k = 0; k < 2; k++) {
            if (d_tiled_shape[k] >= tiled_shape_count)
                continue;
            const auto prepare = [&](auto kernel, const tiled_shape& shape) {
                const int bytes =
                    int(tiled_shared_bytes(d_config.n_channels, shape, bytes_per_sample));
                BF_GPU_CHECK(gpuFuncSetAttribute(
                    kernel, gpuFuncAttributeMaxDynamicSharedMemorySize, bytes));
                BF_GPU_CHECK(gpuOccupancyMaxActiveBlocksPerMultiprocessor(
                    &d_tiled_blocks_per_sm[k], kernel, shape.threads, size_t(bytes)));
            };
            switch (d_config.input) {
            case sample_format::sc8:
                with_tiled_kernel<int8_t>(d_tiled_shape[k], prepare);
                break;
            case sample_format::sc16:
                with_tiled_kernel<int16_t>(d_tiled_shape[k], prepare);
                break;
            case sample_format::fc32:
                with_tiled_kernel<float>(d_tiled_shape[k], prepare);
                break;
            }
        }
    }

    //! Whether this GPU runs the cluster kernel for this configuration
    //! (d_clusters_at_once > 0; CUDA only) and BEAMFORM_PFB_CLUSTER allows it.
    void prepare_cluster()
    {
#ifdef BF_BACKEND_CUDA
        d_cluster_knob = cluster_kernel_knob();
        if (d_cluster_knob != 0)
            d_clusters_at_once = cuda::pfb_cluster_clusters_at_once(d_device.index, d_config);
#endif
    }

    //! Runs receivers [0, k) of the call on the cluster kernel, k =
    //! cluster_kernel_receivers (the knob, this GPU, the default rule);
    //! returns k (0: it did not run).
    template <typename Tin>
    size_t run_cluster(const Tin* in, float2* out, size_t n_out, gpuStream_t s)
    {
#ifdef BF_BACKEND_CUDA
        const size_t receivers =
            cluster_kernel_receivers(d_config, n_out, d_clusters_at_once, d_cluster_knob);
        if (receivers == 0)
            return 0;
        cuda::pfb_cluster_launch(
            stream_of(in),
            d_branch_taps.as<float>(),
            d_twiddle.as<float2>(),
            out,
            geometry(n_out),
            plan_cluster(with_receivers(d_config, receivers), n_out, d_clusters_at_once),
            s);
        return receivers;
#else
        (void)in, (void)out, (void)n_out, (void)s;
        return 0;
#endif
    }

    //! Receivers [first_receiver, R) of the call on the tiled kernels.
    template <typename Tin>
    void run_tiled(const Tin* in, float2* out, size_t n_out, gpuStream_t s, size_t first_receiver)
    {
        pfb_geometry g = geometry(n_out);
        g.first_receiver = int(first_receiver);
        const auto st = stream_of(in);
        const size_t index =
            tiled_shape_for_call(d_tiled_shape[0], d_tiled_shape[1], n_out, first_receiver);
        const int blocks_per_sm =
            d_tiled_blocks_per_sm[index == d_tiled_shape[0] ? 0 : 1];
        with_tiled_kernel<Tin>(index, [&](auto kernel, const tiled_shape& shape) {
            const tiled_launch l =
                plan_tiled(d_config, shape, n_out, d_sm_count, blocks_per_sm, first_receiver);
            kernel<<<unsigned(l.blocks), unsigned(shape.threads), l.shared_bytes, s>>>(
                st,
                d_branch_taps.as<float>(),
                d_twiddle.as<float2>(),
                out,
                g,
                l.tiles_per_group);
        });
        BF_GPU_CHECK_LAUNCH("pfb_tiled_kernel_of: a tiled kernel");
    }

    template <typename Tin>
    void run_two_pass(const Tin* in, float2* out, size_t n_out, gpuStream_t s)
    {
        const size_t chunk =
            std::min(n_out, two_pass_chunk_steps(d_config, two_pass_workspace_bytes()));
        const size_t chunk_bytes =
            chunk * d_config.n_channels * d_config.n_receivers * sizeof(float2);
        if (d_workspace.size() < chunk_bytes)
            d_workspace = device_memory(d_device, chunk_bytes);
        const pfb_geometry g = geometry(n_out);
        const auto st = stream_of(in);
        const std::vector<two_pass_tap_block> tap_blocks = two_pass_tap_blocks(d_config);
        for (size_t t0 = 0; t0 < n_out; t0 += chunk) {
            const size_t steps = std::min(chunk, n_out - t0);
            const two_pass_launch l =
                plan_two_pass(d_config, steps, d_sm_count, d_max_log2_cols, d_library_from);
            for (const two_pass_tap_block& b : tap_blocks) {
                pfb_geometry gb = g;
                gb.taps_per_branch = b.taps;
                with_two_pass_shape(d_config, [&](auto tmax, auto o) {
                    const auto pass1 =
                        pfb_fir_columns_kernel_of<Tin,
                                                  decltype(tmax)::value,
                                                  decltype(o)::value>(st, b.accumulate);
                    pass1<<<dim3(unsigned(l.fir_blocks), unsigned(l.runs)),
                            two_pass_threads,
                            0,
                            s>>>(st,
                                 d_taps.as<float>() + b.first_tap * d_config.n_channels,
                                 d_workspace.as<float2>(),
                                 gb,
                                 (long long)t0 - b.step_delay,
                                 (long long)steps,
                                 l.steps_per_run);
                });
                BF_GPU_CHECK_LAUNCH("pfb_fir_columns_kernel");
            }
            if (l.library_fft) {
                run_library_pass2(l, out, g, t0, steps, s);
                continue;
            }
            if (l.register_fft) {
                const long long resident =
                    (long long)d_sm_count * std::max(1, d_fft_blocks_per_sm);
                const auto pass2 = pfb_columns_register_fft_kernel_of(g.log2_n);
                pass2<<<unsigned(std::min(l.fft_blocks, resident)),
                    two_pass_fft_threads,
                    l.fft_shared_bytes,
                    s>>>(d_workspace.as<float2>(),
                         d_twiddle.as<float2>(),
                         out,
                         g,
                         (long long)t0,
                         (long long)steps);
                BF_GPU_CHECK_LAUNCH("pfb_columns_register_fft_kernel");
                continue;
            }
            pfb_columns_fft_kernel<<<unsigned(l.fft_blocks),
                                     two_pass_threads,
                                     l.fft_shared_bytes,
                                     s>>>(d_workspace.as<float2>(),
                                          d_twiddle.as<float2>(),
                                          out,
                                          g,
                                          (long long)t0,
                                          (long long)steps,
                                          l.log2_cols);
            BF_GPU_CHECK_LAUNCH("pfb_columns_fft_kernel");
        }
    }

    //! Grid of a general-path kernel that loops over \p tiles: about 8 blocks per SM.
    unsigned blocks_for(long long tiles) const
    {
        return unsigned(std::min<long long>(tiles, 8ll * d_sm_count));
    }

    /*!
     * The two-pass path's pass 2 through the library FFT (CUDA: cuFFT) on the
     * chunk's columns [position][step][receiver] in d_workspace: down the
     * columns in place, or on rows after a transpose (plan_two_pass says which).
     */
    void run_library_pass2(const two_pass_launch& l,
                           float2* out,
                           const pfb_geometry& g,
                           size_t t0,
                           size_t steps,
                           gpuStream_t s)
    {
#ifdef BF_BACKEND_CUDA
        const int n = int(d_config.n_channels), n_rx = int(d_config.n_receivers);
        const long long columns = (long long)steps * n_rx;
        float2* workspace = d_workspace.as<float2>();
        // The copy to the output from spectra at (step, receiver, bin) strides.
        const auto copy_out = [&](const float2* spectra,
                                  long long step_stride,
                                  long long receiver_stride,
                                  long long bin_stride) {
            pfb_spectra_to_output_kernel<<<dim3(unsigned(l.fft_blocks),
                                                unsigned(l.fft_step_blocks)),
                                           two_pass_threads,
                                           0,
                                           s>>>(spectra,
                                                out,
                                                g,
                                                (long long)t0,
                                                (long long)steps,
                                                step_stride,
                                                receiver_stride,
                                                bin_stride);
            BF_GPU_CHECK_LAUNCH("pfb_spectra_to_output_kernel");
        };
        if (!l.library_rows) {
            d_cufft.run_columns(workspace, n, columns, s);
            copy_out(workspace, n_rx, 1, columns);
            return;
        }
        const size_t bytes = size_t(columns) * size_t(n) * sizeof(float2);
        if (d_rows.size() < bytes)
            d_rows = device_memory(d_device, bytes);
        const dim3 tile_block(pfb_general_receivers, pfb_general_rows);
        // The columns as one step of `columns` "channels" x N "receivers":
        // the general transpose writes them as rows [column][position].
        pfb_geometry as_rows = g;
        as_rows.n_channels = int(columns);
        as_rows.n_receivers = n;
        as_rows.fft_shift = 0;
        pfb_general_transpose_kernel<<<blocks_for(pfb_general_transpose_tiles(1, int(columns), n)),
                                       tile_block,
                                       pfb_general_transpose_smem_bytes,
                                       s>>>(workspace, d_rows.as<float2>(), as_rows, 0, 1);
        BF_GPU_CHECK_LAUNCH("pfb_general_transpose_kernel");
        d_cufft.run(d_rows.as<float2>(), n, columns, s);
        if (size_t(n_rx) < two_pass_rows_transpose_receivers) {
            copy_out(d_rows.as<float2>(), (long long)n_rx * n, n, 1);
            return;
        }
        pfb_general_transpose_kernel<<<blocks_for(pfb_general_transpose_tiles(
                                           (long long)steps, n, n_rx)),
                                       tile_block,
                                       pfb_general_transpose_smem_bytes,
                                       s>>>(
            d_rows.as<float2>(), out, g, (long long)t0, (long long)steps);
        BF_GPU_CHECK_LAUNCH("pfb_general_transpose_kernel");
#else
        (void)l, (void)out, (void)g, (void)t0, (void)steps, (void)s;
        throw std::logic_error("pfb_channelizer: no library FFT on this backend");
#endif
    }

    template <typename Tin>
    void run_general(const Tin* in, float2* out, size_t n_out, gpuStream_t s)
    {
        const size_t n = d_config.n_channels, n_rx = d_config.n_receivers;
        const size_t row_bytes = n * n_rx * sizeof(float2);
        // Whole FIR tiles of steps per chunk where the budget allows.
        size_t chunk = std::max<size_t>(1, workspace_budget / row_bytes);
        if (chunk > size_t(pfb_general_steps))
            chunk -= chunk % size_t(pfb_general_steps);
        chunk = std::min(chunk, n_out);
        if (d_workspace.size() < chunk * row_bytes)
            d_workspace = device_memory(d_device, chunk * row_bytes);
        const pfb_geometry g = geometry(n_out);
        const dim3 tile_block(pfb_general_receivers, pfb_general_rows);
        auto* workspace = d_workspace.as<float2>();
        for (size_t t0 = 0; t0 < n_out; t0 += chunk) {
            const long long steps = (long long)std::min(chunk, n_out - t0);
            const unsigned fir_blocks =
                blocks_for(pfb_general_fir_tiles(steps, int(n), int(n_rx)));
            const auto fir = d_config.oversample == 1 ? pfb_general_fir_kernel<Tin, 1>
                                                      : pfb_general_fir_kernel<Tin, 2>;
            fir<<<fir_blocks, tile_block, pfb_general_fir_smem_bytes, s>>>(
                stream_of(in), d_taps.as<float>(), workspace, g, (long long)t0, steps);
            BF_GPU_CHECK_LAUNCH("pfb_general_fir_kernel");
            if (d_path == path::fir_smem_fft) {
                const size_t r_tiles =
                    (n_rx + size_t(d_fft_rows) - 1) / size_t(d_fft_rows);
                pfb_general_fft_kernel<<<unsigned(size_t(steps) * r_tiles),
                                         general_fft_threads,
                                         pfb_general_fft_smem_bytes(int(n), d_fft_rows),
                                         s>>>(
                    workspace, d_twiddle.as<float2>(), out, g, (long long)t0, d_fft_rows);
                BF_GPU_CHECK_LAUNCH("pfb_general_fft_kernel");
                continue;
            }
#ifdef BF_BACKEND_CUDA
            d_cufft.run(workspace, int(n), steps * (long long)n_rx, s);
            pfb_general_transpose_kernel<<<blocks_for(pfb_general_transpose_tiles(
                                               steps, int(n), int(n_rx))),
                                           tile_block,
                                           pfb_general_transpose_smem_bytes,
                                           s>>>(workspace, out, g, (long long)t0, steps);
            BF_GPU_CHECK_LAUNCH("pfb_general_transpose_kernel");
#else
            const long long outputs = steps * (long long)(n * n_rx);
            pfb_direct_dft_kernel<<<
                unsigned(std::min<long long>((outputs + 255) / 256, 1 << 20)),
                256,
                0,
                s>>>(workspace, d_twiddle.as<float2>(), out, g, (long long)t0, steps);
            BF_GPU_CHECK_LAUNCH("pfb_direct_dft_kernel");
#endif
        }
    }

    //! The next history: the last H samples of (history, this call's input).
    void update_history(const void* in, size_t n_in, gpuStream_t s)
    {
        const size_t sample_bytes = d_config.n_receivers * sample_size(d_config.input);
        const auto* input = static_cast<const char*>(in);
        const char* current = d_history[d_current].as<char>();
        char* next = d_history[1 - d_current].as<char>();
        const auto copies = history_update(d_history_len, n_in, sample_bytes);
        for (const auto& c : copies)
            BF_GPU_CHECK(gpuMemcpyAsync(next + c.dst_offset,
                                        (c.from_input ? input : current) + c.src_offset,
                                        c.bytes,
                                        gpuMemcpyDeviceToDevice,
                                        s));
        if (!copies.empty())
            d_current = 1 - d_current;
    }

    pfb_channelizer_config d_config;
    device_spec d_device;
    size_t d_step;
    size_t d_history_len;
    size_t d_history_bytes;
    device_memory d_taps;
    device_memory d_branch_taps; //!< the tiled path's [N][T_MAX] (tiled_branch_taps)
    device_memory d_twiddle;
    device_memory d_history[2]; //!< ping-pong: the kernels read d_current
    int d_current = 0;
    device_memory d_workspace;
    device_memory d_rows; //!< the library pass 2's rows (two_pass_launch::library_rows)
    path d_path;
    int d_sm_count = 1;
    int d_max_log2_cols = two_pass_max_log2_cols();
    size_t d_library_from = two_pass_library_from();
    int d_fft_blocks_per_sm = 1; //!< occupancy of the register-FFT pass 2
    int d_fft_rows = 1;          //!< fir_smem_fft: rows per pfb_general_fft_kernel block
    //! indices in tiled_shapes: for whole calls, for short calls (or tiled_shape_count)
    size_t d_tiled_shape[2] = { 0, tiled_shape_count };
    int d_tiled_blocks_per_sm[2] = { 1, 1 }; //!< their occupancy
    //! of the cluster kernel where it serves and runs here; else 0 (prepare_cluster)
    int d_clusters_at_once = 0;
    int d_cluster_knob = -1; //!< cluster_kernel_knob(), read when the engine is made
    size_t d_steps_done = 0;
#ifdef BF_BACKEND_CUDA
    cuda::pfb_inverse_fft d_cufft;
#endif
};

} // namespace

std::unique_ptr<pfb_channelizer_engine>
make_pfb_channelizer_gpu(const pfb_channelizer_config& config, const device_spec& device)
{
    return std::make_unique<pfb_channelizer_gpu>(config, device);
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr
