/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rca_das on a GPU (CUDA or HIP; see kernels/common/gpu_portable.h):
 * pre-processing, stage 1, stage 2 (or the conventional beamformer), and the
 * output passes, all enqueued on the caller's stream. Workspaces are made once
 * at construction.
 */
#include "../runtime/gpu_memory.h"
#include "rca_das_engine.h"
#include <gpu/rca_das_beamform.cuh>
#include <gpu/rca_das_preprocess.cuh>
#include <gpu/rca_das_volume.cuh>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {
namespace {

int pick(int value, int fallback) { return value > 0 ? value : fallback; }

void check_batch(const char* name, int b)
{
    if (b != 1 && b != 2 && b != 4 && b != 8 && b != 16)
        throw std::invalid_argument(std::string(name) + " must be 1, 2, 4, 8 or 16, got " +
                                    std::to_string(b));
}

class rca_das_gpu final : public rca_das_engine
{
public:
    rca_das_gpu(const rca_das_config& c, const device_spec& dev, const rca_das_gpu_tuning& tune)
        : rca_das_engine(c), d_device(dev)
    {
        const auto& g = d_geometry;
        d_iq = g.iq;
        d_sample_bytes = d_iq ? sizeof(float2) : sizeof(float);

        d_batch1 = pick(tune.stage1_batch, 8);
        d_batch2 = pick(tune.stage2_batch, 8);
        check_batch("stage1_batch", d_batch1);
        check_batch("stage2_batch", d_batch2);
        d_multi_pixel = tune.multi_pixel != 0;
        d_block1 = dim3(pick(tune.stage1_block_z, 32), pick(tune.stage1_block_lat, 4));
        d_block2 = dim3(pick(tune.stage2_block_elev, 32), pick(tune.stage2_block_z, 4));
        for (const dim3& b : { d_block1, d_block2 })
            if (b.x * b.y > unsigned(rca::max_block_threads))
                throw std::invalid_argument("rca_das GPU tuning: a block may have at most " +
                                            std::to_string(rca::max_block_threads) +
                                            " threads");

        BF_GPU_CHECK(gpuSetDevice(dev.index));
        d_row_stride = g.n_t + 2;
        d_lri_stride = g.n_z_lri + 2;
        d_filtered = device_memory(dev, g.n_tx * g.n_rx * d_row_stride * d_sample_bytes);
        if (c.method == rca_method::dual_stage)
            d_lri = device_memory(dev, g.n_lat * g.n_tx * d_lri_stride * d_sample_bytes);
        if (!d_iq)
            d_volume = device_memory(dev, c.n_voxels() * sizeof(float));
        d_max = device_memory(dev, sizeof(unsigned));

        std::vector<float2> taps(g.n_taps);
        for (size_t m = 0; m < g.n_taps; m++)
            taps[m] = make_float2(g.taps[m].real(), g.taps[m].imag());
        std::vector<float2> sources(g.n_tx);
        for (size_t j = 0; j < g.n_tx; j++)
            sources[j] = make_float2(float(g.source_elev[j]), float(g.source_z[j]));
        d_taps = device_memory(dev, taps.size() * sizeof(float2));
        d_sources = device_memory(dev, sources.size() * sizeof(float2));
        BF_GPU_CHECK(gpuMemcpyAsync(
            d_taps.get(), taps.data(), d_taps.size(), gpuMemcpyHostToDevice, nullptr));
        BF_GPU_CHECK(gpuMemcpyAsync(
            d_sources.get(), sources.data(), d_sources.size(), gpuMemcpyHostToDevice, nullptr));
        // Zero guards at both ends of every row: written once, never again.
        BF_GPU_CHECK(gpuMemsetAsync(d_filtered.get(), 0, d_filtered.size(), nullptr));
        if (d_lri.get())
            BF_GPU_CHECK(gpuMemsetAsync(d_lri.get(), 0, d_lri.size(), nullptr));
        BF_GPU_CHECK(gpuStreamSynchronize(nullptr));
    }

    std::string describe() const override
    {
        std::ostringstream s;
        const auto& g = d_geometry;
        s << BF_GPU_API_NAME << " " << d_device.name() << ", "
          << (d_config.method == rca_method::dual_stage ? "dual-stage" : "conventional")
          << (d_iq ? ", I/Q" : ", real") << ", filtered samples " << g.n_t;
        if (d_config.method == rca_method::dual_stage)
            s << ", LRI " << g.n_lat << "x" << g.n_z_lri << ", stage 1 batch " << d_batch1
              << " block " << d_block1.x << "x" << d_block1.y << ", stage 2 batch " << d_batch2
              << " block " << d_block2.x << "x" << d_block2.y << ", multi-pixel "
              << (d_multi_pixel ? "3" : "off");
        return s.str();
    }

    void add_emissions(const void* in, size_t first, size_t count, stream_handle stream) override
    {
        const auto& g = d_geometry;
        if (first + count > g.n_tx)
            throw std::out_of_range("rca_das: emissions " + std::to_string(first) + ".." +
                                    std::to_string(first + count) + " exceed the sequence of " +
                                    std::to_string(g.n_tx));
        if (count == 0)
            return;
        BF_GPU_CHECK(gpuSetDevice(d_device.index));
        auto s = static_cast<gpuStream_t>(stream);
        preprocess(in, first, count, s);
        if (d_config.method == rca_method::dual_stage)
            stage1(first, count, s);
    }

