/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * With the blocks library loaded, the engines' warnings go to GNU Radio's
 * logger (configured like every other block's) instead of stderr.
 */
#include <gnuradio/beamform/runtime/log.h>
#include <gnuradio/logger.h>

namespace gr {
namespace beamform {
namespace {

const bool routed_to_gnuradio = [] {
    set_warning_handler([](const std::string& message) {
        gr::logger log("beamform");
        log.warn("{:s}", message);
    });
    return true;
}();

} // namespace
} // namespace beamform
} // namespace gr
