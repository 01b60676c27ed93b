/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "rx_time.h"
#include <cmath>

namespace gr {
namespace beamform {

const pmt::pmt_t& rx_time_key()
{
    static const pmt::pmt_t key = pmt::intern("rx_time");
    return key;
}

std::optional<rx_time> parse_rx_time(const pmt::pmt_t& value)
{
    if (!pmt::is_tuple(value) || pmt::length(value) != 2)
        return std::nullopt;
    const pmt::pmt_t whole = pmt::tuple_ref(value, 0);
    const pmt::pmt_t part = pmt::tuple_ref(value, 1);
    rx_time t;
    if (pmt::is_uint64(whole))
        t.seconds = static_cast<int64_t>(pmt::to_uint64(whole));
    else if (pmt::is_integer(whole))
        t.seconds = pmt::to_long(whole);
    else
        return std::nullopt;
    if (pmt::is_real(part))
        t.fraction = pmt::to_double(part);
    else if (pmt::is_integer(part))
        t.fraction = static_cast<double>(pmt::to_long(part));
    else
        return std::nullopt;
    if (!std::isfinite(t.fraction))
        return std::nullopt;
    return t;
}

pmt::pmt_t make_rx_time(rx_time t)
{
    return pmt::make_tuple(pmt::from_uint64(static_cast<uint64_t>(t.seconds)),
                           pmt::from_double(t.fraction));
}

rx_time shifted(rx_time t, double seconds)
{
    double f = t.fraction + seconds;
    const double whole = std::floor(f);
    return { t.seconds + static_cast<int64_t>(whole), f - whole };
}

} // namespace beamform
} // namespace gr
