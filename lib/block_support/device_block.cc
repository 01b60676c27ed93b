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
    if (dev.uses_device_buffers()) {
        d_stream = std::make_shared<gpu_stream>(dev);
        d_trace = std::make_shared<gpu_trace>(dev);
        for (auto& call : d_calls)
            call.done = std::make_unique<gpu_event>(dev, gpu_event::use::ordering);
    }
}

device_block::~device_block()
{
    // Nothing enqueued may outlive the block's engine and buffers.
    try {
        synchronize();
    } catch (...) {
        // Already reported by the work() or stop() that met the error.
    }
}

const gpu_event* device_block::work_done() const
{
    if (!d_stream)
        return nullptr;
    std::lock_guard<std::mutex> lock(d_calls_mutex);
    return d_calls[d_latest].done.get();
}

void device_block::wait_for_reads_before(int port, uint64_t end, stream_handle s) const
{
    std::lock_guard<std::mutex> lock(d_calls_mutex);
    const call_record& latest = d_calls[d_latest];
    const call_record& previous = d_calls[1 - d_latest];
    if (!latest.recorded || end == 0)
        return; // nothing read yet
    // finish_work() of the previous call waited for the call before it, so
    // everything consumed before the previous call started has been read.
    if (previous.recorded && end <= previous.read_before[port])
        return;
    // Consumed before the latest call started: read by the previous call.
    if (previous.recorded && end <= latest.read_before[port]) {
        previous.done->make_wait(s);
        return;
    }
    latest.done->make_wait(s);
}

void device_block::finish_work()
{
    if (!d_stream)
        return;
    {
        // Under the lock: neighbours read the records and wait on the events.
        std::lock_guard<std::mutex> lock(d_calls_mutex);
        call_record& current = d_calls[1 - d_latest];
        current.done->record(d_stream->get());
        current.read_before = d_read_before_now;
        current.recorded = true;
        d_latest = 1 - d_latest;
    }
    // Not under the lock, so that the neighbours go on meanwhile. Only this
    // thread re-records the events.
    const call_record& previous = d_calls[1 - d_latest];
    if (previous.recorded)
        previous.done->synchronize();
}

namespace {
//! \p b as a GPU block, else null.
const device_block* gpu_block(const gr::block_sptr& b)
{
    auto* gpu = dynamic_cast<const device_block*>(b.get());
    return gpu && gpu->stream() ? gpu : nullptr;
}
} // namespace

void device_block::wait_for_neighbours(int noutput_items)
{
    if (!d_stream)
        return;
    auto detail = const_cast<gr::block&>(as_block()).detail();
    const stream_handle s = d_stream->get();
    d_read_before_now.resize(detail->ninputs());
    for (int i = 0; i < detail->ninputs(); i++) {
        const gr::buffer_reader_sptr& in = detail->input(i);
        d_read_before_now[i] = in->nitems_read();
        if (const device_block* writer = gpu_block(in->buffer()->link()))
            writer->work_done()->make_wait(s);
    }
    for (int o = 0; o < detail->noutputs(); o++) {
        const gr::buffer_sptr& out = detail->output(o);
        // Item W + k lands in the slot of item W + k - bufsize (a ring; a move
        // of unread items keeps that, and waits for every reader first).
        const uint64_t last_end = out->nitems_written() + uint64_t(noutput_items);
        if (last_end <= out->bufsize())
            continue; // first lap: no slot has been read yet
        const uint64_t end = last_end - out->bufsize();
        for (size_t r = 0; r < out->nreaders(); r++) {
            const gr::block_sptr reader_block = out->reader(r)->link();
            const device_block* reader = gpu_block(reader_block);
            if (!reader)
                continue;
            auto reader_detail = reader_block->detail();
            for (int p = 0; p < reader_detail->ninputs(); p++)
                if (reader_detail->input(p)->buffer() == out)
                    reader->wait_for_reads_before(p, end, s);
        }
    }
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
