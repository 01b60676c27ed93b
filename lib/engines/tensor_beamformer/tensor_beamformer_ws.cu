/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The warp-specialised Hopper kernels of the CUDA tensor-core beamformer
 * (kernels/cuda/tensor_beamformer_ws_kernel.cuh): one variant per tile of
 * BF_TB_WS_FP16_TILES / BF_TB_WS_INT1_TILES and sample source, named
 * "BMxBNx128/ws/STAGES" ("+pass": fc32 samples converted to fp16 rows by a
 * streaming pass before the kernel, tb_variant::fp16_pass; "+ipass": the same
 * rows converted by the producer's spare warps beside the product,
 * tb_variant::inline_pass; "+rs": the samples
 * resident, tensor_beamformer_ws_resident_kernel.cuh, tb_variant::samples_resident,
 * single polarization or X/Y pairs;
 * "+rs+pp": that kernel with its consumer warpgroups in ping-pong; "+rs+db":
 * X/Y pairs with two sample sets, filled from TMA-staged fc32 while the
 * consumers multiply). X/Y pairs past what "+rs" holds stream their samples
 * through the ring from fp16 planes ("+pass", tensor_beamformer_ws_xy_kernel.cuh,
 * BF_TB_WS_XY_TILES).
 * Each launch encodes the TMA tensor maps of its
 * operands (the driver's cuTensorMapEncodeTiled, reached through the runtime
 * so that nothing links libcuda) and runs persistent blocks: one per SM, each
 * looping over the tiles. Built for sm_90a only, with the wgmma kernels.
 */
#include "tensor_beamformer_tiles_cuda.h"
#include <cuda/tensor_beamformer_compiled_tiles.h>
#include <cuda/tensor_beamformer_ws_resident_kernel.cuh>
#include <cuda/tensor_beamformer_ws_xy_kernel.cuh>
#include <cudaTypedefs.h>
#include <map>
#include <mutex>
#include <type_traits>
#include <stdexcept>
#include <string>

