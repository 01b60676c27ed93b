/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The channelizer's GPU kernels (kernels/gpu/pfb_channelizer.cuh) run on the
 * host through kernels/emulation/gpu_emulation.h, planned exactly as the GPU engine
 * plans them (lib/engines/pfb_channelizer/pfb_channelizer_plan.h), against the CPU
 * reference. This checks the kernels' index arithmetic, register-window
 * ring, FFT passes, barrier placement, run splitting and history handover
 * on machines without a GPU; the general path runs with the direct-DFT
 * kernel (the HIP choice: there is no cuFFT here) or, in place of cuFFT, a
 * DFT on the host followed by the CUDA engine's transpose kernel. Timing,
 * coalescing and
 * races that only hardware shows are the GPU tests' business
 * (test_pfb_channelizer_gpu.cc).
 */
#include <emulation/gpu_emulation.h>
// The kernels, compiled for the emulation (namespace gr::beamform::emulated).
#include <gpu/pfb_channelizer.cuh>
#include <gpu/pfb_general.cuh>
#include <gpu/pfb_two_pass.cuh>

#include <gnuradio/beamform/engines/pfb_channelizer_engine.h>
#include "engines/pfb_channelizer/pfb_channelizer_plan.h"
#include "engines/pfb_channelizer/pfb_tiled_kernels.cuh"
#include "engines/pfb_channelizer/pfb_two_pass_kernels.cuh"
#include "pfb_test_input.h"
#include "test_util.h"
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <numeric>
#include <sstream>
#include <string>

using namespace gr::beamform;
using namespace gr::beamform::emulated;
using beamform_test::random_input;
using beamform_test::random_vector;
using beamform_test::relative_error;
using cfloat = std::complex<float>;

namespace {

//! The GPU engine's execute(), with host memory and emulated launches.
class emulated_engine
{
public:
    emulated_engine(const pfb_channelizer_config& c, int sm_count, pfb_plan::path p)
        : d_config(c),
          d_path(p),
          d_taps(c.prototype()),
          d_branch_taps(
              pfb_plan::path_applies(pfb_plan::path::tiled, c)
                  ? pfb_plan::tiled_branch_taps(d_taps, c.n_channels, c.taps_per_branch)
                  : std::vector<float>()),
          d_step(c.input_per_output()),
          d_history_len(c.n_channels * c.taps_per_branch - d_step),
          d_sm_count(sm_count)
    {
        const size_t bytes = d_history_len * c.n_receivers * sample_size(c.input);
        d_history[0].assign(bytes, 0);
        d_history[1].assign(bytes, 0);
        d_twiddle.resize(c.n_channels);
        for (size_t k = 0; k < c.n_channels; k++) {
            const double a = 2.0 * M_PI * double(k) / double(c.n_channels);
            d_twiddle[k] = make_float2(float(std::cos(a)), float(std::sin(a)));
        }
    }

    void execute(const uint8_t* in, cfloat* out, size_t n_out)
    {
        auto* o = reinterpret_cast<float2*>(out);
        switch (d_config.input) {
        case sample_format::sc8:
            run(reinterpret_cast<const int8_t*>(in), o, n_out);
            break;
        case sample_format::sc16:
            run(reinterpret_cast<const int16_t*>(in), o, n_out);
            break;
        case sample_format::fc32:
            run(reinterpret_cast<const float*>(in), o, n_out);
            break;
        }
        const size_t sample_bytes = d_config.n_receivers * sample_size(d_config.input);
        const auto copies =
            pfb_plan::history_update(d_history_len, n_out * d_step, sample_bytes);
        for (const auto& c : copies)
            std::memcpy(d_history[1 - d_current].data() + c.dst_offset,
                        (c.from_input ? in : d_history[d_current].data()) + c.src_offset,
                        c.bytes);
        if (!copies.empty())
            d_current = 1 - d_current;
        d_steps_done += n_out;
    }

private:
    pfb_geometry geometry(size_t n_out) const
    {
        return pfb_plan::kernel_geometry<pfb_geometry>(d_config, n_out, d_steps_done);
    }

    template <typename Tin>
    pfb_stream<Tin> stream_of(const Tin* in) const
    {
        pfb_stream<Tin> st;
        st.input = in;
        st.history = reinterpret_cast<const Tin*>(d_history[d_current].data());
        st.history_len = (long long)d_history_len;
        st.n_receivers = int(d_config.n_receivers);
        return st;
    }

    //! The GPU engine's run_tiled with entry d_tiled_shape of tiled_shapes.
    template <typename Tin>
    void tiled(const Tin* in, float2* out, size_t n_out)
    {
        const auto st = stream_of(in);
        auto g = geometry(n_out);
        g.first_receiver = int(d_first_receiver);
        auto with_shape = [&](auto index) {
            constexpr size_t i = decltype(index)::value;
            const auto kernel = pfb_tiled_kernel_of<Tin, i>(d_config.oversample);
            // blocks_per_sm 1 and a small SM count: blocks take several tiles.
            const auto l = pfb_plan::plan_tiled(
                d_config, pfb_plan::tiled_shapes[i], n_out, d_sm_count, 1, d_first_receiver);
            launch(dim3(unsigned(l.blocks)),
                   dim3(unsigned(pfb_plan::tiled_shapes[i].threads)),
                   l.shared_bytes,
                   [&] {
                       kernel(st,
                              d_branch_taps.data(),
                              d_twiddle.data(),
                              out,
                              g,
                              l.tiles_per_group);
                   });
        };
        pfb_plan::with_tiled_shape_index(
            d_tiled_shape, with_shape, std::make_index_sequence<pfb_plan::tiled_shape_count>{});
    }

    template <typename Tin, int O, int BQ, int RBT, int NT>
    void fused(const Tin* in, float2* out, size_t n_out)
    {
        const auto l = pfb_plan::plan_fused(d_config, n_out, d_sm_count);
        const auto st = stream_of(in);
        const auto g = geometry(n_out);
        launch(dim3(unsigned(l.receiver_blocks), unsigned(l.runs)),
               dim3(unsigned(l.threads)),
               l.shared_bytes,
               [&] {
                   pfb_fused_kernel<Tin, pfb_plan::fused_max_taps, O, BQ, RBT, NT>(
                       st, d_taps.data(), d_twiddle.data(), out, g, l.steps_per_block);
               });
    }

