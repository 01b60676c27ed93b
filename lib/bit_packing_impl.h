/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_BIT_PACKING_IMPL_H
#define INCLUDED_BEAMFORM_BIT_PACKING_IMPL_H

#include "block_support/engine_block.h"
#include <gnuradio/beamform/engines/bit_packer_engine.h>
#include <gnuradio/beamform/bit_packer.h>
#include <gnuradio/beamform/bit_unpacker.h>
#include <type_traits>

namespace gr {
namespace beamform {

//! The configuration that bit_packer::make and bit_unpacker::make check and build.
inline bit_packer_config checked_bit_packing_config(int n_channels, int n_receivers)
{
    bit_packer_config config;
    config.n_channels = check_count("n_channels", n_channels, 1, 1 << 16);
    config.n_receivers = check_count("n_receivers", n_receivers, 1, 1 << 20);
    config.validate();
    // The fc32 side is the larger item of the two.
    check_item_bytes("n_channels * n_receivers * 8 (fc32 item)",
                     uint64_t(config.n_channels) * config.n_receivers *
                         sizeof(gr_complex));
    return config;
}

/*!
 * The block behind bit_packer and bit_unpacker: items of In in, items of Out
 * out, one of them fc32 [channels][receivers] and the other packed uint32
 * [channels][2][words]; work() hands both buffers to the Engine.
 */
template <typename Block, typename Engine, typename In, typename Out>
class bit_packing_impl : public engine_block<Block, Engine>
{
public:
    bit_packing_impl(const char* name,
                     const bit_packer_config& config,
                     const device_spec& device)
        : gr::sync_block(name,
                         device_block::signature(1, 1, item_bytes<In>(config), device),
                         device_block::signature(1, 1, item_bytes<Out>(config), device)),
          engine_block<Block, Engine>(
              device, item_bytes<Out>(config), Engine::make(config, device)),
          d_config(config)
    {
    }

    size_t packed_item_words() const override { return d_config.packed_item_words(); }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override
    {
        this->run_engine(noutput_items, static_cast<const In*>(input_items[0]),
                         static_cast<Out*>(output_items[0]),
                         static_cast<size_t>(noutput_items));
        return noutput_items;
    }

private:
    //! Bytes of one item: packed words, or one complex sample per channel and receiver.
    template <typename Sample>
    static size_t item_bytes(const bit_packer_config& config)
    {
        if constexpr (std::is_same_v<Sample, uint32_t>)
            return config.packed_item_words() * sizeof(uint32_t);
        else
            return config.n_channels * config.n_receivers * sizeof(gr_complex);
    }

    bit_packer_config d_config;
};

using bit_packer_impl =
    bit_packing_impl<bit_packer, bit_packer_engine, gr_complex, uint32_t>;
using bit_unpacker_impl =
    bit_packing_impl<bit_unpacker, bit_unpacker_engine, uint32_t, gr_complex>;

} // namespace beamform
} // namespace gr

#endif
