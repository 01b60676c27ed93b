/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "tensor_beamformer_cublas_cuda.h"
#include "tensor_beamformer_input_range.h"
#include <cublas_v2.h>
#include <gpu/float16_gemm_input.cuh>
#include <stdexcept>
#include <string>

namespace gr {
namespace beamform {
namespace cuda {

namespace {

void check_cublas(cublasStatus_t status, const char* what)
{
    if (status != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string("tensor_beamformer: cuBLAS ") + what +
                                 " failed: " + cublasGetStatusString(status));
}

//! cuBLAS's workspace: 32 MiB from Hopper on, 4 MiB before (cuBLAS's advice).
size_t cublas_workspace_bytes(int device)
{
    int major = 0;
    BF_GPU_CHECK(
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    return size_t(major >= 9 ? 32 : 4) << 20;
}

const tensor_beamformer_config& checked(const tensor_beamformer_config& c)
{
    tb_check_library_path(c);
    return c;
}

} // namespace

tensor_beamformer_cublas::tensor_beamformer_cublas(
    const tensor_beamformer_config& c,
    const std::vector<std::complex<float>>& weights,
    const device_spec& dev)
    : tensor_beamformer_engine(checked(c)),
      d_device(tb_make_current(dev)),
      d_gemm(tb_library_gemm(c)),
      d_w(dev, c, make_library_layout(c)),
      d_input_range(std::make_unique<tb_input_range>(dev)),
      d_workspace(dev, cublas_workspace_bytes(dev.index))
{
    cublasHandle_t h = nullptr;
    check_cublas(cublasCreate(&h), "cublasCreate");
    d_cublas = h;
    if (!weights.empty())
        set_weights(weights);
}

tensor_beamformer_cublas::~tensor_beamformer_cublas()
{
    if (d_cublas) {
        (void)cudaSetDevice(d_device.index);
        (void)cublasDestroy(d_cublas);
    }
}

float16_range_counts tensor_beamformer_cublas::input_range(bool include_latest) const
{
    return d_input_range->totals(include_latest);
}

void tensor_beamformer_cublas::set_weights(const std::vector<std::complex<float>>& w)
{
    d_w.stage(w);
}

void tensor_beamformer_cublas::zero_weights()
{
    BF_GPU_CHECK(cudaSetDevice(d_device.index));
    d_w.sync_last_use();
    BF_GPU_CHECK(cudaMemset(d_w.weights().get(), 0, d_w.weights().size()));
    BF_GPU_CHECK(cudaDeviceSynchronize());
    d_w.drop_pending();
}

void tensor_beamformer_cublas::execute(const void* in,
                                       void* out,
                                       size_t n_times,
                                       stream_handle stream)
{
    const auto& c = d_config;
    check_gpu_tensor_beamformer_times(c, n_times);
    if (n_times == 0)
        return;
    const auto s = static_cast<cudaStream_t>(stream);
    BF_GPU_CHECK(cudaSetDevice(d_device.index));
    d_w.upload(s);

    // The workspaces may still feed the previous call's GEMM (another stream).
    const size_t n_rows = n_times * c.n_channels;
    const size_t need = n_rows * d_gemm.k_padded * sizeof(uint16_t);
    if (d_x16.size() < need) {
        d_w.sync_last_use();
        d_x16 = device_memory(d_device, need);
    } else
        d_w.wait_last_use(s);

    launch_fc32_to_fp16_rows(in,
                             d_x16.get(),
                             n_rows,
                             unsigned(c.n_receivers),
                             unsigned(d_gemm.k_padded / 2),
                             d_input_range->device_counts(s),
                             s);

    // cublasSetStream resets the workspace to cuBLAS's pool: set ours after it.
    check_cublas(cublasSetStream(d_cublas, s), "cublasSetStream");
    check_cublas(cublasSetWorkspace(d_cublas, d_workspace.get(), d_workspace.size()),
                 "cublasSetWorkspace");
    const float alpha = 1.0f, beta = 0.0f; // beta 0: the output is not read
    const auto& g = d_gemm;
    check_cublas(cublasGemmStridedBatchedEx(d_cublas,
                                            CUBLAS_OP_N,
                                            CUBLAS_OP_N,
                                            int(g.m),
                                            int(n_times),
                                            int(g.k_padded),
                                            &alpha,
                                            d_w.weights().get(),
                                            CUDA_R_16F,
                                            int(g.lda),
                                            (long long)(g.lda * g.k_padded),
                                            d_x16.get(),
                                            CUDA_R_16F,
                                            int(g.ldb),
                                            (long long)g.k_padded,
                                            &beta,
                                            out,
                                            CUDA_R_32F,
                                            int(g.ldc),
                                            (long long)g.m,
                                            int(c.n_channels),
                                            CUBLAS_COMPUTE_32F,
                                            CUBLAS_GEMM_DEFAULT),
                 "cublasGemmStridedBatchedEx");
    d_input_range->publish(s);
    d_w.record_use(s);
}

} // namespace cuda
} // namespace beamform
} // namespace gr
