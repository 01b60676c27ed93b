/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_FILTERBANK_SINK_IMPL_H
#define INCLUDED_BEAMFORM_FILTERBANK_SINK_IMPL_H

#include <gnuradio/beamform/engines/filterbank_writer.h>
#include <gnuradio/beamform/filterbank_sink.h>
#include <atomic>
#include <mutex>
#include <string>

namespace gr {
namespace beamform {

class filterbank_sink_impl : public filterbank_sink
{
public:
    filterbank_sink_impl(const filterbank_config& config, double tstart_mjd);
    ~filterbank_sink_impl() override;

    bool start() override;
    bool stop() override;

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

    std::vector<std::string> file_paths() const override { return d_writer.paths(); }
    uint64_t items_written() const override { return d_items_written.load(); }
    double tstart_mjd() const override { return d_tstart_mjd.load(); }
    bool tstart_from_rx_time() const override { return d_tstart_from_rx_time.load(); }
    double fch1_mhz() const override { return d_writer.fch1_mhz(); }
    double foff_mhz() const override { return d_writer.foff_mhz(); }
    std::vector<int> channel_order() const override;
    std::string error() const override;

private:
    //! Header from the rx_time tag on item \p first, else from the parameter.
    void write_headers_at(uint64_t first);
    //! Headers if not yet written, then the items; throws on an I/O error.
    void write_items(const float* items, int noutput_items);
    //! Headers (if no item came) and close; logs instead of throwing.
    void finish(const char* where) noexcept;
    //! Log \p what once, keep it for error(); work() then ends the flowgraph.
    void record_error(const std::string& what);

    std::mutex d_mutex; // work() vs stop()/destructor
    filterbank_writer d_writer;
    const double d_tstart_parameter;
    uint64_t d_header_item = 0;
    std::atomic<uint64_t> d_items_written{ 0 };
    std::atomic<double> d_tstart_mjd;
    std::atomic<bool> d_tstart_from_rx_time{ false };
    mutable std::mutex d_error_mutex;
    std::string d_error; // guarded by d_error_mutex
};

} // namespace beamform
} // namespace gr

#endif
