/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The compiled tile variants of the CUDA tensor-core beamformer and the
 * choice among them and the library voltage path ("cublas",
 * tensor_beamformer_library_path.h): the tuning file's entry for the GPU and
 * the configuration's shape class (tensor_beamformer_tuning.h), else the
 * built-in rule, else the smallest tile that fits the GPU's shared memory.
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_TILES_CUDA_H
#define INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_TILES_CUDA_H

#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <complex>
#include <cstddef>
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
    /*!
     * Resident-weights (short-k) kernel: its shared memory depends on the k of
     * the configuration (tb_smem_for), it covers rows of at most max_k_bytes,
     * and it is launched persistent: min(items, SMs x blocks_per_sm(smem))
     * blocks (tb_resident_blocks). nullptr for the other kernels.
     */
    int (*blocks_per_sm)(size_t smem) = nullptr;
    size_t max_k_bytes = 0; //!< 0: any k
    /*!
     * Warp-specialised kernel (tensor_beamformer_ws_kernel.cuh): its power
     * sums have shared memory of their own next to the ring; persistent
     * launch inside the variant's launch function.
     */
    bool warp_specialised = false;
    //! Samples copied by TMA: their rows must be multiples of 16 bytes.
    bool tma_samples = false;
    /*!
     * fc32 samples converted to fp16 rows of the weights' padded k by a
     * streaming pass first (kernels/gpu/float16_gemm_input.cuh, counting the
     * float16 range as it reads), which the kernel then reads by TMA: a
     * warp-specialised tile whose name ends in "+pass".
     */
    bool fp16_pass = false;
    /*!
     * The same conversion run inside the kernel by spare warps beside the
     * product ("+ipass", tensor_beamformer_ws_inline_pass.cuh): the fp16 rows
     * as for fp16_pass, and a counter per (channel, time tile) and the
     * frontier, zeroed before the launch (kernel_args::pass_ready).
     */
    bool inline_pass = false;
    /*!
     * Warp-specialised kernel with the samples of a (channel, time tile)
     * resident in shared memory for all its row tiles ("+rs",
     * tensor_beamformer_ws_resident_kernel.cuh): its shared memory grows by
     * block_n x the padded row bytes per polarization (tb_smem_for).
     */
    bool samples_resident = false;
    //! X/Y pairs' power windows of 1, 2 and 4 steps summed in registers ("+sw";
    //! single polarization's always are): no power sums in shared memory there.
    bool xy_short_windows = false;
    //! Its dynamic shared memory for npol x k tiles of resident samples (the
    //! kernel's own count: sample sets, "+db"'s raw stages, ring, barriers;
    //! the power sums come on top).
    size_t (*resident_smem_bytes)(int sample_tiles) = nullptr;
    /*!
     * The kernel counts the float16 range of its fc32 input as it converts it
     * (kernel_args::range_counts; each value converted once): no separate
     * counting pass before it.
     */
    bool counts_range = false;
    //! The float16 range is counted on the way (the "+pass" pass or the
    //! kernel), so execute() runs no counting pass.
    bool counts_range_on_the_way() const { return fp16_pass || counts_range; }
};

//! Every compiled variant.
const std::vector<tb_variant>& tb_variants();
void tb_register_fp16_variants(std::vector<tb_variant>& v);
void tb_register_int1_variants(std::vector<tb_variant>& v);
void tb_register_wgmma_variants(std::vector<tb_variant>& v);
void tb_register_resident_variants(std::vector<tb_variant>& v);
void tb_register_ws_variants(std::vector<tb_variant>& v);
//! Whether the wgmma (sm_90a) kernels run on this device.
bool tb_wgmma_available(int device);

//! How this configuration's samples are read.
tb_input tb_input_kind(const tensor_beamformer_config& config);
//! Whether variant \p v can compute this configuration at all (k not too long,
//! sample rows that TMA can copy).
bool tb_covers(const tb_variant& v, const tensor_beamformer_config& config);
//! The variants compiled for this configuration's precision and layout and \p input
//! that cover it.
std::vector<const tb_variant*> tb_candidates(const tensor_beamformer_config& config,
                                             tb_input input);
//! Dynamic shared memory of a variant for this configuration.
size_t tb_smem_for(const tb_variant& v, const tensor_beamformer_config& config);
//! Whether variant \p v's epilogue sums this configuration's power windows in
//! registers only (n_int 1, 2, 4: single polarization, or "+sw").
bool tb_short_windows_in_registers(const tb_variant& v,
                                   const tensor_beamformer_config& config);

