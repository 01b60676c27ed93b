/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_BLOCK_SUPPORT_PMT_VALUES_H
#define INCLUDED_BEAMFORM_BLOCK_SUPPORT_PMT_VALUES_H

#include <pmt/pmt.h>
#include <complex>
#include <string>
#include <vector>

namespace gr {
namespace beamform {

/*!
 * The numbers a message value holds: a uniform vector, a tuple, a PMT vector,
 * a list (or a cons pair) or one number. std::invalid_argument naming the
 * message \p key when an element has the wrong type.
 */
std::vector<double> reals_from_pmt(const pmt::pmt_t& value, const std::string& key);
//! As reals_from_pmt, for complex numbers (reals become complex with 0 imaginary part).
std::vector<std::complex<float>> complexes_from_pmt(const pmt::pmt_t& value,
                                                    const std::string& key);

} // namespace beamform
} // namespace gr

#endif
