/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_COMMON_NUMBER_TEXT_H
#define INCLUDED_BEAMFORM_ENGINES_COMMON_NUMBER_TEXT_H

#include <cstdio>
#include <string>

namespace gr {
namespace beamform {

/*!
 * \p v for an error message, 6 significant digits ("1e-09", "4.3392e+08",
 * "1e+308"). std::to_string writes 6 decimals in fixed point, so a delay of
 * 1 ns read "0.000000" and 1e308 took 309 digits.
 */
inline std::string number_text(double v)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v);
    return text;
}

} // namespace beamform
} // namespace gr

#endif