    //! The GPU engine's run_two_pass, in chunks of \p d_chunk steps.
    template <typename Tin>
    void two_pass(const Tin* in, float2* out, size_t n_out)
    {
        const size_t n = d_config.n_channels;
        const size_t r = d_config.n_receivers;
        const auto st = stream_of(in);
        const auto g = geometry(n_out);
        for (size_t t0 = 0; t0 < n_out; t0 += d_chunk) {
            const size_t steps = std::min(d_chunk, n_out - t0);
            const auto l = pfb_plan::plan_two_pass(d_config, steps, d_sm_count, 3, library_from());
            std::vector<float2> columns(steps * n * r, make_float2(NAN, NAN));
            for (const auto& b : pfb_plan::two_pass_tap_blocks(d_config)) {
                pfb_geometry gb = g;
                gb.taps_per_branch = b.taps;
                pfb_plan::with_two_pass_shape(d_config, [&](auto tmax, auto o) {
                    d_lane_group = pfb_lane_group(st);
                    launch(dim3(unsigned(l.fir_blocks), unsigned(l.runs)),
                           dim3(pfb_plan::two_pass_threads),
                           0,
                           [&] {
                               pfb_fir_columns_kernel_of<Tin,
                                                         decltype(tmax)::value,
                                                         decltype(o)::value>(
                                   st, b.accumulate)(st,
                                                     d_taps.data() + b.first_tap * n,
                                                     columns.data(),
                                                     gb,
                                                     (long long)t0 - b.step_delay,
                                                     (long long)steps,
                                                     l.steps_per_run);
                           });
                });
            }
            if (l.library_rows) {
                // The CUDA engine's transposes around cuFFT's part (on the host).
                const dim3 tile_block(pfb_general_receivers, pfb_general_rows);
                std::vector<float2> rows(columns.size(), make_float2(NAN, NAN));
                pfb_geometry as_rows = g;
                as_rows.n_channels = int(steps * r);
                as_rows.n_receivers = int(n);
                as_rows.fft_shift = 0;
                launch(dim3(2), tile_block, pfb_general_transpose_smem_bytes, [&] {
                    pfb_general_transpose_kernel(columns.data(), rows.data(), as_rows, 0, 1);
                });
                inverse_dft(rows, steps * r, 1, n);
                if (r < pfb_plan::two_pass_rows_transpose_receivers)
                    copy_out(l, rows, out, g, t0, steps, (long long)(r * n), (long long)n, 1);
                else
                    launch(dim3(2), tile_block, pfb_general_transpose_smem_bytes, [&] {
                        pfb_general_transpose_kernel(
                            rows.data(), out, g, (long long)t0, (long long)steps);
                    });
                continue;
            }
            if (l.library_fft) {
                // cuFFT's part on the host, then the CUDA engine's copy kernel;
                // fewer blocks than the grid's, as on the GPU: blocks loop.
                inverse_dft(columns, steps * r, steps * r, 1);
                copy_out(l, columns, out, g, t0, steps, (long long)r, 1, (long long)(steps * r));
                continue;
            }
            if (l.register_fft) {
                // Fewer blocks than tiles, as on the GPU: blocks loop.
                const auto pass2 = pfb_columns_register_fft_kernel_of(g.log2_n);
                launch(dim3(unsigned(std::min<long long>(l.fft_blocks, d_sm_count))),
                       dim3(pfb_plan::two_pass_fft_threads),
                       l.fft_shared_bytes,
                       [&] {
                           pass2(columns.data(),
                                 d_twiddle.data(),
                                 out,
                                 g,
                                 (long long)t0,
                                 (long long)steps);
                       });
                continue;
            }
            launch(dim3(unsigned(l.fft_blocks)),
                   dim3(pfb_plan::two_pass_threads),
                   l.fft_shared_bytes,
                   [&] {
                       pfb_columns_fft_kernel(columns.data(),
                                              d_twiddle.data(),
                                              out,
                                              g,
                                              (long long)t0,
                                              (long long)steps,
                                              l.log2_cols);
                   });
        }
    }

public:
    //! Steps per two-pass chunk (the engine's come from a byte budget).
    size_t d_chunk = 1 << 30;
    //! Entry of pfb_plan::tiled_shapes that the tiled path runs.
    size_t d_tiled_shape = 0;
    //! The tiled path computes receivers [d_first_receiver, R) (the rest of a
    //! call whose whole groups of 32 the cluster kernel took).
    size_t d_first_receiver = 0;
    //! A library FFT (cuFFT's part on the host), as the CUDA engine has:
    //! fir_library_fft runs the host's DFT and the transpose kernel (else the
    //! direct-DFT kernel), two_pass the library pass 2 where its plan takes it
    //! (else the FFT kernels only, as on HIP).
    bool d_host_fft = false;
    //! Lanes per load group of the last two-pass pass 1 (pfb_lane_group).
    int d_lane_group = 0;

private:
    //! The CUDA engine's pfb_spectra_to_output_kernel on fewer blocks than its
    //! grid, as on the GPU: blocks loop.
    void copy_out(const pfb_plan::two_pass_launch& l,
                  const std::vector<float2>& spectra,
                  float2* out,
                  const pfb_geometry& g,
                  size_t t0,
                  size_t steps,
                  long long step_stride,
                  long long receiver_stride,
                  long long bin_stride)
    {
        launch(dim3(unsigned(std::min<long long>(l.fft_blocks, 2)),
                    unsigned(std::min<long long>(l.fft_step_blocks, 3))),
               dim3(pfb_plan::two_pass_threads),
               0,
               [&] {
                   pfb_spectra_to_output_kernel(spectra.data(),
                                                out,
                                                g,
                                                (long long)t0,
                                                (long long)steps,
                                                step_stride,
                                                receiver_stride,
                                                bin_stride);
               });
    }

    size_t library_from() const
    {
        return d_host_fft ? pfb_plan::two_pass_library_from : pfb_plan::no_library_fft;
    }

    template <typename Tin>
    void run(const Tin* in, float2* out, size_t n_out)
    {
        const auto p = d_path;
        if (p == pfb_plan::path::two_pass) {
            two_pass(in, out, n_out);
            return;
        }
        if (p == pfb_plan::path::tiled) {
            tiled(in, out, n_out);
            return;
        }
        if (p == pfb_plan::path::fused) {
            pfb_plan::with_fused_shape(
                d_config.n_channels, d_config.oversample, [&](auto index) {
                    constexpr pfb_plan::fused_shape shape =
                        pfb_plan::fused_shapes[decltype(index)::value];
                    fused<Tin, shape.oversample, shape.bq, shape.rbt, shape.nt>(
                        in, out, n_out);
                });
            return;
        }
        general(in, out, n_out);
    }

    /*!
     * The GPU engine's run_general in chunks of d_chunk steps. Without cuFFT
     * here, fir_library_fft transforms the workspace rows on the host when
     * d_host_fft (then the CUDA engine's transpose kernel runs), else it runs
     * the direct-DFT kernel (the HIP engine's choice).
     */
    template <typename Tin>
    void general(const Tin* in, float2* out, size_t n_out)
    {
        const size_t n = d_config.n_channels, n_rx = d_config.n_receivers;
        const size_t chunk = std::min(d_chunk, n_out);
        std::vector<float2> workspace(chunk * n_rx * n);
        const auto st = stream_of(in);
        const auto g = geometry(n_out);
        const dim3 tile_block(pfb_general_receivers, pfb_general_rows);
        for (size_t t0 = 0; t0 < n_out; t0 += chunk) {
            const long long steps = (long long)std::min(chunk, n_out - t0);
            // Three blocks: each takes several tiles (the grid-stride loop).
            launch(dim3(3), tile_block, pfb_general_fir_smem_bytes, [&] {
                if (d_config.oversample == 1)
                    pfb_general_fir_kernel<Tin, 1>(
                        st, d_taps.data(), workspace.data(), g, (long long)t0, steps);
                else
                    pfb_general_fir_kernel<Tin, 2>(
                        st, d_taps.data(), workspace.data(), g, (long long)t0, steps);
            });
            if (d_path == pfb_plan::path::fir_smem_fft) {
                const int rows =
                    pfb_general_fft_rows(int(n), pfb_plan::general_fft_smem_budget);
                const size_t r_tiles = (n_rx + size_t(rows) - 1) / size_t(rows);
                launch(dim3(unsigned(size_t(steps) * r_tiles)),
                       dim3(pfb_plan::general_fft_threads),
                       pfb_general_fft_smem_bytes(int(n), rows),
                       [&] {
                           pfb_general_fft_kernel(workspace.data(),
                                                  d_twiddle.data(),
                                                  out,
                                                  g,
                                                  (long long)t0,
                                                  rows);
                       });
            } else if (d_host_fft) {
                inverse_dft(workspace, size_t(steps) * n_rx, 1, n);
                launch(dim3(2), tile_block, pfb_general_transpose_smem_bytes, [&] {
                    pfb_general_transpose_kernel(
                        workspace.data(), out, g, (long long)t0, steps);
                });
            } else {
                launch(dim3(4), dim3(32), 0, [&] {
                    pfb_direct_dft_kernel(
                        workspace.data(), d_twiddle.data(), out, g, (long long)t0, steps);
                });
            }
        }
    }

    /*!
     * cuFFT's part: unnormalized inverse DFTs of N points, in place; transform
     * i's element j at i dist + j stride (rows: stride 1, dist N; columns:
     * stride = the count, dist 1).
     */
    void inverse_dft(std::vector<float2>& data, size_t count, size_t stride, size_t dist) const
    {
        const size_t n = d_config.n_channels;
        std::vector<cfloat> row(n);
        for (size_t i = 0; i < count; i++) {
            float2* x = data.data() + i * dist;
            for (size_t k = 0; k < n; k++) {
                std::complex<double> sum = 0;
                for (size_t j = 0; j < n; j++)
                    sum += std::complex<double>(x[j * stride].x, x[j * stride].y) *
                           std::polar(1.0, 2.0 * M_PI * double(j * k % n) / double(n));
                row[k] = cfloat(sum);
            }
            for (size_t k = 0; k < n; k++)
                x[k * stride] = make_float2(row[k].real(), row[k].imag());
        }
    }

