/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rca_das CPU reference: the dual-stage and conventional RCA beamformers
 * written from the equations (eqs. 1-5, 18, 21, 22) and Algorithms 1, 2 and 5
 * of Praesius, Jorgensen and Jensen, "Real-Time Full-Volume Row-Column
 * Imaging".
 */
#include "rca_das_detail.h"
#include <gnuradio/beamform/engines/rca_das_engine.h>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace beamform {

namespace {

using namespace rca_detail;

class rca_das_cpu final : public rca_das_engine
{
public:
    explicit rca_das_cpu(const rca_das_config& c) : rca_das_engine(c)
    {
        const auto& g = d_geometry;
        d_filtered.assign(g.n_tx * g.n_rx * g.n_t, 0);
        if (c.method == rca_method::dual_stage)
            d_lri.assign(g.n_lat * g.n_tx * g.n_z_lri, 0);
        d_volume.assign(c.n_voxels(), 0);
    }

    std::string describe() const override
    {
        return std::string("cpu reference, ") +
               (d_config.method == rca_method::dual_stage ? "dual-stage" : "conventional") +
               (d_geometry.iq ? ", I/Q" : ", real") + ", LRI depth samples " +
               std::to_string(d_geometry.n_z_lri) + ", float32" +
               (d_config.gpu_precision == rca_gpu_precision::float16
                    ? " (gpu_precision float16 applies on a GPU only)"
                    : "");
    }

    void add_emissions(const void* in, size_t first, size_t count, stream_handle) override
    {
        if (first + count > d_geometry.n_tx)
            throw std::out_of_range("rca_das: emissions " + std::to_string(first) + ".." +
                                    std::to_string(first + count) + " exceed the sequence of " +
                                    std::to_string(d_geometry.n_tx));
        const size_t item = d_config.n_elements * d_config.n_samples;
        for (size_t k = 0; k < count; k++) {
            if (d_config.input == rca_sample_type::int16)
                preprocess(static_cast<const int16_t*>(in) + k * item, first + k);
            else
                preprocess(static_cast<const float*>(in) + k * item, first + k);
            if (d_config.method == rca_method::dual_stage)
                stage1(first + k);
        }
    }

    void finish_volume(void* out, stream_handle) override
    {
        if (d_config.method == rca_method::dual_stage)
            stage2();
        else
            conventional();
        write_output(out);
    }

private:
    //! Section IV-D.1: convert, filter (eq. 18), demodulate, decimate.
    template <typename T>
    void preprocess(const T* rf, size_t emission)
    {
        const auto& g = d_geometry;
        const size_t ns = d_config.n_samples;
        parallel_for(g.n_rx, [&](size_t i) {
            const T* r = rf + i * ns;
            std::complex<float>* q = &d_filtered[(emission * g.n_rx + i) * g.n_t];
            for (size_t k = 0; k < g.n_t; k++) {
                const long n = long(k * g.decimation);
                std::complex<double> acc = 0;
                for (size_t m = 0; m < g.n_taps; m++) {
                    const long idx = n - long(m);
                    if (idx >= 0 && idx < long(ns))
                        acc += double(r[idx]) * std::complex<double>(g.taps[m]);
                }
                if (g.iq) {
                    // Base band: exp(-2 pi i f_d t_n), t_n the time of this output.
                    const double t_n = g.t0 + double(k) / g.fs;
                    acc *= rotation(-g.demod_frequency * t_n);
                }
                q[k] = std::complex<float>(acc);
            }
        });
    }

    //! Algorithm 1: the low-resolution xz image of one emission (eq. 1, 21).
    void stage1(size_t emission)
    {
        const auto& g = d_geometry;
        parallel_for(g.n_lat, [&](size_t l) {
            const double x = g.lat.at(l);
            std::complex<float>* image = &d_lri[(l * g.n_tx + emission) * g.n_z_lri];
            for (size_t iz = 0; iz < g.n_z_lri; iz++) {
                const double z = g.z.at(iz);
                std::complex<double> sum = 0;
                for (size_t i = 0; i < g.n_rx; i++) {
                    const double dx = x - g.receiver_position(i);
                    const double u = g.f_number * dx / z;
                    if (std::fabs(u) > 0.5)
                        continue; // early exit: zero apodization
                    const double r = std::sqrt(dx * dx + z * z);
                    const double tof = (z + r) / g.c;
                    std::complex<double> delayed;
                    if (!interpolate(&d_filtered[(emission * g.n_rx + i) * g.n_t],
                                     g.n_t,
                                     (tof - g.t0) * g.fs,
                                     delayed))
                        continue; // early exit: outside the data
                    if (g.iq) // back to f_d, relative to the reference time 2 z / c
                        delayed *= rotation(g.demod_frequency / g.c * dx * dx / (r + z));
                    sum += hann(u) * delayed;
                }
                image[iz] = std::complex<float>(sum);
            }
        });
    }

    //! One emission's transmit path to one voxel (see sum_over_emissions).
    struct voxel_emission {
        size_t l;       //!< lateral plane
        double z;       //!< depth
        size_t j;       //!< emission
        source_path tx; //!< from the emission's virtual source to the voxel
    };

