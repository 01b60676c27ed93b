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
 * A null sink that notes when the items it has read pass a quarter and three
 * quarters of the items it expects: the flowgraph's steady-state rate over the
 * middle half of its output, without its start-up (threads, buffers, pinned
 * memory), the pipeline's fill and its drain, which a whole-run time includes.
 */
class timed_sink : public gr::sync_block
{
public:
    using clock = std::chrono::steady_clock;
    using sptr = std::shared_ptr<timed_sink>;
    static sptr make(size_t item_size, uint64_t expected_items)
    {
        return gnuradio::make_block_sptr<timed_sink>(item_size, expected_items);
    }

    timed_sink(size_t item_size, uint64_t expected_items)
        : gr::sync_block("timed_sink",
                         gr::io_signature::make(1, 1, item_size),
                         gr::io_signature::make(0, 0, 0)),
          d_first_mark(expected_items / 4),
          d_last_mark(expected_items - expected_items / 4)
    {
    }

    int work(int noutput_items, gr_vector_const_void_star&, gr_vector_void_star&) override
    {
        const uint64_t before = nitems_read(0);
        const uint64_t after = before + uint64_t(noutput_items);
        const auto now = clock::now();
        if (before < d_first_mark && after >= d_first_mark) {
            d_first = now;
            d_first_items = after;
        }
        if (before < d_last_mark && after >= d_last_mark) {
            d_last = now;
            d_last_items = after;
        }
        return noutput_items;
    }

    //! Items between the two marks, and the seconds between them (0 if the
    //! run was too short to pass both in different calls).
    uint64_t middle_items() const { return d_last_items - d_first_items; }
    double middle_seconds() const
    {
        return std::chrono::duration<double>(d_last - d_first).count();
    }

private:
    const uint64_t d_first_mark, d_last_mark;
    uint64_t d_first_items = 0, d_last_items = 0;
    clock::time_point d_first, d_last;
};

} // namespace bench

#endif
