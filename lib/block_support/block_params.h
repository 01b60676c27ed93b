/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Parameter checks shared by the blocks' make() functions: each failure is a
 * std::invalid_argument (ValueError in Python) naming the parameter and the
 * accepted range.
 */
#ifndef INCLUDED_BEAMFORM_RUNTIME_BLOCK_PARAMS_H
#define INCLUDED_BEAMFORM_RUNTIME_BLOCK_PARAMS_H

#include <gnuradio/beamform/runtime/device.h>
#include <gnuradio/block.h>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace beamform {

//! \p value as a size, checked to lie in [lo, hi].
size_t check_count(const std::string& name, long long value, long long lo, long long hi);

/*!
 * A per-receiver vector given as empty (all \p fill), one value (for all) or
 * one value per receiver.
 */
template <typename T>
std::vector<T> expand_per_receiver(const std::string& name,
                                   const std::vector<T>& values,
                                   size_t n_receivers,
                                   T fill);

/*!
 * \p bytes, the size of one item described by \p parameters (for example
 * "n_channels * n_receivers * 8"), checked to fit in the int that
 * gr::io_signature takes. Call it with the size computed in 64 bits before any
 * io_signature is made: a larger size would wrap to a small or negative int.
 */
size_t check_item_bytes(const std::string& parameters, uint64_t bytes);

//! Items of \p item_size in a GPU-side buffer: at least 64 MiB, and 2 items.
size_t gpu_buffer_items(size_t item_size);

/*!
 * Size a block's output buffers for a GPU (gpu_buffer_items), so that each
 * work call carries enough items to fill the device. No-op on the CPU.
 */
void size_output_buffers(gr::block& block, size_t item_size, const device_spec& dev);

} // namespace beamform
} // namespace gr

#endif
