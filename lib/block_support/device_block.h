/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_RUNTIME_DEVICE_BLOCK_H
#define INCLUDED_BEAMFORM_RUNTIME_DEVICE_BLOCK_H

#include "gpu_trace.h"
#include <gnuradio/beamform/device_block_info.h>
#include <gnuradio/beamform/runtime/gpu_memory.h>
#include <gnuradio/beamform/runtime/device.h>
#include <gnuradio/block.h>
#include <gnuradio/io_signature.h>
#include <memory>
#include <mutex>
#include <vector>

namespace gr {
namespace beamform {

/*!
 * \brief What a beamform block adds to gr::block to run on a GPU: its device,
 * its stream, the io_signature with the right buffer type, the stream-ordered
 * hand-off to the GPU blocks next to it, and the copy counters of the buffers
 * on its ports.
 *
 * Usage in a block implementation (engine_block does this for every engine):
 *   my_impl(const device_spec& dev, ...)
 *     : gr::sync_block("my", device_block::signature(1, 1, in_size, dev),
 *                      device_block::signature(1, 1, out_size, dev)),
 *       device_block(dev) {}
 *   work(): wait_for_neighbours(noutput_items); engine->execute(in, out, n, stream());
 *           finish_work();
 *
 * The host never waits for a GPU -> GPU edge (docs/architecture.md, "Hand-off
 * between GPU blocks"): a block's stream waits on the events of its
 * neighbours instead.
 */
class device_block : public virtual device_block_info
{
public:
    //! An io_signature whose buffers live on \p dev (plain host buffers for cpu).
    static gr::io_signature::sptr
    signature(int min_streams, int max_streams, size_t item_size, const device_spec& dev);

    const device_spec& placement() const { return d_device; }
    std::string device() const override { return d_device.name(); }
    stream_handle stream() const { return d_stream ? d_stream->get() : nullptr; }
    const std::shared_ptr<gpu_stream>& shared_stream() const { return d_stream; }
    //! The GPU spans of this block and of the copies on its stream (BEAMFORM_GPU_TRACE).
    const std::shared_ptr<gpu_trace>& trace() const { return d_trace; }
    //! Recorded after the work the latest work() call enqueued (null on the cpu).
    const gpu_event* work_done() const;
    /*!
     * Make \p s wait until this block's enqueued reads of the items before
     * \p end (absolute item number) on input \p port have completed: nothing
     * if the work calls that read them are known to be complete, else the
     * event of the call that consumed item end - 1, else the latest call's.
     */
    void wait_for_reads_before(int port, uint64_t end, stream_handle s) const;
    /*!
     * Make \p s wait until this block has written the items before \p end on
     * output \p port: the event of the work call that wrote item end - 1, not
     * of its latest call. Waiting for the latest call would chain every block
     * to the newest work of the blocks before it, and the whole flowgraph
     * would run in lockstep, its copies and kernels one after the other.
     */
    void wait_for_writes_before(int port, uint64_t end, stream_handle s) const;
    //! Make \p s wait until the GPU blocks reading \p out have read its items
    //! before \p end (absolute item number): before their slots are rewritten.
    static void wait_for_readers(gr::buffer& out, uint64_t end, stream_handle s);
    //! The host waits for everything this block enqueued.
    void synchronize() const
    {
        if (d_stream)
            d_stream->synchronize();
    }

    //! A copy of one of this block's outputs to the host failed (the host
    //! reader logged it): the block should end.
    bool output_copy_failed() const;

    copy_stats input_copy_stats(int port = 0) const override;
    copy_stats output_copy_stats(int port = 0) const override;

protected:
    explicit device_block(const device_spec& dev);
    ~device_block() override;

    /*!
     * The first thing a GPU work() enqueues: this block's stream waits (on the
     * GPU, the host goes on) until
     *  - every GPU block that wrote the items this call reads has written
     *    them (the writer's call that wrote the newest of them; read_end), and
     *  - every GPU block that reads its outputs has finished reading the items
     *    whose slots this call may overwrite (the next \p noutput_items items
     *    of a ring of bufsize items overwrite those bufsize items older).
     * Items from a host block: their host -> GPU copies (device_buffer).
     */
    void wait_for_neighbours(int noutput_items);

    /*!
     * One past the newest item of \p in that a work call of \p noutput_items
     * outputs may read: the items published now, and for a fixed-rate block
     * no more than its rate and history read.
     */
    uint64_t read_end(gr::buffer_reader& in, int noutput_items) const;

    /*!
     * The last thing a GPU work() does: records this call's work_done, which
     * the neighbours wait on, then lets the host wait for the PREVIOUS work
     * call's GPU work only (at most two calls in flight per block;
     * gpu_calls_in_flight() sets another depth for measuring). Without
     * that bound the host runs ahead of the GPU, GNU Radio wakes each block
     * for every few items, and the GPU drowns in tiny launches; with it, items
     * accumulate while a block waits, so work calls stay large, and each
     * block's GPU work still overlaps its neighbours' and the host's.
     */
    void finish_work();

private:
    const gr::block& as_block() const;

    //! One work call as its neighbours need it: its work_done event and, per
    //! input port, the items consumed before it (so it read items from there
    //! on), and per output port the items written before it (so it wrote
    //! items from there on).
    struct call_record {
        std::unique_ptr<gpu_event> done;
        std::vector<uint64_t> read_before;
        std::vector<uint64_t> written_before;
        bool recorded = false;
    };
    //! The event to wait on for the call that handled item \p end - 1, where
    //! \p before gives each call's first item: null if that call is complete.
    const gpu_event* call_that_handled(uint64_t end,
                                       std::vector<uint64_t> call_record::*before,
                                       int port) const;

    device_spec d_device;
    std::shared_ptr<gpu_stream> d_stream;
    std::shared_ptr<gpu_trace> d_trace;
    mutable std::mutex d_calls_mutex;
    //! The latest calls, used in turn (gpu_calls_in_flight of them): a call
    //! older than all of them is complete.
    std::vector<call_record> d_calls;
    size_t d_latest = 0;
    std::vector<uint64_t> d_read_before_now;    // this call's, until finish_work()
    std::vector<uint64_t> d_written_before_now; // this call's, until finish_work()
};

} // namespace beamform
} // namespace gr

#endif