    void finish_volume(void* out, stream_handle stream) override
    {
        BF_GPU_CHECK(gpuSetDevice(d_device.index));
        auto s = static_cast<gpuStream_t>(stream);
        const bool db = d_config.output == rca_output::db;
        const bool volume_max = db && !(d_config.db_reference > 0);
        if (volume_max)
            BF_GPU_CHECK(gpuMemsetAsync(d_max.get(), 0, sizeof(unsigned), s));

        // Where the beamformer writes, and what.
        rca::volume_store store = volume_layout();
        if (!d_iq) {
            store.out = d_volume.get();
            store.mode = rca::store_real;
            store.max_bits = nullptr;
        } else {
            store.out = out;
            store.mode = d_config.output == rca_output::iq ? rca::store_complex
                                                           : rca::store_envelope;
            store.max_bits = volume_max ? d_max.as<unsigned>() : nullptr;
        }
        if (d_config.method == rca_method::dual_stage)
            stage2(store, s);
        else
            conventional(store, s);

        if (!d_iq) {
            rca::axial_params a{};
            const auto& g = d_geometry;
            a.real_volume = d_volume.as<float>();
            a.n_lat = int(g.n_lat);
            a.n_elev = int(g.n_elev);
            a.n_z = int(g.n_z);
            const double k = -2.0 * g.demod_frequency / g.c;
            a.z0_cycles = k * g.z.start;
            a.dz_cycles = k * g.z.step;
            const std::vector<float> h = rca_axial_hilbert_taps();
            for (int m = 0; m < rca::axial_hilbert_taps; m++)
                a.taps[m] = h[m];
            a.store = volume_layout();
            a.store.out = out;
            a.store.mode = d_config.output == rca_output::iq ? rca::store_complex
                                                             : rca::store_envelope;
            a.store.max_bits = volume_max ? d_max.as<unsigned>() : nullptr;
            rca::launch_rca_axial_analytic(a, s);
        }
        if (db) // the envelope is in out: to dB in place
            rca::launch_rca_db(static_cast<float*>(out),
                               d_config.n_voxels(),
                               volume_max ? d_max.as<unsigned>() : nullptr,
                               float(d_config.db_reference),
                               s);
    }

private:
    rca::volume_store volume_layout() const
    {
        rca::volume_store st{};
        st.stride_lat = d_geometry.stride_lat;
        st.stride_elev = d_geometry.stride_elev;
        return st;
    }

    void preprocess(const void* in, size_t first, size_t count, gpuStream_t s)
    {
        const auto& g = d_geometry;
        rca::preprocess_params p{};
        p.n_samples = int(d_config.n_samples);
        p.n_rx = int(g.n_rx);
        p.n_taps = int(g.n_taps);
        p.decimation = int(g.decimation);
        p.n_t = int(g.n_t);
        p.row_stride = int(d_row_stride);
        p.phase0 = -g.demod_frequency * g.t0;
        p.phase_step = -g.demod_frequency / g.fs;
        p.taps = d_taps.as<float2>();
        const size_t offset = first * g.n_rx * d_row_stride;
        const int n = int(count);
        if (d_config.input == rca_sample_type::int16) {
            auto rf = static_cast<const int16_t*>(in);
            if (d_iq)
                rca::launch_rca_preprocess(rf, d_filtered.as<float2>() + offset, p, n, s);
            else
                rca::launch_rca_preprocess(rf, d_filtered.as<float>() + offset, p, n, s);
        } else {
            auto rf = static_cast<const float*>(in);
            if (d_iq)
                rca::launch_rca_preprocess(rf, d_filtered.as<float2>() + offset, p, n, s);
            else
                rca::launch_rca_preprocess(rf, d_filtered.as<float>() + offset, p, n, s);
        }
    }

    void stage1(size_t first, size_t count, gpuStream_t s)
    {
        const auto& g = d_geometry;
        rca::stage1_params p{};
        p.data = d_filtered.get();
        p.lri = d_lri.get();
        p.frame_stride = g.n_rx * d_row_stride;
        p.row_stride = int(d_row_stride);
        p.n_t = int(g.n_t);
        p.n_rx = int(g.n_rx);
        p.n_lat = int(g.n_lat);
        p.n_zl = int(g.n_z_lri);
        p.lri_stride = int(d_lri_stride);
        p.n_tx = int(g.n_tx);
        p.lat0 = float(g.lat.start);
        p.dlat = float(g.lat.step);
        p.z0 = float(g.z.start);
        p.dz = float(g.z.step);
        p.rx0 = float(g.element_first);
        p.pitch = float(g.pitch);
        p.f_number = float(g.f_number);
        p.fs_over_c = float(g.fs / g.c);
        p.t0_fs = float(g.t0 * g.fs);
        p.cycles_per_m = float(g.demod_frequency / g.c);
        const int P = d_multi_pixel ? 3 : 1;
        const dim3 grid_xy((p.n_zl + d_block1.x - 1) / d_block1.x,
                           ((p.n_lat + P - 1) / P + d_block1.y - 1) / d_block1.y);
        auto set_first = [](rca::stage1_params& q, int f) { q.frame0 = f; };
        if (d_iq) {
            if (P == 3)
                rca::launch_stage<float2, 3>(
                    p, set_first, int(first), int(count), d_batch1, d_block1, grid_xy, s);
            else
                rca::launch_stage<float2, 1>(
                    p, set_first, int(first), int(count), d_batch1, d_block1, grid_xy, s);
        } else {
            if (P == 3)
                rca::launch_stage<float, 3>(
                    p, set_first, int(first), int(count), d_batch1, d_block1, grid_xy, s);
            else
                rca::launch_stage<float, 1>(
                    p, set_first, int(first), int(count), d_batch1, d_block1, grid_xy, s);
        }
    }

