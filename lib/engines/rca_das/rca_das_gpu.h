/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rca_das GPU engine with its kernel choices exposed: for the GPU tests
 * and apps/rca_bench's tuning sweep (private to the source tree; the engine
 * library's users get the defaults through rca_das_engine::make).
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_RCA_DAS_GPU_H
#define INCLUDED_BEAMFORM_ENGINES_RCA_DAS_GPU_H

#include "runtime/backends.h"
#include <gnuradio/beamform/engines/rca_das_engine.h>

namespace gr {
namespace beamform {

/*!
 * GPU kernel choices, for the benchmark's tuning sweep; 0 (or -1 for
 * multi_pixel and kernel_variant) keeps the engine's default.
 */
struct rca_das_gpu_tuning {
    //! Warps per block x frames per warp: (4, 8), (4, 4), (4, 1), (8, 4), (8, 2), (16, 2), (16, 1),
    //! (6, 8), (12, 8)
    int stage1_warps = 0;
    int stage1_batch = 0;     //!< emissions per warp in stage 1
    int stage2_warps = 0;
    int stage2_batch = 0;     //!< lateral planes per warp in stage 2
    int stage1_tile_z = 0;    //!< of a block's 32 pixel groups, how many along z (1..32, divides 32)
    int stage2_tile_elev = 0; //!< of a block's 32 voxel groups, how many along elevation
    int multi_pixel = -1;     //!< -1: three pixels per group, 0: one
    //! Arithmetic of the stages' frame loop (rca::stage_variant): -1 the
    //! engine's choice (rca_das_config::gpu_precision float16: 4 for I/Q, 3 for
    //! real; float32: 1 where built for the shapes, else 0), 0 reference,
    //! 1 folded (real processing: apodization in the weights; I/Q: as 0),
    //! 2 half2 (I/Q dual-stage with int16 input: half2 storage and interpolation),
    //! 3 half2_real (real dual-stage with int16 input: half storage, two frames
    //! per HFMA2, folded apodization), 4 half2_pipelined (as 2, the next term's
    //! loads issued before this term's FMAs), 5 half2_sectors (as 4, bit for
    //! bit, on data stored with eight frames side by side per sample: one
    //! 16-byte load per window slot for four frames), 6 half2_mixed (bit for
    //! bit as 4 and 5: stage 1 as 4, its images stored in 5's octets, stage 2
    //! as 5). 3 and 4: not for 12 x 8; 5 and 6: 4 x 8 and 6 x 8 only.
    int kernel_variant = -1;
};

BEAMFORM_DECLARE_GPU_MAKER(rca_das_engine,
                           make_rca_das_gpu,
                           const rca_das_config& config,
                           const device_spec& device,
                           const rca_das_gpu_tuning& tuning = {})

/*!
 * The GPU engine of \p device's backend with \p tuning (the backend picked in
 * make_for_device, as rca_das_engine::make does); std::runtime_error for a
 * device that is not a GPU or whose backend this build lacks.
 */
std::unique_ptr<rca_das_engine> make_rca_das_gpu_for(const rca_das_config& config,
                                                     const device_spec& device,
                                                     const rca_das_gpu_tuning& tuning = {});

} // namespace beamform
} // namespace gr

#endif
