/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tuning file of the CUDA tensor-core beamformer
 * (BEAMFORM_TUNING_FILE=path, read when an engine is made):
 * plain "key = value" lines, '#' starts a comment. Keys name a shape class,
 *   <precision>.<polarization>.<output>.<size>   e.g. float16.single.power.rx_small
 * size: rx_small (receivers per polarization <= 128), rx_medium (<= 1024),
 * rx_large; values name a tile, BMxBNxBKB/WMxWN/STAGES, e.g.
 *   float16.single.voltage.rx_medium = 256x128x64/64x64/3
 * (BM rows (2 per beam) and BN time steps per thread block, BKB bytes of k
 * per pipeline stage, WM x WN per warp, STAGES shared-memory stages).
 * Unknown tiles or keys are reported on stderr and the built-in choice is used.
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_TUNING_H
#define INCLUDED_BEAMFORM_ENGINES_TENSOR_BEAMFORMER_TUNING_H

#include <gnuradio/beamform/engines/tensor_beamformer_engine.h>
#include <map>
#include <string>

namespace gr {
namespace beamform {
namespace cuda {

//! The key = value entries of a tuning file (a warning and none if unreadable).
std::map<std::string, std::string> read_tuning_file(const char* path);

//! The tuning-file key of this configuration's shape class.
std::string tensor_beamformer_tuning_key(const tensor_beamformer_config& config);

} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
