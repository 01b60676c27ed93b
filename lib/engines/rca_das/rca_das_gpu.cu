/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rca_das on a GPU (CUDA or HIP; see kernels/common/gpu_portable.h):
 * pre-processing, stage 1, stage 2 (or the conventional beamformer), and the
 * output passes, all enqueued on the caller's stream. Workspaces are made once
 * at construction; execute() of several volumes alternates two sets of them on
 * two streams of its own, joined back into the caller's stream.
 */
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include "rca_das_gpu.h"
#include <gpu/rca_das_beamform.cuh>
#include <gpu/rca_das_preprocess.cuh>
#include <gpu/rca_das_volume.cuh>
#include "rca_das_gpu_plan.h"
#include <memory>
#include <sstream>
#include <stdexcept>

namespace gr {
namespace beamform {
namespace BF_GPU_NS {
namespace {

int pick(int value, int fallback) { return value > 0 ? value : fallback; }

rca::stage_shape check_shape(const char* name, int warps, int batch)
{
    std::string accepted;
    for (const auto& s : rca::stage_shapes) {
        if (s.warps == warps && s.batch == batch)
            return s;
        accepted += " " + std::to_string(s.warps) + "x" + std::to_string(s.batch);
    }
    throw std::invalid_argument(std::string(name) + " (warps x batch) must be one of" +
                                accepted + ", got " + std::to_string(warps) + "x" +
                                std::to_string(batch));
}

void check_tile(const char* name, int t)
{
    if (t < 1 || t > rca::stage_groups || rca::stage_groups % t != 0)
        throw std::invalid_argument(std::string(name) + " must divide " +
                                    std::to_string(rca::stage_groups) + ", got " +
                                    std::to_string(t));
}

class rca_das_gpu final : public rca_das_engine
{
public:
    rca_das_gpu(const rca_das_config& c, const device_spec& dev, const rca_das_gpu_tuning& tune)
        : rca_das_engine(c), d_device(dev)
    {
        const auto& g = d_geometry;
        d_iq = g.iq;
        if (tune.kernel_variant < -1 || tune.kernel_variant >= rca::stage_variant_count)
            throw std::invalid_argument(
                "kernel_variant must be -1 (the engine's choice), 0 (reference), 1 (folded), "
                "2 (half2), 3 (half2_real), 4 (half2_pipelined), 5 (half2_sectors) or 6 "
                "(half2_mixed), got " +
                std::to_string(tune.kernel_variant));
        d_shape1 = check_shape("stage 1", pick(tune.stage1_warps, 4), pick(tune.stage1_batch, 8));
        d_shape2 = check_shape("stage 2", pick(tune.stage2_warps, 4), pick(tune.stage2_batch, 8));
        d_multi_pixel = tune.multi_pixel != 0;
        // The engine's choice follows the config's gpu_precision; half kernels
        // only on request: they need a looser error bound (docs/rca_das.md).
        d_variant = rca::choose_variant(c, tune.kernel_variant, d_shape1, d_shape2);
        // half2_sectors' stage 2 is faster with 6 warps (H100: 0.325 against
        // 0.337 ms; apps/rca_bench.md, Version 16).
        if (d_variant == rca::variant_half_sectors && tune.stage2_warps <= 0)
            d_shape2 = check_shape("stage 2", 6, pick(tune.stage2_batch, 8));
        d_half = rca::variant_stores_half(d_variant);
        if (d_half) {
            // The storage gains are derived from the int16 range.
            const bool wants_iq = d_variant != rca::variant_half_real;
            if (!(d_iq == wants_iq && c.input == rca_sample_type::int16 &&
                  c.method == rca_method::dual_stage))
                throw std::invalid_argument(
                    "kernel_variant " + std::to_string(d_variant) + " (" +
                    rca::stage_variant_name(d_variant) + ") needs " +
                    (wants_iq ? "I/Q" : "real") +
                    " processing, int16 input and the dual-stage method (its storage gains are "
                    "derived from the int16 range), got " + (d_iq ? "I/Q" : "real") + ", " +
                    (c.input == rca_sample_type::int16 ? "int16" : "float32") + ", " +
                    (c.method == rca_method::dual_stage ? "dual-stage" : "conventional"));
        }
        d_sample_bytes = rca::stored_sample_bytes(d_iq, d_variant);
        if (d_half)
            d_gains = rca::half_gains_for(g);

        // Folded with I/Q samples runs the reference loop (rca::launch_stage).
        const int built = d_variant == rca::variant_folded && d_iq ? rca::variant_reference : d_variant;
        for (const auto& [name, shape] : { std::make_pair("stage 1", d_shape1),
                                           std::make_pair("stage 2", d_shape2) })
            if (!rca::variant_has_shape(built, shape.warps, shape.batch))
                throw std::invalid_argument(
                    std::string(name) + ": kernel_variant " + std::to_string(d_variant) + " (" +
                    rca::stage_variant_name(d_variant) + ") is built for " +
                    rca::variant_shapes_text(built) + " (warps x batch) only, got " +
                    std::to_string(shape.warps) + "x" + std::to_string(shape.batch));
        // Defaults: the fastest measured with the paper's geometry
        // (apps/rca_bench.md): tile 8 (H200), stage 1 of half2_sectors 4z
        // (H100, Version 15: 0.399 against 0.424 ms at 8z).
        d_tile1 = pick(tune.stage1_tile_z, d_variant == rca::variant_half_sectors ? 4 : 8);
        d_tile2 = pick(tune.stage2_tile_elev, 8);
        check_tile("stage1_tile_z", d_tile1);
        check_tile("stage2_tile_elev", d_tile2);

        BF_GPU_CHECK(gpuSetDevice(dev.index));
        d_row_stride = rca::filtered_row_stride(g);
        // Frames of padding for the last, partly filled chunk of a launch.
        const size_t filtered_elements = rca::filtered_elements(g);
        const size_t lri_elements = rca::lri_elements(g);
        if (filtered_elements >= (size_t(1) << 31) ||
            (c.method == rca_method::dual_stage && lri_elements >= (size_t(1) << 31)))
            throw std::invalid_argument(
                "rca_das GPU engine: the filtered data (emissions x n_elements x samples) and the "
                "stage-1 images (lateral count x emissions x image depth) must each have fewer "
                "than 2^31 samples");
        d_filtered_bytes = filtered_elements * d_sample_bytes;
        d_lri_bytes = c.method == rca_method::dual_stage ? lri_elements * d_sample_bytes : 0;
        d_ws = make_workspaces(nullptr);

        const std::vector<float2> taps = rca::taps_of(g);
        const std::vector<float2> sources = rca::sources_of(g);
        d_taps = device_memory(dev, taps.size() * sizeof(float2));
        d_sources = device_memory(dev, sources.size() * sizeof(float2));
        BF_GPU_CHECK(gpuMemcpyAsync(
            d_taps.get(), taps.data(), d_taps.size(), gpuMemcpyHostToDevice, nullptr));
        BF_GPU_CHECK(gpuMemcpyAsync(
            d_sources.get(), sources.data(), d_sources.size(), gpuMemcpyHostToDevice, nullptr));
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
            s << ", LRI " << g.n_lat << "x" << g.n_z_lri << ", stage 1 " << d_shape1.warps
              << " warps x " << d_shape1.batch << " emissions, tile " << d_tile1
              << "z, stage 2 " << d_shape2.warps << " warps x " << d_shape2.batch
              << " planes, tile " << d_tile2 << "y, multi-pixel " << (d_multi_pixel ? "3" : "off")
              << ", " << rca::stage_variant_name(d_variant)
              << (d_variant == rca::variant_folded && d_iq ? " (I/Q: reference loop)" : "");
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
        add(d_ws, in, first, count, static_cast<gpuStream_t>(stream));
    }

