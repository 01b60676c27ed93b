/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_SAMPLE_FORMAT_H
#define INCLUDED_BEAMFORM_SAMPLE_FORMAT_H

#include <cstddef>
#include <string>

namespace gr {
namespace beamform {

/*!
 * \brief Complex sample formats of raw array input (interleaved I, Q).
 * sc8: two int8; sc16: two int16; fc32: two float32 (gr_complex).
 */
enum class sample_format { sc8, sc16, fc32 };

size_t sample_size(sample_format f);
std::string to_string(sample_format f);
//! "sc8" | "sc16" | "fc32"; std::invalid_argument naming \p parameter otherwise.
sample_format parse_sample_format(const std::string& text,
                                               const std::string& parameter);
/*!
 * std::invalid_argument naming \p parameter unless \p f is one of the named
 * formats (Python may pass any integer for an enum).
 */
void check_sample_format(sample_format f, const std::string& parameter);

} // namespace beamform
} // namespace gr

#endif