/*!
 * The mma.sync tile for this configuration (no tuning file, no Hopper
 * preference): the first pipelined tile in list order whose beam padding is
 * within 10% of the least. BEAMFORM_TB_VARIANT=resident picks the
 * resident-weights (short-k) kernel instead wherever a resident tile covers k
 * (float16, single polarization, at most 128 receivers); =pipelined keeps this
 * rule and also turns off the Hopper preference of
 * tensor_beamformer_builtin_tile. =ws makes tensor_beamformer_builtin_kernel_tile
 * take the first warp-specialised (TMA) tile this GPU runs. =cublas is the library path's
 * (tensor_beamformer_builtin_tile; here it keeps this rule).
 * std::invalid_argument for any other value.
 */
std::string tensor_beamformer_default_tile(const tensor_beamformer_config& config);
//! The same with \p variant ("resident", "pipelined" or "") in place of the
//! environment variable.
std::string tensor_beamformer_default_tile(const tensor_beamformer_config& config,
                                           const std::string& variant);

/*!
 * The sm_90a tile (wgmma or warp-specialised) preferred on Hopper, "" where there is
 * none for this configuration and input, or where the mma.sync tile measured faster
 * (float16 single-polarization power of fewer than 32 receivers and 128 beams): the warp-specialised
 * 128x256x128/ws/4 where TMA copies the samples (fp16 samples, int1 bits of
 * 16-byte rows), 128x256x128/ws/4+pass for float16 fc32 samples from 128
 * receivers on (converted to fp16 first), else 256x128x128/wgmma/4.
 */
std::string tensor_beamformer_hopper_tile(const tensor_beamformer_config& config,
                                          tb_input input);

/*!
 * The tile the engine picks by itself on \p device when no tuning file names
 * one: "cublas" (the library voltage path) where tb_library_path_preferred
 * holds and BEAMFORM_TB_VARIANT is unset (also for X/Y voltage that no
 * resident-samples tile covers on a GPU running the sm_90a image), or wherever the library path
 * computes the configuration with BEAMFORM_TB_VARIANT=cublas; else the Hopper
 * tile where the GPU runs the sm_90a image and BEAMFORM_TB_VARIANT is unset or
 * cublas (measured faster than the mma.sync tiles for every float16
 * configuration of beamform_bench on the H100), else
 * tensor_beamformer_default_tile.
 */
std::string tensor_beamformer_builtin_tile(const tensor_beamformer_config& config,
                                           int device);
//! The same without the library path: the kernel tile of the built-in rule.
std::string tensor_beamformer_builtin_kernel_tile(const tensor_beamformer_config& config,
                                                  int device);

/*!
 * The variant named \p tile for this configuration that \p device can run
 * (shared memory, sm_90a for wgmma), or nullptr.
 */
const tb_variant* tb_usable_variant(const tensor_beamformer_config& config,
                                    int device,
                                    const std::string& tile);

/*!
 * The name of the engine's device as the tuning file keys it (the CUDA
 * device name, e.g. "NVIDIA H100 80GB HBM3").
 */
std::string tb_device_name(int device);

//! Whether \p tile (a kernel tile, or "cublas": the library voltage path)
//! computes this configuration on \p device.
bool tb_path_usable(const tensor_beamformer_config& config,
                    int device,
                    const std::string& tile);

/*!
 * The engine's choice for \p device, a kernel tile or "cublas": the tuning
 * file's entry for this device and shape class (a warning if it is not
 * usable), else tensor_beamformer_builtin_tile, else the smallest non-opt-in
 * tile that fits. std::runtime_error if none is compiled or fits.
 */
std::string tb_choose_tile(const tensor_beamformer_config& config, int device);

/*!
 * The CUDA engine on \p tile (usable: tb_path_usable): the fused kernel
 * engine (tensor_beamformer_cuda.h) or, for "cublas", the library voltage
 * path (tensor_beamformer_cublas_cuda.h). std::invalid_argument otherwise.
 */
std::unique_ptr<tensor_beamformer_engine>
make_tensor_beamformer_cuda(const tensor_beamformer_config& config,
                            const std::vector<std::complex<float>>& weights,
                            const device_spec& device,
                            const std::string& tile);

} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
