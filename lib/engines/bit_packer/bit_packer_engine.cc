/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/beamform/engines/bit_packer_engine.h>
#include <stdexcept>
#include <string>
#include "runtime/backends.h"

namespace gr {
namespace beamform {

BEAMFORM_DECLARE_GPU_MAKER(bit_packer_engine,
                           make_bit_packer_gpu,
                           const bit_packer_config&,
                           const device_spec&)
BEAMFORM_DECLARE_GPU_MAKER(bit_unpacker_engine,
                           make_bit_unpacker_gpu,
                           const bit_packer_config&,
                           const device_spec&)


void bit_packer_config::validate() const
{
    if (n_channels < 1 || n_channels > (1u << 16))
        throw std::invalid_argument("n_channels must be in [1, 65536], got " +
                                    std::to_string(n_channels));
    if (n_receivers < 1 || n_receivers > (1u << 20))
        throw std::invalid_argument("n_receivers must be in [1, 1048576], got " +
                                    std::to_string(n_receivers));
}

namespace {

//! The reference packer: one receiver at a time, bit k of word w = receiver 32w+k.
class bit_packer_cpu final : public bit_packer_engine
{
public:
    explicit bit_packer_cpu(const bit_packer_config& c) : d_config(c) {}

    void execute(const std::complex<float>* in,
                 uint32_t* out,
                 size_t n_times,
                 stream_handle) override
    {
        const size_t nr = d_config.n_receivers, words = d_config.words();
        const size_t rows = n_times * d_config.n_channels; // one row = one (t, channel)
        for (size_t row = 0; row < rows; row++) {
            const std::complex<float>* x = in + row * nr;
            uint32_t* re_words = out + row * 2 * words;
            uint32_t* im_words = re_words + words;
            for (size_t w = 0; w < words; w++)
                re_words[w] = im_words[w] = 0; // padding bits stay 0
            for (size_t r = 0; r < nr; r++) {
                // value >= 0 -> bit set (+1); negative and NaN -> clear (-1)
                if (x[r].real() >= 0.0f)
                    re_words[r / 32] |= 1u << (r % 32);
                if (x[r].imag() >= 0.0f)
                    im_words[r / 32] |= 1u << (r % 32);
            }
        }
    }

private:
    bit_packer_config d_config;
};

//! Packed bits back to +-1 +-1j; padding bits are not read.
class bit_unpacker_cpu final : public bit_unpacker_engine
{
public:
    explicit bit_unpacker_cpu(const bit_packer_config& c) : d_config(c) {}

    void execute(const uint32_t* in,
                 std::complex<float>* out,
                 size_t n_times,
                 stream_handle) override
    {
        const size_t nr = d_config.n_receivers, words = d_config.words();
        const size_t rows = n_times * d_config.n_channels;
        for (size_t row = 0; row < rows; row++) {
            const uint32_t* re_words = in + row * 2 * words;
            const uint32_t* im_words = re_words + words;
            std::complex<float>* x = out + row * nr;
            for (size_t r = 0; r < nr; r++) {
                const bool re_set = (re_words[r / 32] >> (r % 32)) & 1u;
                const bool im_set = (im_words[r / 32] >> (r % 32)) & 1u;
                x[r] = { re_set ? 1.0f : -1.0f, im_set ? 1.0f : -1.0f };
            }
        }
    }

private:
    bit_packer_config d_config;
};

} // namespace

std::unique_ptr<bit_packer_engine> make_bit_packer_cpu(const bit_packer_config& config)
{
    return std::make_unique<bit_packer_cpu>(config);
}

std::unique_ptr<bit_unpacker_engine>
make_bit_unpacker_cpu(const bit_packer_config& config)
{
    return std::make_unique<bit_unpacker_cpu>(config);
}

std::unique_ptr<bit_packer_engine>
bit_packer_engine::make(const bit_packer_config& config, const device_spec& device)
{
    config.validate();
    return make_for_device(
        "bit_packer",
        device,
        [&] { return make_bit_packer_cpu(config); },
        BEAMFORM_GPU_MAKERS(make_bit_packer_gpu),
        config, device);
}

std::unique_ptr<bit_unpacker_engine>
bit_unpacker_engine::make(const bit_packer_config& config, const device_spec& device)
{
    config.validate();
    return make_for_device(
        "bit_unpacker",
        device,
        [&] { return make_bit_unpacker_cpu(config); },
        BEAMFORM_GPU_MAKERS(make_bit_unpacker_gpu),
        config, device);
}

} // namespace beamform
} // namespace gr
