/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_APPS_BENCH_TIMED_SINK_H
#define INCLUDED_BEAMFORM_APPS_BENCH_TIMED_SINK_H

#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <chrono>
#include <cstdint>

namespace bench {

/*!
 * A null sink that notes when its first and its last work calls end and how
 * many items came after the first call: the flowgraph's steady-state rate,
 * without its start-up (threads, buffers, pinned memory) and the pipeline's
 * fill, which a whole-run time includes.
 */
class timed_sink : public gr::sync_block
{
public:
    using clock = std::chrono::steady_clock;
    using sptr = std::shared_ptr<timed_sink>;
    static sptr make(size_t item_size)
    {
        return gnuradio::make_block_sptr<timed_sink>(item_size);
    }

    explicit timed_sink(size_t item_size)
        : gr::sync_block("timed_sink",
                         gr::io_signature::make(1, 1, item_size),
                         gr::io_signature::make(0, 0, 0))
    {
    }

    int work(int noutput_items, gr_vector_const_void_star&, gr_vector_void_star&) override
    {
        const auto now = clock::now();
        if (d_calls++ == 0)
            d_first = now;
        else
            d_items_after_first += uint64_t(noutput_items);
        d_last = now;
        return noutput_items;
    }

    //! Items that arrived after the first call, and the seconds they took.
    uint64_t items_after_first() const { return d_items_after_first; }
    double seconds_after_first() const
    {
        return std::chrono::duration<double>(d_last - d_first).count();
    }

private:
    uint64_t d_calls = 0;
    uint64_t d_items_after_first = 0;
    clock::time_point d_first, d_last;
};

} // namespace bench

#endif
