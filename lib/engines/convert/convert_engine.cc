/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gnuradio/beamform/engines/convert_engine.h>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include "runtime/backends.h"

namespace gr {
namespace beamform {

BEAMFORM_DECLARE_GPU_MAKER(convert_engine,
                           make_convert_gpu,
                           const convert_config&,
                           const device_spec&)


void convert_config::validate() const
{
    check_sample_format(input, "input_format");
    if (n_receivers < 1 || n_receivers > (1u << 20))
        throw std::invalid_argument("n_receivers must be in [1, 1048576], got " +
                                    std::to_string(n_receivers));
    if (scale.size() != n_receivers)
        throw std::invalid_argument("scale must have n_receivers = " +
                                    std::to_string(n_receivers) + " entries, got " +
                                    std::to_string(scale.size()));
    for (float s : scale)
        if (!std::isfinite(s))
            throw std::invalid_argument("scale entries must be finite numbers");
}

namespace {

//! The reference: plain loops, one receiver at a time.
class convert_cpu final : public convert_engine
{
public:
    explicit convert_cpu(const convert_config& c) : d_config(c) {}

    void execute(const void* in,
                 std::complex<float>* out,
                 size_t n_items,
                 stream_handle) override
    {
        switch (d_config.input) {
        case sample_format::sc8:
            run(static_cast<const int8_t*>(in), out, n_items);
            break;
        case sample_format::sc16:
            run(static_cast<const int16_t*>(in), out, n_items);
            break;
        case sample_format::fc32:
            run(static_cast<const float*>(in), out, n_items);
            break;
        }
    }

private:
    template <typename T>
    void run(const T* in, std::complex<float>* out, size_t n_items) const
    {
        const size_t nr = d_config.n_receivers;
        for (size_t t = 0; t < n_items; t++)
            for (size_t r = 0; r < nr; r++) {
                const size_t i = t * nr + r;
                const float s = d_config.scale[r];
                out[i] = { s * static_cast<float>(in[2 * i]),
                           s * static_cast<float>(in[2 * i + 1]) };
            }
    }

    convert_config d_config;
};

} // namespace

std::unique_ptr<convert_engine> make_convert_cpu(const convert_config& config)
{
    return std::make_unique<convert_cpu>(config);
}

std::unique_ptr<convert_engine> convert_engine::make(const convert_config& config,
                                                     const device_spec& device)
{
    config.validate();
    return make_for_device(
        "convert",
        device,
        [&] { return make_convert_cpu(config); },
        BEAMFORM_GPU_MAKERS(make_convert_gpu),
        config, device);
}

} // namespace beamform
} // namespace gr
