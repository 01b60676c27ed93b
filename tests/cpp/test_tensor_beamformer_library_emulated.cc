/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tensor beamformer's library voltage path ("cublas") where no GPU is
 * needed: its fc32 -> fp16 input pass (kernels/gpu/float16_gemm_input.cuh)
 * run through kernels/emulation/gpu_emulation.h against float16 rounding on
 * the host and the host range count; its expanded weights and GEMM shape,
 * multiplied on the host exactly as cublasGemmStridedBatchedEx is documented
 * to read them (column-major, op(A) = A^T, leading dimensions and batch
 * strides), against the definition (tb_reference.h) in both polarization
 * modes and odd sizes; the built-in rule; the check of an explicit choice;
 * the tuning file's device keys. test_tensor_beamformer_gpu.cc runs the real
 * cuBLAS call on a GPU.
 */
// The host model of the GPU built-ins, before any kernel header.
#include <emulation/gpu_emulation.h>
#include <gpu/float16_gemm_input.cuh>

#include "engines/tensor_beamformer/tensor_beamformer_expand.h"
#include "engines/tensor_beamformer/tensor_beamformer_library_path.h"
#include "engines/tensor_beamformer/tensor_beamformer_tuning.h"
#include "tb_reference.h"
#include <gtest/gtest.h>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

using namespace gr::beamform;
using namespace tb_reference;

namespace {

//! The input pass as the engine launches it (plan included), emulated.
std::vector<uint16_t> emulated_input_pass(const std::vector<cfloat>& x,
                                          size_t n_rows,
                                          unsigned n_cols,
                                          unsigned ld_cols,
                                          unsigned long long counts[2])
{
    std::vector<uint16_t> out(n_rows * ld_cols * 2, 0x7e00); // fp16 NaN until written
    const auto plan = emulated::plan_fc32_to_fp16(x.data(), n_rows, n_cols, ld_cols);
    emulated::launch(dim3(plan.blocks), dim3(plan.threads), 0, [&] {
        if (plan.flat)
            emulated::fc32_to_fp16_flat_kernel(
                reinterpret_cast<const float4*>(x.data()),
                reinterpret_cast<emulated::half2_pair*>(out.data()),
                plan.work,
                counts);
        else
            emulated::fc32_to_fp16_rows_kernel(reinterpret_cast<const float2*>(x.data()),
                                               reinterpret_cast<__half2*>(out.data()),
                                               n_rows,
                                               n_cols,
                                               ld_cols,
                                               counts);
    });
    return out;
}

/*!
 * cublasGemmStridedBatchedEx(CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, 1, A, lda,
 * strideA, B, ldb, strideB, 0, C, ldc, strideC, batch) with fp16 A and B and
 * fp32 C, as cuBLAS documents it: column-major, A(i, l) = A[i + l lda],
 * B(l, j) = B[l + j ldb], C(i, j) = C[i + j ldc], batch b offset by b x stride.
 */
void host_gemm_n_n(size_t m,
                   size_t n,
                   size_t k,
                   const uint16_t* a,
                   size_t lda,
                   size_t stride_a,
                   const uint16_t* b,
                   size_t ldb,
                   size_t stride_b,
                   float* c,
                   size_t ldc,
                   size_t stride_c,
                   size_t batch)
{
    for (size_t bt = 0; bt < batch; bt++)
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < m; i++) {
                double s = 0;
                for (size_t l = 0; l < k; l++)
                    s += double(half_bits_to_float(a[bt * stride_a + i + l * lda])) *
                         double(half_bits_to_float(b[bt * stride_b + l + j * ldb]));
                c[bt * stride_c + i + j * ldc] = float(s);
            }
}