    void stage2(const rca::volume_store& store, gpuStream_t s)
    {
        const auto& g = d_geometry;
        rca::stage2_params p{};
        p.lri = d_lri.get();
        p.lat_stride = g.n_tx * d_lri_stride;
        p.lri_stride = int(d_lri_stride);
        p.n_zl = int(g.n_z_lri);
        p.n_tx = int(g.n_tx);
        p.n_lat = int(g.n_lat);
        p.n_elev = int(g.n_elev);
        p.n_z = int(g.n_z);
        p.elev0 = float(g.elev.start);
        p.delev = float(g.elev.step);
        p.z0 = float(g.z.start);
        p.dz = float(g.z.step);
        p.inv_dz = float(1.0 / g.z.step);
        p.f_number = float(g.f_number);
        p.cycles_per_m = float(2.0 * g.demod_frequency / g.c);
        p.sources = d_sources.as<float2>();
        p.store = store;
        const int P = d_multi_pixel ? 3 : 1;
        const dim3 grid_xy((p.n_elev + d_block2.x - 1) / d_block2.x,
                           ((p.n_z + P - 1) / P + d_block2.y - 1) / d_block2.y);
        auto set_first = [](rca::stage2_params& q, int f) { q.lat0 = f; };
        const int n = int(g.n_lat);
        if (d_iq) {
            if (P == 3)
                rca::launch_stage<float2, 3>(p, set_first, 0, n, d_batch2, d_block2, grid_xy, s);
            else
                rca::launch_stage<float2, 1>(p, set_first, 0, n, d_batch2, d_block2, grid_xy, s);
        } else {
            if (P == 3)
                rca::launch_stage<float, 3>(p, set_first, 0, n, d_batch2, d_block2, grid_xy, s);
            else
                rca::launch_stage<float, 1>(p, set_first, 0, n, d_batch2, d_block2, grid_xy, s);
        }
    }

    void conventional(const rca::volume_store& store, gpuStream_t s)
    {
        const auto& g = d_geometry;
        rca::conventional_params p{};
        p.data = d_filtered.get();
        p.frame_stride = g.n_rx * d_row_stride;
        p.row_stride = int(d_row_stride);
        p.n_t = int(g.n_t);
        p.n_rx = int(g.n_rx);
        p.n_tx = int(g.n_tx);
        p.n_lat = int(g.n_lat);
        p.n_elev = int(g.n_elev);
        p.n_z = int(g.n_z);
        p.lat0 = float(g.lat.start);
        p.dlat = float(g.lat.step);
        p.elev0 = float(g.elev.start);
        p.delev = float(g.elev.step);
        p.z0 = float(g.z.start);
        p.dz = float(g.z.step);
        p.rx0 = float(g.element_first);
        p.pitch = float(g.pitch);
        p.f_number = float(g.f_number);
        p.fs_over_c = float(g.fs / g.c);
        p.t0_fs = float(g.t0 * g.fs);
        p.cycles_per_m = float(g.demod_frequency / g.c);
        p.sources = d_sources.as<float2>();
        p.store = store;
        rca::launch_rca_conventional(d_iq, p, s);
    }

    device_spec d_device;
    bool d_iq = true;
    size_t d_sample_bytes = 8;
    int d_batch1 = 8, d_batch2 = 8;
    bool d_multi_pixel = true;
    dim3 d_block1, d_block2;
    size_t d_row_stride = 0, d_lri_stride = 0;
    device_memory d_filtered; //!< [emission][receiver][n_t + 2]
    device_memory d_lri;      //!< [lateral][emission][n_z_lri + 2]
    device_memory d_volume;   //!< the real volume (real processing)
    device_memory d_max;      //!< bits of the volume's peak envelope
    device_memory d_taps;
    device_memory d_sources;
};

} // namespace

std::unique_ptr<rca_das_engine> make_rca_das_gpu(const rca_das_config& config,
                                                 const device_spec& device,
                                                 const rca_das_gpu_tuning& tuning)
{
    config.validate();
    return std::make_unique<rca_das_gpu>(config, device, tuning);
}

} // namespace BF_GPU_NS
} // namespace beamform
} // namespace gr
