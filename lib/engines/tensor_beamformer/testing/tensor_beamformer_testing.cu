/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "../tensor_beamformer_cublas_cuda.h"
#include "../tensor_beamformer_cuda.h"
#include "../tensor_beamformer_library_path.h"
#include "../tensor_beamformer_tuning.h"
#include "tensor_beamformer_testing.h"
#include <stdexcept>

namespace gr {
namespace beamform {
namespace cuda {

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

} // namespace

//! The engine's insides that the hooks below use.
struct tb_engine_access {
    //! The fused kernel engine; std::invalid_argument for the library path's
    //! (it has no tile variant, no fp16-input form and no int1 weights).
    static tensor_beamformer_cuda& of(tensor_beamformer_engine& e)
    {
        auto* fused = dynamic_cast<tensor_beamformer_cuda*>(&e);
        if (!fused)
            throw std::invalid_argument(
                "this test hook needs the fused kernel engine, not the library "
                "voltage path ('cublas') or another device's engine");
        return *fused;
    }
    static const tensor_beamformer_cuda& of(const tensor_beamformer_engine& e)
    {
        return of(const_cast<tensor_beamformer_engine&>(e));
    }

    //! Zero weights, for an engine made without any. The memsets run on the
    //! legacy stream: wait for them, so that no execute() on a non-blocking
    //! stream can overtake them.
    static void zero_weights(tensor_beamformer_cuda& e)
    {
        const auto& w = e.d_w.weights();
        const auto& popc = e.d_w.row_popc();
        BF_GPU_CHECK(cudaMemset(w.get(), 0, w.size()));
        if (popc.get())
            BF_GPU_CHECK(cudaMemset(popc.get(), 0, popc.size()));
        BF_GPU_CHECK(cudaDeviceSynchronize());
    }

    static void execute_fp16_input(tensor_beamformer_cuda& e,
                                   const void* in,
                                   void* out,
                                   size_t n_times,
                                   stream_handle stream)
    {
        const auto& c = e.d_config;
        if (c.precision != beam_precision::float16 ||
            c.polarization == polarization_layout::xy_pairs ||
            c.output != beam_output::voltage || c.n_receivers % 4 != 0)
            throw std::invalid_argument(
                "execute_fp16_input needs float16, single "
                "polarization, voltage output and n_receivers % 4 == 0");
        const tb_variant* v = nullptr;
        for (const auto& cand : tb_variants())
            if (cand.input == tb_input::fp16 && cand.tile == e.d_variant->tile)
                v = &cand;
        if (!v)
            throw std::runtime_error("no fp16-input kernel for tile " +
                                     e.d_variant->tile);
        v->allow_smem(int(e.d_smem));
        e.run(*v, in, out, n_times, static_cast<cudaStream_t>(stream));
    }