    /*!
     * Fills the volume: each voxel (lateral plane l, elevation y, depth z) is
     * the sum over the emissions whose transmit aperture covers it of what
     * add(voxel_emission, sum) adds to sum for that emission.
     */
    template <typename F>
    void sum_over_emissions(const F& add)
    {
        const auto& g = d_geometry;
        parallel_for(g.n_lat, [&](size_t l) {
            for (size_t e = 0; e < g.n_elev; e++) {
                const double y = g.elev.at(e);
                for (size_t iz = 0; iz < g.n_z; iz++) {
                    const double z = g.z.at(iz);
                    std::complex<double> sum = 0;
                    for (size_t j = 0; j < g.n_tx; j++) {
                        source_path tx;
                        if (!path_from_source(g, j, y, z, tx))
                            continue;
                        add(voxel_emission{ l, z, j, tx }, sum);
                    }
                    d_volume[l * g.stride_lat + e * g.stride_elev + iz] =
                        std::complex<float>(sum);
                }
            }
        });
    }

    //! Algorithm 2: extrapolate and sum the images into the volume (eqs. 5, 22).
    void stage2()
    {
        const auto& g = d_geometry;
        sum_over_emissions([&](const voxel_emission& v, std::complex<double>& sum) {
            const double shift = depth_shift(v.tx);
            std::complex<double> delayed;
            if (!interpolate(&d_lri[(v.l * g.n_tx + v.j) * g.n_z_lri],
                             g.n_z_lri,
                             (v.z + shift - g.z.start) / g.z.step,
                             delayed))
                return;
            if (g.iq)
                delayed *= rotation(2 * g.demod_frequency / g.c * shift);
            sum += hann(v.tx.u) * delayed;
        });
    }

    //! The conventional 3D delay-and-sum (eq. 1 and 3 over the full volume).
    void conventional()
    {
        const auto& g = d_geometry;
        sum_over_emissions([&](const voxel_emission& v, std::complex<double>& sum) {
            const double x = g.lat.at(v.l);
            const double big_r = v.tx.r;
            const double apo_tx = hann(v.tx.u);
            for (size_t i = 0; i < g.n_rx; i++) {
                const double dx = x - g.receiver_position(i);
                const double u_rx = g.f_number * dx / v.z;
                if (std::fabs(u_rx) > 0.5)
                    continue;
                const double r = std::sqrt(dx * dx + v.z * v.z);
                const double tof = (big_r + g.source_z[v.j] + r) / g.c;
                std::complex<double> delayed;
                if (!interpolate(&d_filtered[(v.j * g.n_rx + i) * g.n_t],
                                 g.n_t,
                                 (tof - g.t0) * g.fs,
                                 delayed))
                    continue;
                if (g.iq)
                    delayed *= rotation(
                        g.demod_frequency / g.c *
                        (v.tx.dy * v.tx.dy / (big_r + v.tx.dz) + dx * dx / (r + v.z)));
                sum += apo_tx * hann(u_rx) * delayed;
            }
        });
    }

    //! Complex base-band voxels: as beamformed (I/Q), or the axial analytic
    //! signal of the real volume demodulated by exp(-2 pi i (2 f_d / c) z).
    std::vector<std::complex<float>> baseband_volume() const
    {
        const auto& g = d_geometry;
        if (g.iq)
            return d_volume;
        const std::vector<float> h = rca_axial_hilbert_taps();
        const long half = long(h.size() / 2);
        std::vector<std::complex<float>> out(d_volume.size());
        for (size_t l = 0; l < g.n_lat; l++)
            for (size_t e = 0; e < g.n_elev; e++) {
                const std::complex<float>* line = &d_volume[l * g.stride_lat + e * g.stride_elev];
                std::complex<float>* o = &out[l * g.stride_lat + e * g.stride_elev];
                for (long iz = 0; iz < long(g.n_z); iz++) {
                    double quadrature = 0;
                    for (long k = -half; k <= half; k++) {
                        const long src = iz - k;
                        if (src >= 0 && src < long(g.n_z))
                            quadrature += double(h[k + half]) * line[src].real();
                    }
                    const std::complex<double> analytic(line[iz].real(), quadrature);
                    o[iz] = std::complex<float>(
                        analytic * rotation(-2 * g.demod_frequency / g.c * g.z.at(iz)));
                }
            }
        return out;
    }

    void write_output(void* out) const
    {
        const std::vector<std::complex<float>> volume = baseband_volume();
        const size_t n = volume.size();
        if (d_config.output == rca_output::iq) {
            std::copy(volume.begin(), volume.end(), static_cast<std::complex<float>*>(out));
            return;
        }
        auto* o = static_cast<float*>(out);
        for (size_t v = 0; v < n; v++)
            o[v] = std::abs(volume[v]);
        if (d_config.output == rca_output::db) {
            double reference = d_config.db_reference;
            if (reference <= 0)
                reference = *std::max_element(o, o + n);
            if (!(reference > 0))
                reference = 1;
            for (size_t v = 0; v < n; v++)
                o[v] = float(20.0 * std::log10(std::max(double(o[v]) / reference, 1e-15)));
        }
    }

    std::vector<std::complex<float>> d_filtered; //!< [emission][receiver][n_t]
    std::vector<std::complex<float>> d_lri;      //!< [lateral][emission][n_z_lri]
    std::vector<std::complex<float>> d_volume;   //!< as the output item, complex
};

} // namespace

std::unique_ptr<rca_das_engine> make_rca_das_cpu(const rca_das_config& config)
{
    config.validate();
    return std::make_unique<rca_das_cpu>(config);
}

} // namespace beamform
} // namespace gr