    pfb_channelizer_config d_config;
    pfb_plan::path d_path;
    std::vector<float> d_taps;
    std::vector<float> d_branch_taps; //!< the tiled kernels' [N][T_MAX]
    size_t d_step;
    size_t d_history_len;
    int d_sm_count;
    std::vector<float2> d_twiddle;
    std::vector<uint8_t> d_history[2];
    int d_current = 0;
    size_t d_steps_done = 0;
};

struct emulated_case {
    size_t n, t;
    unsigned o;
    sample_format f;
    size_t r;
    bool shift;
    std::vector<size_t> calls;
    int sm_count; // small values force several runs of steps per receiver block
    size_t chunk = 1 << 30; // two-pass steps per chunk
    size_t first_receiver = 0; // tiled: receivers below it are left to the cluster kernel
};

//! Checks one path against the CPU engine; returns the lanes per load group
//! of the last call's pass 1 (two_pass only).
int check_path(const emulated_case& k,
               unsigned seed,
               pfb_plan::path path,
               size_t tiled_shape = 0,
               bool host_fft = false)
{
    pfb_channelizer_config c;
    c.n_channels = k.n;
    c.taps_per_branch = k.t;
    c.oversample = k.o;
    c.input = k.f;
    c.n_receivers = k.r;
    c.fft_shift = k.shift;
    c.taps = random_vector<float>(k.n * k.t, seed, -1.0, 1.0);
    c.validate();
    const size_t n_out = std::accumulate(k.calls.begin(), k.calls.end(), size_t(0));
    const auto input = random_input(c, n_out * c.input_per_output(), seed + 1);
    const size_t in_item = c.n_receivers * sample_size(c.input);
    const size_t out_item = c.n_channels * c.n_receivers;

    auto cpu = make_pfb_channelizer_cpu(c);
    std::vector<cfloat> expected(n_out * out_item);
    cpu->execute(input.data(), expected.data(), n_out, nullptr);

    emulated_engine emu(c, k.sm_count, path);
    emu.d_chunk = k.chunk;
    emu.d_tiled_shape = tiled_shape;
    emu.d_host_fft = host_fft;
    emu.d_first_receiver = k.first_receiver;
    std::vector<cfloat> got(n_out * out_item, cfloat(NAN, NAN));
    size_t done = 0;
    for (size_t n : k.calls) {
        emu.execute(input.data() + done * c.input_per_output() * in_item,
                    got.data() + done * out_item,
                    n);
        done += n;
    }
    // With a first receiver: its outputs and the following ones against the
    // CPU engine, and the ones before it still unwritten (NaN).
    size_t written_before = 0;
    if (k.first_receiver > 0) {
        std::vector<cfloat> got_rest, expected_rest;
        for (size_t i = 0; i < got.size(); i++)
            if (i % c.n_receivers >= k.first_receiver) {
                got_rest.push_back(got[i]);
                expected_rest.push_back(expected[i]);
            } else {
                written_before += !std::isnan(got[i].real()) || !std::isnan(got[i].imag());
            }
        got.swap(got_rest);
        expected.swap(expected_rest);
    }
    EXPECT_EQ(written_before, 0u) << "outputs of receivers before " << k.first_receiver;
    const double err = relative_error(got, expected);
    std::ostringstream what;
    what << "emulated pfb_channelizer N=" << k.n << " T=" << k.t << " O=" << k.o
         << " fmt=" << to_string(k.f) << " R=" << k.r << " shift=" << k.shift
         << " path=" << pfb_plan::path_name(path) << " chunk=" << std::min(k.chunk, n_out)
         << " sm=" << k.sm_count
         << (k.first_receiver ? " first_receiver=" + std::to_string(k.first_receiver) : "")
         << (!host_fft                              ? ""
             : path == pfb_plan::path::two_pass ? " library pass 2 (host DFT)"
                                                : " host_fft+transpose");
    if (path == pfb_plan::path::fused)
        what << " runs_of_longest_call="
             << pfb_plan::plan_fused(
                    c, *std::max_element(k.calls.begin(), k.calls.end()), k.sm_count)
                    .runs;
    if (path == pfb_plan::path::tiled) {
        const auto& shape = pfb_plan::tiled_shapes[tiled_shape];
        what << " tiled_shape=" << tiled_shape << " (S=" << shape.steps
             << " RB=" << shape.receivers << " P=" << shape.pairs
             << " threads=" << shape.threads
             << (shape.branch_halves ? " halves" : "")
             << (shape.register_log2_n ? " register FFT" : " in-place FFT") << ")";
    }
    if (path == pfb_plan::path::two_pass)
        what << " runs_of_first_chunk="
             << pfb_plan::plan_two_pass(c, std::min(k.chunk, k.calls[0]), k.sm_count).runs
             << " lane_group=" << emu.d_lane_group;
    what
         << " calls=[";
    for (size_t i = 0; i < k.calls.size(); i++)
        what << (i ? "," : "") << k.calls[i];
    what << "]";
    std::cout << what.str() << " rel_err=" << err << "\n";
    EXPECT_LT(err, 1e-5) << what.str(); // NaN (an unwritten output) fails too
    return emu.d_lane_group;
}

//! Every path of a shared-memory FFT that applies to the case (the direct-DFT
//! general path where none does).
void check_case(const emulated_case& k, unsigned seed)
{
    pfb_channelizer_config c;
    c.n_channels = k.n;
    c.taps_per_branch = k.t;
    c.oversample = k.o;
    c.n_receivers = k.r;
    int ran = 0;
    if (pfb_plan::path_applies(pfb_plan::path::tiled, c)) {
        // Every tiled shape that can run N (register-FFT entries: their N
        // only) on this input format (ring entries: their samples fit).
        for (size_t shape : pfb_plan::tiled_shape_indices(k.n, sample_size(k.f)))
            check_path(k, seed, pfb_plan::path::tiled, shape);
        ran++;
    }
    // Without a library FFT (as on HIP), then two_pass with the library's
    // pass 2 where the CUDA engine's plan takes it.
    for (auto p : { pfb_plan::path::two_pass, pfb_plan::path::fused })
        if (pfb_plan::path_applies(p, c, false)) {
            check_path(k, seed, p);
            ran++;
        }
    if (pfb_plan::path_applies(pfb_plan::path::two_pass, c) &&
        pfb_plan::plan_two_pass(c, 1, 1, 3, pfb_plan::two_pass_library_from).library_fft)
        check_path(k, seed, pfb_plan::path::two_pass, 0, true);
    // Where no kernel path applies without a library FFT: the HIP engine's
    // general path (its direct DFT).
    if (ran == 0)
        check_path(k, seed, pfb_plan::path_for(c, false));
}

} // namespace

TEST(PfbChannelizerEmulated, FusedKernelEveryShapeBothOversamplings)
{
    unsigned seed = 1;
    const auto f32 = sample_format::fc32;
    // Shapes (branches x receivers per thread): O=1: N <= 256 (1, 4), 512 (2, 2),
    // 1024 (4, 1); O=2: N <= 512 (1, 2), 1024 (2, 1).
    for (unsigned o : { 1u, 2u }) {
        check_case({ 2, 16, o, f32, 3, false, { 20, 1, 19 }, 2 }, seed++);
        check_case({ 16, 16, o, f32, 5, true, { 33, 2, 5 }, 2 }, seed++);
        check_case({ 256, 16, o, f32, 5, false, { 21, 1, 18 }, 2 }, seed++);
        check_case({ 512, 16, o, f32, 3, true, { 9, 1, 24 }, 3 }, seed++);
        check_case({ 1024, 16, o, f32, 2, false, { 17, 1, 20 }, 2 }, seed++);
    }
}

TEST(PfbChannelizerEmulated, FusedKernelFormatsShortBranchesManyRuns)
{
    unsigned seed = 50;
    check_case({ 64, 16, 1, sample_format::sc16, 7, false, { 40, 24 }, 8 }, seed++);
    check_case({ 64, 16, 2, sample_format::sc8, 7, true, { 40, 24 }, 8 }, seed++);
    check_case({ 32, 5, 1, sample_format::sc8, 9, false, { 3, 30 }, 4 }, seed++);
    check_case({ 32, 1, 2, sample_format::sc16, 4, false, { 17, 16 }, 4 }, seed++);
    check_case({ 128, 9, 2, sample_format::fc32, 1, false, { 1, 1, 1, 40 }, 5 }, seed++);
    // Long calls on a "GPU" of 8 SMs: several runs of steps per receiver block.
    check_case({ 16, 16, 1, sample_format::sc16, 3, false, { 90, 7 }, 8 }, seed++);
    check_case({ 16, 16, 2, sample_format::fc32, 3, true, { 100, 3 }, 8 }, seed++);
    check_case({ 1024, 3, 1, sample_format::sc8, 1, false, { 64 }, 8 }, seed++);
}

