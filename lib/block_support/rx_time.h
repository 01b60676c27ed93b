/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_BEAMFORM_BLOCK_SUPPORT_RX_TIME_H
#define INCLUDED_BEAMFORM_BLOCK_SUPPORT_RX_TIME_H

#include <pmt/pmt.h>
#include <cstdint>
#include <optional>

namespace gr {
namespace beamform {

//! GNU Radio's rx_time tag key.
const pmt::pmt_t& rx_time_key();

//! An rx_time value: whole seconds and the fraction of a second.
struct rx_time {
    int64_t seconds = 0;
    double fraction = 0.0;
};

/*!
 * The (integer seconds, real fraction) tuple GNU Radio's sources write, or
 * nothing if \p value has another shape or a non-finite fraction. An integer
 * fraction is accepted as a real one.
 */
std::optional<rx_time> parse_rx_time(const pmt::pmt_t& value);

//! The tag value for \p t: (uint64 seconds, double fraction in [0, 1)).
pmt::pmt_t make_rx_time(rx_time t);

//! \p t moved by \p seconds (the fraction renormalised to [0, 1)).
rx_time shifted(rx_time t, double seconds);

} // namespace beamform
} // namespace gr

#endif
