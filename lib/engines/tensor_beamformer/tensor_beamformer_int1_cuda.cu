/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The int1 kernels of the CUDA tensor-core beamformer (b1 mma.sync with AND
 * and popc; see kernels/cuda/tensor_beamformer_mma_kernel.cuh).
 */
#include "tensor_beamformer_variants.cuh"

namespace gr {
namespace beamform {
namespace cuda {

void tb_register_int1_variants(std::vector<tb_variant>& v)
{
    using namespace tb_kernels;
#define BF_TB_ADD_INT1(NPA, BM, BN, WM, WN, BKB, ST)                         \
    {                                                                        \
        using S = tile_shape<BM, BN, WM, WN, BKB, ST>;                       \
        v.push_back(tb_make_variant<S, op_int1, loader_bits<S, true>, NPA>(  \
            beam_precision::int1, tb_input::bits_wide));                     \
        v.push_back(tb_make_variant<S, op_int1, loader_bits<S, false>, NPA>( \
            beam_precision::int1, tb_input::bits_narrow));                   \
    }
#define BF_TB_ADD_INT1_SINGLE(...) BF_TB_ADD_INT1(1, __VA_ARGS__)
#define BF_TB_ADD_INT1_XY(...) BF_TB_ADD_INT1(2, __VA_ARGS__)
    BF_TB_INT1_SINGLE_TILES(BF_TB_ADD_INT1_SINGLE)
    BF_TB_INT1_XY_TILES(BF_TB_ADD_INT1_XY)
#undef BF_TB_ADD_INT1_SINGLE
#undef BF_TB_ADD_INT1_XY
#undef BF_TB_ADD_INT1
}

} // namespace cuda
} // namespace beamform
} // namespace gr