TEST(PfbChannelizerEmulated, GeneralPathSharedMemoryFftAndDirectDft)
{
    unsigned seed = 80;
    check_case({ 64, 24, 1, sample_format::fc32, 3, false, { 12, 7 }, 2 }, seed++);
    check_case({ 32, 20, 2, sample_format::sc16, 2, true, { 5, 9 }, 2 }, seed++);
    check_case({ 12, 6, 2, sample_format::sc16, 3, true, { 10, 3 }, 2 }, seed++);
    check_case({ 7, 4, 1, sample_format::sc8, 2, false, { 6, 6 }, 2 }, seed++);
    // FIR tiles cut at every edge: 40 receivers (a tile of 32 and one of 8;
    // the FFT's 32 rows per block and 8), 24 or 40 branches (tiles of 16 and
    // a partial one), chunks of 5 and 11 steps (partial tiles of 8 steps).
    const auto fir_smem_fft = pfb_plan::path::fir_smem_fft;
    check_path({ 64, 20, 2, sample_format::sc16, 40, true, { 9, 13 }, 2, 5 },
               seed++,
               fir_smem_fft);
    check_path({ 32, 17, 1, sample_format::fc32, 40, false, { 20 }, 2, 11 },
               seed++,
               fir_smem_fft);
}

TEST(PfbChannelizerEmulated, GeneralPathTransposeAfterLibraryFft)
{
    // cuFFT's part done on the host, then the CUDA engine's transpose kernel:
    // 24 and 40 channels (a partial tile of 32), 40 receivers.
    unsigned seed = 100;
    const auto library = pfb_plan::path::fir_library_fft;
    check_path({ 24, 18, 2, sample_format::sc16, 40, true, { 7, 10 }, 2, 5 },
               seed++,
               library,
               0,
               true);
    check_path({ 40, 5, 1, sample_format::fc32, 33, false, { 19 }, 2, 8 },
               seed++,
               library,
               0,
               true);
}

TEST(PfbChannelizerEmulated, TwoPassLibraryFftPass2)
{
    // cuFFT's part down the columns on the host, then the CUDA engine's copy
    // kernel: N not a power of two (odd N with fft_shift; O = 2), T > 16
    // (two tap blocks), sc16 lane groups, chunks of 3 and 4 steps across calls,
    // N = 2048 (the library from two_pass_library_from on), and N = 2050 and
    // 2052 (above 2048 and not a power of two: the columns transposed to rows;
    // the output by the copy kernel for 3 receivers, by the transpose for 33).
    unsigned seed = 110;
    const auto two_pass = pfb_plan::path::two_pass;
    check_path({ 24, 18, 1, sample_format::sc16, 8, true, { 7, 10 }, 2, 3 },
               seed++, two_pass, 0, true);
    check_path({ 25, 5, 1, sample_format::fc32, 33, true, { 19, 1 }, 2, 4 },
               seed++, two_pass, 0, true);
    check_path({ 100, 3, 1, sample_format::sc8, 3, false, { 2, 5 }, 64, 1 << 30 },
               seed++, two_pass, 0, true);
    check_path({ 12, 6, 2, sample_format::sc16, 4, true, { 10, 3, 6 }, 2, 5 },
               seed++, two_pass, 0, true);
    check_path({ 2048, 4, 2, sample_format::sc16, 2, true, { 3, 2 }, 2, 2 },
               seed++, two_pass, 0, true);
    check_path({ 2050, 3, 1, sample_format::fc32, 3, true, { 2, 3 }, 2, 2 },
               seed++, two_pass, 0, true);
    check_path({ 2052, 2, 2, sample_format::sc16, 33, false, { 1, 2 }, 2, 2 },
               seed++, two_pass, 0, true);
    EXPECT_FALSE(pfb_plan::two_pass_library_rows(4096));
    EXPECT_TRUE(pfb_plan::two_pass_library_rows(8192));
    EXPECT_FALSE(pfb_plan::two_pass_library_rows(2000));
    EXPECT_TRUE(pfb_plan::two_pass_library_rows(3000));
}

TEST(PfbChannelizerEmulated, TwoPassChunksRunsAndShortRing)
{
    unsigned seed = 120;
    const auto two_pass = pfb_plan::path::two_pass;
    // Chunks of 7 steps across calls of 20, 1 and 30 steps; runs forced by a
    // large "SM count" (steps / (4 ring) runs at most).
    check_path({ 16, 16, 1, sample_format::sc16, 5, false, { 20, 1, 30 }, 64, 7 }, seed++,
               two_pass);
    check_path({ 16, 16, 2, sample_format::fc32, 3, true, { 130, 3 }, 64, 1 << 30 }, seed++,
               two_pass);
    check_path({ 16, 5, 1, sample_format::sc16, 3, false, { 150, 2 }, 64, 1 << 30 }, seed++,
               two_pass);
    // T <= 8: the short ring; N = 2048 and 4096 (beyond the fused kernel).
    check_path({ 64, 7, 2, sample_format::sc8, 33, true, { 9, 70 }, 64, 11 }, seed++,
               two_pass);
    check_path({ 2048, 4, 1, sample_format::fc32, 2, false, { 3, 2 }, 2, 2 }, seed++,
               two_pass);
    check_path({ 4096, 2, 2, sample_format::sc16, 1, true, { 2, 3 }, 2, 1 << 30 }, seed++,
               two_pass);
    // T > 16: pass 1 in blocks of 16 taps, each on the stream delayed by
    // 16 b O steps and added to the columns (two and three blocks, a block
    // of one tap; chunks of 7, 8 and 11 steps; sc16 lane groups).
    check_path({ 64, 24, 2, sample_format::sc16, 8, true, { 20, 1, 30 }, 64, 7 },
               seed++,
               two_pass);
    check_path({ 32, 40, 1, sample_format::fc32, 3, false, { 9, 40 }, 3, 1 << 30 },
               seed++,
               two_pass);
    check_path(
        { 16, 17, 2, sample_format::sc8, 5, false, { 50, 3 }, 2, 11 }, seed++, two_pass);
    check_path({ 256, 20, 1, sample_format::sc16, 13, false, { 21, 9 }, 3, 8 },
               seed++,
               two_pass);
    // The register-FFT pass 2 (N = 128 .. 1024): receivers that fill no group
    // of 8 (13, 3), chunks that end in partial tiles, fewer blocks than tiles.
    check_path({ 256, 16, 1, sample_format::sc16, 13, false, { 20, 1, 30 }, 3, 7 }, seed++,
               two_pass);
    check_path({ 128, 16, 2, sample_format::fc32, 3, true, { 9, 40 }, 2, 5 }, seed++,
               two_pass);
    check_path({ 512, 9, 2, sample_format::sc8, 9, false, { 7, 12 }, 3, 1 << 30 }, seed++,
               two_pass);
    check_path({ 1024, 16, 1, sample_format::sc16, 11, true, { 5, 18 }, 3, 4 }, seed++,
               two_pass);
    check_path({ 1024, 16, 2, sample_format::fc32, 3, false, { 40 }, 2, 1 << 30 }, seed++,
               two_pass);
}

TEST(PfbChannelizerEmulated, TwoPassLaneGroups)
{
    // sc16 and sc8: pass 1's lanes load 4 (receivers a multiple of 4) or 2
    // (even) receivers' samples at once and exchange them. The inputs are
    // aligned, so the group is exact. Cases: history loads (short first
    // calls), runs of steps, chunks, both O and both rings (T_MAX 8 and 16),
    // and lanes past the last (branch, receiver) that only exchange (N R =
    // 16, 24, 80: no whole block, and a partial warp).
    unsigned seed = 140;
    const auto two_pass = pfb_plan::path::two_pass;
    const std::vector<std::pair<emulated_case, int>> grouped = {
        { { 16, 16, 1, sample_format::sc16, 6, false, { 20, 1, 30 }, 64, 7 }, 2 },
        { { 16, 8, 2, sample_format::sc8, 4, true, { 3, 90 }, 64, 1 << 30 }, 4 },
        { { 4, 5, 1, sample_format::sc16, 6, false, { 2, 41 }, 8, 1 << 30 }, 2 },
        { { 4, 16, 1, sample_format::sc8, 4, true, { 3, 37 }, 8, 1 << 30 }, 4 },
        { { 8, 7, 2, sample_format::sc16, 10, true, { 1, 50 }, 64, 9 }, 2 },
        { { 64, 16, 1, sample_format::sc16, 12, false, { 2, 1, 60 }, 64, 11 }, 4 },
        { { 256, 16, 1, sample_format::sc16, 14, false, { 20, 1, 30 }, 3, 7 }, 2 },
        { { 256, 16, 1, sample_format::sc16, 8, true, { 20, 1, 30 }, 3, 7 }, 4 },
        { { 1024, 8, 2, sample_format::sc16, 2, true, { 5, 18 }, 3, 4 }, 2 },
        { { 1024, 7, 1, sample_format::sc8, 2, false, { 40 }, 2, 1 << 30 }, 2 },
        { { 1024, 16, 1, sample_format::sc16, 4, false, { 5, 18 }, 3, 4 }, 4 },
        { { 16, 16, 2, sample_format::sc16, 8, true, { 9, 30 }, 64, 7 }, 4 },
        { { 128, 16, 2, sample_format::sc8, 6, false, { 3, 40 }, 4, 9 }, 2 },
        { { 1024, 16, 2, sample_format::sc16, 12, true, { 5, 18 }, 3, 4 }, 4 },
    };
    for (const auto& [k, lanes] : grouped)
        EXPECT_EQ(check_path(k, seed++, two_pass), lanes);
    // Odd receiver counts and fc32 keep the single-sample loads.
    const std::vector<emulated_case> singles = {
        { 16, 16, 1, sample_format::sc16, 5, false, { 9, 30 }, 64, 7 },
        { 16, 16, 1, sample_format::fc32, 8, false, { 9, 30 }, 64, 7 },
        { 16, 16, 2, sample_format::sc8, 3, true, { 9, 30 }, 64, 7 },
    };
    for (const auto& k : singles)
        EXPECT_EQ(check_path(k, seed++, two_pass), 1);
}