    void finish_volume(void* out, stream_handle stream) override
    {
        BF_GPU_CHECK(gpuSetDevice(d_device.index));
        finish(d_ws, out, static_cast<gpuStream_t>(stream));
    }

    /*!
     * Volumes alternate between two sets of workspaces on two streams, so that
     * one volume's kernels run beside the other's: each stage is 3-4 waves of
     * blocks, and a lone volume leaves the GPU part-empty in every stage's last
     * wave (apps/rca_bench.md, Version 16). The streams wait for the caller's
     * stream first and the caller's stream waits for both at the end.
     */
    void execute(const void* in, void* out, size_t n_volumes, stream_handle stream) override
    {
        if (n_volumes < 2) {
            rca_das_engine::execute(in, out, n_volumes, stream);
            return;
        }
        BF_GPU_CHECK(gpuSetDevice(d_device.index));
        if (!d_second)
            d_second = std::make_unique<second_lane>(d_device, make_workspaces(stream));
        const gpu_stream* lane_stream[2] = { &d_second->streams[0], &d_second->streams[1] };
        workspaces* lane_ws[2] = { &d_ws, &d_second->ws };
        d_second->fork.record(stream);
        for (const gpu_stream* ls : lane_stream)
            d_second->fork.make_wait(ls->get());
        const size_t in_bytes = d_config.input_item_bytes() * d_config.n_emissions();
        const size_t out_bytes = d_config.output_item_bytes();
        for (size_t v = 0; v < n_volumes; v++) {
            const auto ls = static_cast<gpuStream_t>(lane_stream[v % 2]->get());
            add(*lane_ws[v % 2],
                static_cast<const uint8_t*>(in) + v * in_bytes,
                0,
                d_config.n_emissions(),
                ls);
            finish(*lane_ws[v % 2], static_cast<uint8_t*>(out) + v * out_bytes, ls);
        }
        for (int l = 0; l < 2; l++) {
            d_second->joined[l].record(lane_stream[l]->get());
            d_second->joined[l].make_wait(stream);
        }
    }

private:
    /*!
     * One volume's workspaces. The filtered data and the images get zero
     * guards at both ends of every row: make_workspaces writes them, on the
     * stream it is given, and nothing writes them again.
     */
    struct workspaces {
        device_memory filtered; //!< [emission][receiver][n_t + 2] (pairs, octets: see the kernels)
        device_memory lri;      //!< [lateral][emission][n_z_lri + 2] (likewise)
        device_memory volume;   //!< the real volume (real processing)
        device_memory max;      //!< bits of the volume's peak envelope
    };

