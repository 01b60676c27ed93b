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
        d_calls.resize(size_t(gpu_calls_in_flight()));
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

const gpu_event* device_block::call_that_handled(uint64_t end,
                                                 std::vector<uint64_t> call_record::*before,
                                                 int port) const
{
    if (end == 0)
        return nullptr; // nothing handled yet
    // Newest first: the first call that started at or before item end - 1
    // handled it. finish_work() of the oldest recorded call waited for the
    // call before it, so an item handled before the oldest started is done with.
    const size_t n = d_calls.size();
    for (size_t age = 0; age < n; age++) {
        const call_record& call = d_calls[(d_latest + n - age) % n];
        if (!call.recorded)
            return nullptr;
        if ((call.*before)[port] < end)
            return call.done.get();
    }
    return nullptr;
}

void device_block::wait_for_reads_before(int port, uint64_t end, stream_handle s) const
{
    std::lock_guard<std::mutex> lock(d_calls_mutex);
    if (const gpu_event* e = call_that_handled(end, &call_record::read_before, port))
        e->make_wait(s);
}

void device_block::wait_for_writes_before(int port, uint64_t end, stream_handle s) const
{
    std::lock_guard<std::mutex> lock(d_calls_mutex);
    if (const gpu_event* e = call_that_handled(end, &call_record::written_before, port))
        e->make_wait(s);
}

void device_block::finish_work()
{
    if (!d_stream)
        return;
    const size_t n = d_calls.size();
    {
        // Under the lock: neighbours read the records and wait on the events.
        std::lock_guard<std::mutex> lock(d_calls_mutex);
        d_latest = (d_latest + 1) % n;
        call_record& current = d_calls[d_latest];
        current.done->record(d_stream->get());
        current.read_before = d_read_before_now;
        current.written_before = d_written_before_now;
        current.recorded = true;
    }
    // Not under the lock, so that the neighbours go on meanwhile. Only this
    // thread re-records the events; the oldest call's slot is the next one.
    const call_record& oldest = d_calls[(d_latest + 1) % n];
    if (oldest.recorded)
        oldest.done->synchronize();
}

namespace {
//! \p b as a GPU block, else null.
const device_block* gpu_block(const gr::block_sptr& b)
{
    auto* gpu = dynamic_cast<const device_block*>(b.get());
    return gpu && gpu->stream() ? gpu : nullptr;
}
} // namespace

uint64_t device_block::read_end(gr::buffer_reader& in, int noutput_items) const
{
    // At most the items published now (GNU Radio counted the input before
    // calling work()); the writer moves its index under the buffer's lock.
    uint64_t end;
    {
        gr::thread::scoped_lock guard(*in.mutex());
        end = in.nitems_read() + uint64_t(in.items_available());
    }
    // A fixed-rate block (every GPU block: sync, decimator) reads
    // [read - (history - 1), read + n) for n = its ninput minus the history:
    // items published after those, which a fast writer adds while this call
    // is limited by its output space, are not waited for. Waiting for them
    // held a reader (and the copies of its next lap) back a whole call.
    auto& b = const_cast<gr::block&>(as_block());
    if (b.fixed_rate()) {
        const int64_t reads =
            int64_t(b.fixed_rate_noutput_to_ninput(noutput_items)) - (int64_t(b.history()) - 1);
        end = std::min(end, in.nitems_read() + uint64_t(std::max<int64_t>(reads, 0)));
    }
    return end;
}

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
        const uint64_t end = read_end(*in, noutput_items);
        const gr::buffer_sptr& buf = in->buffer();
        if (const device_block* writer = gpu_block(buf->link())) {
            auto writer_detail = buf->link()->detail();
            for (int p = 0; p < writer_detail->noutputs(); p++)
                if (writer_detail->output(p) == buf)
                    writer->wait_for_writes_before(p, end, s);
        } else if (auto* copied = dynamic_cast<device_buffer*>(buf.get())) {
            copied->make_wait_for_copies(s, end);
        }
    }
    d_written_before_now.resize(detail->noutputs());
    for (int o = 0; o < detail->noutputs(); o++) {
        const gr::buffer_sptr& out = detail->output(o);
        d_written_before_now[o] = out->nitems_written();
        // Item W + k lands in the slot of item W + k - bufsize (a ring; a move
        // of unread items keeps that, and waits for every reader first).
        const uint64_t last_end = out->nitems_written() + uint64_t(noutput_items);
        if (last_end <= out->bufsize())
            continue; // first lap: no slot has been read yet
        wait_for_readers(*out, last_end - out->bufsize(), s);
    }
}

void device_block::wait_for_readers(gr::buffer& out, uint64_t end, stream_handle s)
{
    for (size_t r = 0; r < out.nreaders(); r++) {
        const gr::block_sptr reader_block = out.reader(r)->link();
        const device_block* reader = gpu_block(reader_block);
        if (!reader)
            continue;
        auto reader_detail = reader_block->detail();
        for (int p = 0; p < reader_detail->ninputs(); p++)
            if (reader_detail->input(p)->buffer().get() == &out)
                reader->wait_for_reads_before(p, end, s);
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

bool device_block::output_copy_failed() const
{
    auto detail = const_cast<gr::block&>(as_block()).detail();
    if (!detail)
        return false;
    for (int o = 0; o < detail->noutputs(); o++)
        if (auto* db = dynamic_cast<const device_buffer*>(detail->output(o).get()))
            if (db->copy_failed())
                return true;
    return false;
}

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
