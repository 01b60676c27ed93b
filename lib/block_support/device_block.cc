/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "block_params.h"
#include "device_block.h"
#include "device_buffer.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>
#include <stdexcept>

namespace gr {
namespace beamform {

gr::io_signature::sptr device_block::signature(int min_streams,
                                               int max_streams,
                                               size_t item_size,
                                               const device_spec& dev)
{
    // make() checks each block's item sizes with the parameters' names; this
    // catches a size that slipped through before it wraps in the int below.
    check_item_bytes("of this port", item_size);
    if (!dev.uses_device_buffers())
        return gr::io_signature::make(min_streams, max_streams, item_size);
    return gr::io_signature::make(
        min_streams, max_streams, item_size, device_buffer::type_for(dev.kind));
}

device_block::device_block(const device_spec& dev) : d_device(dev)
{
    if (dev.uses_device_buffers())
        d_stream = std::make_shared<gpu_stream>(dev);
}

const gr::block& device_block::as_block() const
{
    auto* b = dynamic_cast<const gr::block*>(this);
    if (!b)
        throw std::logic_error("device_block must be mixed into a gr::block");
    return *b;
}

namespace {
copy_stats stats_of(const gr::buffer_sptr& buf)
{
    auto* db = dynamic_cast<const device_buffer*>(buf.get());
    return db ? db->stats() : copy_stats{};
}
} // namespace

copy_stats device_block::input_copy_stats(int port) const
{
    auto detail = const_cast<gr::block&>(as_block()).detail();
    if (!detail || port < 0 || port >= detail->ninputs())
        throw std::out_of_range("input_copy_stats: port " + std::to_string(port) +
                                " is not a connected input (has the flowgraph started?)");
    return stats_of(detail->input(port)->buffer());
}

copy_stats device_block::output_copy_stats(int port) const
{
    auto detail = const_cast<gr::block&>(as_block()).detail();
    if (!detail || port < 0 || port >= detail->noutputs())
        throw std::out_of_range("output_copy_stats: port " + std::to_string(port) +
                                " is not a connected output (has the flowgraph started?)");
    return stats_of(detail->output(port));
}

} // namespace beamform
} // namespace gr
