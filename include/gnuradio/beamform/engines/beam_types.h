/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_BEAM_TYPES_H
#define INCLUDED_BEAMFORM_BEAM_TYPES_H

namespace gr {
namespace beamform {

/*!
 * float16: samples and weights rounded to fp16, products accumulated in fp32.
 * int1: only the sign of each real and imaginary part is used (value >= 0 ->
 *       +1, else -1), for samples and weights; the input is the packed 1-bit
 *       stream of bit_packer. Results are exact integers (stored as float).
 */
enum class beam_precision { float16, int1 };
//! voltage: complex beams. power: |beam|^2 integrated over n_int time steps.
enum class beam_output { voltage, power };
/*!
 * single: every receiver is one input of one beam sum.
 * xy_pairs: receivers 2k and 2k+1 are the X and Y polarizations of one
 *           antenna; each beam is formed separately over the X receivers and
 *           over the Y receivers (weights still given per receiver).
 */
enum class polarization_layout { single, xy_pairs };
//! With xy_pairs: I = |X|^2+|Y|^2, or I, Q = |X|^2-|Y|^2, U = 2 Re(X Y*), V = 2 Im(X Y*).
enum class stokes_mode { I, IQUV };

} // namespace beamform
} // namespace gr

#endif
