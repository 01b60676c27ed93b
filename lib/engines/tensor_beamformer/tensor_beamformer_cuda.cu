/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CUDA tensor-core beamformer engine: picks a compiled tile variant
 * (tuning file or built-in rule), expands the weights once per set_weights()
 * into the operand layout of tensor_beamformer_expand.h, and launches one
 * kernel per execute() (plus, for int1, a small pass that counts the set bits
 * of each sample row, and for power output with windows that cross thread
 * blocks, a memset of the output).
 */
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gnuradio/beamform/runtime/log.h>
#include "tensor_beamformer_cuda.h"
#include "tensor_beamformer_expand.h"
#include <cuda/tensor_beamformer_mma_kernel.cuh>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace beamform {
namespace cuda {

const std::vector<tb_variant>& tb_variants()
{
    static const std::vector<tb_variant> all = [] {
        std::vector<tb_variant> v;
        tb_register_fp16_variants(v);
        tb_register_int1_variants(v);
        tb_register_wgmma_variants(v);
        return v;
    }();
    return all;
}

namespace {

bool is_xy(const tensor_beamformer_config& c)
{
    return c.polarization == polarization_layout::xy_pairs;
}

//! How this configuration's samples are read.
tb_input input_kind(const tensor_beamformer_config& c)
{
    if (c.precision == beam_precision::int1)
        return (2 * c.words_per_channel()) % 4 == 0 ? tb_input::bits_wide
                                                    : tb_input::bits_narrow;
    if (is_xy(c))
        return tb_input::fc32_xy;
    return c.n_receivers % 2 == 0 ? tb_input::fc32_vec2 : tb_input::fc32_vec1;
}

std::vector<const tb_variant*> candidates(const tensor_beamformer_config& c,
                                          tb_input input)
{
    std::vector<const tb_variant*> out;
    for (const auto& v : tb_variants())
        if (v.precision == c.precision && v.polarization == c.polarization &&
            v.input == input)
            out.push_back(&v);
    return out;
}

//! Dynamic shared memory of a variant for this configuration.
size_t smem_for(const tb_variant& v, const tensor_beamformer_config& c)
{
    return std::max(size_t(v.pipeline_smem_bytes),
                    power_reduce_smem_bytes(c, v.block_m, v.block_n));
}

size_t device_smem_limit(int device)
{
    int bytes = 0;
    BF_GPU_CHECK(
        cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    return size_t(bytes);
}

std::map<std::string, std::string> read_tuning_file(const char* path)
{
    std::map<std::string, std::string> entries;
    std::ifstream f(path);
    if (!f) {
        warn(std::string("cannot read BEAMFORM_TUNING_FILE ") + path +
             "; using built-in tiles");
        return entries;
    }
    std::string line;
    while (std::getline(f, line)) {
        const auto hash = line.find('#');
        if (hash != std::string::npos)
            line.erase(hash);
        const auto eq = line.find('=');
        if (eq == std::string::npos)
            continue;
        auto trim = [](std::string s) {
            const auto b = s.find_first_not_of(" \t\r");
            const auto e = s.find_last_not_of(" \t\r");
            return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
        };
        entries[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
    }
    return entries;
}

const char* to_key(beam_precision p)
{
    return p == beam_precision::int1 ? "int1" : "float16";
}

} // namespace

std::vector<std::string> tensor_beamformer_tiles(const tensor_beamformer_config& c)
{
    std::vector<std::string> names;
    for (const auto* v : candidates(c, input_kind(c)))
        names.push_back(v->tile);
    return names;
}

std::string tensor_beamformer_tuning_key(const tensor_beamformer_config& c)
{
    const size_t rx = is_xy(c) ? c.n_receivers / 2 : c.n_receivers;
    const char* size = rx <= 128 ? "rx_small" : (rx <= 1024 ? "rx_medium" : "rx_large");
    return std::string(to_key(c.precision)) + "." + (is_xy(c) ? "xy_pairs" : "single") +
           "." + (c.output == beam_output::power ? "power" : "voltage") + "." + size;
}

std::string tensor_beamformer_default_tile(const tensor_beamformer_config& c)
{
    // The lists are in order of preference for large products; take the first
    // whose padding of the beams costs at most 10% more than the least padding.
    const auto cands = candidates(c, input_kind(c));
    if (cands.empty())
        throw std::runtime_error("tensor_beamformer: no CUDA kernel compiled for this "
                                 "precision and polarization layout");
    auto waste = [&](const tb_variant* v) {
        const size_t rows = 2 * c.n_beams;
        const size_t padded = (rows + v->block_m - 1) / v->block_m * v->block_m;
        return double(padded) / double(rows);
    };
    double best = 1e300;
    for (const auto* v : cands)
        if (!v->opt_in)
            best = std::min(best, waste(v));
    for (const auto* v : cands)
        if (!v->opt_in && waste(v) <= best * 1.1)
            return v->tile;
    return cands.front()->tile;
}

namespace {

/*!
 * Expands random int1 weights (tb::random_weight_bits) straight into the
 * operand layout: one block per (matrix, beam), one thread per word.
 */
__global__ void random_int1_weights_kernel(uint32_t* a,
                                           int* row_popc,
                                           unsigned long long seed,
                                           int n_beams,
                                           int n_receivers,
                                           int npol,
                                           int rows,
                                           int row_words,
                                           int words)
{
    const int matrix = blockIdx.y; // c * npol + p
    const int c = matrix / npol;
    const int p = matrix % npol;
    const int b = blockIdx.x;
    const int re = tb::a_row_of(b, 0);
    const int im = tb::a_row_of(b, 1);
    uint32_t* base = a + size_t(matrix) * rows * row_words;
    int count_re = 0, count_im = 0;
    for (int wd = threadIdx.x; wd < words; wd += blockDim.x) {
        uint32_t wr = 0, wi = 0; // sign bits of Re and Im of the weights
        uint32_t valid = 0;
        for (int k = 0; k < 32; k++) {
            const int r = 32 * wd + k;
            if (r >= n_receivers || r % npol != p)
                continue;
            const unsigned bits = tb::random_weight_bits(seed, c, b, r);
            wr |= (bits & 1u) << k;
            wi |= ((bits >> 1) & 1u) << k;
            valid |= 1u << k;
        }
        // real row (Wr, -Wi), imaginary row (Wi, Wr)
        base[size_t(re) * row_words + wd] = wr;
        base[size_t(re) * row_words + words + wd] = ~wi & valid;
        base[size_t(im) * row_words + wd] = wi;
        base[size_t(im) * row_words + words + wd] = wr;
        count_re += __popc(wr) + __popc(~wi & valid);
        count_im += __popc(wi) + __popc(wr);
    }
    __shared__ int sums[2];
    if (threadIdx.x == 0)
        sums[0] = sums[1] = 0;
    __syncthreads();
    atomicAdd(&sums[0], count_re);
    atomicAdd(&sums[1], count_im);
    __syncthreads();
    if (threadIdx.x == 0) {
        row_popc[size_t(matrix) * rows + re] = sums[0];
        row_popc[size_t(matrix) * rows + im] = sums[1];
    }
}

class tensor_beamformer_cuda final : public tensor_beamformer_engine,
                                     public tensor_beamformer_gpu_extras
{
public:
    tensor_beamformer_cuda(const tensor_beamformer_config& c,
                           const std::vector<std::complex<float>>& weights,
                           const device_spec& dev,
                           const std::string& tile)
        : tensor_beamformer_engine(c), d_device(dev)
    {
        BF_GPU_CHECK(cudaSetDevice(dev.index));
        d_input = input_kind(c);
        choose_variant(tile);
        d_layout = make_operand_layout(
            c, size_t(d_variant->block_m), size_t(d_variant->block_k_bytes));
        if (d_layout.row_bytes / d_variant->block_k_bytes > size_t(1) << 30 ||
            d_layout.rows > size_t(1) << 30)
            throw std::invalid_argument(
                "tensor_beamformer: n_receivers or n_beams too large "
                "for the CUDA engine");
        d_weights = device_memory(dev, d_layout.total_bytes());
        if (c.precision == beam_precision::int1)
            d_row_popc = device_memory(dev, d_layout.total_rows() * sizeof(int32_t));
        BF_GPU_CHECK(cudaEventCreateWithFlags(&d_upload_done, cudaEventDisableTiming));
        BF_GPU_CHECK(cudaEventCreateWithFlags(&d_last_use, cudaEventDisableTiming));
        if (weights.empty()) {
            // Benchmark use: zero weights until fill_random_weights(). The
            // memsets run on the legacy stream: wait for them, so that no
            // execute() on a non-blocking stream can overtake them.
            BF_GPU_CHECK(cudaMemset(d_weights.get(), 0, d_weights.size()));
            if (d_row_popc.get())
                BF_GPU_CHECK(cudaMemset(d_row_popc.get(), 0, d_row_popc.size()));
            BF_GPU_CHECK(cudaDeviceSynchronize());
        } else {
            set_weights(weights);
        }
    }

    ~tensor_beamformer_cuda() override
    {
        cudaEventDestroy(d_upload_done);
        cudaEventDestroy(d_last_use);
    }

    void set_weights(const std::vector<std::complex<float>>& w) override
    {
        check_tensor_beamformer_weights(d_config, w);
        // The staging buffer may still feed the previous upload.
        if (d_upload_recorded)
            BF_GPU_CHECK(cudaEventSynchronize(d_upload_done));
        if (!d_staging.get()) {
            d_staging = pinned_memory(backend::cuda, d_layout.total_bytes());
            if (d_config.precision == beam_precision::int1)
                d_staging_popc =
                    pinned_memory(backend::cuda, d_layout.total_rows() * sizeof(int32_t));
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

    void execute(const void* in, void* out, size_t n_times, stream_handle stream) override
    {
        run(*d_variant, in, out, n_times, static_cast<cudaStream_t>(stream));
    }

    std::string tile() const override { return d_variant->tile; }
    size_t smem_bytes() const override { return d_smem; }

    void execute_fp16_input(const void* in,
                            void* out,
                            size_t n_times,
                            stream_handle stream) override
    {
        if (d_config.precision != beam_precision::float16 || is_xy(d_config) ||
            d_config.output != beam_output::voltage || d_config.n_receivers % 4 != 0)
            throw std::invalid_argument(
                "execute_fp16_input needs float16, single "
                "polarization, voltage output and n_receivers % 4 == 0");
        const tb_variant* v = nullptr;
        for (const auto& cand : tb_variants())
            if (cand.input == tb_input::fp16 && cand.tile == d_variant->tile)
                v = &cand;
        if (!v)
            throw std::runtime_error("no fp16-input kernel for tile " + d_variant->tile);
        v->allow_smem(int(d_smem));
        run(*v, in, out, n_times, static_cast<cudaStream_t>(stream));
    }

    void fill_random_weights(uint64_t seed) override
    {
        if (d_config.precision != beam_precision::int1)
            throw std::invalid_argument("fill_random_weights is for int1 weights");
        BF_GPU_CHECK(cudaSetDevice(d_device.index));
        if (d_used)
            BF_GPU_CHECK(cudaEventSynchronize(d_last_use));
        BF_GPU_CHECK(cudaMemset(d_weights.get(), 0, d_weights.size()));
        BF_GPU_CHECK(cudaMemset(d_row_popc.get(), 0, d_row_popc.size()));
        const dim3 grid(unsigned(d_config.n_beams),
                        unsigned(d_config.n_channels * d_layout.npol));
        random_int1_weights_kernel<<<grid, 256>>>(d_weights.as<uint32_t>(),
                                                  d_row_popc.as<int>(),
                                                  seed,
                                                  int(d_config.n_beams),
                                                  int(d_config.n_receivers),
                                                  int(d_layout.npol),
                                                  int(d_layout.rows),
                                                  int(d_layout.row_bytes / 4),
                                                  int(d_config.words_per_channel()));
        BF_GPU_CHECK_LAUNCH("random_int1_weights_kernel");
        BF_GPU_CHECK(cudaDeviceSynchronize());
        d_pending = false;
    }

private:
    void choose_variant(const std::string& requested)
    {
        const auto cands = candidates(d_config, d_input);
        if (cands.empty())
            throw std::runtime_error(
                "tensor_beamformer: no CUDA kernel compiled for this "
                "precision and polarization layout");
        std::string tile = requested;
        if (tile.empty()) {
            if (const char* path = std::getenv("BEAMFORM_TUNING_FILE")) {
                const auto entries = read_tuning_file(path);
                const auto it = entries.find(tensor_beamformer_tuning_key(d_config));
                if (it != entries.end())
                    tile = it->second;
            }
        }
        const size_t limit = device_smem_limit(d_device.index);
        auto usable = [&](const tb_variant* v) {
            return smem_for(*v, d_config) <= limit &&
                   (!v->needs_sm90a || tb_wgmma_available(d_device.index));
        };
        d_variant = nullptr;
        if (!tile.empty()) {
            for (const auto* v : cands)
                if (v->tile == tile && usable(v))
                    d_variant = v;
            if (!d_variant) {
                if (!requested.empty())
                    throw std::invalid_argument(
                        "tensor_beamformer: tile " + requested +
                        " is not compiled for this configuration, "
                        "needs too much shared memory, or needs "
                        "sm_90a (wgmma) that this GPU lacks");
                warn("tuning file tile '" + tile + "' for " +
                     tensor_beamformer_tuning_key(d_config) +
                     " is not usable here; using the built-in choice");
            }
        }
        if (!d_variant) {
            const std::string def = tensor_beamformer_default_tile(d_config);
            for (const auto* v : cands)
                if (v->tile == def && usable(v))
                    d_variant = v;
        }
        if (!d_variant) // the default needs too much shared memory: smallest that fits
            for (const auto* v : cands)
                if (!v->opt_in && usable(v) &&
                    (!d_variant ||
                     smem_for(*v, d_config) < smem_for(*d_variant, d_config)))
                    d_variant = v;
        if (!d_variant)
            throw std::runtime_error(
                "tensor_beamformer: no kernel fits this GPU's shared "
                "memory (power output with small n_int and IQUV needs "
                "the most)");
        d_smem = smem_for(*d_variant, d_config);
        d_variant->allow_smem(int(d_smem));
    }

    //! Weights set on the host since the last execute: copy them in stream order.
    void upload(cudaStream_t s)
    {
        if (!d_pending)
            return;
        if (d_used) // a kernel of this engine on another stream may still read them
            BF_GPU_CHECK(cudaStreamWaitEvent(s, d_last_use, 0));
        BF_GPU_CHECK(cudaMemcpyAsync(d_weights.get(),
                                     d_staging.get(),
                                     d_layout.total_bytes(),
                                     cudaMemcpyHostToDevice,
                                     s));
        if (d_config.precision == beam_precision::int1)
            BF_GPU_CHECK(cudaMemcpyAsync(d_row_popc.get(),
                                         d_staging_popc.get(),
                                         d_row_popc.size(),
                                         cudaMemcpyHostToDevice,
                                         s));
        BF_GPU_CHECK(cudaEventRecord(d_upload_done, s));
        d_upload_recorded = true;
        d_pending = false;
    }

    void
    run(const tb_variant& v, const void* in, void* out, size_t n_times, cudaStream_t s)
    {
        const auto& c = d_config;
        const bool power = c.output == beam_output::power;
        if (power && n_times % c.n_int != 0)
            throw std::invalid_argument(
                "n_times must be a multiple of n_int = " + std::to_string(c.n_int) +
                " in power mode, got " + std::to_string(n_times));
        if (n_times > size_t(1) << 30)
            throw std::invalid_argument("n_times must be at most 2^30 per execute()");
        if (n_times == 0)
            return;
        BF_GPU_CHECK(cudaSetDevice(d_device.index));
        upload(s);

        const size_t npol = d_layout.npol;
        const size_t words = c.words_per_channel();
        if (c.precision == beam_precision::int1) {
            const size_t need = n_times * c.n_channels * npol * sizeof(int);
            if (d_col_popc.size() < need) {
                if (d_used)
                    BF_GPU_CHECK(cudaEventSynchronize(d_last_use));
                d_col_popc = device_memory(d_device, need);
            } else if (d_used) // the previous call's kernel may run on another stream
                BF_GPU_CHECK(cudaStreamWaitEvent(s, d_last_use, 0));
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
                                                d_layout,
                                                v.block_m,
                                                v.block_n,
                                                v.block_k_bytes,
                                                n_times,
                                                d_weights.get(),
                                                in,
                                                out,
                                                d_row_popc.as<int>(),
                                                d_col_popc.as<int>());
        if (plan.zero_output_bytes) // windows that cross thread blocks are atomic sums
            BF_GPU_CHECK(cudaMemsetAsync(out, 0, plan.zero_output_bytes, s));
        if (plan.blocks >= (size_t(1) << 31))
            throw std::invalid_argument(
                "tensor_beamformer: batch too large for one launch; "
                "pass fewer time steps per execute()");
        v.launch(&plan.args, unsigned(plan.blocks), d_smem, s);
        BF_GPU_CHECK(cudaEventRecord(d_last_use, s));
        d_used = true;
    }

    device_spec d_device;
    tb_input d_input;
    const tb_variant* d_variant = nullptr;
    size_t d_smem = 0;
    tb_operand_layout d_layout;
    device_memory d_weights;
    device_memory d_row_popc;
    device_memory d_col_popc;
    pinned_memory d_staging;
    pinned_memory d_staging_popc;
    cudaEvent_t d_upload_done = nullptr;
    cudaEvent_t d_last_use = nullptr;
    bool d_pending = false;
    bool d_upload_recorded = false;
    bool d_used = false;
};

} // namespace

std::unique_ptr<tensor_beamformer_engine>
make_tensor_beamformer_gpu_tiled(const tensor_beamformer_config& config,
                                 const std::vector<std::complex<float>>& weights,
                                 const device_spec& device,
                                 const std::string& tile)
{
    config.validate();
    return std::make_unique<tensor_beamformer_cuda>(config, weights, device, tile);
}

std::unique_ptr<tensor_beamformer_engine>
make_tensor_beamformer_gpu(const tensor_beamformer_config& config,
                           const std::vector<std::complex<float>>& weights,
                           const device_spec& device)
{
    config.validate();
    check_tensor_beamformer_weights(config, weights);
    return std::make_unique<tensor_beamformer_cuda>(config, weights, device, "");
}

} // namespace cuda
} // namespace beamform
} // namespace gr