    //! execute()'s second workspaces, its two streams and its fork / join events.
    struct second_lane {
        second_lane(const device_spec& dev, workspaces w)
            : ws(std::move(w)),
              streams{ gpu_stream(dev), gpu_stream(dev) },
              fork(dev, gpu_event::use::ordering),
              joined{ gpu_event(dev, gpu_event::use::ordering),
                      gpu_event(dev, gpu_event::use::ordering) }
        {
        }
        workspaces ws;
        gpu_stream streams[2];
        gpu_event fork;
        gpu_event joined[2];
    };

    workspaces make_workspaces(stream_handle stream) const
    {
        const auto s = static_cast<gpuStream_t>(stream);
        workspaces w;
        w.filtered = device_memory(d_device, d_filtered_bytes);
        BF_GPU_CHECK(gpuMemsetAsync(w.filtered.get(), 0, w.filtered.size(), s));
        if (d_lri_bytes) {
            w.lri = device_memory(d_device, d_lri_bytes);
            BF_GPU_CHECK(gpuMemsetAsync(w.lri.get(), 0, w.lri.size(), s));
        }
        if (!d_iq)
            w.volume = device_memory(d_device, d_config.n_voxels() * sizeof(float));
        w.max = device_memory(d_device, sizeof(unsigned));
        return w;
    }

    void add(workspaces& w, const void* in, size_t first, size_t count, gpuStream_t s)
    {
        preprocess(w, in, first, count, s);
        if (d_config.method == rca_method::dual_stage)
            stage1(w, first, count, s);
    }

    void finish(workspaces& w, void* out, gpuStream_t s)
    {
        const bool db = d_config.output == rca_output::db;
        const bool volume_max = db && !(d_config.db_reference > 0);
        if (volume_max)
            BF_GPU_CHECK(gpuMemsetAsync(w.max.get(), 0, sizeof(unsigned), s));

        // Where the beamformer writes, and what.
        rca::volume_store store = rca::volume_layout(d_geometry);
        if (!d_iq) {
            store.out = w.volume.get();
            store.mode = rca::store_real;
            store.max_bits = nullptr;
        } else {
            store.out = out;
            store.mode = d_config.output == rca_output::iq ? rca::store_complex
                                                           : rca::store_envelope;
            store.max_bits = volume_max ? w.max.as<unsigned>() : nullptr;
        }
        if (d_config.method == rca_method::dual_stage)
            stage2(w, store, s);
        else
            conventional(w, store, s);

        if (!d_iq) {
            rca::axial_params a = rca::axial_plan(d_geometry, w.volume.as<float>());
            a.store.out = out;
            a.store.mode = d_config.output == rca_output::iq ? rca::store_complex
                                                             : rca::store_envelope;
            a.store.max_bits = volume_max ? w.max.as<unsigned>() : nullptr;
            rca::launch_rca_axial_analytic(a, s);
        }
        if (db) // the envelope is in out: to dB in place
            rca::launch_rca_db(static_cast<float*>(out),
                               d_config.n_voxels(),
                               volume_max ? w.max.as<unsigned>() : nullptr,
                               float(d_config.db_reference),
                               s);
    }

