/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tuning file of the CUDA tensor-core beamformer
 * (BEAMFORM_TUNING_FILE=path, read when an engine is made):
 * plain "key = value" lines, '#' starts a comment. Keys name a GPU and a
 * shape class,
 *   <device name>/<precision>.<polarization>.<output>.<size>
 *   e.g. NVIDIA H100 80GB HBM3/float16.single.power.rx_small
 * (the device name as CUDA reports it, spaces included; the last '/'
 * separates it), so that a file tuned on one GPU does not steer another.
 * size: rx_small (receivers per polarization <= 128), rx_medium (<= 1024),
 * rx_large; values name a tile, BMxBNxBKB/WMxWN/STAGES, e.g.
 *   NVIDIA H100 80GB HBM3/float16.single.voltage.rx_medium = 256x128x64/64x64/3
 * (BM rows (2 per beam) and BN time steps per thread block, BKB bytes of k
 * per pipeline stage, WM x WN per warp, STAGES shared-memory stages), or
 * "cublas", the library voltage path (float16, voltage output only).
 * A key of the shape class alone (files written before device names were
 * part of the key) applies to every GPU that has no entry of its own.
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

//! The shape class of this configuration: <precision>.<polarization>.<output>.<size>.
std::string tensor_beamformer_shape_class(const tensor_beamformer_config& config);

//! The tuning-file key of this configuration on the GPU named \p device_name:
//! "<device_name>/<shape class>".
std::string tensor_beamformer_tuning_key(const tensor_beamformer_config& config,
                                         const std::string& device_name);

//! The entry for this configuration on \p device_name: its own key, else the
//! shape class alone; "" if neither.
std::string tb_tuning_lookup(const std::map<std::string, std::string>& entries,
                             const tensor_beamformer_config& config,
                             const std::string& device_name);

} // namespace cuda
} // namespace beamform
} // namespace gr

#endif
