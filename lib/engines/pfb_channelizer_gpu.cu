/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * pfb_channelizer on a GPU (CUDA or HIP; see kernels/common/gpu_portable.h).
 * Kernels and their data flow: kernels/gpu/pfb_channelizer.cuh.
 */
#include "../runtime/gpu_memory.h"
#include "pfb_channelizer_engine.h"
#include <gpu/pfb_channelizer.cuh>
#ifdef BF_BACKEND_CUDA
#include "pfb_channelizer_cufft.h"
#endif
#include <algorithm>
#include <cmath>
#include <vector>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {
namespace {

constexpr int fused_max_taps = 16;        // T_MAX of the fused kernel
constexpr int fused_max_channels = 1024;  // register windows of one block
constexpr int fft_kernel_max_channels = 4096;
constexpr size_t workspace_budget = size_t(64) << 20;

bool is_power_of_two(size_t n) { return n >= 1 && (n & (n - 1)) == 0; }

int log2_exact(size_t n)
{
    int l = 0;
    while ((size_t(1) << l) < n)
        l++;
    return l;
}

//! How a fused launch splits the work (see pfb_fused_kernel).
struct fused_shape {
    int bq;      //!< base branches per thread
    int rbt;     //!< receivers per thread
    int nt;      //!< maximum threads per block (the kernel's launch bound)
};

fused_shape fused_shape_for(size_t n, unsigned oversample)
{
    if (oversample == 1) {
        if (n >= 1024)
            return { 4, 1, 256 };
        if (n >= 256)
            return { 1, 2, 512 };
        return { 1, 4, 256 };
    }
    if (n >= 1024)
        return { 2, 1, 256 };
    return { 1, 2, 256 };
}

class pfb_channelizer_gpu final : public pfb_channelizer_engine
{
public:
    pfb_channelizer_gpu(const pfb_channelizer_config& c, const device_spec& dev)
        : d_config(c),
          d_device(dev),
          d_step(c.input_per_output()),
          d_history_len(c.n_channels * c.taps_per_branch - d_step),
          d_history_bytes(d_history_len * c.n_receivers * sample_size(c.input)),
          d_taps(dev, c.n_channels * c.taps_per_branch * sizeof(float)),
          d_twiddle(dev, c.n_channels * sizeof(float2)),
          d_fused(is_power_of_two(c.n_channels) && c.n_channels <= fused_max_channels &&
                  c.taps_per_branch <= fused_max_taps)
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
        api.copy_async(dev.index, d_taps.get(), taps.data(), d_taps.size(),
                       copy_kind::host_to_device, nullptr);
        api.copy_async(dev.index, d_twiddle.get(), twiddle.data(), d_twiddle.size(),
                       copy_kind::host_to_device, nullptr);
        api.synchronize(dev.index, nullptr);
        reset();

        gpuDeviceProp_t prop;
        BF_GPU_CHECK(gpuGetDeviceProperties(&prop, dev.index));
        d_sm_count = prop.multiProcessorCount;

        if (!d_fused && is_power_of_two(c.n_channels) &&
            c.n_channels <= fft_kernel_max_channels) {
            BF_GPU_CHECK(gpuFuncSetAttribute(pfb_fft_kernel,
                                             gpuFuncAttributeMaxDynamicSharedMemorySize,
                                             int(3 * c.n_channels * sizeof(float2))));
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
        pfb_geometry g;
        g.n_channels = int(d_config.n_channels);
        g.log2_n = log2_exact(d_config.n_channels);
        g.taps_per_branch = int(d_config.taps_per_branch);
        g.step = int(d_step);
        g.n_receivers = int(d_config.n_receivers);
        g.fft_shift = d_config.fft_shift ? 1 : 0;
        g.first_parity = int(d_steps_done % d_config.oversample);
        g.n_out = (long long)n_out;
        return g;
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
        if (d_fused)
            run_fused(in, out, n_out, s);
        else
            run_general(in, out, n_out, s);
    }

    template <typename Tin, int O, int BQ, int RBT, int NT>
    void launch_fused(const Tin* in, float2* out, size_t n_out, gpuStream_t s)
    {
        const int n = int(d_config.n_channels);
        const int q_threads = int(d_step) / BQ;
        const int receivers = int(d_config.n_receivers);
        const int groups =
            std::max(1, std::min(NT / q_threads, (receivers + RBT - 1) / RBT));
        const int rb_count = groups * RBT;
        const int threads = q_threads * groups;
        const long long receiver_blocks = (receivers + rb_count - 1) / rb_count;
        const long long runs = step_runs(receiver_blocks, n_out, O * fused_max_taps);
        const long long steps_per_block = ((long long)n_out + runs - 1) / runs;
        const size_t smem = size_t(n + 2 * rb_count * pfb_row_stride(n)) * sizeof(float2);
        dim3 grid(unsigned(receiver_blocks),
                  unsigned(((long long)n_out + steps_per_block - 1) / steps_per_block));
        pfb_fused_kernel<Tin, fused_max_taps, O, BQ, RBT, NT>
            <<<grid, threads, smem, s>>>(stream_of(in),
                                         d_taps.as<float>(),
                                         d_twiddle.as<float2>(),
                                         out,
                                         geometry(n_out),
                                         steps_per_block);
        BF_GPU_CHECK_LAUNCH("pfb_fused_kernel");
    }