TEST(PfbChannelizerEmulated, TiledRegisterFftEdges)
{
    // The register-FFT tiles (N = 128, 256, 512; S = 4, 6, 8; RB = 4, 8): every
    // input format, receivers not a multiple of RB (3, 9, 13), calls that end in
    // partial tiles of every length, oversampling 2 (the rotation by N/2),
    // fft_shift, T < 16, and few "SMs" so that each block takes several tiles.
    // check_case runs every tiled shape that can run N, the old ones included.
    unsigned seed = 200;
    const auto sc16 = sample_format::sc16, sc8 = sample_format::sc8,
               fc32 = sample_format::fc32;
    check_case({ 256, 16, 1, sc16, 13, false, { 7, 1, 13, 5 }, 3 }, seed++);
    check_case({ 256, 16, 2, sc16, 9, true, { 11, 2, 30 }, 2 }, seed++); // > 31 steps: every tap
    check_case({ 256, 11, 1, sc8, 3, true, { 5, 19 }, 4 }, seed++);
    check_case({ 256, 16, 2, sc8, 16, false, { 3, 25 }, 5 }, seed++);
    check_case({ 256, 7, 1, fc32, 8, false, { 2, 1, 23 }, 3 }, seed++);
    check_case({ 128, 16, 1, sc16, 9, true, { 17, 6 }, 3 }, seed++);
    check_case({ 512, 16, 2, sc16, 5, false, { 13, 4 }, 2 }, seed++);
    // Receivers a multiple of 8: the ring entry's aligned copies (16 bytes at
    // sc16, 8 at sc8), calls of more than one range of tiles per receiver group
    // (64 steps), and calls that end in partial tiles.
    check_case({ 256, 16, 1, sc16, 8, false, { 30, 3, 150 }, 3 }, seed++);
    check_case({ 256, 16, 2, sc8, 16, true, { 141, 9 }, 5 }, seed++);
}

TEST(PfbChannelizerEmulated, TiledKernelsFromAFirstReceiver)
{
    // The rest of a call whose whole groups of 32 receivers the cluster kernel
    // took (N = 256): every tiled entry at N = 256 but the short-call ring
    // entry computes receivers [first_receiver, R) and writes nothing before
    // them; a partial last group, whole ones, both oversamplings, calls of
    // several lengths. The rest of a short call runs the whole-call entry.
    unsigned seed = 230;
    const auto sc16 = sample_format::sc16, fc32 = sample_format::fc32;
    size_t shapes = 0;
    for (auto f : { sc16, fc32 })
        for (size_t shape : pfb_plan::tiled_shape_indices(256, sample_size(f))) {
            if (pfb_plan::tiled_shapes[shape].ring)
                continue;
            check_path({ 256, 16, 1, f, 36, true, { 7, 40, 13 }, 3, 1 << 30, 32 }, seed++,
                       pfb_plan::path::tiled, shape);
            check_path({ 256, 16, 2, f, 72, false, { 11, 33 }, 2, 1 << 30, 64 }, seed++,
                       pfb_plan::path::tiled, shape);
            shapes++;
        }
    EXPECT_GE(shapes, 10u); // every N = 256 entry of both formats
    const size_t whole = pfb_plan::tiled_shape_index(256, 1, 4),
                 ring = pfb_plan::tiled_short_call_shape(256, 1, 4);
    ASSERT_LT(ring, pfb_plan::tiled_shape_count);
    EXPECT_EQ(pfb_plan::tiled_shape_for_call(whole, ring, 500), ring);
    EXPECT_EQ(pfb_plan::tiled_shape_for_call(whole, ring, 500, 96), whole);
}

TEST(PfbChannelizerEmulated, TiledRegisterFft1024)
{
    // The N = 1024 tiles (32 x 32 register FFT, one warp per row, 24 rows:
    // S x RB = 6 x 4, 3 x 8, 12 x 2; with and without branch_halves; 384 and
    // 512 threads), each against the CPU engine: every format, both
    // oversamplings (branch_halves reads branch p + N/2's samples where branch
    // p read them), receivers that fill no receiver group (1, 3, 5, 9, 11),
    // fft_shift, T < 16, calls that end in partial tiles (of 1 to 10 steps)
    // and blocks that take several tiles. check_case also runs entry 0,
    // two_pass and fused here.
    unsigned seed = 300;
    const auto sc16 = sample_format::sc16, sc8 = sample_format::sc8,
               fc32 = sample_format::fc32;
    check_case({ 1024, 16, 1, sc16, 11, false, { 7, 1, 17 }, 3 }, seed++);
    // O = 2: a window spans 31 steps of M (the first 31 steps read the zero
    // history), so these calls run past it to reach every tap with data.
    check_case({ 1024, 16, 2, sc16, 9, true, { 13, 2, 32 }, 2 }, seed++);
    check_case({ 1024, 16, 1, fc32, 5, true, { 4, 21 }, 2 }, seed++);
    check_case({ 1024, 16, 2, fc32, 3, false, { 1, 14, 29 }, 3 }, seed++);
    check_case({ 1024, 9, 2, sc8, 1, false, { 19, 3 }, 2 }, seed++);
    check_case({ 1024, 5, 1, sc8, 3, true, { 2, 25 }, 2 }, seed++);
}

//! register_inverse_dft<L> against the direct DFT in double, L = 2 ... 32,
//! with twiddle tables of N = L and N = 4 L (the kernels use N > L).
template <int L>
void check_register_dft(int n, unsigned seed)
{
    std::vector<float2> table(n);
    for (int k = 0; k < n; k++) {
        const double a = 2.0 * M_PI * k / n;
        table[k] = make_float2(float(std::cos(a)), float(std::sin(a)));
    }
    const auto re = random_vector<float>(L, seed, -1.0, 1.0);
    const auto im = random_vector<float>(L, seed + 7, -1.0, 1.0);
    float2 v[L];
    for (int k = 0; k < L; k++)
        v[k] = make_float2(re[k], im[k]);
    pfb_fft::register_inverse_dft<L>(v, table.data(), n);
    double err = 0.0, norm = 0.0;
    for (int c = 0; c < L; c++) {
        std::complex<double> want = 0.0;
        for (int k = 0; k < L; k++)
            want += std::complex<double>(re[k], im[k]) *
                    std::polar(1.0, 2.0 * M_PI * double(k) * double(c) / L);
        err += std::norm(std::complex<double>(v[c].x, v[c].y) - want);
        norm += std::norm(want);
    }
    EXPECT_LT(std::sqrt(err / norm), 1e-6) << "L=" << L << " N=" << n;
}

TEST(PfbChannelizerEmulated, RegisterDftMatchesDirectDft)
{
    check_register_dft<2>(2, 1);
    check_register_dft<4>(16, 2);
    check_register_dft<8>(8, 3);
    check_register_dft<8>(64, 4);
    check_register_dft<16>(16, 5);
    check_register_dft<16>(256, 6);
    check_register_dft<32>(32, 7);
    check_register_dft<32>(512, 8);
    check_register_dft<32>(1024, 9); // both passes of the N = 1024 register FFT
}

