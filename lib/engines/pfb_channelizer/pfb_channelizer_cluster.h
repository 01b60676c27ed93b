/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The channelizer's cluster kernel (kernels/cuda/pfb_cluster_kernel.cuh) for
 * the GPU engine: whether the device and this build run it, and its launch.
 * CUDA only (thread-block clusters, sm_90); the rules of when it runs are in
 * pfb_channelizer_plan.h.
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_PFB_CHANNELIZER_CLUSTER_H
#define INCLUDED_BEAMFORM_ENGINES_PFB_CHANNELIZER_CLUSTER_H

#include "pfb_channelizer_plan.h"
#include <gpu/pfb_channelizer.cuh>

namespace gr {
namespace beamform {
namespace cuda {

/*!
 * How many clusters of the kernel for input \p Tin, N = \p n_channels and
 * O = \p oversample (cluster_kernel_serves) the GPU \p device holds at once;
 * 0 where it cannot run it (before sm_90, a build without sm_90 code, no
 * cluster launch). Sets the kernel's shared-memory limit.
 */
template <typename Tin>
int pfb_cluster_clusters_at_once(int device, size_t n_channels, size_t oversample);

//! The same for configuration \p c (its input format, N and O); 0 where the
//! kernel does not serve \p c (cluster_kernel_serves).
int pfb_cluster_clusters_at_once(int device, const pfb_channelizer_config& c);

//! Launches the kernel for \p l on \p stream (errors as std::runtime_error).
template <typename Tin>
void pfb_cluster_launch(const pfb_stream<Tin>& in,
                        const float* branch_taps,
                        const float2* twiddle,
                        float2* out,
                        const pfb_geometry& g,
                        const pfb_plan::cluster_launch& l,
                        cudaStream_t stream);

} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
