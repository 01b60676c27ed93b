/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the C++ tests and apps/beamform_bench need of the CUDA tensor-core
 * beamformer beyond tensor_beamformer_engine (library beamform-testing, CUDA
 * builds only): the compiled tiles, engines forced onto one tile, the
 * fp16-input GEMM core, weights drawn on the device, and the wgmma peak.
 * The tuning file is described in tensor_beamformer_tuning.h.
 */
#ifndef INCLUDED_BEAMFORM_TESTING_TENSOR_BEAMFORMER_TESTING_H
#define INCLUDED_BEAMFORM_TESTING_TENSOR_BEAMFORMER_TESTING_H

#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace beamform {
namespace tb_testing {

//! Tile names compiled for this configuration's precision and layout
//! (wgmma tiles, "...x128/wgmma/S", included; see wgmma_available).
std::vector<std::string> compiled_tiles(const tensor_beamformer_config& config);
//! The tuning-file key of this configuration's shape class on \p device
//! ("<device name>/<shape class>").
std::string tuning_key(const tensor_beamformer_config& config, int device);
//! The shape class alone (the key of tuning files without device names).
std::string shape_class(const tensor_beamformer_config& config);
//! The name of \p device as the tuning file keys it.
std::string device_name(int device);
//! The library voltage path's name among the tiles: "cublas".
const char* library_path();
//! The compute capability's major number of \p device (the built-in rule's input).
int compute_capability_major(int device);
//! Whether the library voltage path computes this configuration (float16,
//! voltage output, GEMM dimensions within 32-bit ints).
bool library_path_covers(const tensor_beamformer_config& config);
//! The mma.sync tile of the built-in rule (cuda::tensor_beamformer_default_tile).
std::string default_tile(const tensor_beamformer_config& config);
/*!
 * The built-in choice with the kernel family forced: \p variant "resident"
 * (the short-k resident-weights kernel wherever one covers k; otherwise the
 * pipelined choice) or "pipelined", as BEAMFORM_TB_VARIANT would.
 */
std::string default_tile(const tensor_beamformer_config& config,
                         const std::string& variant);
//! The tile the engine picks by itself on \p device without a tuning file
//! (the Hopper wgmma tile where it applies; cuda::tensor_beamformer_builtin_tile).
std::string builtin_tile(const tensor_beamformer_config& config, int device);
//! The same without the library path (the kernel tile of the built-in rule).
std::string builtin_kernel_tile(const tensor_beamformer_config& config, int device);
//! The wgmma tile preferred on Hopper for this configuration ("" if none), for
//! fc32 samples or, with \p fp16_input, the benchmark's fp16 samples.
std::string hopper_tile(const tensor_beamformer_config& config, bool fp16_input);
//! Whether make_gpu_tiled(config, ..., tile) can run on \p device: compiled for
//! the configuration, enough shared memory (the resident-weights tiles need
//! (BM + 2 BN) x the weight row), sm_90a for wgmma; "cublas":
//! library_path_covers.
bool tile_usable(const tensor_beamformer_config& config,
                 int device,
                 const std::string& tile);
//! Whether the wgmma (sm_90a) kernels run on this device.
bool wgmma_available(int device);
//! wgmma m64n256 peak in TOPs/s (fp16 k16 or b1 AND k256), no global memory; 0 if
//! unavailable.
double wgmma_peak_tops(int device, bool int1);

/*!
 * The CUDA engine on a given tile ("" = tuning file or default, as
 * make_tensor_beamformer_gpu; "cublas" = the library voltage path, whose
 * std::invalid_argument outside float16 voltage output names the tiles
 * accepted instead). Benchmark use: \p weights may be empty (then zero
 * weights until fill_random_weights()).
 */
std::unique_ptr<tensor_beamformer_engine>
make_gpu_tiled(const tensor_beamformer_config& config,
               const std::vector<std::complex<float>>& weights,
               const device_spec& device,
               const std::string& tile);

//! The tile of a CUDA engine, "cublas" for the library voltage path
//! (std::invalid_argument for other engines).
std::string tile(const tensor_beamformer_engine& engine);
//! Shared memory per block of its kernel, registers are in the build log
//! (std::invalid_argument for the library path).
size_t smem_bytes(const tensor_beamformer_engine& engine);

/*!
 * The GEMM core on interleaved complex fp16 samples [T][C][R] (float16,
 * single polarization, voltage output, R a multiple of 4): what the
 * benchmark compares with one cuBLAS HGEMM.
 */
void execute_fp16_input(tensor_beamformer_engine& engine,
                        const void* in,
                        void* out,
                        size_t n_times,
                        stream_handle stream);

/*!
 * Weights drawn on the device (int1 benchmark, where the host weight
 * array would be tens of GB): the sign bits of weight (c, b, r) are
 * tb::random_weight_bits(seed, c, b, r). Takes effect at once (synchronous).
 */
void fill_random_weights(tensor_beamformer_engine& engine, uint64_t seed);
//! The sign bits (bit 0 real, bit 1 imaginary part) of the int1 weight
//! (c, b, r) that fill_random_weights(seed) draws, for checks on the host.
unsigned random_weight_bits(uint64_t seed, size_t c, size_t b, size_t r);

//! IEEE half from float, round to nearest even (as the engine expands weights).
uint16_t float_to_half_bits(float f);

} // namespace tb_testing
} // namespace beamform
} // namespace gr

#endif
