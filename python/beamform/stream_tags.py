# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""The stream tags the module's sources put on their first item: rx_time,
rx_rate and rx_freq, with the keys and value types of GNU Radio's hardware
sources (and of beamform.array_source), for the Python sources of recordings.

rx_time is a tuple (uint64 whole seconds since the Unix epoch, double fraction
of a second in [0, 1)); rx_rate is the item rate in Hz and rx_freq the centre
(sky) frequency in Hz, both doubles.
"""
import math

# The Unix epoch (1970-01-01T00:00:00 UTC) as a Modified Julian Date.
UNIX_EPOCH_MJD = 40587
SECONDS_PER_DAY = 86400

__all__ = ["UNIX_EPOCH_MJD", "split_seconds", "rx_time_pmt", "add_time_rate_freq_tags",
           "size_source_buffer"]


def split_seconds(whole, fraction):
    """(whole, fraction) with the fraction renormalised into [0, 1): whole is an
    int and fraction a float. Keeps whole seconds exact where a single double
    would lose the sub-microsecond part of a Unix time."""
    if not math.isfinite(fraction):
        raise ValueError(f"time fraction {fraction} is not a finite number")
    carry = math.floor(fraction)
    return int(whole) + int(carry), float(fraction - carry)


def rx_time_pmt(whole, fraction):
    """The rx_time tag value (uint64 seconds, double fraction)."""
    import pmt
    whole, fraction = split_seconds(whole, fraction)
    if whole < 0:
        raise ValueError(f"rx_time {whole} + {fraction} s is before the Unix epoch")
    return pmt.make_tuple(pmt.from_uint64(whole), pmt.from_double(fraction))


def add_time_rate_freq_tags(block, offset, rx_time, rate, freq, tag_time=True):
    """Tag item `offset` of `block`'s output 0 with rx_time (a (whole, fraction)
    pair; left out when tag_time is False), rx_rate and rx_freq (Hz)."""
    import pmt
    src = pmt.intern(block.alias())
    if tag_time:
        block.add_item_tag(0, offset, pmt.intern("rx_time"), rx_time_pmt(*rx_time), src)
    block.add_item_tag(0, offset, pmt.intern("rx_rate"), pmt.from_double(float(rate)), src)
    block.add_item_tag(0, offset, pmt.intern("rx_freq"), pmt.from_double(float(freq)), src)


def size_source_buffer(block, item_bytes, target_bytes=4 << 20):
    """Give a Python source an output buffer of about target_bytes in whole
    memory pages. GNU Radio's default of 64 KiB holds a handful of large
    items, and a Python work() call per handful costs more than the copy."""
    import os
    page = os.sysconf("SC_PAGE_SIZE")
    granule = page // math.gcd(item_bytes, page)  # items per whole number of pages
    items = max(1, -(-target_bytes // (item_bytes * granule))) * granule
    block.set_min_output_buffer(0, items)
    return items