//! The library path on the host: input pass, expanded weights, the GEMM.
void check_library_path(const tensor_beamformer_config& c, size_t T, unsigned seed)
{
    const auto w = random_complex(c.weight_count(), seed);
    const auto x = random_complex(T * c.n_channels * c.n_receivers, seed + 1);
    const auto g = tb_library_gemm(c);
    const auto layout = make_library_layout(c);
    ASSERT_EQ(layout.rows, g.lda); // column-major: k_padded columns of lda
    ASSERT_GE(g.lda, g.m);
    ASSERT_EQ(layout.row_bytes, g.k_padded * 2);
    std::vector<uint16_t> a(layout.total_bytes() / 2, 0x7e00);
    expand_weights_fp16(layout, c, w, a.data());
    unsigned long long counts[2] = { 0, 0 };
    const auto x16 = emulated_input_pass(
        x, T * c.n_channels, unsigned(c.n_receivers), unsigned(g.k_padded / 2), counts);
    std::vector<float> out(output_floats(c, T), NAN);
    ASSERT_EQ(out.size(), T * g.ldc); // the output is exactly n columns of ldc
    host_gemm_n_n(g.m,
                  T,
                  g.k_padded, // as the engine calls it: the zero padding included
                  a.data(),
                  g.lda,
                  g.lda * g.k_padded,
                  x16.data(),
                  g.ldb,
                  g.k_padded,
                  out.data(),
                  g.ldc,
                  g.m,
                  c.n_channels);
    const auto ref = reference(c, w, x, T);
    const double e = rel_error(out, ref);
    std::cout << describe(c, T, tb_library_path_name) << ": relative error norm vs the "
              << "definition " << e << " (limit 1e-3)\n";
    EXPECT_LT(e, 1e-3); // NaN (an output the GEMM does not write) fails too
}

} // namespace

TEST(tensor_beamformer_library_path, input_pass_rounds_pads_and_counts)
{
    struct shape {
        size_t rows;
        unsigned cols, ld;
    };
    // padded rows (46 receivers -> 48, 1 -> 4), unpadded (flat kernel), and
    // unpadded rows forced through the row kernel by a larger ld
    for (const shape s : { shape{ 3 * 7, 46, 48 },
                           shape{ 5, 1, 4 },
                           shape{ 9, 64, 64 },
                           shape{ 4, 8, 12 } }) {
        auto x = random_complex(s.rows * s.cols, unsigned(s.cols));
        x[0] = cfloat(70000.0f, -1e-9f);   // rounds to inf, and to 0
        x.back() = cfloat(65504.0f, 0.5f); // float16's largest: no overflow
        const auto expected = count_float16_range(x.data(), x.size());
        unsigned long long counts[2] = { 0, 0 };
        const auto got = emulated_input_pass(x, s.rows, s.cols, s.ld, counts);
        size_t bad = 0;
        for (size_t r = 0; r < s.rows; r++)
            for (unsigned col = 0; col < s.ld; col++) {
                const uint16_t* h = &got[(r * s.ld + col) * 2];
                const cfloat v = col < s.cols ? x[r * s.cols + col] : cfloat(0, 0);
                bad += h[0] != float_to_half_bits(v.real());
                bad += h[1] != float_to_half_bits(v.imag());
            }
        EXPECT_EQ(bad, 0u) << s.rows << " rows of " << s.cols << " in " << s.ld;
        EXPECT_EQ(counts[0], expected.overflow);
        EXPECT_EQ(counts[1], expected.underflow);
        EXPECT_GE(counts[0], 1u);
        EXPECT_GE(counts[1], 1u);
    }
}

TEST(tensor_beamformer_library_path, gemm_layout_gives_the_voltage_item)
{
    for (auto pol : { polarization_layout::single, polarization_layout::xy_pairs }) {
        const bool xy = pol == polarization_layout::xy_pairs;
        const auto volt = beam_output::voltage;
        const auto f16 = beam_precision::float16;
        check_library_path(make_config(3, 46, 155, f16, volt, pol), 9, 1);
        check_library_path(make_config(2, 46, 1, f16, volt, pol), 11, 2); // 1 beam
        check_library_path(make_config(3, xy ? 2 : 1, 20, f16, volt, pol), 7, 3);
        check_library_path(make_config(1, 64, 8, f16, volt, pol), 5, 4); // no padding
    }
}