TEST(PfbChannelizerEmulated, TiledShapeChoiceAndKnob)
{
    using pfb_plan::tiled_shape_index;
    using pfb_plan::tiled_shapes;
    beamform_test::scoped_env knob("BEAMFORM_PFB_TILED_SHAPE", nullptr);
    // Defaults: the register FFT where an entry is made for N, else the
    // in-place FFT entries by min_channels.
    for (size_t n : { size_t(128), size_t(256), size_t(512), size_t(1024) })
        for (unsigned o : { 1u, 2u }) {
            const auto& s = tiled_shapes[tiled_shape_index(n, o)];
            EXPECT_EQ(size_t(1) << s.register_log2_n, n);
            EXPECT_TRUE(s.default_choice);
            EXPECT_TRUE(s.oversample == 0 || s.oversample == int(o));
        }
    // Below N = 128 entry 2 (one pair per thread, in-place FFT).
    for (size_t n : { size_t(2), size_t(16), size_t(64) })
        for (unsigned o : { 1u, 2u })
            EXPECT_EQ(tiled_shape_index(n, o), 2u) << "N=" << n << " O=" << o;
    EXPECT_EQ(tiled_shape_index(1024, 1), 10u); // S = 6, RB = 4, branch halves
    EXPECT_EQ(tiled_shape_index(1024, 2), 10u);
    // sc16 at O = 2 takes entry 11 (S = 3, RB = 8): the entry that names both
    // the O and the format wins over entry 10, which names neither.
    for (auto f : { sample_format::sc8, sample_format::sc16, sample_format::fc32 })
        for (unsigned o : { 1u, 2u })
            EXPECT_EQ(tiled_shape_index(1024, o, sample_size(f)),
                      f == sample_format::sc16 && o == 2 ? 11u : 10u)
                << "O=" << o << " sample bytes " << sample_size(f);
    for (auto f : { sample_format::sc8, sample_format::sc16, sample_format::fc32 })
        for (unsigned o : { 1u, 2u })
            EXPECT_EQ(tiled_shape_index(256, o, sample_size(f)), o == 1 ? 9u : 15u);
    EXPECT_EQ(tiled_shape_index(256, 1), 9u); // S = 12, RB = 8
    EXPECT_EQ(tiled_shape_index(256, 2), 15u); // S = 8, RB = 8, branch halves
    // Short calls: entry 16 (the input ring) at N = 256, sc16, O = 1 only, for
    // calls of up to tiled_short_call_steps steps.
    using pfb_plan::tiled_shape_count;
    using pfb_plan::tiled_shape_for_call;
    using pfb_plan::tiled_short_call_shape;
    EXPECT_EQ(tiled_short_call_shape(256, 1, 4), 16u);
    EXPECT_TRUE(tiled_shapes[16].ring && tiled_shapes[16].short_calls);
    EXPECT_FALSE(tiled_shapes[16].default_choice);
    EXPECT_EQ(tiled_short_call_shape(256, 2, 4), tiled_shape_count);
    EXPECT_EQ(tiled_short_call_shape(256, 1, 2), tiled_shape_count);
    EXPECT_EQ(tiled_short_call_shape(256, 1, 8), tiled_shape_count);
    EXPECT_EQ(tiled_short_call_shape(512, 1, 4), tiled_shape_count);
    const size_t limit = pfb_plan::tiled_short_call_steps;
    EXPECT_EQ(tiled_shape_for_call(9, 16, 1), 16u);
    EXPECT_EQ(tiled_shape_for_call(9, 16, limit), 16u);
    EXPECT_EQ(tiled_shape_for_call(9, 16, limit + 1), 9u);
    EXPECT_EQ(tiled_shape_for_call(9, tiled_shape_count, 1), 9u);
    // Entry 0 (in place, S = 4) and the five register-FFT tiles of N = 1024;
    // every tile fits in shared memory with the twiddles.
    EXPECT_EQ(pfb_plan::tiled_shape_indices(1024), (std::vector<size_t>{ 0, 10, 11, 12, 13, 14 }));
    for (size_t i : pfb_plan::tiled_shape_indices(1024))
        EXPECT_LE(pfb_plan::tiled_shared_bytes(1024, tiled_shapes[i]),
                  pfb_plan::tiled_shared_limit);
    // The tiled path is the default up to N = 256 (T <= 16), two_pass above.
    {
        const beamform_test::scoped_env no_path("BEAMFORM_PFB_PATH", nullptr);
        for (size_t n : { size_t(256), size_t(512), size_t(1024), size_t(2048) }) {
            pfb_channelizer_config c;
            c.n_channels = n;
            c.taps_per_branch = 16;
            for (unsigned o : { 1u, 2u }) {
                c.oversample = o;
                EXPECT_EQ(pfb_plan::path_for(c),
                          n <= 256 ? pfb_plan::path::tiled : pfb_plan::path::two_pass)
                    << "N=" << n << " O=" << o;
            }
        }
        // Beyond T = 16: two_pass (pass 1 in blocks of 16 taps) for every N
        // with a library FFT as pass 2 (CUDA); without one (HIP) the general
        // path beyond N = 4096 and for N that are not powers of two.
        for (size_t n : { size_t(16),
                          size_t(256),
                          size_t(1024),
                          size_t(4096),
                          size_t(8192),
                          size_t(100),
                          size_t(384) }) {
            pfb_channelizer_config c;
            c.n_channels = n;
            c.taps_per_branch = 24;
            const bool kernel_fft = pfb_plan::is_power_of_two(n) && n <= 4096;
            for (unsigned o : { 1u, 2u }) {
                c.oversample = o;
                EXPECT_EQ(pfb_plan::path_for(c), pfb_plan::path::two_pass)
                    << "N=" << n << " O=" << o;
                EXPECT_EQ(pfb_plan::path_for(c, false),
                          kernel_fft ? pfb_plan::path::two_pass
                                     : pfb_plan::path::fir_library_fft)
                    << "N=" << n << " O=" << o << " without a library FFT";
                // Pass 2: the library's from two_pass_library_from on, and for N
                // that the kernels cannot transform; the register FFT at 128-1024.
                const auto l = pfb_plan::plan_two_pass(c, 5, 4, 3, pfb_plan::two_pass_library_from);
                EXPECT_EQ(l.library_fft,
                          !kernel_fft || n >= pfb_plan::two_pass_library_from)
                    << "N=" << n;
                EXPECT_FALSE(pfb_plan::plan_two_pass(c, 5, 4).library_fft);
            }
        }
    }
    // The knob forces an entry where it can run and falls back otherwise.
    for (size_t i = 0; i < pfb_plan::tiled_shape_count; i++) {
        knob.set(std::to_string(i).c_str());
        // A forced entry runs every call, short ones too.
        EXPECT_EQ(tiled_short_call_shape(256, 1, 4), tiled_shape_count);
        for (size_t n : { size_t(64), size_t(256), size_t(1024) }) {
            const size_t got = tiled_shape_index(n, 1);
            if (pfb_plan::tiled_shape_can_run(n, tiled_shapes[i]))
                EXPECT_EQ(got, i) << "N=" << n;
            else
                EXPECT_TRUE(pfb_plan::tiled_shape_can_run(n, tiled_shapes[got])) << "N=" << n;
        }
    }
}