    static void fill_random_weights(tensor_beamformer_cuda& e, uint64_t seed)
    {
        const auto& c = e.d_config;
        if (c.precision != beam_precision::int1)
            throw std::invalid_argument("fill_random_weights is for int1 weights");
        BF_GPU_CHECK(cudaSetDevice(e.d_device.index));
        e.d_w.sync_last_use();
        const auto& layout = e.d_w.layout();
        const auto& w = e.d_w.weights();
        const auto& popc = e.d_w.row_popc();
        BF_GPU_CHECK(cudaMemset(w.get(), 0, w.size()));
        BF_GPU_CHECK(cudaMemset(popc.get(), 0, popc.size()));
        const dim3 grid(unsigned(c.n_beams), unsigned(c.n_channels * layout.npol));
        random_int1_weights_kernel<<<grid, 256>>>(w.as<uint32_t>(),
                                                  popc.as<int>(),
                                                  seed,
                                                  int(c.n_beams),
                                                  int(c.n_receivers),
                                                  int(layout.npol),
                                                  int(layout.rows),
                                                  int(layout.row_bytes / 4),
                                                  int(c.words_per_channel()));
        BF_GPU_CHECK_LAUNCH("random_int1_weights_kernel");
        BF_GPU_CHECK(cudaDeviceSynchronize());
        e.d_w.drop_pending();
    }
};

} // namespace cuda

namespace tb_testing {

using cuda::tb_engine_access;

std::vector<std::string> compiled_tiles(const tensor_beamformer_config& c)
{
    std::vector<std::string> names;
    for (const auto* v : cuda::tb_candidates(c, cuda::tb_input_kind(c)))
        names.push_back(v->tile);
    return names;
}

std::string tuning_key(const tensor_beamformer_config& c, int device)
{
    return cuda::tensor_beamformer_tuning_key(c, cuda::tb_device_name(device));
}

std::string shape_class(const tensor_beamformer_config& c)
{
    return cuda::tensor_beamformer_shape_class(c);
}

std::string device_name(int device) { return cuda::tb_device_name(device); }

const char* library_path() { return tb_library_path_name; }

int compute_capability_major(int device)
{
    int major = 0;
    BF_GPU_CHECK(
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    return major;
}

bool library_path_covers(const tensor_beamformer_config& c)
{
    return tb_library_path_covers(c);
}

std::string default_tile(const tensor_beamformer_config& c)
{
    return cuda::tensor_beamformer_default_tile(c);
}

std::string default_tile(const tensor_beamformer_config& c, const std::string& variant)
{
    return cuda::tensor_beamformer_default_tile(c, variant);
}

std::string builtin_tile(const tensor_beamformer_config& c, int device)
{
    return cuda::tensor_beamformer_builtin_tile(c, device);
}

std::string builtin_kernel_tile(const tensor_beamformer_config& c, int device)
{
    return cuda::tensor_beamformer_builtin_kernel_tile(c, device);
}

std::string hopper_tile(const tensor_beamformer_config& c, bool fp16_input)
{
    return cuda::tensor_beamformer_hopper_tile(
        c, fp16_input ? cuda::tb_input::fp16 : cuda::tb_input_kind(c));
}

bool tile_usable(const tensor_beamformer_config& c, int device, const std::string& tile)
{
    return cuda::tb_path_usable(c, device, tile);
}

bool wgmma_available(int device) { return cuda::tb_wgmma_available(device); }

std::unique_ptr<tensor_beamformer_engine>
make_gpu_tiled(const tensor_beamformer_config& config,
               const std::vector<std::complex<float>>& weights,
               const device_spec& device,
               const std::string& tile)
{
    config.validate();
    std::string chosen = tile;
    if (chosen.empty()) {
        chosen = cuda::tb_choose_tile(config, device.index);
    } else if (chosen == tb_library_path_name) {
        std::string accepted;
        for (const auto& t : compiled_tiles(config))
            accepted += (accepted.empty() ? "" : ", ") + t;
        tb_check_library_path(config, accepted);
    } else {
        if (cuda::tb_candidates(config, cuda::tb_input_kind(config)).empty())
            throw std::runtime_error("tensor_beamformer: no CUDA kernel compiled for "
                                     "this precision and polarization layout");
    }
    auto engine = cuda::make_tensor_beamformer_cuda(config, weights, device, chosen);
    if (weights.empty()) {
        if (auto* library = dynamic_cast<cuda::tensor_beamformer_cublas*>(engine.get()))
            library->zero_weights();
        else
            tb_engine_access::zero_weights(tb_engine_access::of(*engine));
    }
    return engine;
}

std::string tile(const tensor_beamformer_engine& engine)
{
    if (dynamic_cast<const cuda::tensor_beamformer_cublas*>(&engine))
        return tb_library_path_name;
    return tb_engine_access::of(engine).variant().tile;
}

size_t smem_bytes(const tensor_beamformer_engine& engine)
{
    return tb_engine_access::of(engine).smem_bytes();
}

void execute_fp16_input(tensor_beamformer_engine& engine,
                        const void* in,
                        void* out,
                        size_t n_times,
                        stream_handle stream)
{
    tb_engine_access::execute_fp16_input(
        tb_engine_access::of(engine), in, out, n_times, stream);
}

void fill_random_weights(tensor_beamformer_engine& engine, uint64_t seed)
{
    tb_engine_access::fill_random_weights(tb_engine_access::of(engine), seed);
}

unsigned random_weight_bits(uint64_t seed, size_t c, size_t b, size_t r)
{
    return tb::random_weight_bits(seed, c, b, r);
}

uint16_t float_to_half_bits(float f) { return beamform::float_to_half_bits(f); }

} // namespace tb_testing
} // namespace beamform
} // namespace gr
