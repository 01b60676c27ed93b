/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_ENGINES_BIT_PACKER_ENGINE_H
#define INCLUDED_BEAMFORM_ENGINES_BIT_PACKER_ENGINE_H

#include <gnuradio/beamform/runtime/gpu_api.h>
#include <complex>
#include <cstdint>
#include <memory>

namespace gr {
namespace beamform {

/*!
 * 1-bit layout (docs/architecture.md): per time step [channels][2][words] uint32,
 * words = ceil(receivers/32). Word w of part 0 holds the real-part signs of
 * receivers 32w..32w+31 (receiver 32w+k in bit k), part 1 the imaginary parts.
 * Bit set <=> value >= 0 <=> +1; clear <=> -1. Padding bits past the last
 * receiver are 0; consumers correct for them (tensor_beamformer's int1 mode).
 */
struct bit_packer_config {
    size_t n_channels = 1;
    size_t n_receivers = 1;
    void validate() const;
    size_t words() const { return (n_receivers + 31) / 32; }
    size_t packed_item_words() const { return n_channels * 2 * words(); }
};

//! fc32 [T][channels][receivers] -> packed [T][channels][2][words].
class bit_packer_engine
{
public:
    virtual ~bit_packer_engine() = default;
    virtual void execute(const std::complex<float>* in,
                         uint32_t* out,
                         size_t n_times,
                         stream_handle stream) = 0;
    static std::unique_ptr<bit_packer_engine> make(const bit_packer_config& config,
                                                   const device_spec& device);
};

//! packed [T][channels][2][words] -> fc32 [T][channels][receivers] of +-1 (+-1j).
class bit_unpacker_engine
{
public:
    virtual ~bit_unpacker_engine() = default;
    virtual void execute(const uint32_t* in,
                         std::complex<float>* out,
                         size_t n_times,
                         stream_handle stream) = 0;
    static std::unique_ptr<bit_unpacker_engine> make(const bit_packer_config& config,
                                                     const device_spec& device);
};

std::unique_ptr<bit_packer_engine> make_bit_packer_cpu(const bit_packer_config& config);
std::unique_ptr<bit_unpacker_engine>
make_bit_unpacker_cpu(const bit_packer_config& config);

} // namespace beamform
} // namespace gr

#endif
