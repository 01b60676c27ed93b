/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The float16 kernels of the CUDA tensor-core beamformer (one instantiation
 * per tile shape and input kind; a separate file so they compile in parallel
 * with the int1 ones).
 */
#include "tensor_beamformer_variants.cuh"

namespace gr {
namespace beamform {
namespace cuda {

void tb_register_fp16_variants(std::vector<tb_variant>& v)
{
    using namespace tb_kernels;
#define BF_TB_ADD_SINGLE(BM, BN, WM, WN, BKB, ST)                         \
    {                                                                     \
        using S = tile_shape<BM, BN, WM, WN, BKB, ST>;                    \
        v.push_back(tb_make_variant<S, op_fp16, loader_fc32<S, 2>, 1>(    \
            beam_precision::float16, tb_input::fc32_vec2));               \
        v.push_back(tb_make_variant<S, op_fp16, loader_fc32<S, 1>, 1>(    \
            beam_precision::float16, tb_input::fc32_vec1));               \
        v.push_back(tb_make_variant<S, op_fp16, loader_fp16_input<S>, 1>( \
            beam_precision::float16, tb_input::fp16));                    \
    }
    BF_TB_FP16_SINGLE_TILES(BF_TB_ADD_SINGLE)
#undef BF_TB_ADD_SINGLE
#define BF_TB_ADD_XY(BM, BN, WM, WN, BKB, ST, MB)                      \
    {                                                                  \
        using S = tile_shape<BM, BN, WM, WN, BKB, ST, MB>;             \
        v.push_back(tb_make_variant<S, op_fp16, loader_fc32_xy<S>, 2>( \
            beam_precision::float16, tb_input::fc32_xy));              \
    }
    BF_TB_FP16_XY_TILES(BF_TB_ADD_XY)
#undef BF_TB_ADD_XY
}

} // namespace cuda
} // namespace beamform
} // namespace gr
