/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Helpers shared by the rca_das host sources (private to this folder): the
 * transmit path of a virtual source, the Hann apodization, phase rotations,
 * cubic Lagrange interpolation and a parallel loop for the CPU reference.
 * Equations, algorithms and appendices are those of Praesius, Jorgensen and
 * Jensen, "Real-Time Full-Volume Row-Column Imaging".
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_RCA_DAS_DETAIL_H
#define INCLUDED_BEAMFORM_ENGINES_RCA_DAS_DETAIL_H

#include <gnuradio/beamform/engines/rca_das_engine.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <thread>
#include <vector>

namespace gr {
namespace beamform {
namespace rca_detail {

constexpr double pi = 3.14159265358979323846;

//! Runs f(i) for i in [0, n), split over the machine's cores.
template <typename F>
void parallel_for(size_t n, const F& f)
{
    const size_t workers =
        std::max<size_t>(1, std::min<size_t>(n, std::thread::hardware_concurrency()));
    if (workers <= 1) {
        for (size_t i = 0; i < n; i++)
            f(i);
        return;
    }
    std::vector<std::thread> threads;
    for (size_t w = 0; w < workers; w++)
        threads.emplace_back([&, w] {
            for (size_t i = w; i < n; i += workers)
                f(i);
        });
    for (auto& t : threads)
        t.join();
}

//! The four weights of cubic Lagrange interpolation on nodes 0..3 (Algorithm 5).
inline void lagrange_weights(double tau, double w[4])
{
    w[0] = -(tau - 1) * (tau - 2) * (tau - 3) / 6;
    w[1] = tau * (tau - 2) * (tau - 3) / 2;
    w[2] = -tau * (tau - 1) * (tau - 3) / 2;
    w[3] = tau * (tau - 1) * (tau - 2) / 6;
}

/*!
 * Cubic interpolation of samples s[0..n) at fractional index fa, or false when
 * fa lies outside [0, n - 1] (the early exit that prevents extrapolation,
 * Appendix C). The first of the four samples is floor(clamp(fa - 1, 0, n - 4)).
 */
template <typename T>
inline bool interpolate(const T* s, size_t n, double fa, std::complex<double>& out)
{
    if (!(fa >= 0.0 && fa <= double(n - 1)))
        return false;
    const double first = std::floor(std::min(std::max(fa - 1.0, 0.0), double(n - 4)));
    const auto k = static_cast<size_t>(first);
    double w[4];
    lagrange_weights(fa - first, w);
    out = std::complex<double>(s[k]) * w[0] + std::complex<double>(s[k + 1]) * w[1] +
          std::complex<double>(s[k + 2]) * w[2] + std::complex<double>(s[k + 3]) * w[3];
    return true;
}

//! Hann window A(u) = cos^2(pi u) on |u| <= 0.5 (eq. 2).
inline double hann(double u) { return std::cos(pi * u) * std::cos(pi * u); }

/*!
 * The transmit path from virtual source \p j to the point (y, z) of the
 * elevation plane: offsets dy, dz, aperture coordinate u and length r.
 * Returns false where the point lies outside the transmit f-number aperture.
 */
struct source_path {
    double dy, dz, u, r;
};
inline bool
path_from_source(const rca_das_geometry& g, size_t j, double y, double z, source_path& p)
{
    p.dy = y - g.source_elev[j];
    p.dz = z - g.source_z[j];
    p.u = g.f_number * p.dy / p.dz;
    if (std::fabs(p.u) > 0.5)
        return false;
    p.r = std::sqrt(p.dy * p.dy + p.dz * p.dz);
    return true;
}

//! f(y, z) - z (eq. 22): the depth shift of the transmit path in the LRI.
inline double depth_shift(const source_path& p)
{
    return 0.5 * p.dy * p.dy / (p.r + p.dz);
}

//! exp(2 pi i cycles), with the whole cycles removed first for accuracy.
inline std::complex<double> rotation(double cycles)
{
    const double frac = cycles - std::round(cycles);
    return { std::cos(2 * pi * frac), std::sin(2 * pi * frac) };
}

} // namespace rca_detail
} // namespace beamform
} // namespace gr

#endif
