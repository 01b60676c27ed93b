/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_RUNTIME_DEVICE_H
#define INCLUDED_BEAMFORM_RUNTIME_DEVICE_H

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

struct device_spec {
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
device_spec select_device(const std::string& device);

//! Backends compiled into this build, e.g. {"cpu", "cuda", "emu"}.
std::vector<std::string> compiled_backends();

//! Devices usable now, e.g. {"cpu", "cuda:0", "emu:0"}.
std::vector<std::string> available_devices();

//! Device memory currently held by this module's allocations on a backend
//! (device buffers, engine workspaces). Used by the tests to prove nothing leaks.
uint64_t allocated_device_bytes(backend kind);

} // namespace beamform
} // namespace gr

#endif
