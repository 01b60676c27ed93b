/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * rca_das interpolation counts (Table IV of Praesius, Jorgensen and Jensen,
 * "Real-Time Full-Volume Row-Column Imaging"): the cubic interpolations
 * that the dual-stage and conventional beamformers perform per volume.
 */
#include "rca_das_detail.h"
#include <gnuradio/beamform/engines/rca_das_engine.h>
#include <algorithm>
#include <cmath>
#include <vector>

namespace gr {
namespace beamform {

using rca_detail::depth_shift;
using rca_detail::path_from_source;
using rca_detail::source_path;

rca_das_counts rca_count_interpolations(const rca_das_config& cfg, bool conventional)
{
    cfg.validate();
    const rca_das_geometry g = rca_das_geometry::from(cfg);
    rca_das_counts counts;
    counts.flop_per_interpolation = g.iq ? 22 : 8;
    const double t_end = g.t0 + double(g.n_t - 1) / g.fs;

    // Stage 1: the same count for every emission (eq. 21 does not depend on it).
    uint64_t per_image = 0;
    for (size_t l = 0; l < g.n_lat; l++)
        for (size_t iz = 0; iz < g.n_z_lri; iz++) {
            const double z = g.z.at(iz);
            for (size_t i = 0; i < g.n_rx; i++) {
                const double dx = g.lat.at(l) - g.receiver_position(i);
                if (std::fabs(g.f_number * dx / z) > 0.5)
                    continue;
                const double tof = (z + std::sqrt(dx * dx + z * z)) / g.c;
                per_image += (tof >= g.t0 && tof <= t_end);
            }
        }
    counts.stage1 = per_image * g.n_tx;

    // Stage 2: the same count for every lateral plane.
    uint64_t per_plane = 0;
    for (size_t e = 0; e < g.n_elev; e++)
        for (size_t iz = 0; iz < g.n_z; iz++)
            for (size_t j = 0; j < g.n_tx; j++) {
                const double z = g.z.at(iz);
                source_path path;
                if (!path_from_source(g, j, g.elev.at(e), z, path))
                    continue;
                const double fval = z + depth_shift(path);
                const double fa = (fval - g.z.start) / g.z.step;
                per_plane += (fa >= 0 && fa <= double(g.n_z_lri - 1));
            }
    counts.stage2 = per_plane * g.n_lat;

    if (conventional) {
        // Pairs of a transmit path (elevation, emission) and a receive path
        // (lateral, receiver) with non-zero apodizations whose sum lies in the
        // data: per depth, sort the receive paths and count by binary search.
        for (size_t iz = 0; iz < g.n_z; iz++) {
            const double z = g.z.at(iz);
            std::vector<double> rx;
            for (size_t l = 0; l < g.n_lat; l++)
                for (size_t i = 0; i < g.n_rx; i++) {
                    const double dx = g.lat.at(l) - g.receiver_position(i);
                    if (std::fabs(g.f_number * dx / z) <= 0.5)
                        rx.push_back(std::sqrt(dx * dx + z * z));
                }
            std::sort(rx.begin(), rx.end());
            for (size_t e = 0; e < g.n_elev; e++)
                for (size_t j = 0; j < g.n_tx; j++) {
                    source_path path;
                    if (!path_from_source(g, j, g.elev.at(e), z, path))
                        continue;
                    const double tx = path.r + g.source_z[j];
                    const auto lo = std::lower_bound(rx.begin(), rx.end(), g.t0 * g.c - tx);
                    const auto hi = std::upper_bound(rx.begin(), rx.end(), t_end * g.c - tx);
                    counts.conventional += uint64_t(hi - lo);
                }
        }
    }
    return counts;
}

} // namespace beamform
} // namespace gr
