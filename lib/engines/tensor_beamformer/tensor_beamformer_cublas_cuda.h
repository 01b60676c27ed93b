/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The library voltage path of the CUDA tensor beamformer (float16, voltage
 * output; tensor_beamformer_library_path.h): per execute(), on the caller's
 * stream and without waiting on the host,
 *   1. an fc32 -> fp16 pass of the input into an engine-owned workspace
 *      X16 [T][C][k_padded] halves (kernels/gpu/float16_gemm_input.cuh; it
 *      also counts the float16 range, so the input is read once);
 *   2. one cublasGemmStridedBatchedEx, batch = channel c (fp16 in, fp32
 *      compute and out), column-major in cuBLAS's terms:
 *        D_c (m x T) = op(A_c) (m x k) . X_c (k x T)
 *        A_c: the expanded weights, column-major [k_padded][lda] per
 *             channel (lda = m rounded up to 8): CUBLAS_OP_N, strideA =
 *             lda k_padded. (Row-major weights with CUBLAS_OP_T ran cuBLAS's
 *             "TN" kernel, 1 % slower than the "NN" one on an H200 at 64
 *             receivers: apps/beamform_bench.md, session 21.)
 *        X_c: column t at X16 + (t C + c) k_padded: CUBLAS_OP_N,
 *             ldb = C k_padded, strideB = k_padded;
 *        D_c: column t at out + (t C + c) m floats: ldc = C m, strideC = m,
 *             i.e. the engine's documented voltage item [C][B] complex
 *             (xy_pairs: [C][B][2] complex), written in place: no extra pass.
 *      m = 2 B (xy_pairs 4 B: rows 4b + 2p + q); the GEMM's k is k_padded
 *      (2 R rounded up to 8; the padding is 0 in both operands).
 * The cuBLAS handle is the engine's, bound to the stream of each call
 * (cublasSetStream) with an engine-owned cuBLAS workspace (so cuBLAS never
 * allocates inside execute()). The fp16 workspace grows on the first call and
 * on a call with more time steps than any before (cudaMalloc, which waits, as
 * the fused engine's int1 scratch does); steady calls of a bounded size never
 * wait on the host. Weights are expanded at set_weights() and uploaded in
 * stream order (tensor_beamformer_weights.h).
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_CUBLAS_CUDA_H
#define INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_CUBLAS_CUDA_H

#include "tensor_beamformer_library_path.h"
#include "tensor_beamformer_weights.h"
#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <memory>

struct cublasContext; // cublasHandle_t, without cuBLAS's header here

namespace gr {
namespace beamform {
namespace cuda {

class tb_input_range; // tensor_beamformer_input_range.h, CUDA sources only

class tensor_beamformer_cublas final : public tensor_beamformer_engine
{
public:
    //! std::invalid_argument where tb_library_path_covers(c) is false.
    //! \p weights empty: the device weights are left as allocated (unset).
    tensor_beamformer_cublas(const tensor_beamformer_config& c,
                             const std::vector<std::complex<float>>& weights,
                             const device_spec& dev);
    ~tensor_beamformer_cublas() override;

    void set_weights(const std::vector<std::complex<float>>& w) override;
    void
    execute(const void* in, void* out, size_t n_times, stream_handle stream) override;
    float16_range_counts input_range(bool include_latest) const override;

    //! Zero weights (benchmark engines made without any); waits on the host.
    void zero_weights();

private:
    device_spec d_device;
    tb_library_gemm_shape d_gemm;
    tb_device_weights d_w;
    std::unique_ptr<tb_input_range> d_input_range;
    device_memory d_x16;       // the fp16 samples, grown to the largest call
    device_memory d_workspace; // cuBLAS's
    cublasContext* d_cublas = nullptr;
};

} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
