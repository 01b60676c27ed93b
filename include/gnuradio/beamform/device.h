/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_DEVICE_H
#define INCLUDED_BEAMFORM_DEVICE_H

#include <gnuradio/beamform/api.h>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace beamform {

/*!
 * \brief Where a block or engine runs.
 *
 * cpu: host memory, the reference implementations.
 * cuda, hip: a GPU; stream items stay in GPU memory between beamform blocks.
 * emu: a host-memory stand-in for a GPU. It runs the CPU implementations but
 *      moves items through device_buffer exactly as a GPU would, so the buffer
 *      bookkeeping can be tested on machines without a GPU.
 */
enum class backend { cpu, cuda, hip, emu };

struct BEAMFORM_API device_spec {
    backend kind = backend::cpu;
    int index = 0;

    bool uses_device_buffers() const { return kind != backend::cpu; }
    //! "cpu", "cuda:0", "hip:1", "emu:0"
    std::string name() const;
    bool operator==(const device_spec& o) const
    {
        return kind == o.kind && index == o.index;
    }
};

/*!
 * \brief Parse and check a `device` parameter.
 *
 * Accepts "auto", "cpu", "cuda", "cuda:N", "hip", "hip:N", "emu", "emu:N".
 * "auto" picks the first usable GPU and otherwise falls back to the CPU with
 * one logged warning per process. An explicit GPU that is absent, or a backend
 * this build does not include, is an error (std::runtime_error); a malformed
 * string is std::invalid_argument naming the parameter.
 */
BEAMFORM_API device_spec select_device(const std::string& device);

//! Backends compiled into this build, e.g. {"cpu", "cuda", "emu"}.
BEAMFORM_API std::vector<std::string> compiled_backends();

//! Devices usable now, e.g. {"cpu", "cuda:0", "emu:0"}.
BEAMFORM_API std::vector<std::string> available_devices();

//! Bytes copied by a device_buffer (or the set of them on a port).
struct BEAMFORM_API copy_stats {
    uint64_t host_to_device = 0;
    uint64_t device_to_host = 0;
};

//! Device memory currently held by this module's allocations on a backend
//! (device buffers, engine workspaces). Used by the tests to prove nothing leaks.
BEAMFORM_API uint64_t allocated_device_bytes(backend kind);

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