TEST(tensor_beamformer_library_path, gemm_shape)
{
    auto c = make_config(3,
                         46,
                         155,
                         beam_precision::float16,
                         beam_output::voltage,
                         polarization_layout::single);
    auto g = tb_library_gemm(c);
    EXPECT_EQ(g.m, 310u);
    EXPECT_EQ(g.k, 92u);
    EXPECT_EQ(g.k_padded, 96u);
    EXPECT_EQ(g.lda, 312u); // m rounded up to 8 (column-major weights)
    EXPECT_EQ(g.ldb, 3u * 96u);
    EXPECT_EQ(g.ldc, 3u * 310u);
    c.polarization = polarization_layout::xy_pairs;
    g = tb_library_gemm(c);
    EXPECT_EQ(g.m, 620u); // X and Y beams of each beam, interleaved
    EXPECT_EQ(g.ldc, 3u * 620u);
    // ldb past 2^31 - 1 halves: not the library path's
    c.n_channels = 65536;
    c.n_receivers = 1u << 15;
    EXPECT_FALSE(tb_library_path_covers(c));
    EXPECT_THROW(tb_check_library_path(c), std::invalid_argument);
}

TEST(tensor_beamformer_library_path, explicit_choice_outside_float16_voltage)
{
    auto c = make_config(2,
                         64,
                         8,
                         beam_precision::float16,
                         beam_output::power,
                         polarization_layout::single,
                         4);
    for (auto prec : { beam_precision::float16, beam_precision::int1 })
        for (auto out : { beam_output::voltage, beam_output::power }) {
            c.precision = prec;
            c.output = out;
            c.n_int = out == beam_output::power ? 4 : 1;
            const bool ok =
                prec == beam_precision::float16 && out == beam_output::voltage;
            EXPECT_EQ(tb_library_path_covers(c), ok);
            if (ok) {
                EXPECT_NO_THROW(tb_check_library_path(c));
                continue;
            }
            try {
                tb_check_library_path(c, "256x128x64/64x64/3");
                ADD_FAILURE() << "no exception";
            } catch (const std::invalid_argument& e) {
                const std::string m = e.what();
                std::cout << m << "\n";
                EXPECT_NE(m.find("tile 'cublas'"), std::string::npos) << m;
                EXPECT_NE(m.find("needs precision float16 and output voltage"),
                          std::string::npos)
                    << m;
                EXPECT_NE(m.find(prec == beam_precision::int1 ? "precision int1"
                                                              : "precision float16"),
                          std::string::npos)
                    << m;
                EXPECT_NE(
                    m.find(out == beam_output::power ? "output power" : "output voltage"),
                    std::string::npos)
                    << m;
                EXPECT_NE(m.find("accepted for this configuration: the kernel tiles "
                                 "256x128x64/64x64/3"),
                          std::string::npos)
                    << m;
            }
            EXPECT_THROW(make_library_layout(c), std::invalid_argument);
        }
}

