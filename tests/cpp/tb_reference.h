/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tensor beamformer computed straight from its definition (see
 * tensor_beamformer_engine.h), in double precision, for the C++ tests of the
 * GPU kernels: independent of every engine, so that a disagreement between
 * the GPU and the CPU engine can be attributed.
 */
#ifndef INCLUDED_BEAMFORM_TESTS_TB_REFERENCE_H
#define INCLUDED_BEAMFORM_TESTS_TB_REFERENCE_H

#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include "engines/tensor_beamformer/tensor_beamformer_expand.h"
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace tb_reference {

using namespace gr::beamform;
using cfloat = std::complex<float>;

inline std::vector<cfloat> random_complex(size_t n, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<cfloat> v(n);
    for (auto& x : v)
        x = cfloat(u(gen), u(gen));
    return v;
}

//! bit_packer's layout: [T][C][2][words], bit set <=> value >= 0, padding 0.
inline std::vector<uint32_t>
pack_bits(const std::vector<cfloat>& x, size_t T, size_t C, size_t R)
{
    const size_t W = (R + 31) / 32;
    std::vector<uint32_t> out(T * C * 2 * W, 0);
    for (size_t t = 0; t < T; t++)
        for (size_t c = 0; c < C; c++)
            for (size_t r = 0; r < R; r++) {
                const cfloat v = x[(t * C + c) * R + r];
                uint32_t* row = &out[(t * C + c) * 2 * W];
                if (v.real() >= 0)
                    row[r / 32] |= 1u << (r % 32);
                if (v.imag() >= 0)
                    row[W + r / 32] |= 1u << (r % 32);
            }
    return out;
}

inline double round_half(float v) { return half_bits_to_float(float_to_half_bits(v)); }
inline double sign1(float v) { return v >= 0.0f ? 1.0 : -1.0; }

/*!
 * The definition: per (t, c, beam, polarization) the complex sum over the
 * polarization's receivers of w * x, with both rounded to fp16 or reduced to
 * their signs; then voltage, |b|^2 or Stokes, integrated over n_int.
 */
inline std::vector<float> reference(const tensor_beamformer_config& c,
                                    const std::vector<cfloat>& w,
                                    const std::vector<cfloat>& x,
                                    size_t T)
{
    const bool xy = c.polarization == polarization_layout::xy_pairs;
    const size_t npol = xy ? 2 : 1;
    const size_t B = c.n_beams, C = c.n_channels, R = c.n_receivers;
    // Each operand rounded (or reduced to its sign) once, before the sums.
    auto quantised = [&](const std::vector<cfloat>& v, size_t n) {
        std::vector<std::complex<double>> out(n);
        for (size_t i = 0; i < n; i++)
            out[i] = c.precision == beam_precision::int1
                         ? std::complex<double>(sign1(v[i].real()), sign1(v[i].imag()))
                         : std::complex<double>(round_half(v[i].real()), round_half(v[i].imag()));
        return out;
    };
    const auto qw = quantised(w, C * B * R);
    const auto qx = quantised(x, T * C * R);
    std::vector<std::complex<double>> beams(T * C * B * npol);
    for (size_t t = 0; t < T; t++)
        for (size_t ch = 0; ch < C; ch++)
            for (size_t b = 0; b < B; b++)
                for (size_t p = 0; p < npol; p++) {
                    std::complex<double> s = 0;
                    for (size_t r = p; r < R; r += npol)
                        s += qw[(ch * B + b) * R + r] * qx[(t * C + ch) * R + r];
                    beams[((t * C + ch) * B + b) * npol + p] = s;
                }
    std::vector<float> out;
    if (c.output == beam_output::voltage) {
        for (const auto& v : beams) {
            out.push_back(float(v.real()));
            out.push_back(float(v.imag()));
        }
        return out;
    }
    const size_t S = c.n_stokes();
    std::vector<double> acc((T / c.n_int) * S * B * C, 0.0);
    for (size_t t = 0; t < T; t++)
        for (size_t ch = 0; ch < C; ch++)
            for (size_t b = 0; b < B; b++) {
                const auto* v = &beams[((t * C + ch) * B + b) * npol];
                double st[4];
                if (!xy) {
                    st[0] = std::norm(v[0]);
                } else {
                    const auto X = v[0], Y = v[1];
                    st[0] = std::norm(X) + std::norm(Y);
                    st[1] = std::norm(X) - std::norm(Y);
                    st[2] = 2.0 * (X * std::conj(Y)).real();
                    st[3] = 2.0 * (X * std::conj(Y)).imag();
                }
                for (size_t s = 0; s < S; s++)
                    acc[(((t / c.n_int) * S + s) * B + b) * C + ch] += st[s];
            }
    for (double v : acc)
        out.push_back(float(v));
    return out;
}

inline size_t output_floats(const tensor_beamformer_config& c, size_t T)
{
    const bool xy = c.polarization == polarization_layout::xy_pairs;
    if (c.output == beam_output::voltage)
        return T * c.n_channels * c.n_beams * 2 * (xy ? 2 : 1);
    return (T / c.n_int) * c.n_stokes() * c.n_beams * c.n_channels;
}

inline tensor_beamformer_config make_config(size_t C,
                                            size_t R,
                                            size_t B,
                                            beam_precision prec,
                                            beam_output out,
                                            polarization_layout pol,
                                            size_t n_int = 1,
                                            stokes_mode st = stokes_mode::I)
{
    tensor_beamformer_config c;
    c.n_channels = C;
    c.n_receivers = R;
    c.n_beams = B;
    c.precision = prec;
    c.output = out;
    c.polarization = pol;
    c.n_int = n_int;
    c.stokes = st;
    return c;
}

inline std::string
describe(const tensor_beamformer_config& c, size_t T, const std::string& tile)
{
    std::ostringstream s;
    s << (c.precision == beam_precision::int1 ? "int1" : "float16") << " "
      << (c.output == beam_output::power ? "power" : "voltage") << " "
      << (c.polarization == polarization_layout::xy_pairs ? "xy" : "single");
    if (c.output == beam_output::power)
        s << " n_int=" << c.n_int << (c.n_stokes() == 4 ? " IQUV" : " I");
    s << " C=" << c.n_channels << " R=" << c.n_receivers << " B=" << c.n_beams
      << " T=" << T << " tile " << tile;
    return s.str();
}

//! ||a - b|| / ||b||; NaN if any element of a is not finite.
inline double rel_error(const std::vector<float>& a, const std::vector<float>& b)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < a.size(); i++) {
        if (!std::isfinite(a[i]))
            return NAN;
        num += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
        den += double(b[i]) * b[i];
    }
    return std::sqrt(num / den);
}

//! Number of elements that differ (NaN counts as different).
inline size_t mismatches(const std::vector<float>& a, const std::vector<float>& b)
{
    size_t n = 0;
    for (size_t i = 0; i < a.size(); i++)
        n += !(a[i] == b[i]);
    return n;
}

} // namespace tb_reference

#endif
