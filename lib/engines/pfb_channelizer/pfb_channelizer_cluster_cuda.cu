/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The cluster kernel's device check and launch (pfb_channelizer_cluster.h).
 */
#include "pfb_channelizer_cluster.h"
#include <common/gpu_portable.h>
#include <cuda/pfb_cluster_kernel.cuh>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace gr {
namespace beamform {
namespace cuda {
namespace {

template <int N>
constexpr bool same_shape = pfb_cluster::shape<N>::receivers == pfb_plan::cluster_receivers(N) &&
                            pfb_cluster::shape<N>::blocks == pfb_plan::cluster_blocks(N);
static_assert(same_shape<256> && same_shape<512> && same_shape<1024> && same_shape<2048> &&
                  pfb_cluster::taps == pfb_plan::cluster_window &&
                  pfb_cluster::taps == pfb_plan::fused_max_taps &&
                  pfb_cluster::steps_per_round == pfb_plan::cluster_steps_per_round,
              "the plan and the kernel name the same cluster shapes (branch taps [N][16])");

template <int N>
constexpr int shared_bytes = int(sizeof(pfb_cluster::shared<N>));

//! Calls f(std::integral_constant<int, N>, std::integral_constant<int, O>)
//! for the kernel's N = \p n and O = \p o.
template <typename F>
auto with_shape(size_t n, size_t o, F&& f)
{
    const auto with_o = [&](auto N) {
        if (o == 1)
            return f(N, std::integral_constant<int, 1>{});
        if (o == 2)
            return f(N, std::integral_constant<int, 2>{});
        throw std::invalid_argument("pfb_cluster_kernel: oversample = " + std::to_string(o) +
                                    ", it serves 1 and 2");
    };
    if (n == 256)
        return with_o(std::integral_constant<int, 256>{});
    if (n == 512)
        return with_o(std::integral_constant<int, 512>{});
    if (n == 1024)
        return with_o(std::integral_constant<int, 1024>{});
    if (n == 2048)
        return with_o(std::integral_constant<int, 2048>{});
    throw std::invalid_argument("pfb_cluster_kernel: N = " + std::to_string(n) +
                                ", it serves 256, 512, 1024 and 2048");
}

cudaLaunchConfig_t launch_config(unsigned clusters,
                                 unsigned blocks,
                                 int shared,
                                 cudaStream_t stream,
                                 cudaLaunchAttribute* attr)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(clusters * blocks);
    cfg.blockDim = dim3(unsigned(pfb_cluster::threads));
    cfg.dynamicSmemBytes = size_t(shared);
    cfg.stream = stream;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = blocks;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cfg;
}

} // namespace

template <typename Tin>
int pfb_cluster_clusters_at_once(int device, size_t n_channels, size_t oversample)
{
    BF_GPU_CHECK(cudaSetDevice(device));
    return with_shape(n_channels, oversample, [&](auto n, auto o) {
        constexpr int N = decltype(n)::value;
        const auto kernel = pfb_cluster_kernel<Tin, N, decltype(o)::value>;
        cudaFuncAttributes attributes;
        BF_GPU_CHECK(cudaFuncGetAttributes(&attributes, kernel));
        // The machine code loaded for this GPU: below 9.0 the GPU is older than
        // sm_90, or the build has only older code (the body is then empty).
        if (attributes.binaryVersion < 90)
            return 0;
        // 146-152 KiB a block: GPUs that offer less (sm_120 offers 99 KiB)
        // keep the tiled kernels instead of failing the attribute call below.
        int shared_limit = 0;
        BF_GPU_CHECK(cudaDeviceGetAttribute(
            &shared_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        if (shared_bytes<N> > shared_limit)
            return 0;
        BF_GPU_CHECK(cudaFuncSetAttribute(
            kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes<N>));
        if constexpr (pfb_cluster::shape<N>::blocks > 8) // beyond the portable size
            if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) !=
                cudaSuccess) {
                (void)cudaGetLastError(); // a GPU without clusters of 16: not used
                return 0;
            }
        cudaLaunchAttribute attr;
        const cudaLaunchConfig_t cfg =
            launch_config(1, pfb_cluster::shape<N>::blocks, shared_bytes<N>, nullptr, &attr);
        int clusters = 0;
        if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) != cudaSuccess) {
            (void)cudaGetLastError(); // no cluster launch here (for example under MIG): not used
            return 0;
        }
        return clusters;
    });
}

int pfb_cluster_clusters_at_once(int device, const pfb_channelizer_config& c)
{
    if (!pfb_plan::cluster_kernel_serves(c))
        return 0;
    switch (c.input) {
    case sample_format::sc8:
        return pfb_cluster_clusters_at_once<int8_t>(device, c.n_channels, c.oversample);
    case sample_format::sc16:
        return pfb_cluster_clusters_at_once<int16_t>(device, c.n_channels, c.oversample);
    case sample_format::fc32:
        return pfb_cluster_clusters_at_once<float>(device, c.n_channels, c.oversample);
    }
    return 0;
}

template <typename Tin>
void pfb_cluster_launch(const pfb_stream<Tin>& in,
                        const float* branch_taps,
                        const float2* twiddle,
                        float2* out,
                        const pfb_geometry& g,
                        const pfb_plan::cluster_launch& l,
                        cudaStream_t stream)
{
    with_shape(size_t(g.n_channels), size_t(g.n_channels / g.step), [&](auto n, auto o) {
        constexpr int N = decltype(n)::value;
        cudaLaunchAttribute attr;
        const cudaLaunchConfig_t cfg = launch_config(
            unsigned(l.clusters()), pfb_cluster::shape<N>::blocks, shared_bytes<N>, stream, &attr);
        BF_GPU_CHECK(cudaLaunchKernelEx(&cfg,
                                        pfb_cluster_kernel<Tin, N, decltype(o)::value>,
                                        in,
                                        branch_taps,
                                        twiddle,
                                        out,
                                        g,
                                        l.steps_per_segment,
                                        l.receiver_groups));
        BF_GPU_CHECK_LAUNCH("pfb_cluster_kernel");
    });
}

#define BF_PFB_CLUSTER_FORMAT(Tin)                                                      \
    template int pfb_cluster_clusters_at_once<Tin>(int, size_t, size_t);                \
    template void pfb_cluster_launch<Tin>(const pfb_stream<Tin>&,                       \
                                          const float*,                                 \
                                          const float2*,                                \
                                          float2*,                                      \
                                          const pfb_geometry&,                          \
                                          const pfb_plan::cluster_launch&,              \
                                          cudaStream_t);
BF_PFB_CLUSTER_FORMAT(int8_t)
BF_PFB_CLUSTER_FORMAT(int16_t)
BF_PFB_CLUSTER_FORMAT(float)
#undef BF_PFB_CLUSTER_FORMAT

} // namespace cuda
} // namespace beamform
} // namespace gr