TEST(tensor_beamformer_library_path, built_in_rule)
{
    auto c = make_config(4,
                         64,
                         1024,
                         beam_precision::float16,
                         beam_output::voltage,
                         polarization_layout::single);
    // Hopper: from 64 receivers, but the fused kernel's TMA voltage store
    // first up to 128 receivers where the beams are a multiple of 32.
    EXPECT_FALSE(tb_library_path_preferred(c, 9, true));
    EXPECT_TRUE(tb_library_path_fused_first(c, true));
    EXPECT_TRUE(tb_library_path_preferred(c, 9, false));  // no sm_90a image
    EXPECT_TRUE(tb_library_path_preferred(c, 10, false)); // later GPUs: from 64
    EXPECT_FALSE(tb_library_path_fused_first(c, false));
    EXPECT_FALSE(tb_library_path_preferred(c, 8, false)); // Ampere / Ada: from 128
    auto odd = c;
    odd.n_beams = 1000; // not whole boxes of 32 beams: the warps would store
    EXPECT_TRUE(tb_library_path_preferred(odd, 9, true));
    c.n_receivers = 63;
    EXPECT_FALSE(tb_library_path_preferred(c, 9, true));
    c.n_receivers = 128;
    EXPECT_TRUE(tb_library_path_preferred(c, 8, false));
    EXPECT_FALSE(tb_library_path_preferred(c, 9, true));
    c.n_receivers = 129;
    EXPECT_TRUE(tb_library_path_preferred(c, 9, true));
    EXPECT_EQ(tb_library_path_min_receivers(8), 128u);
    EXPECT_EQ(tb_library_path_min_receivers(9), 64u);
    c.n_receivers = 512;
    EXPECT_TRUE(tb_library_path_preferred(c, 9, true));
    auto p = c;
    p.output = beam_output::power; // the power path stays fused
    p.n_int = 16;
    EXPECT_FALSE(tb_library_path_preferred(p, 9, true));
    auto b = c;
    b.precision = beam_precision::int1;
    EXPECT_FALSE(tb_library_path_preferred(b, 9, true));
    auto xy = c;
    xy.polarization = polarization_layout::xy_pairs; // only when asked for
    EXPECT_FALSE(tb_library_path_preferred(xy, 9, true));
    EXPECT_TRUE(tb_library_path_covers(xy));

    // Shapes that leave the fused tiles mostly empty: the library path from
    // compute capability 9 on, below the usual receiver counts too.
    auto small = c;
    small.n_receivers = 48;
    small.n_beams = 128;
    EXPECT_FALSE(tb_library_path_small_first(small, 9));
    EXPECT_FALSE(tb_library_path_preferred(small, 9, true));
    small.n_beams = 127;
    EXPECT_TRUE(tb_library_path_small_first(small, 9));
    EXPECT_TRUE(tb_library_path_preferred(small, 9, true));
    EXPECT_TRUE(tb_library_path_preferred(small, 10, false));
    EXPECT_FALSE(tb_library_path_preferred(small, 8, false)); // Ampere / Ada: fused
    small.n_beams = 1024;
    small.n_receivers = 15;
    EXPECT_TRUE(tb_library_path_preferred(small, 9, true));
    small.n_receivers = 16;
    EXPECT_FALSE(tb_library_path_preferred(small, 9, true));
    // From 64 receivers the fused kernel's TMA store keeps 32-beam multiples.
    small.n_receivers = 64;
    small.n_beams = 64;
    EXPECT_FALSE(tb_library_path_preferred(small, 9, true));
    xy.n_beams = 31;
    EXPECT_TRUE(tb_library_path_preferred(xy, 9, true));
    EXPECT_FALSE(tb_library_path_preferred(xy, 8, false));
    xy.n_beams = 32;
    EXPECT_FALSE(tb_library_path_preferred(xy, 9, true));
    p.n_beams = 8; // power never
    EXPECT_FALSE(tb_library_path_preferred(p, 9, true));
}

TEST(tensor_beamformer_library_path, tuning_keys_name_the_device)
{
    namespace cu = gr::beamform::cuda;
    const auto volt = make_config(1,
                                  64,
                                  40,
                                  beam_precision::float16,
                                  beam_output::voltage,
                                  polarization_layout::single);
    auto power = volt;
    power.output = beam_output::power;
    power.n_int = 4;
    EXPECT_EQ(cu::tensor_beamformer_shape_class(volt), "float16.single.voltage.rx_small");
    EXPECT_EQ(cu::tensor_beamformer_tuning_key(volt, "NVIDIA H100 80GB HBM3"),
              "NVIDIA H100 80GB HBM3/float16.single.voltage.rx_small");
    const std::string path = testing::TempDir() + "beamform_tuning_library_path_test.txt";
    std::ofstream(path)
        << "# written by a test\n"
        << "NVIDIA H100 80GB HBM3/float16.single.voltage.rx_small = cublas\n"
        << "Other GPU/float16.single.power.rx_small = 128x128x64/32x64/3\n"
        << "float16.single.power.rx_small = 256x128x64/64x64/3  # old key\n";
    const auto entries = cu::read_tuning_file(path.c_str());
    std::remove(path.c_str());
    EXPECT_EQ(cu::tb_tuning_lookup(entries, volt, "NVIDIA H100 80GB HBM3"), "cublas");
    // another GPU's entry does not steer this one; the old key applies to all
    EXPECT_EQ(cu::tb_tuning_lookup(entries, volt, "NVIDIA A100-SXM4-80GB"), "");
    EXPECT_EQ(cu::tb_tuning_lookup(entries, power, "Other GPU"), "128x128x64/32x64/3");
    EXPECT_EQ(cu::tb_tuning_lookup(entries, power, "NVIDIA H100 80GB HBM3"),
              "256x128x64/64x64/3");
}