    void preprocess(workspaces& w, const void* in, size_t first, size_t count, gpuStream_t s)
    {
        const auto& g = d_geometry;
        rca::preprocess_params p = rca::preprocess_plan(d_config, g, d_taps.as<float2>());
        p.scale = d_gains.filtered_scale;
        const size_t offset = first * g.n_rx * d_row_stride;
        const int n = int(count);
        if (d_config.input == rca_sample_type::int16) {
            auto rf = static_cast<const int16_t*>(in);
            if (d_variant == rca::variant_half_real) { // emission pairs: the buffer's start
                p.emission0 = int(first);
                rca::launch_rca_preprocess(rf, w.filtered.as<uint16_t>(), p, n, s);
            } else if (d_variant == rca::variant_half_sectors) { // octets: the buffer's start
                p.emission0 = int(first);
                p.frames_in_octets = true;
                rca::launch_rca_preprocess(rf, w.filtered.as<__half2>(), p, n, s);
            } else if (d_half)
                rca::launch_rca_preprocess(rf, w.filtered.as<__half2>() + offset, p, n, s);
            else if (d_iq)
                rca::launch_rca_preprocess(rf, w.filtered.as<float2>() + offset, p, n, s);
            else
                rca::launch_rca_preprocess(rf, w.filtered.as<float>() + offset, p, n, s);
        } else {
            auto rf = static_cast<const float*>(in);
            if (d_iq)
                rca::launch_rca_preprocess(rf, w.filtered.as<float2>() + offset, p, n, s);
            else
                rca::launch_rca_preprocess(rf, w.filtered.as<float>() + offset, p, n, s);
        }
    }

    template <typename Params>
    void launch(const Params& p,
                int first,
                int count,
                rca::stage_shape shape,
                int tile,
                int n_fast,
                int n_slow,
                gpuStream_t s)
    {
        rca::launch_stage_for(
            d_iq, d_multi_pixel, d_variant, p, first, count, shape, tile, n_fast, n_slow, s);
    }

    void stage1(workspaces& w, size_t first, size_t count, gpuStream_t s)
    {
        rca::stage1_params p = rca::stage1_plan(d_geometry, w.filtered.get(), w.lri.get(), d_tile1);
        p.gain = d_gains.stage1_gain;
        launch(p, int(first), int(count), d_shape1, d_tile1, p.n_zl, p.n_lat, s);
    }

    void stage2(workspaces& w, const rca::volume_store& store, gpuStream_t s)
    {
        const auto& g = d_geometry;
        rca::stage2_params p = rca::stage2_plan(g, w.lri.get(), d_sources.as<float2>(), store, d_tile2);
        p.gain = d_gains.stage2_gain;
        launch(p, 0, int(g.n_lat), d_shape2, d_tile2, p.n_elev, p.n_z, s);
    }

    void conventional(workspaces& w, const rca::volume_store& store, gpuStream_t s)
    {
        const auto& g = d_geometry;
        rca::conventional_params p{};
        p.data = w.filtered.get();
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
        rca::set_receive_params(g, p);
        p.sources = d_sources.as<float2>();
        p.store = store;
        rca::launch_rca_conventional(d_iq, p, s);
    }

    device_spec d_device;
    bool d_iq = true;
    size_t d_sample_bytes = 8;
    rca::stage_shape d_shape1{ 4, 8 }, d_shape2{ 4, 8 };
    bool d_multi_pixel = true;
    int d_variant = rca::variant_reference;
    bool d_half = false;                     //!< filtered data and images stored as half
    rca::half_gains d_gains{ 1.0f, 1.0f, 1.0f };
    int d_tile1 = 8, d_tile2 = 8;
    size_t d_row_stride = 0;
    size_t d_filtered_bytes = 0, d_lri_bytes = 0;
    workspaces d_ws;                      //!< add_emissions / finish_volume, execute's first lane
    std::unique_ptr<second_lane> d_second; //!< made by the first execute() of several volumes
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
