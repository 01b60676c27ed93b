# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read SIGPROC filterbank files, such as those written by filterbank_sink.

The format: a header of keywords, each an int32 length and that many ASCII
characters, followed by its value (int32, float64, or a length-prefixed
string), between the markers HEADER_START and HEADER_END; then the samples,
[time][nifs][nchans], channel 0 at fch1 and channel i at fch1 + i * foff (MHz).
Little-endian, as every SIGPROC file in practice.
"""
import math
import os
import struct

import numpy as np

__all__ = [
    "SIGPROC_KEYWORDS",
    "read_filterbank",
    "read_filterbank_header",
    "filterbank_frequencies",
    "filterbank_times",
]

# The type of each keyword's value: "i" int32, "d" float64, "s" string,
# "b" one signed byte. The keywords of SIGPROC (and sigpyproc); a file with a
# keyword not listed here cannot be parsed past it, since the size of its value
# is unknown.
SIGPROC_KEYWORDS = {
    "telescope_id": "i",
    "machine_id": "i",
    "data_type": "i",
    "rawdatafile": "s",
    "source_name": "s",
    "barycentric": "i",
    "pulsarcentric": "i",
    "az_start": "d",
    "za_start": "d",
    "src_raj": "d",
    "src_dej": "d",
    "tstart": "d",
    "tsamp": "d",
    "nbits": "i",
    "nsamples": "i",
    "fch1": "d",
    "foff": "d",
    "nchans": "i",
    "nifs": "i",
    "refdm": "d",
    "period": "d",
    "nbeams": "i",
    "ibeam": "i",
    "npuls": "i",
    "nbins": "i",
    "signed": "b",
}

# Keywords that hold no value.
_MARKERS = ("HEADER_START", "HEADER_END", "FREQUENCY_START", "FREQUENCY_END")

# Longest keyword or string SIGPROC reads (its buffers hold 80 characters).
_MAX_STRING = 80

# Sanity limits of a header (beyond them a file is damaged, not large):
# 2^24 channels, and nifs up to 16 (SIGPROC writes 1 or 4).
_MAX_NCHANS = 1 << 24
_MAX_NIFS = 16

_SAMPLE_DTYPES = {8: np.uint8, 16: np.uint16, 32: np.float32}


class _HeaderReader:
    """Reads header fields from a binary file, with errors that say where."""

    def __init__(self, handle, path):
        self.handle = handle
        self.path = path

    def _take(self, n, what):
        raw = self.handle.read(n)
        if len(raw) != n:
            raise ValueError(
                f"{self.path}: truncated SIGPROC header: {what} needs {n} bytes at "
                f"byte {self.handle.tell() - len(raw)}, the file has {len(raw)} left"
            )
        return raw

    def int32(self, what):
        return struct.unpack("<i", self._take(4, what))[0]

    def float64(self, what):
        value = struct.unpack("<d", self._take(8, what))[0]
        if not math.isfinite(value):
            raise ValueError(f"{self.path}: SIGPROC header value of {what} is {value}, "
                             "not a finite number")
        return value

    def int8(self, what):
        return struct.unpack("<b", self._take(1, what))[0]

    def string(self, what):
        start = self.handle.tell()
        length = self.int32(f"the length of {what}")
        if not 0 <= length <= _MAX_STRING:
            raise ValueError(
                f"{self.path}: not a SIGPROC filterbank file: {what} at byte {start} "
                f"claims {length} characters (0..{_MAX_STRING} allowed)"
            )
        raw = self._take(length, what)
        try:
            return raw.decode("ascii")
        except UnicodeDecodeError:
            raise ValueError(
                f"{self.path}: not a SIGPROC filterbank file: {what} at byte {start} "
                f"is not ASCII: {raw!r}"
            ) from None


def read_filterbank_header(path):
    """Parse the header of a SIGPROC filterbank file.

    Returns (header, header_bytes): a dict of keyword -> value (int, float or
    str; ``fchannel`` values, if any, collected as a list), and the header's
    size in bytes (where the samples start).

    Raises ValueError naming the file and the problem for a file that does not
    start with HEADER_START, a header cut short, or a keyword whose value type
    is unknown (its size is then unknown too, so nothing after it can be read).
    """
    path = os.fspath(path)
    with open(path, "rb") as handle:
        reader = _HeaderReader(handle, path)
        first = reader.string("the first keyword")
        if first != "HEADER_START":
            raise ValueError(
                f"{path}: not a SIGPROC filterbank file: it starts with {first!r}, "
                "not 'HEADER_START'"
            )
        header = {}
        while True:
            key = reader.string("a keyword")
            if key == "HEADER_END":
                return header, handle.tell()
            if key in _MARKERS:
                continue
            if key == "fchannel":
                header.setdefault("fchannel", []).append(reader.float64(key))
                continue
            if key in header:  # which one would a reader believe?
                raise ValueError(f"{path}: SIGPROC header keyword {key!r} appears twice "
                                 f"(second at byte {handle.tell() - len(key) - 4})")
            kind = SIGPROC_KEYWORDS.get(key)
            if kind is None:
                raise ValueError(
                    f"{path}: unknown SIGPROC header keyword {key!r} at byte "
                    f"{handle.tell() - len(key) - 4}: its value's type and size are "
                    "unknown, so the rest of the header cannot be read"
                )
            if kind == "i":
                header[key] = reader.int32(key)
            elif kind == "d":
                header[key] = reader.float64(key)
            elif kind == "b":
                header[key] = reader.int8(key)
            else:
                header[key] = reader.string(f"the value of {key}")


def read_filterbank(path):
    """Read a SIGPROC filterbank file.

    Returns (header, data): the header dict (see read_filterbank_header; it
    gains "header_bytes" and "nsamples" = the time samples in the file, which
    replaces a stored nsamples) and the
    samples as a numpy array [time][nifs][nchans] (float32 for nbits 32,
    uint8 / uint16 for 8 / 16 bits), channel i at filterbank_frequencies(header)[i].

    Raises ValueError for a file that is not a SIGPROC filterbank file, a header
    without nchans / nbits, an unsupported nbits, or a data section that is not
    a whole number of time samples (a truncated file).
    """
    path = os.fspath(path)
    header, header_bytes = read_filterbank_header(path)
    for key in ("nchans", "nbits"):
        if key not in header:
            raise ValueError(f"{path}: SIGPROC header has no {key!r}")
    nchans = header["nchans"]
    nifs = header.get("nifs", 1)
    nbits = header["nbits"]
    if not (1 <= nchans <= _MAX_NCHANS and 1 <= nifs <= _MAX_NIFS):
        raise ValueError(f"{path}: SIGPROC header has nchans = {nchans}, nifs = {nifs} "
                         f"(accepted: nchans in [1, {_MAX_NCHANS}], nifs in [1, {_MAX_NIFS}])")
    if "tsamp" in header and not header["tsamp"] > 0:
        raise ValueError(f"{path}: SIGPROC header has tsamp = {header['tsamp']} s, not > 0")
    if nbits not in _SAMPLE_DTYPES:
        raise ValueError(
            f"{path}: nbits = {nbits} is not supported (8, 16 or 32 bits per sample)"
        )
    dtype = np.dtype(_SAMPLE_DTYPES[nbits]).newbyteorder("<")
    sample_bytes = nifs * nchans * dtype.itemsize
    data_bytes = os.path.getsize(path) - header_bytes
    if data_bytes % sample_bytes:
        raise ValueError(
            f"{path}: truncated data: {data_bytes} bytes after the header are not a "
            f"whole number of time samples of {sample_bytes} bytes "
            f"(nifs {nifs} x nchans {nchans} x {nbits} bits)"
        )
    n_times = data_bytes // sample_bytes
    data = np.fromfile(path, dtype=dtype, offset=header_bytes)
    data = data.astype(dtype.newbyteorder("="), copy=False).reshape(n_times, nifs, nchans)
    header = dict(header, header_bytes=header_bytes, nsamples=n_times)
    header.setdefault("nifs", nifs)
    return header, data


def filterbank_frequencies(header):
    """Centre frequency (MHz) of each channel: fch1 + i * foff, i = 0..nchans-1."""
    for key in ("fch1", "foff", "nchans"):
        if key not in header:
            raise ValueError(f"SIGPROC header has no {key!r}")
    return header["fch1"] + np.arange(header["nchans"]) * header["foff"]


def filterbank_times(header, n_times=None):
    """Time (s) of each sample since tstart: i * tsamp, i = 0..nsamples-1."""
    if "tsamp" not in header:
        raise ValueError("SIGPROC header has no 'tsamp'")
    n = header["nsamples"] if n_times is None else n_times
    return np.arange(n) * header["tsamp"]