    /*!
     * Runs of consecutive steps per receiver block: enough blocks to fill the
     * GPU in whole waves, but runs long against the warm-up of each run
     * (ring - 1 steps read twice).
     */
    long long step_runs(long long receiver_blocks, size_t n_out, int ring) const
    {
        const long long slots = std::max(1, d_sm_count); // one block per SM (registers)
        long long best = 1;
        double best_score = -1.0;
        for (long long runs = 1; runs <= 512; runs++) {
            const double run_len = double(n_out) / double(runs);
            if (runs > 1 && run_len < double(ring))
                break;
            const long long blocks = receiver_blocks * runs;
            const long long waves = (blocks + slots - 1) / slots;
            const double fill = double(blocks) / double(waves * slots);
            const double useful = run_len / (run_len + double(ring - 1));
            const double score = fill * useful;
            if (score > best_score + 1e-9) {
                best_score = score;
                best = runs;
            }
        }
        return best;
    }

    template <typename Tin>
    void run_fused(const Tin* in, float2* out, size_t n_out, gpuStream_t s)
    {
        const fused_shape shape = fused_shape_for(d_config.n_channels, d_config.oversample);
        if (d_config.oversample == 1) {
            if (shape.bq == 4)
                launch_fused<Tin, 1, 4, 1, 256>(in, out, n_out, s);
            else if (shape.rbt == 2)
                launch_fused<Tin, 1, 1, 2, 512>(in, out, n_out, s);
            else
                launch_fused<Tin, 1, 1, 4, 256>(in, out, n_out, s);
        } else {
            if (shape.bq == 2)
                launch_fused<Tin, 2, 2, 1, 256>(in, out, n_out, s);
            else
                launch_fused<Tin, 2, 1, 2, 256>(in, out, n_out, s);
        }
    }

    template <typename Tin>
    void run_general(const Tin* in, float2* out, size_t n_out, gpuStream_t s)
    {
        const size_t n = d_config.n_channels;
        const size_t row_bytes = n * d_config.n_receivers * sizeof(float2);
        const size_t chunk = std::max<size_t>(1, std::min(n_out, workspace_budget / row_bytes));
        if (d_workspace.size() < chunk * row_bytes)
            d_workspace = device_memory(d_device, chunk * row_bytes);
        const pfb_geometry g = geometry(n_out);
        const bool pow2_fft = is_power_of_two(n) && n <= fft_kernel_max_channels;
        for (size_t t0 = 0; t0 < n_out; t0 += chunk) {
            const size_t steps = std::min(chunk, n_out - t0);
            const long long elements = (long long)(steps * n * d_config.n_receivers);
            const unsigned threads = 256;
            const unsigned blocks =
                unsigned(std::min<long long>((elements + threads - 1) / threads, 1 << 20));
            pfb_fir_kernel<Tin><<<blocks, threads, 0, s>>>(stream_of(in),
                                                           d_taps.as<float>(),
                                                           d_workspace.as<float2>(),
                                                           g,
                                                           int(d_config.oversample),
                                                           (long long)t0,
                                                           (long long)steps);
            BF_GPU_CHECK_LAUNCH("pfb_fir_kernel");
            if (pow2_fft) {
                const size_t smem = 3 * n * sizeof(float2);
                const unsigned fft_threads = unsigned(std::min<size_t>(256, n / 2));
                pfb_fft_kernel<<<unsigned(steps * d_config.n_receivers), fft_threads, smem, s>>>(
                    d_workspace.as<float2>(), d_twiddle.as<float2>(), out, g, (long long)t0);
                BF_GPU_CHECK_LAUNCH("pfb_fft_kernel");
                continue;
            }
            int direct_dft = 1;
#ifdef BF_BACKEND_CUDA
            d_cufft.run(d_workspace.get(), int(n), (long long)(steps * d_config.n_receivers), s);
            direct_dft = 0;
#endif
            pfb_reorder_kernel<<<blocks, threads, 0, s>>>(d_workspace.as<float2>(),
                                                          d_twiddle.as<float2>(),
                                                          out,
                                                          g,
                                                          (long long)t0,
                                                          (long long)steps,
                                                          direct_dft);
            BF_GPU_CHECK_LAUNCH("pfb_reorder_kernel");
        }
    }

    //! The next history: the last H samples of (history, this call's input).
    void update_history(const void* in, size_t n_in, gpuStream_t s)
    {
        if (d_history_len == 0)
            return;
        const size_t sample_bytes = d_config.n_receivers * sample_size(d_config.input);
        const auto* input = static_cast<const char*>(in);
        char* next = d_history[1 - d_current].as<char>();
        const char* current = d_history[d_current].as<char>();
        if (n_in >= d_history_len) {
            BF_GPU_CHECK(gpuMemcpyAsync(next,
                                        input + (n_in - d_history_len) * sample_bytes,
                                        d_history_bytes,
                                        gpuMemcpyDeviceToDevice,
                                        s));
        } else {
            const size_t kept = d_history_len - n_in;
            BF_GPU_CHECK(gpuMemcpyAsync(
                next, current + n_in * sample_bytes, kept * sample_bytes,
                gpuMemcpyDeviceToDevice, s));
            BF_GPU_CHECK(gpuMemcpyAsync(next + kept * sample_bytes,
                                        input,
                                        n_in * sample_bytes,
                                        gpuMemcpyDeviceToDevice,
                                        s));
        }
        d_current = 1 - d_current;
    }

    pfb_channelizer_config d_config;
    device_spec d_device;
    size_t d_step;
    size_t d_history_len;
    size_t d_history_bytes;
    device_memory d_taps;
    device_memory d_twiddle;
    device_memory d_history[2]; //!< ping-pong: the kernels read d_current
    int d_current = 0;
    device_memory d_workspace;
    bool d_fused;
    int d_sm_count = 1;
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
