/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_DEVICE_BLOCK_INFO_H
#define INCLUDED_BEAMFORM_DEVICE_BLOCK_INFO_H

#include <gnuradio/beamform/api.h>
#include <cstdint>
#include <string>

namespace gr {
namespace beamform {

//! Bytes copied by a device_buffer (or the set of them on a port).
struct BEAMFORM_API copy_stats {
    uint64_t host_to_device = 0;
    uint64_t device_to_host = 0;
};

/*!
 * \brief What every beamform block that can run on a GPU answers.
 */
class BEAMFORM_API device_block_info
{
public:
    virtual ~device_block_info() = default;
    //! The device this block resolved to ("cpu", "cuda:0", ...).
    virtual std::string device() const = 0;
    /*!
     * Bytes the buffer feeding input \p port copied host<->device so far.
     * All zero for a GPU->GPU edge and for CPU blocks.
     */
    virtual copy_stats input_copy_stats(int port = 0) const = 0;
    //! Bytes the buffer of output \p port copied host<->device so far.
    virtual copy_stats output_copy_stats(int port = 0) const = 0;
};

} // namespace beamform
} // namespace gr

#endif
