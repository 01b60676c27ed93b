/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Internals of the CUDA tensor-core beamformer that the C++ tests and
 * apps/beamform_bench use beyond the engine interface: the compiled tile
 * variants, the tuning file, and a few benchmark-only entry points.
 *
 * Tuning file (BEAMFORM_TUNING_FILE=path, read when an engine is made):
 * plain "key = value" lines, '#' starts a comment. Keys name a shape class,
 *   <precision>.<polarization>.<output>.<size>   e.g. float16.single.power.rx_small
 * size: rx_small (receivers per polarization <= 128), rx_medium (<= 1024),
 * rx_large; values name a tile, BMxBNxBKB/WMxWN/STAGES, e.g.
 *   float16.single.voltage.rx_medium = 256x128x64/64x64/3
 * (BM rows (2 per beam) and BN time steps per thread block, BKB bytes of k
 * per pipeline stage, WM x WN per warp, STAGES shared-memory stages).
 * Unknown tiles or keys are reported on stderr and the built-in choice is used.
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_CUDA_H
#define INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_CUDA_H

#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <common/tensor_beamformer_layout.h>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace beamform {
namespace cuda {

//! How the kernel reads its samples.
enum class tb_input {
    fc32_vec2,   //!< fc32, 2 complex per 16-byte load (R even)
    fc32_vec1,   //!< fc32, 1 complex per load (R odd)
    fc32_xy,     //!< fc32, X/Y split at load time (xy_pairs)
    fp16,        //!< interleaved complex fp16 (benchmark GEMM core only)
    bits_wide,   //!< packed bits, 16-byte copies (2*words % 4 == 0)
    bits_narrow, //!< packed bits, 4-byte copies
};

//! One compiled kernel: a tile shape for one precision, layout and input.
struct tb_variant {
    std::string tile; //!< "BMxBNxBKB/WMxWN/STAGES"
    beam_precision precision;
    polarization_layout polarization;
    tb_input input;
    int block_m;
    int block_n;
    int block_k_bytes;
    int threads;
    int pipeline_smem_bytes;
    void (*launch)(const void* kernel_args, unsigned blocks, size_t smem, void* stream);
    void (*allow_smem)(int bytes);
    bool opt_in =
        false; //!< never the built-in choice (tuning file or explicit tile only)
    bool needs_sm90a = false; //!< wgmma: compute capability 9.0 with the sm_90a image
};

//! Every compiled variant.
const std::vector<tb_variant>& tb_variants();
void tb_register_fp16_variants(std::vector<tb_variant>& v);
void tb_register_int1_variants(std::vector<tb_variant>& v);
void tb_register_wgmma_variants(std::vector<tb_variant>& v);
//! Whether the wgmma (sm_90a) kernels run on this device.
bool tb_wgmma_available(int device);
//! wgmma m64n256 peak in TOPs/s (fp16 k16 or b1 AND k256), no global memory; 0 if
//! unavailable.
double tb_wgmma_peak_tops(int device, bool int1);

//! Tile names compiled for this configuration's precision and layout
//! (wgmma tiles, "...x128/wgmma/S", included; see tb_wgmma_available).
std::vector<std::string> tensor_beamformer_tiles(const tensor_beamformer_config& config);
//! The tuning-file key of this configuration's shape class.
std::string tensor_beamformer_tuning_key(const tensor_beamformer_config& config);
//! The tile the engine picks by itself (built-in rule; no tuning file).
std::string tensor_beamformer_default_tile(const tensor_beamformer_config& config);

//! make_tensor_beamformer_gpu with a given tile ("" = tuning file or default).
//! Benchmark use: \p weights may be empty (then fill_random_weights()).
std::unique_ptr<tensor_beamformer_engine>
make_tensor_beamformer_gpu_tiled(const tensor_beamformer_config& config,
                                 const std::vector<std::complex<float>>& weights,
                                 const device_spec& device,
                                 const std::string& tile);

//! What the CUDA engine offers beyond tensor_beamformer_engine (dynamic_cast).
class tensor_beamformer_gpu_extras
{
public:
    virtual ~tensor_beamformer_gpu_extras() = default;
    virtual std::string tile() const = 0;
    //! Shared memory per block of the chosen kernel, registers are in the build log.
    virtual size_t smem_bytes() const = 0;
    /*!
     * The GEMM core on interleaved complex fp16 samples [T][C][R] (float16,
     * single polarization, voltage output, R a multiple of 4): what the
     * benchmark compares with one cuBLAS HGEMM.
     */
    virtual void execute_fp16_input(const void* in,
                                    void* out,
                                    size_t n_times,
                                    stream_handle stream) = 0;
    /*!
     * Weights drawn on the device (int1 benchmark, where the host weight
     * array would be tens of GB): the sign bits of weight (c, b, r) are
     * tb::random_weight_bits(seed, c, b, r). Takes effect at once (synchronous).
     */
    virtual void fill_random_weights(uint64_t seed) = 0;
};

} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
