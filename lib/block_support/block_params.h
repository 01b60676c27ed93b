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

//! Bytes of a GPU-side buffer on \p dev: 1/128 of its memory, from 64 to 512 MiB.
size_t gpu_buffer_bytes(const device_spec& dev);
//! Items of \p item_size in a GPU-side buffer on \p dev (gpu_buffer_bytes), at least 2.
size_t gpu_buffer_items(size_t item_size, const device_spec& dev);

//! How many work calls a GPU block may have on the GPU at once (2).
int gpu_calls_in_flight();

/*!
 * Items of \p item_size in a host buffer that GNU Radio's double-mapped buffers
 * allocate without rounding up more than twofold: a mapped buffer holds a whole
 * number of memory pages, i.e. a multiple of page / gcd(item_size, page) items,
 * and GNU Radio warns ("buffer_double_mapped: tried to allocate ...") when that
 * multiple exceeds twice its default of 64 KiB worth of items. 0 where the
 * default needs no rounding, or where the rounded buffer would exceed 16 MiB
 * (the warning is then the better outcome).
 */
size_t host_buffer_items(size_t item_size, size_t page_size);

/*!
 * Items of \p item_size in a CPU engine block's output buffer: about 8 MiB
 * (BEAMFORM_CPU_BUFFER_MB, 1 to 4096, sets another size), at least 2 items,
 * in whole memory pages. Each work call of a CPU engine has a fixed cost
 * (waking its threads; the channelizer's filter history, the beamformer's
 * weight packing), which GNU Radio's default of 64 KiB made larger than the
 * work itself on the station's items. Where whole pages would more than
 * double the size, host_buffer_items instead.
 */
size_t cpu_buffer_items(size_t item_size, size_t page_size);

//! Minimum output buffer of every output port, in items (GNU Radio's
//! one-argument set_min_output_buffer also logs an info line per call).
void set_min_output_items(gr::block& block, long items);

/*!
 * Size a block's output buffers: for a GPU, gpu_buffer_items, so that each work
 * call carries enough items to fill the device; on the CPU, cpu_buffer_items,
 * so that each call carries enough items to pay for its fixed costs.
 */
void size_output_buffers(gr::block& block, size_t item_size, const device_spec& dev);

/*!
 * At stop(): forget the max_output_buffer GNU Radio 3.10 sets to the size it
 * allocated at every start (a max > 0 makes the next start skip
 * min_output_buffer, so a restarted flowgraph would get the 64 KiB default and
 * a warning), unless the user set a max below the minimum.
 */
void forget_allocated_max_output_buffers(gr::block& block);

} // namespace beamform
} // namespace gr

#endif
