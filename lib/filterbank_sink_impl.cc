/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "filterbank_sink_impl.h"
#include "block_support/rx_time.h"
#include "block_support/block_params.h"
#include <gnuradio/io_signature.h>
#include <pmt/pmt.h>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace beamform {

filterbank_sink::sptr filterbank_sink::make(const std::string& directory,
                                            const std::string& prefix,
                                            int n_beams,
                                            int n_channels,
                                            int n_stokes,
                                            const std::vector<double>& channel_frequencies,
                                            double tsamp,
                                            const std::string& source_name,
                                            const std::vector<double>& beam_az_el,
                                            double tstart_mjd,
                                            int telescope_id,
                                            int machine_id,
                                            const std::vector<double>& beam_ra_dec)
{
    filterbank_config config;
    config.directory = directory;
    config.prefix = prefix;
    config.n_beams = check_count("n_beams", n_beams, 1, 65536);
    config.n_channels = check_count("n_channels", n_channels, 2, 1 << 20);
    config.n_stokes = check_count("n_stokes", n_stokes, 1, 4);
    config.channel_frequencies_hz = channel_frequencies;
    config.tsamp_s = tsamp;
    config.source_name = source_name;
    config.beam_az_el_deg = beam_az_el;
    config.telescope_id = telescope_id;
    config.machine_id = machine_id;
    config.beam_ra_dec_deg = beam_ra_dec;
    config.validate();
    check_item_bytes("n_stokes * n_beams * n_channels * 4",
                     config.item_floats() * sizeof(float));
    if (!std::isfinite(tstart_mjd) || tstart_mjd < 0)
        throw std::invalid_argument("tstart_mjd must be a finite MJD >= 0");
    return gnuradio::make_block_sptr<filterbank_sink_impl>(config, tstart_mjd);
}

filterbank_sink_impl::filterbank_sink_impl(const filterbank_config& config,
                                           double tstart_mjd)
    : gr::sync_block("filterbank_sink",
                     gr::io_signature::make(1, 1, config.item_floats() * sizeof(float)),
                     gr::io_signature::make(0, 0, 0)),
      d_writer(config),
      d_tstart_parameter(tstart_mjd),
      d_tstart_mjd(tstart_mjd)
{
}

filterbank_sink_impl::~filterbank_sink_impl() { finish("destructor"); }

std::vector<int> filterbank_sink_impl::channel_order() const
{
    const auto& order = d_writer.channel_order();
    return std::vector<int>(order.begin(), order.end());
}

std::string filterbank_sink_impl::error() const
{
    std::lock_guard<std::mutex> lock(d_error_mutex);
    return d_error;
}

void filterbank_sink_impl::record_error(const std::string& what)
{
    d_logger->error("{:s}; ending the flowgraph with {:d} complete samples in each file",
                    what,
                    d_writer.items_written());
    std::lock_guard<std::mutex> lock(d_error_mutex);
    if (d_error.empty())
        d_error = what;
}

bool filterbank_sink_impl::start()
{
    std::lock_guard<std::mutex> lock(d_mutex);
    try {
        d_writer.reopen(); // files closed by a previous stop(): append
    } catch (const std::exception& e) {
        // A throw from start() would hang top_block.start(): work() ends instead.
        record_error(e.what());
    }
    const auto paths = d_writer.paths();
    d_logger->info("on cpu: items of {:d} B in; {:d} files {:s} ... {:s}, fch1 {:.6f} MHz, "
                   "foff {:.6f} MHz",
                   input_signature()->sizeof_stream_item(0),
                   paths.size(),
                   paths.empty() ? "" : paths.front(),
                   paths.empty() ? "" : paths.back(),
                   d_writer.fch1_mhz(),
                   d_writer.foff_mhz());
    return true;
}

bool filterbank_sink_impl::stop()
{
    finish("stop");
    return true;
}

void filterbank_sink_impl::finish(const char* where) noexcept
{
    std::lock_guard<std::mutex> lock(d_mutex);
    try {
        if (d_writer.is_open() && !d_writer.headers_written() && !d_writer.failed()) {
            d_logger->info("no items arrived before {:s}; writing headers with "
                           "tstart_mjd = {:.9f} and no samples",
                           where,
                           d_tstart_parameter);
            d_writer.write_headers(d_tstart_parameter);
        }
        d_writer.close();
    } catch (const std::exception& e) {
        // stop() and destructors must not throw; say loudly what was lost.
        d_items_written = d_writer.items_written();
        try {
            record_error(std::string(where) + ": " + e.what());
        } catch (...) {
        }
    }
}

void filterbank_sink_impl::write_headers_at(uint64_t first)
{
    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, first, first + 1, rx_time_key());
    double tstart = d_tstart_parameter;
    bool from_tag = false;
    if (!tags.empty()) {
        const auto t = parse_rx_time(tags.front().value);
        if (t && t->seconds >= 0) {
            tstart = unix_time_to_mjd(uint64_t(t->seconds), t->fraction);
            from_tag = true;
        } else {
            d_logger->warn("rx_time tag on the first item is not (uint64, double): {:s}; "
                           "tstart = tstart_mjd parameter {:.9f}",
                           pmt::write_string(tags.front().value),
                           tstart);
        }
    } else {
        d_logger->info("no rx_time tag on the first item; tstart = tstart_mjd "
                       "parameter {:.9f}",
                       tstart);
    }
    d_writer.write_headers(tstart);
    d_header_item = first;
    d_tstart_mjd = tstart;
    d_tstart_from_rx_time = from_tag;
}

int filterbank_sink_impl::work(int noutput_items,
                               gr_vector_const_void_star& input_items,
                               gr_vector_void_star& output_items)
{
    std::lock_guard<std::mutex> lock(d_mutex);
    if (!error().empty() || !d_writer.is_open())
        return WORK_DONE;
    // A write error (disk full, size limit) ends the flowgraph: an exception
    // leaving work() would stop this thread and hang tb.run().
    try {
        write_items(static_cast<const float*>(input_items[0]), noutput_items);
    } catch (const std::exception& e) {
        d_items_written = d_writer.items_written();
        record_error(e.what());
        return WORK_DONE;
    }
    return noutput_items;
}

void filterbank_sink_impl::write_items(const float* items, int noutput_items)
{
    const uint64_t first = nitems_read(0);
    if (!d_writer.headers_written())
        write_headers_at(first);

    std::vector<gr::tag_t> tags;
    get_tags_in_range(tags, 0, first, first + noutput_items, rx_time_key());
    for (const auto& tag : tags)
        if (tag.offset != d_header_item)
            d_logger->warn("rx_time tag on item {:d} ignored: the header (tstart) is "
                           "written already; value {:s}",
                           tag.offset,
                           pmt::write_string(tag.value));

    d_writer.write(items, static_cast<size_t>(noutput_items));
    d_items_written = d_writer.items_written();
}

} // namespace beamform
} // namespace gr
