/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_BLOCK_SUPPORT_ENGINE_BLOCK_H
#define INCLUDED_BEAMFORM_BLOCK_SUPPORT_ENGINE_BLOCK_H

#include "block_params.h"
#include "device_block.h"
#include "queued_update.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer.h>
#include <gnuradio/tags.h>
#include <cstdio>
#include <string>
#include <memory>
#include <utility>
#include <vector>

namespace gr {
namespace beamform {

/*!
 * \brief The skeleton every beamform block that owns an engine shares: the
 * block's public interface \p Block (a gr::sync_block or sync_decimator), the
 * device placement (device_block), GPU-sized output buffers, and the engine.
 *
 * A block implementation only builds its signatures and engine and writes a
 * short work():
 *
 *   convert_impl(const convert_config& c, const device_spec& dev)
 *     : gr::sync_block("convert",
 *                      device_block::signature(1, 1, in_bytes, dev),
 *                      device_block::signature(1, 1, out_bytes, dev)),
 *       engine_block(dev, out_bytes, convert_engine::make(c, dev)) {}
 *
 *   int work(...) { run_engine(noutput_items, in[0], out[0], n); return n; }
 *
 * (The most derived class initializes gr::sync_block itself: it is a virtual
 * base of every GNU Radio block interface.)
 */
template <typename Block, typename Engine>
class engine_block : public Block, public device_block
{
protected:
    engine_block(const device_spec& device,
                 size_t output_item_bytes,
                 std::unique_ptr<Engine> engine)
        : device_block(device), d_engine(std::move(engine))
    {
        size_output_buffers(*this, output_item_bytes, device);
    }

    Engine& engine() const { return *d_engine; }

    /*!
     * One info line per block when the flowgraph starts: the device, the item
     * sizes and the output buffer GNU Radio allocated.
     */
    bool start() override
    {
        const size_t in_bytes = this->input_signature()->sizeof_stream_item(0);
        const size_t out_bytes = this->output_signature()->sizeof_stream_item(0);
        std::string buffer;
        const auto detail = this->detail();
        if (detail && detail->noutputs() > 0 && detail->output(0)) {
            const size_t items = static_cast<size_t>(detail->output(0)->bufsize());
            buffer = ", output buffer " + std::to_string(items) + " items (" +
                     std::to_string((items * out_bytes + 1023) / 1024) + " KiB)";
        }
        this->d_logger->info("on {:s}: items of {:d} B in, {:d} B out{:s}",
                             this->device(),
                             in_bytes,
                             out_bytes,
                             buffer);
        return Block::start();
    }

    /*!
     * One work call's engine run, enqueued on this block's stream between the
     * waits for its GPU neighbours and its work_done event
     * (device_block::wait_for_neighbours, finish_work); \p noutput_items is
     * the most items this call writes (whose slots readers must have left).
     * Returns once the previous call's GPU work is done, not this one's.
     */
    template <typename... Args>
    void run_engine(int noutput_items, Args&&... engine_args)
    {
        wait_for_neighbours(noutput_items);
        if (trace())
            trace()->start(stream());
        d_engine->execute(std::forward<Args>(engine_args)..., stream());
        if (trace())
            trace()->end(stream());
        finish_work();
    }

    /*!
     * A work() that throws (a CUDA/HIP error reported by BF_GPU_CHECK, a bad
     * value met mid-stream) ends this block with the error logged, naming the
     * block: GNU Radio 3.10 would log the exception and leave the flowgraph
     * hanging. So does a failed copy of an output to the host (logged by the
     * host reader, device_buffer::copy_failed). Returning WORK_DONE ends the flowgraph; run() and wait()
     * return (GNU Radio gives no way to raise from them).
     */
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) override
    {
        if (output_copy_failed()) {
            this->d_logger->error("{:s}: a copy of its output to the host failed, ending the "
                                  "flowgraph",
                                  this->alias());
            return gr::block::WORK_DONE;
        }
        try {
            return Block::general_work(noutput_items, ninput_items, input_items, output_items);
        } catch (const std::exception& e) {
            this->d_logger->error("{:s} failed, ending the flowgraph (items from here on "
                                  "are not produced): {:s}",
                                  this->alias(),
                                  e.what());
            return gr::block::WORK_DONE;
        }
    }

    /*!
     * At the flowgraph's stop, everything enqueued completes (and a GPU error
     * still pending is reported) before GNU Radio tears the buffers down.
     *
     * Also: GNU Radio 3.10 sets max_output_buffer to the size it allocated at
     * every start, and at the next start a max > 0 makes it skip
     * min_output_buffer (block::allocate_buffer: "if max > 0 ... else if min >
     * 0"): a restarted flowgraph would get GNU Radio's default 64 KiB buffers,
     * not the GPU- or CPU-sized ones (size_output_buffers). That max is
     * forgotten here so that the next start sizes them again (a max the user
     * set below that size is kept).
     */
    bool stop() override
    {
        try {
            synchronize();
            // A diagnostic asked for in the environment: straight to stderr,
            // whatever GNU Radio's log level.
            if (trace() && gpu_trace::enabled())
                std::fprintf(stderr, "%s\n", trace()->report(this->alias()).c_str());
        } catch (const std::exception& e) {
            this->d_logger->error("{:s}", e.what());
            return false;
        }
        forget_allocated_max_output_buffers(*this);
        return Block::stop();
    }

    /*!
     * Apply a queued update at the first item of this work call: hands the
     * value to \p apply and tags the first output item with \p key and
     * tag_value(value, number of this update). Call first in work().
     */
    template <typename T, typename Apply, typename TagValue>
    void apply_queued(queued_update<T>& update,
                      const pmt::pmt_t& key,
                      Apply apply,
                      TagValue tag_value)
    {
        uint64_t number = 0;
        if (auto value = update.take(number)) {
            apply(*value);
            this->add_item_tag(
                0, this->nitems_written(0), key, tag_value(*value, number), this->alias_pmt());
        }
    }

    /*!
     * Move the tags of the \p n_in input items this call consumed to the
     * output item made from each (offset / \p step, rounded down), passing
     * each through \p adjust(tag, input items after the output item's first).
     * For blocks that set TPP_DONT: GNU Radio's own propagation rounds
     * offset / step to the nearest item, which puts a tag from the second half
     * of one output item onto the next.
     */
    template <typename Adjust>
    void move_tags_decimated(uint64_t n_in, uint64_t step, Adjust adjust)
    {
        std::vector<gr::tag_t> tags;
        const uint64_t first = this->nitems_read(0);
        this->get_tags_in_range(tags, 0, first, first + n_in);
        for (gr::tag_t tag : tags) {
            const uint64_t out_item = tag.offset / step;
            const uint64_t items_late = tag.offset - out_item * step;
            tag.offset = out_item;
            adjust(tag, items_late);
            this->add_item_tag(0, tag);
        }
    }
    void move_tags_decimated(uint64_t n_in, uint64_t step)
    {
        move_tags_decimated(n_in, step, [](gr::tag_t&, uint64_t) {});
    }

private:
    std::unique_ptr<Engine> d_engine;
};

} // namespace beamform
} // namespace gr

#endif
