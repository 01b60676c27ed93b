/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_PHASE_CYCLES_H
#define INCLUDED_BEAMFORM_ENGINES_PHASE_CYCLES_H

#include <cmath>

namespace gr {
namespace beamform {

/*!
 * cos and sin of 2 pi x for x in cycles. The quarter-cycle reduction is exact
 * in double (x - q/4 with q = rint(4x)), so the library only sees |angle| <=
 * pi/4, its fastest and most accurate range.
 */
inline void cos_sin_of_cycles(double x, double& c, double& s)
{
    constexpr double two_pi = 6.28318530717958647692;
    const double q = std::rint(4.0 * x);
    const double r = two_pi * (x - 0.25 * q);
    const double cr = std::cos(r), sr = std::sin(r);
    switch (static_cast<int>(q) & 3) {
    case 0:
        c = cr;
        s = sr;
        break;
    case 1:
        c = -sr;
        s = cr;
        break;
    case 2:
        c = -cr;
        s = -sr;
        break;
    default:
        c = sr;
        s = -cr;
        break;
    }
}

} // namespace beamform
} // namespace gr

#endif