namespace gr {
namespace beamform {
namespace cuda {

namespace {

PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder()
{
    static std::once_flag once;
    static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
    std::call_once(once, [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult found{};
        if (cudaGetDriverEntryPointByVersion(
                "cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found) ==
                cudaSuccess &&
            found == cudaDriverEntryPointSuccess)
            fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
    });
    if (!fn)
        throw std::runtime_error(
            "tensor_beamformer: the CUDA driver has no cuTensorMapEncodeTiled (TMA)");
    return fn;
}

//! The tensor map of \p b: bytes, 128-byte swizzle, zeros outside the tensor.
CUtensorMap encode(const tb_kernels::tma_box_3d& b)
{
    CUtensorMap map;
    const cuuint64_t dims[3] = { b.dim[0], b.dim[1], b.dim[2] };
    const cuuint64_t strides[2] = { b.stride[0], b.stride[1] };
    const cuuint32_t box[3] = { b.box[0], b.box[1], b.box[2] };
    const cuuint32_t element_strides[3] = { 1, 1, 1 };
    const CUresult r = tensor_map_encoder()(&map,
                                            CU_TENSOR_MAP_DATA_TYPE_UINT8,
                                            3,
                                            const_cast<void*>(b.base),
                                            dims,
                                            strides,
                                            box,
                                            element_strides,
                                            CU_TENSOR_MAP_INTERLEAVE_NONE,
                                            CU_TENSOR_MAP_SWIZZLE_128B,
                                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        throw std::runtime_error(
            "tensor_beamformer: cuTensorMapEncodeTiled failed (CUresult " +
            std::to_string(int(r)) + ")");
    return map;
}

int sm_count()
{
    int device = 0, sms = 0;
    BF_GPU_CHECK(cudaGetDevice(&device));
    BF_GPU_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
}

/*!
 * The in-kernel pass's blocks ("+ipass") wait for each other, so all the
 * blocks of its launch must be resident at once: two such launches side by
 * side (two engines on two streams) could each hold part of the GPU and wait
 * for ever. So in this process they run one after another on a device: each
 * launch's stream waits for the previous one's event (stream-ordered, no
 * host wait). One event per device, never destroyed (it may outlive the CUDA
 * runtime's teardown at exit).
 */
template <class Launch>
void launch_one_inline_pass_at_a_time(cudaStream_t s, Launch launch)
{
    static std::mutex m;
    static std::map<int, cudaEvent_t> last;
    int device = 0;
    BF_GPU_CHECK(cudaGetDevice(&device));
    std::lock_guard<std::mutex> lock(m);
    auto it = last.find(device);
    if (it == last.end()) {
        cudaEvent_t e;
        BF_GPU_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        it = last.emplace(device, e).first;
    } else
        BF_GPU_CHECK(cudaStreamWaitEvent(s, it->second, 0));
    launch();
    BF_GPU_CHECK(cudaEventRecord(it->second, s));
}

template <class W, class Op, class Samples>
void ws_launch(const void* args_ptr, unsigned blocks, size_t smem, void* stream)
{
    const auto& args = *static_cast<const tb_kernels::kernel_args*>(args_ptr);
    tb_kernels::ws_maps maps{};
    maps.a = encode(tb_kernels::ws_weights_box(args, W::ROWS));
    if constexpr (Samples::by_tma)
        maps.b =
            encode(tb_kernels::ws_samples_box(args, Samples::row_bytes(args), W::BN));
    const unsigned grid = std::min(blocks, unsigned(sm_count()));
    const auto s = static_cast<cudaStream_t>(stream);
    auto launch = [&] {
        tb_kernels::tensor_beamformer_ws_kernel<W, Op, Samples>
            <<<grid, W::threads, smem, s>>>(args, maps, (long long)blocks);
        BF_GPU_CHECK_LAUNCH("tensor_beamformer_ws_kernel");
    };
    if constexpr (Samples::inline_pass)
        launch_one_inline_pass_at_a_time(s, launch);
    else
        launch();
}

//! X/Y pairs streamed (tensor_beamformer_ws_xy_kernel.cuh): persistent as ws_launch.
template <class W, class Op>
void ws_xy_launch(const void* args_ptr, unsigned blocks, size_t smem, void* stream)
{
    const auto& args = *static_cast<const tb_kernels::kernel_args*>(args_ptr);
    tb_kernels::ws_maps maps{};
    maps.a = encode(tb_kernels::ws_weights_box(args, W::BM, 2));
    maps.b = encode(
        tb_kernels::ws_samples_box(args, tb_kernels::ws_xy_planes_row_bytes(args), W::BN));
    const unsigned grid = std::min(blocks, unsigned(sm_count()));
    tb_kernels::tensor_beamformer_ws_xy_kernel<W, Op>
        <<<grid, W::threads, smem, static_cast<cudaStream_t>(stream)>>>(
            args, maps, (long long)blocks);
    BF_GPU_CHECK_LAUNCH("tensor_beamformer_ws_xy_kernel");
}

template <class W, class Op>
void ws_xy_allow_smem(int bytes)
{
    BF_GPU_CHECK(cudaFuncSetAttribute(tb_kernels::tensor_beamformer_ws_xy_kernel<W, Op>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      bytes));
}

template <class W, class Op, class Samples>
void ws_allow_smem(int bytes)
{
    BF_GPU_CHECK(
        cudaFuncSetAttribute(tb_kernels::tensor_beamformer_ws_kernel<W, Op, Samples>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             bytes));
}

//! Resident samples: one block per SM, looping over (channel, time tile) items.
template <class W, class Op, class Samples, int BUFFERS>
void ws_resident_launch(const void* args_ptr, unsigned, size_t smem, void* stream)
{
    const auto& args = *static_cast<const tb_kernels::kernel_args*>(args_ptr);
    tb_kernels::ws_maps maps{};
    maps.a = encode(tb_kernels::ws_weights_box(args, W::ROWS, Samples::npol));
    if constexpr (Samples::by_tma)
        maps.b =
            encode(tb_kernels::ws_samples_box(args, Samples::row_bytes(args), W::BN));
    if constexpr (BUFFERS == 2)
        maps.b = encode(tb_kernels::ws_raw_xy_box(args));
    if (Samples::npol == 1 && std::is_same<Op, tb_kernels::op_fp16>::value &&
        tb_kernels::ws_voltage_by_tma(args)) {
        maps.out = encode(tb_kernels::ws_voltage_box(args));
        maps.voltage_by_tma = 1;
    }
    const long long items = (long long)args.n_channels * args.n_tiles;
    const unsigned grid = unsigned(std::min<long long>(items, sm_count()));
    tb_kernels::tensor_beamformer_ws_resident_kernel<W, Op, Samples, BUFFERS>
        <<<grid, W::threads, smem, static_cast<cudaStream_t>(stream)>>>(args, maps);
    BF_GPU_CHECK_LAUNCH("tensor_beamformer_ws_resident_kernel");
}

template <class W, class Op, class Samples, int BUFFERS>
void ws_resident_allow_smem(int bytes)
{
    BF_GPU_CHECK(cudaFuncSetAttribute(
        tb_kernels::tensor_beamformer_ws_resident_kernel<W, Op, Samples, BUFFERS>,
        cudaFuncAttributeMaxDynamicSharedMemorySize,
        bytes));
}

//! The fields every warp-specialised variant of shape W shares.
template <class W>
tb_variant ws_common(beam_precision precision, tb_input input, bool tma_samples)
{
    tb_variant v;
    v.tile = std::to_string(W::BM) + "x" + std::to_string(W::BN) + "x" +
             std::to_string(W::BKB) + "/ws/" + std::to_string(W::STAGES);
    v.precision = precision;
    v.polarization = polarization_layout::single;
    v.input = input;
    v.block_m = W::BM;
    v.block_n = W::BN;
    v.block_k_bytes = W::BKB;
    v.threads = W::threads;
    v.opt_in = true;
    v.needs_sm90a = true;
    v.warp_specialised = true;
    v.tma_samples = tma_samples;
    return v;
}

template <class W, class Op, class Samples>
tb_variant ws_variant(beam_precision precision, tb_input input, bool fp16_pass = false)
{
    tb_variant v = ws_common<W>(precision, input, Samples::by_tma);
    if (fp16_pass)
        v.tile += "+pass";
    if (Samples::inline_pass) {
        v.tile += "+ipass";
        v.inline_pass = true;
        v.counts_range = true; // each value converted once, by the spare warps
    }
    v.pipeline_smem_bytes = tb_kernels::ws_pipeline_smem_bytes<W>();
    v.launch = &ws_launch<W, Op, Samples>;
    v.allow_smem = &ws_allow_smem<W, Op, Samples>;
    v.fp16_pass = fp16_pass;
    return v;
}

//! An X/Y variant with streamed samples, "BMxBNx128/ws/STAGES+pass" (the
//! engine's pass writes fp16 planes, launch_fc32_xy_to_fp16_planes; "+sw":
//! short power windows in registers). Any k.
template <class W>
tb_variant ws_xy_variant()
{
    tb_variant v = ws_common<W>(beam_precision::float16, tb_input::fc32_xy, true);
    v.polarization = polarization_layout::xy_pairs;
    v.tile += "+pass";
    v.fp16_pass = true;
    if (W::SHORT_WINDOWS)
        v.tile += "+sw";
    v.xy_short_windows = W::SHORT_WINDOWS;
    v.pipeline_smem_bytes = tb_kernels::ws_xy_pipeline_smem_bytes<W>();
    v.launch = &ws_xy_launch<W, tb_kernels::op_fp16>;
    v.allow_smem = &ws_xy_allow_smem<W, tb_kernels::op_fp16>;
    return v;
}

//! A resident-samples variant: "BMxBNx128/ws/STAGES+rs" ("+rs+pp" in
//! ping-pong, "+rs+db" with two sample sets, "+sw" with X/Y pairs' short
//! power windows in registers), k of at most 5 tiles per polarization (2
//! with two sets).
template <class W, class Op, class Samples, int BUFFERS = 1>
tb_variant ws_resident_variant(beam_precision precision, tb_input input)
{
    tb_variant v = ws_common<W>(precision, input, Samples::by_tma);
    if (Samples::npol == 2)
        v.polarization = polarization_layout::xy_pairs;
    v.tile += W::PINGPONG ? "+rs+pp" : "+rs";
    if (BUFFERS == 2)
        v.tile += "+db";
    if (W::SHORT_WINDOWS)
        v.tile += "+sw";
    v.xy_short_windows = W::SHORT_WINDOWS;
    v.pipeline_smem_bytes = 0; // depends on k: resident_smem_bytes
    v.resident_smem_bytes = &tb_kernels::ws_resident_smem_bytes<W, BUFFERS>;
    v.launch = &ws_resident_launch<W, Op, Samples, BUFFERS>;
    v.allow_smem = &ws_resident_allow_smem<W, Op, Samples, BUFFERS>;
    v.max_k_bytes = size_t(BUFFERS == 2 ? tb_kernels::ws_resident_double_max_k_tiles
                                        : tb_kernels::ws_resident_max_k_tiles) *
                    W::BKB;
    v.samples_resident = true;
    v.counts_range = !Samples::by_tma; // fc32: each value converted once
    return v;
}

} // namespace

void tb_register_ws_variants(std::vector<tb_variant>& v)
{
    using namespace tb_kernels;
#define BF_TB_ADD_WS_FP16(BM, BN, ST, PREGS)                       \
    {                                                              \
        using W = ws_shape<BM, BN, ST, PREGS>;                     \
        v.push_back(ws_variant<W, op_fp16, ws_samples_tma<false>>( \
            beam_precision::float16, tb_input::fc32_vec2, true));  \
        v.push_back(ws_variant<W, op_fp16, ws_samples_tma<false>>( \
            beam_precision::float16, tb_input::fc32_vec1, true));  \
        v.push_back(ws_variant<W, op_fp16, ws_samples_fc32<W, 2>>( \
            beam_precision::float16, tb_input::fc32_vec2));        \
        v.push_back(ws_variant<W, op_fp16, ws_samples_fc32<W, 1>>( \
            beam_precision::float16, tb_input::fc32_vec1));        \
        v.push_back(ws_variant<W, op_fp16, ws_samples_tma<false>>( \
            beam_precision::float16, tb_input::fp16));             \
    }
#define BF_TB_ADD_WS_INLINE_PASS(BM, BN, ST, PREGS)                               \
    {                                                                             \
        using W = ws_shape<BM, BN, ST, PREGS>;                                    \
        v.push_back(ws_variant<W, op_fp16, ws_samples_inline_pass<W, 2>>(         \
            beam_precision::float16, tb_input::fc32_vec2));                       \
        v.push_back(ws_variant<W, op_fp16, ws_samples_inline_pass<W, 1>>(         \
            beam_precision::float16, tb_input::fc32_vec1));                       \
    }
#define BF_TB_ADD_WS_INT1(BM, BN, ST, PREGS)                                            \
    {                                                                                   \
        using W = ws_shape<BM, BN, ST, PREGS>;                                          \
        v.push_back(ws_variant<W, op_int1, ws_samples_tma<true>>(beam_precision::int1,  \
                                                                 tb_input::bits_wide)); \
    }
#define BF_TB_ADD_WS_RESIDENT(BM, BN, ST, PREGS, PP)                        \
    {                                                                       \
        using W = ws_shape<BM, BN, ST, PREGS, PP>;                          \
        v.push_back(ws_resident_variant<W, op_fp16, ws_samples_fc32<W, 2>>( \
            beam_precision::float16, tb_input::fc32_vec2));                 \
        v.push_back(ws_resident_variant<W, op_fp16, ws_samples_fc32<W, 1>>( \
            beam_precision::float16, tb_input::fc32_vec1));                 \
        v.push_back(ws_resident_variant<W, op_fp16, ws_samples_tma<false>>( \
            beam_precision::float16, tb_input::fp16));                      \
    }
#define BF_TB_ADD_WS_RESIDENT_XY(BM, BN, ST, PREGS, SW)                    \
    {                                                                     \
        using W = ws_shape<BM, BN, ST, PREGS, false, SW>;                 \
        v.push_back(ws_resident_variant<W, op_fp16, ws_samples_fc32_xy<W>>( \
            beam_precision::float16, tb_input::fc32_xy));                 \
    }
#define BF_TB_ADD_WS_RESIDENT_XY_DB(BM, BN, ST, PREGS, PP, SW)                 \
    {                                                                          \
        using W = ws_shape<BM, BN, ST, PREGS, PP, SW>;                         \
        v.push_back(ws_resident_variant<W, op_fp16, ws_samples_fc32_xy<W>, 2>( \
            beam_precision::float16, tb_input::fc32_xy));                      \
    }
#define BF_TB_ADD_WS_XY(BM, BN, ST, PREGS, SW) \
    v.push_back(ws_xy_variant<ws_shape<BM, BN, ST, PREGS, false, SW>>());
    BF_TB_WS_FP16_TILES(BF_TB_ADD_WS_FP16)
    BF_TB_WS_INLINE_PASS_TILES(BF_TB_ADD_WS_INLINE_PASS)
    BF_TB_WS_INT1_TILES(BF_TB_ADD_WS_INT1)
    BF_TB_WS_RESIDENT_TILES(BF_TB_ADD_WS_RESIDENT)
    BF_TB_WS_RESIDENT_XY_TILES(BF_TB_ADD_WS_RESIDENT_XY)
    BF_TB_WS_RESIDENT_XY_DB_TILES(BF_TB_ADD_WS_RESIDENT_XY_DB)
    BF_TB_WS_XY_TILES(BF_TB_ADD_WS_XY)
#undef BF_TB_ADD_WS_XY
#undef BF_TB_ADD_WS_FP16
#undef BF_TB_ADD_WS_INLINE_PASS
#undef BF_TB_ADD_WS_INT1
#undef BF_TB_ADD_WS_RESIDENT
#undef BF_TB_ADD_WS_RESIDENT_XY
#undef BF_TB_ADD_WS_RESIDENT_XY_DB
}

} // namespace cuda
} // namespace beamform
} // namespace gr
