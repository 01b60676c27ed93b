/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A host source for flowgraph benchmarks: repeats a pattern of items with
 * memcpy, and ends after total_items (so no head block, with its small host
 * buffer, sits between it and the blocks under test). GNU Radio's vector_source copies byte by byte in repeat mode (about
 * 1 GB/s), which would make the source, not the blocks under test, the limit.
 *
 * With write_items > 0 it writes only its first write_items items and then
 * hands over output space as it is. Its output buffer is smaller than that, so
 * every item it hands over holds pattern data written on an earlier lap: the
 * items still cross the host -> GPU edge (the copy is real), but the host
 * thread no longer writes them. This measures the GPU side of a flowgraph; a
 * real host producer must also write its items.
 */
#ifndef INCLUDED_BEAMFORM_APPS_BENCH_SOURCE_H
#define INCLUDED_BEAMFORM_APPS_BENCH_SOURCE_H

#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <algorithm>
#include <cstring>
#include <vector>

namespace bench {

class pattern_source : public gr::sync_block
{
public:
    using sptr = std::shared_ptr<pattern_source>;
    //! Items of item_size bytes taken in turn from `pattern` (a whole number of items).
    static sptr make(std::vector<uint8_t> pattern,
                     size_t item_size,
                     uint64_t total_items,
                     uint64_t write_items = 0)
    {
        return gnuradio::make_block_sptr<pattern_source>(
            std::move(pattern), item_size, total_items, write_items);
    }

    pattern_source(std::vector<uint8_t> pattern,
                   size_t item_size,
                   uint64_t total_items,
                   uint64_t write_items)
        : gr::sync_block("pattern_source",
                         gr::io_signature::make(0, 0, 0),
                         gr::io_signature::make(1, 1, item_size)),
          d_pattern(std::move(pattern)),
          d_item(item_size),
          d_items(d_pattern.size() / item_size),
          d_total_items(total_items),
          d_write_items(write_items)
    {
    }

    int work(int noutput_items, gr_vector_const_void_star&, gr_vector_void_star& out) override
    {
        const uint64_t written = nitems_written(0);
        if (written >= d_total_items)
            return WORK_DONE;
        noutput_items = int(std::min<uint64_t>(noutput_items, d_total_items - written));
        if (d_write_items > 0 && written >= d_write_items)
            return noutput_items;
        auto* o = static_cast<uint8_t*>(out[0]);
        size_t done = 0;
        while (done < size_t(noutput_items)) {
            const size_t n = std::min(size_t(noutput_items) - done, d_items - d_next);
            std::memcpy(o + done * d_item, d_pattern.data() + d_next * d_item, n * d_item);
            done += n;
            d_next = (d_next + n) % d_items;
        }
        return noutput_items;
    }

private:
    std::vector<uint8_t> d_pattern;
    size_t d_item, d_items, d_next = 0;
    uint64_t d_total_items;
    uint64_t d_write_items;
};

} // namespace bench

#endif