TEST(PfbChannelizerEmulated, ClusterKernelChoiceAndLaunch)
{
    // The cluster kernel (CUDA, sm_90; run by the GPU test, not emulated): the
    // configurations it serves, when it is the default, the knob, its launch
    // shape.
    namespace plan = pfb_plan;
    pfb_channelizer_config c;
    c.n_channels = 256;
    c.taps_per_branch = 16;
    c.n_receivers = 96;
    c.input = sample_format::sc16;
    EXPECT_TRUE(plan::cluster_kernel_serves(c));
    for (size_t n : { 256, 512, 1024, 2048 })
        for (unsigned o : { 1u, 2u }) {
            auto served = c;
            served.n_channels = n;
            served.oversample = o;
            EXPECT_TRUE(plan::cluster_kernel_serves(served)) << n << " " << o;
        }
    EXPECT_EQ(plan::cluster_receivers(256), 32);
    EXPECT_EQ(plan::cluster_receivers(512), 8); // 4 blocks of 128 branches
    EXPECT_EQ(plan::cluster_receivers(1024), 8);
    EXPECT_EQ(plan::cluster_blocks(512), 4);
    EXPECT_EQ(plan::cluster_blocks(1024), 8);
    EXPECT_EQ(plan::cluster_blocks(2048), 16); // 128 branches a block
    EXPECT_EQ(plan::cluster_receivers(2048), 8);
    EXPECT_EQ(plan::cluster_warm_up_steps(1), 15);
    EXPECT_EQ(plan::cluster_warm_up_steps(2), 31);
    // The warm-up's whole rounds only load: 3 whole steps and 12 (28) at half.
    EXPECT_DOUBLE_EQ(plan::cluster_warm_up_cost(1), 9.0);
    EXPECT_DOUBLE_EQ(plan::cluster_warm_up_cost(2), 17.0);
    for (auto f : { sample_format::sc8, sample_format::fc32 }) {
        auto other = c;
        other.input = f;
        EXPECT_TRUE(plan::cluster_kernel_for_call(other, 1));
    }
    EXPECT_EQ(plan::history_taps(c), 16u);
    // Fewer taps run as 16, zero past T, over a history of 16 taps.
    for (size_t t : { 1, 5, 8, 12, 15 })
        for (size_t n : { 256, 1024 })
            for (unsigned o : { 1u, 2u }) {
                auto fewer = c;
                fewer.n_channels = n;
                fewer.oversample = o;
                fewer.taps_per_branch = t;
                EXPECT_TRUE(plan::cluster_kernel_serves(fewer)) << n << "x" << t << " O=" << o;
                EXPECT_EQ(plan::history_taps(fewer), 16u) << n << "x" << t << " O=" << o;
            }
    for (auto change : { 0, 1, 2, 3, 4 }) {
        auto no = c;
        if (change == 0)
            no.n_channels = 128;
        if (change == 4)
            no.n_channels = 4096;
        if (change == 1) {
            no.n_channels = 4096;
            no.taps_per_branch = 8;
        }
        if (change == 2)
            no.taps_per_branch = 17;
        if (change == 3) {
            no.oversample = 2;
            no.taps_per_branch = 24;
        }
        EXPECT_FALSE(plan::cluster_kernel_serves(no)) << "change " << change;
        EXPECT_FALSE(plan::cluster_kernel_for_call(no, 5000));
        // Where it does not serve, the history is the configuration's T taps.
        EXPECT_EQ(plan::history_taps(no), no.taps_per_branch) << "change " << change;
    }
    // The knob: 1 forces it, 0 (or a forced tiled entry or path) turns it
    // off, otherwise the default rule decides.
    {
        beamform_test::scoped_env knob("BEAMFORM_PFB_CLUSTER", nullptr);
        beamform_test::scoped_env tiled("BEAMFORM_PFB_TILED_SHAPE", nullptr);
        beamform_test::scoped_env path("BEAMFORM_PFB_PATH", nullptr);
        path.set("two_pass");
        EXPECT_EQ(plan::cluster_kernel_knob(), 0);
        path.set(nullptr);
        EXPECT_EQ(plan::cluster_kernel_knob(), -1);
        knob.set("0");
        EXPECT_EQ(plan::cluster_kernel_knob(), 0);
        knob.set("1");
        EXPECT_EQ(plan::cluster_kernel_knob(), 1);
        knob.set("yes");
        EXPECT_EQ(plan::cluster_kernel_knob(), -1);
        tiled.set("9");
        EXPECT_EQ(plan::cluster_kernel_knob(), 0);
    }
    // What a call runs: nothing on a GPU that holds none of the clusters or
    // with the knob at 0; with it at 1 every call the kernel serves, even one
    // the default leaves (96 receivers in 256 steps on 15 clusters at once,
    // below); otherwise the default.
    EXPECT_EQ(plan::cluster_kernel_receivers(c, 2730, 0, 1), 0u);
    EXPECT_EQ(plan::cluster_kernel_receivers(c, 2730, 15, 0), 0u);
    EXPECT_EQ(plan::cluster_kernel_receivers(c, 2730, 15, -1), 96u);
    EXPECT_EQ(plan::cluster_kernel_receivers(c, 256, 15, 1), 96u);
    EXPECT_EQ(plan::cluster_kernel_receivers(c, 256, 15, -1), 0u);
    {
        auto sc8 = c;
        sc8.input = sample_format::sc8;
        EXPECT_EQ(plan::cluster_kernel_receivers(sc8, 2730, 15, 1), 96u);
        EXPECT_EQ(plan::cluster_kernel_receivers(sc8, 2730, 15, -1), 0u);
        // From N = 512 on sc8 follows the sc16 rule (two-pass the other choice).
        for (size_t n : { 512, 1024, 2048 }) {
            auto wide = sc8;
            wide.n_channels = n;
            auto as_sc16 = wide;
            as_sc16.input = sample_format::sc16;
            for (size_t steps : { 12, 64, 256, 682 }) {
                const int at_once = n == 512 ? 30 : n == 2048 ? 7 : 15;
                EXPECT_EQ(plan::cluster_kernel_receivers(wide, steps, at_once, -1),
                          plan::cluster_kernel_receivers(as_sc16, steps, at_once, -1))
                    << n << " " << steps;
            }
            EXPECT_EQ(plan::cluster_kernel_receivers(wide, 682, 15, -1), 96u) << n;
        }
    }
    // Receivers past whole groups of 32 at N = 256: by default the cluster
    // kernel takes the whole groups and the tiled kernels the rest (the
    // forced kernel takes all, its last group partial); at N = 512 to 2048
    // (groups of 8) it takes every receiver.
    for (const auto& [r, k] : std::vector<std::pair<size_t, size_t>>{
             { 100, 96 }, { 33, 32 }, { 40, 32 }, { 95, 64 }, { 200, 192 }, { 31, 0 }, { 1, 0 } }) {
        auto other = c;
        other.n_receivers = r;
        EXPECT_EQ(plan::cluster_default_receivers(other), k) << r;
        EXPECT_EQ(plan::cluster_kernel_receivers(other, 5000, 15, -1), k) << r;
        EXPECT_EQ(plan::cluster_kernel_receivers(other, 5000, 15, 1), r) << r;
        other.n_channels = 1024;
        EXPECT_EQ(plan::cluster_default_receivers(other), r) << r;
    }
    // The default at N = 256: sc16 or fc32, whole groups of 32 receivers,
    // launches that spend at least 75 % of the GPU's cluster-steps on stored
    // steps. The
    // measured cases (15 clusters at once, an H200): chosen where the kernel
    // was faster, not where it was level or slower.
    const struct {
        size_t receivers, steps;
        bool chosen;
    } measured[] = { { 96, 320, true },   { 96, 341, true },   { 96, 1024, true },
                     { 96, 2730, true },  { 96, 256, false },  { 96, 170, false },
                     { 128, 768, true },  { 128, 256, false }, { 64, 512, true },
                     { 64, 1536, true },  { 64, 256, false },  { 32, 1024, true },
                     { 32, 3072, true },  { 32, 512, false } };
    for (const auto& m : measured)
        for (auto f : { sample_format::sc16, sample_format::fc32 }) {
            auto other = c;
            other.n_receivers = m.receivers;
            other.input = f;
            EXPECT_EQ(plan::cluster_kernel_chosen(other, m.steps, 15), m.chosen)
                << m.receivers << " receivers, " << m.steps << " steps";
        }
    EXPECT_FALSE(plan::cluster_kernel_chosen(c, 2730, 0)); // the GPU cannot run it
    {
        auto other = c;
        other.input = sample_format::sc8; // slower than the tiled kernels
        EXPECT_FALSE(plan::cluster_kernel_chosen(other, 2730, 15));
        // 16 groups on 15 slots: several segments a group (15: 16 full waves
        // of segments of 182 steps; 13 segments, 14 waves with two slots
        // idle, spend 0.3 % less), not one (a second wave of one cluster)
        other.input = sample_format::sc16;
        other.n_receivers = 512;
        EXPECT_EQ(plan::plan_cluster(other, 2730, 15).segments, 15);
        EXPECT_LT(plan::cluster_efficiency_of(plan::cluster_launch_of(other, 2730, 1), 2730, 15),
                  0.55);
        EXPECT_GT(plan::cluster_efficiency(other, 2730, 15), 0.9);
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 2730, 15));
        other.n_receivers = 480; // 15 groups: one wave
        EXPECT_GT(plan::cluster_efficiency(other, 2730, 15), 0.99);
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 2730, 15));
    }
    // Partial groups at N = 256: the whole groups decide (the tiled kernels
    // take the rest; a partial group on the cluster kernel measured level or
    // slower than the tiled kernels, 40 to 200 receivers, session 46), so
    // below 32 receivers the tiled kernels take the call, and the rest of
    // 100 receivers does not make a call of 256 steps the cluster kernel's
    // (96 receivers: level or slower there, above).
    for (size_t r : { 33, 40, 48, 80, 95, 100, 112, 200 }) {
        auto other = c;
        other.n_receivers = r;
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 5000, 15)) << r;
    }
    for (size_t r : { 1, 31 }) {
        auto other = c;
        other.n_receivers = r;
        EXPECT_FALSE(plan::cluster_kernel_chosen(other, 5000, 15)) << r;
    }
    {
        auto other = c;
        other.n_receivers = 100;
        EXPECT_FALSE(plan::cluster_kernel_chosen(other, 256, 15));
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 320, 15));
    }
    // Indices are 32-bit in the kernel: calls of 2^31 samples x R or more
    // take the tiled kernels.
    const size_t too_long = (size_t(1) << 31) / (256 * 96) - 3 * plan::cluster_window + 1;
    EXPECT_TRUE(plan::cluster_kernel_for_call(c, too_long - 100));
    EXPECT_FALSE(plan::cluster_kernel_for_call(c, too_long));
    EXPECT_FALSE(plan::cluster_kernel_chosen(c, too_long, 15));
    // 96 receivers: 3 groups; 15 clusters at once (an H200) make 5 segments of
    // a 2730-step call, each covering its share; short calls fewer segments.
    const auto whole = plan::plan_cluster(c, 2730, 15);
    EXPECT_EQ(whole.receiver_groups, 3);
    EXPECT_EQ(whole.segments, 5);
    EXPECT_EQ(whole.steps_per_segment, 546);
    EXPECT_EQ(whole.clusters(), 15);
    for (size_t n_out : { size_t(1), size_t(63), size_t(64), size_t(200), size_t(1025), size_t(100000) })
        for (int at_once : { 0, 1, 2, 15, 16, 200 }) {
            const auto l = plan::plan_cluster(c, n_out, at_once);
            EXPECT_GE(l.segments, 1);
            EXPECT_GE((long long)l.segments * l.steps_per_segment, (long long)n_out);
            EXPECT_LT((long long)(l.segments - 1) * l.steps_per_segment, (long long)n_out);
            if (l.segments > 1) {
                EXPECT_GE(size_t(l.steps_per_segment), plan::cluster_min_segment_steps - 1)
                    << n_out;
                EXPECT_LE(l.segments, std::max(at_once, 1));
            }
            // No other segment count the plan may take spends the GPU better.
            const double e = plan::cluster_efficiency_of(l, n_out, std::max(at_once, 1));
            for (long long s = 1; s <= std::max(at_once, 1) &&
                                  s <= std::max<long long>(1, n_out / plan::cluster_min_segment_steps);
                 s++)
                EXPECT_LE(plan::cluster_efficiency_of(
                              plan::cluster_launch_of(c, n_out, s), n_out, std::max(at_once, 1)),
                          e * (1 + 1e-9))
                    << n_out << " steps, " << s << " segments";
        }
    c.n_receivers = 33; // a partial group
    EXPECT_EQ(plan::plan_cluster(c, 100, 15).receiver_groups, 2);
    // N = 1024: groups of 8 receivers; 96 receivers are 12 groups, and the
    // standard 682-step call takes 5 segments a group (60 clusters, 4 full
    // waves of 15) instead of one (12 of 15 slots).
    c.n_channels = 1024;
    c.n_receivers = 96;
    const auto l1024 = plan::plan_cluster(c, 682, 15);
    EXPECT_EQ(l1024.receiver_groups, 12);
    EXPECT_EQ(l1024.segments, 5);
    EXPECT_EQ(l1024.steps_per_segment, 137);
    EXPECT_GT(plan::cluster_efficiency(c, 682, 15), 0.89);
    // At N = 1024 partial groups take it too, their idle lanes counted
    // (session 46: 12, 20, 50 and 100 receivers 1.1-1.7x faster than the
    // two-pass path), and the threshold is 0.45: 96 receivers from 12 steps
    // at O = 1 (16 measured level, 24 1.1x faster).
    for (auto f : { sample_format::sc16, sample_format::fc32 }) {
        auto other = c;
        other.input = f;
        for (size_t r : { 8, 12, 20, 50, 96, 100 }) {
            other.n_receivers = r;
            EXPECT_TRUE(plan::cluster_kernel_chosen(other, 1024, 15)) << r;
        }
        other.n_receivers = 12; // 2 groups, 14 clusters of 147 steps, 3/4 of the lanes
        EXPECT_NEAR(plan::cluster_efficiency(other, 1024, 15),
                    1024.0 * 2 / (15 * (147 + 9)) * 12 / 16, 1e-12);
        other.n_receivers = 2; // a quarter of one group's lanes
        EXPECT_FALSE(plan::cluster_kernel_chosen(other, 1024, 15));
        other.n_receivers = 96;
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 12, 15));  // 12 x 0.8 / 21 = 0.46
        EXPECT_FALSE(plan::cluster_kernel_chosen(other, 11, 15)); // 0.44
    }
    // N = 512: clusters of 4 blocks (30 at once on an H200), groups of 8
    // receivers, the N = 1024 rule (session 46: faster from 128 steps, 0.70,
    // slower at 64, 0.35).
    c.n_channels = 512;
    for (auto f : { sample_format::sc16, sample_format::fc32 }) {
        auto other = c;
        other.input = f;
        const auto l512 = plan::plan_cluster(other, 128, 30);
        EXPECT_EQ(l512.receiver_groups, 12);
        EXPECT_EQ(l512.segments, 2);
        EXPECT_NEAR(plan::cluster_efficiency(other, 128, 30), 128.0 * 12 / (30 * (64 + 9)), 1e-12);
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 1365, 30));
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 256, 30));
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 128, 30));
        EXPECT_FALSE(plan::cluster_kernel_chosen(other, 64, 30));
        EXPECT_FALSE(plan::cluster_kernel_chosen(other, 16, 30));
        for (size_t r : { 12, 100 }) { // partial groups, measured faster
            other.n_receivers = r;
            EXPECT_TRUE(plan::cluster_kernel_chosen(other, 1365, 30)) << r;
        }
    }
    // N = 2048: clusters of 16 blocks (7 at once on an H200; sessions 46 and
    // 47: 1.15-1.85x two-pass from 24 steps at O = 1 and 32 at O = 2).
    c.n_channels = 2048;
    for (auto f : { sample_format::sc16, sample_format::fc32 }) {
        auto other = c;
        other.input = f;
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 341, 7));
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 24, 7)); // 24 x 12 / (14 x 33) = 0.62
        EXPECT_FALSE(plan::cluster_kernel_chosen(other, 8, 7)); // 0.40
        other.oversample = 2;
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 341, 7));
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 32, 7)); // 32 x 12 / (14 x 49) = 0.56
        EXPECT_FALSE(plan::cluster_kernel_chosen(other, 16, 7)); // 0.42
        other.n_receivers = 100;
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 327, 7));
    }
    // O = 2: each segment's warm-up is 31 steps (the 32-sample chain), 28 of
    // them only loaded: a cost of 17 steps.
    c.n_channels = 256;
    c.oversample = 2;
    const auto os2 = plan::plan_cluster(c, 2730, 15);
    EXPECT_DOUBLE_EQ(os2.warm_up_cost, 17.0);
    EXPECT_EQ(os2.segments, 5);
    EXPECT_NEAR(plan::cluster_efficiency_of(os2, 2730, 15), 2730.0 * 3 / (15 * (546 + 17)), 1e-12);
    // The default at O = 2, by the same rule (H200, session 45: the cluster
    // kernel 1.2-1.6x the tiled kernels at N = 256, 341 steps, and the
    // two-pass path at N = 1024, 170 to 682 steps; at N = 256, 256 steps
    // level: 0.065-0.066 ms against 0.063-0.073).
    for (auto f : { sample_format::sc16, sample_format::fc32 }) {
        auto other = c;
        other.input = f;
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 2730, 15));
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 682, 15));   // efficiency 0.89
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 341, 15));   // 0.79
        EXPECT_FALSE(plan::cluster_kernel_chosen(other, 256, 15));  // 0.63
        other.n_channels = 1024;
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 682, 15));
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 256, 15));  // efficiency 0.75
        // 0.73 (measured 1.5x faster, session 45), and from 22 steps, which
        // the threshold of 0.45 at N = 1024 takes (24 measured 1.2x faster,
        // session 46).
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 170, 15));
        EXPECT_TRUE(plan::cluster_kernel_chosen(other, 22, 15));  // 22 x 0.8 / 39 = 0.45
        EXPECT_FALSE(plan::cluster_kernel_chosen(other, 21, 15)); // 0.44
    }
}
