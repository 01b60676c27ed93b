# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read and write GUPPI RAW files: the channelized-voltage recordings of GUPPI
(Green Bank), Breakthrough Listen, the ATA and VLA COSMIC.

The format (S. Ellingson, "Notes on the GUPPI raw data format", 2013; the
Breakthrough Listen "RAW file format" description): a sequence of blocks, each

  * a header of 80-character ASCII cards "KEYWORD = value" (keyword padded to
    8 characters, then "= ", then a FITS-style value: strings in single
    quotes, integers, reals, T/F), ending with a card "END" + 77 spaces;
    when the card DIRECTIO is non-zero the header is padded to a multiple of
    512 bytes (where BLOCSIZE is not a multiple of 512, the next header is
    looked for right after the data, then at the next multiple of 512);
  * BLOCSIZE bytes of data, [OBSNCHAN][time][pol] complex samples, each I then
    Q, NBITS bits per component, two's complement (16-bit ones little-endian,
    as written by the x86 recorders). NPOL is the number of polarisations, 1
    or 2; the value 4 (GUPPI's count of I/Q streams) also means 2.
    time samples per block = BLOCSIZE * 8 / (2 * pols * OBSNCHAN * NBITS).

Multi-antenna recordings (ATA, COSMIC) carry NANTS antennas: OBSNCHAN = NANTS
x channels per antenna, antenna-major (the first OBSNCHAN / NANTS channels of
the block are antenna 0).

Time. STT_IMJD (MJD day), STT_SMJD (second of that day) and STT_OFFS (fraction
of a second, 0 if absent) are the time of packet index PKTSTART (0 if absent);
PKTIDX is the packet index of a block's first sample. A block's first sample is
at STT + (PKTIDX - PKTSTART) * samples_per_pktidx * TBIN. samples_per_pktidx is
taken, in this order, from the caller, from PIPERBLK (packet indices per block:
time samples per block / PIPERBLK), or from the PKTIDX step between blocks (the
most common positive step, so that a gap does not decide it). A file of one
block with none of them, or a file without PKTIDX, has its blocks taken as
contiguous from STT (said in a warning when PKTIDX is there but unusable).

OVERLAP (samples repeated from the previous block, old GUPPI pulsar modes) is
not supported: a non-zero OVERLAP is refused rather than read as new samples.
"""
import logging
import math
import os
import re
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .stream_tags import SECONDS_PER_DAY, UNIX_EPOCH_MJD, split_seconds

__all__ = [
    "GuppiBlock",
    "GuppiRawFile",
    "parse_guppi_card",
    "format_guppi_card",
    "write_guppi_raw",
]

CARD_BYTES = 80
DIRECTIO_ALIGN = 512
SUPPORTED_NBITS = (8, 16)
# Cards without which the samples cannot be laid out or tagged.
REQUIRED_CARDS = ("BLOCSIZE", "OBSNCHAN", "NPOL", "NBITS", "OBSFREQ", "OBSBW", "TBIN",
                  "STT_IMJD", "STT_SMJD")
# Cards that fix the layout, the time reference or the tags: one value per file.
CONSTANT_CARDS = ("BLOCSIZE", "OBSNCHAN", "NPOL", "NBITS", "NANTS", "OBSFREQ", "OBSBW",
                  "TBIN", "STT_IMJD", "STT_SMJD", "STT_OFFS", "PKTSTART", "PIPERBLK",
                  "DIRECTIO")
# A header longer than this has lost its END card (real ones hold ~100 cards).
MAX_HEADER_CARDS = 4096

_KEYWORD = re.compile(r"[A-Z0-9_\-]{1,8}")
_STRING_VALUE = re.compile(r"'((?:[^']|'')*)'\s*(?:/.*)?")
_END_CARD = b"END" + b" " * (CARD_BYTES - 3)


def _log_warning(message):
    logging.getLogger("gnuradio.beamform.guppi_raw").warning(message)


def parse_guppi_card(card, path="<header>", offset=0):
    """(keyword, value) of one 80-byte header card. Values: str (quoted),
    bool (T/F), int, or float. ValueError naming the file, the byte offset and
    the card for anything else."""
    where = f"{path}: GUPPI header card at byte {offset}"
    try:
        text = card.decode("ascii")
    except UnicodeDecodeError:
        raise ValueError(f"{where} is not ASCII (a header without its END card runs into "
                         f"the data): {card[:40]!r}...") from None
    keyword = text[:8].rstrip()
    if not _KEYWORD.fullmatch(keyword) or text[8:10] != "= ":
        raise ValueError(f"{where} is not 'KEYWORD = value' (keyword of 1..8 characters "
                         f"A-Z 0-9 _ -, '= ' in columns 9-10; a header without its END "
                         f"card runs into the data): {text.rstrip()!r}")
    value = text[10:].strip()
    if value.startswith("'"):
        match = _STRING_VALUE.fullmatch(value)
        if not match:
            raise ValueError(f"{where}: the string value of {keyword} has no closing "
                             f"quote: {text.rstrip()!r}")
        return keyword, match.group(1).replace("''", "'").rstrip()
    value = value.split("/")[0].strip()  # a FITS comment may follow a number
    if value in ("T", "F"):
        return keyword, value == "T"
    try:
        return keyword, int(value)
    except ValueError:
        pass
    try:
        number = float(value.replace("D", "E"))
    except ValueError:
        raise ValueError(f"{where}: the value of {keyword} is neither a quoted string, "
                         f"T/F, an integer nor a real: {text.rstrip()!r}") from None
    return keyword, number


def format_guppi_card(keyword, value):
    """One 80-byte card for `keyword` = `value` (str, bool, int or float)."""
    keyword = str(keyword).upper()
    if not _KEYWORD.fullmatch(keyword) or keyword == "END":
        raise ValueError(f"GUPPI keyword {keyword!r}: 1..8 characters A-Z 0-9 _ -, not END")
    if isinstance(value, bool):
        text = "T" if value else "F"
    elif isinstance(value, (int, np.integer)):
        text = str(int(value))
    elif isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise ValueError(f"GUPPI card {keyword}: value {value} is not finite")
        text = repr(float(value))
    elif isinstance(value, str):
        text = "'" + value.replace("'", "''").ljust(8) + "'"
    else:
        raise ValueError(f"GUPPI card {keyword}: value {value!r} is not str, bool, int "
                         "or float")
    card = f"{keyword:<8}= {text}"
    if len(card) > CARD_BYTES or not card.isascii():
        raise ValueError(f"GUPPI card {keyword}: {card!r} is not an ASCII card of at "
                         f"most {CARD_BYTES} characters")
    return card.ljust(CARD_BYTES).encode("ascii")


def _number(header, key, kind, path, offset):
    """Card `key` as int or float (numbers written as strings accepted)."""
    value = header[key]
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise ValueError(f"{path}: GUPPI card {key} = {header[key]!r} in the header at "
                             f"byte {offset} is not a number") from None
    if isinstance(value, bool) or not math.isfinite(value):
        raise ValueError(f"{path}: GUPPI card {key} = {value!r} in the header at byte "
                         f"{offset} is not a finite number")
    if kind is int:
        if value != int(value):
            raise ValueError(f"{path}: GUPPI card {key} = {value} in the header at byte "
                             f"{offset} is not an integer")
        return int(value)
    return float(value)


@dataclass(frozen=True)
class GuppiBlock:
    """One block: its header, where it lies, and its place in time."""
    index: int
    header: dict
    header_offset: int   # byte of the first header card
    data_offset: int     # byte of the first data byte
    pktidx: object       # PKTIDX (int), or None where the header has none


@dataclass(frozen=True)
class _Layout:
    n_antennas: int
    n_channels: int      # per antenna
    n_pols: int
    n_bits: int
    n_time: int          # time samples per block
    block_bytes: int


def _sexagesimal(text, scale):
    """'dd:mm:ss.s' (or 'hh:mm:ss.s' with scale 15) -> degrees."""
    text = text.strip()
    sign = -1.0 if text.startswith("-") else 1.0
    parts = [abs(float(p)) for p in text.lstrip("+-").split(":")]
    value = sum(p / 60.0 ** k for k, p in enumerate(parts))
    return sign * value * scale


class GuppiRawFile:
    """A GUPPI RAW file, indexed on opening (headers only; data memory-mapped).

    GuppiRawFile(path, samples_per_pktidx=None, allow_truncated=False, log=None)

    samples_per_pktidx: time samples per PKTIDX unit (None: from PIPERBLK or
    the PKTIDX steps, see the module's text). allow_truncated: a file whose
    last block (header or data) is cut short is an error unless True; then the
    whole blocks are read and the partial one is logged and described in
    `truncated` (byte offset, bytes present, bytes needed), never dropped
    silently. log: a callable taking a warning line (default: Python logging).

    Items: `block_samples(i)` is complex64 [time][channels][receivers], the
    module's channelized spectrum item; receiver r = antenna * n_pols + pol.
    """

    def __init__(self, path, samples_per_pktidx=None, allow_truncated=False, log=None):
        self.path = os.fspath(path)
        self._log = log or _log_warning
        size = os.path.getsize(self.path)
        if size == 0:
            raise ValueError(f"{self.path}: empty file: no GUPPI RAW block at byte 0")
        self._mm = np.memmap(self.path, dtype=np.uint8, mode="r")
        self.truncated = None
        self.blocks = []
        offset = 0
        while offset < size:
            block = self._read_block(len(self.blocks), offset, size, allow_truncated)
            if block is None:
                break
            self.blocks.append(block)
            offset = self._next_header(block, size)
        self._check_blocks()
        self._place_in_time(samples_per_pktidx)

    # -- indexing ---------------------------------------------------------
    def _read_header(self, offset, size, allow_truncated):
        header = {}
        pos = offset
        for _ in range(MAX_HEADER_CARDS):
            if pos + CARD_BYTES > size:
                return self._cut_short(
                    offset, size - offset, None, allow_truncated,
                    f"header at byte {offset} has no END card before the end of the file "
                    f"(byte {size})")
            card = bytes(self._mm[pos:pos + CARD_BYTES])
            if card == _END_CARD or (card[:3] == b"END" and not card[3:].strip()):
                return header, pos + CARD_BYTES
            key, value = parse_guppi_card(card, self.path, pos)
            if key in header:
                raise ValueError(f"{self.path}: GUPPI card {key} appears twice in the header "
                                 f"at byte {offset} (again at byte {pos})")
            header[key] = value
            pos += CARD_BYTES
        raise ValueError(f"{self.path}: GUPPI header at byte {offset} has no END card in its "
                         f"first {MAX_HEADER_CARDS} cards")

    def _cut_short(self, offset, present, needed, allow_truncated, what):
        message = (f"{self.path}: truncated GUPPI block {len(self.blocks)}: {what}; "
                   f"{present} bytes present from byte {offset}"
                   + (f", {needed} needed" if needed is not None else ""))
        if not allow_truncated:
            raise ValueError(message + " (allow_truncated=True reads the whole blocks "
                             "before it)")
        self.truncated = {"block": len(self.blocks), "offset": offset, "present": present,
                          "needed": needed, "what": what}
        self._log(message + ": the partial block is not read")
        return None

    def _read_block(self, index, offset, size, allow_truncated):
        found = self._read_header(offset, size, allow_truncated)
        if found is None:
            return None
        header, end = found
        for key in REQUIRED_CARDS:
            if key not in header:
                raise ValueError(f"{self.path}: GUPPI header at byte {offset} has no {key} "
                                 f"card (required: {', '.join(REQUIRED_CARDS)})")
        if self._directio(header, offset):  # the header's length is padded to 512 bytes
            end = offset + -(-(end - offset) // DIRECTIO_ALIGN) * DIRECTIO_ALIGN
        blocsize = _number(header, "BLOCSIZE", int, self.path, offset)
        if blocsize <= 0:
            raise ValueError(f"{self.path}: GUPPI card BLOCSIZE = {blocsize} in the header at "
                             f"byte {offset} is not > 0")
        if end + blocsize > size:
            self._cut_short(offset, size - offset, end + blocsize - offset, allow_truncated,
                            f"its data ends at byte {end + blocsize}, after the end of the "
                            f"file (byte {size})")
            return None
        pktidx = _number(header, "PKTIDX", int, self.path, offset) if "PKTIDX" in header else None
        return GuppiBlock(index, header, offset, end, pktidx)

    def _directio(self, header, offset):
        """Whether the header (and maybe the data) is padded to 512 bytes."""
        return "DIRECTIO" in header and _number(header, "DIRECTIO", int, self.path, offset) != 0

    def _looks_like_card(self, pos, size):
        if pos + CARD_BYTES > size:
            return False
        head = bytes(self._mm[pos:pos + 10])
        return head[:3] == b"END" or (head[8:10] == b"= " and
                                      _KEYWORD.fullmatch(head[:8].decode("latin-1").rstrip()))

    def _next_header(self, block, size):
        end = block.data_offset + self.layout_of(block).block_bytes
        # DIRECTIO writers may pad the data to 512 bytes too; the next header
        # starts right after the data unless the bytes there are not a card.
        if (self._directio(block.header, block.header_offset) and end % DIRECTIO_ALIGN
                and not self._looks_like_card(end, size)):
            end = -(-end // DIRECTIO_ALIGN) * DIRECTIO_ALIGN
        return end

    def layout_of(self, block):
        """The sample layout a block's header describes (checked)."""
        h, path, at = block.header, self.path, block.header_offset
        n_bits = _number(h, "NBITS", int, path, at)
        if n_bits not in SUPPORTED_NBITS:
            raise ValueError(f"{path}: GUPPI card NBITS = {n_bits} in the header at byte {at} "
                             f"is not supported (accepted: {SUPPORTED_NBITS})")
        npol = _number(h, "NPOL", int, path, at)
        if npol not in (1, 2, 4):
            raise ValueError(f"{path}: GUPPI card NPOL = {npol} in the header at byte {at}: "
                             "accepted 1, 2, or 4 (= 2 polarisations)")
        n_pols = 2 if npol == 4 else npol
        obsnchan = _number(h, "OBSNCHAN", int, path, at)
        n_antennas = _number(h, "NANTS", int, path, at) if "NANTS" in h else 1
        if obsnchan < 1 or n_antennas < 1 or obsnchan % n_antennas:
            raise ValueError(f"{path}: GUPPI cards OBSNCHAN = {obsnchan}, NANTS = {n_antennas} "
                             f"in the header at byte {at}: OBSNCHAN must be a positive "
                             "multiple of NANTS")
        if "OVERLAP" in h and _number(h, "OVERLAP", int, path, at) != 0:
            raise ValueError(f"{path}: GUPPI card OVERLAP = {h['OVERLAP']} in the header at "
                             f"byte {at}: blocks that repeat samples are not supported "
                             "(accepted: 0)")
        blocsize = _number(h, "BLOCSIZE", int, path, at)
        sample_bytes = obsnchan * n_pols * 2 * n_bits // 8
        if blocsize % sample_bytes:
            raise ValueError(
                f"{path}: GUPPI card BLOCSIZE = {blocsize} in the header at byte {at} is not "
                f"a whole number of time samples of OBSNCHAN {obsnchan} x {n_pols} "
                f"polarisations (NPOL {npol}) x 2 x NBITS {n_bits} bits = {sample_bytes} bytes")
        return _Layout(n_antennas, obsnchan // n_antennas, n_pols, n_bits,
                       blocsize // sample_bytes, blocsize)

    def _check_blocks(self):
        if not self.blocks:
            raise ValueError(f"{self.path}: no whole GUPPI RAW block (the first is "
                             f"truncated: {self.truncated['what']})")
        first = self.blocks[0]
        self.layout = self.layout_of(first)
        for block in self.blocks[1:]:
            for key in CONSTANT_CARDS:
                if block.header.get(key) != first.header.get(key):
                    raise ValueError(
                        f"{self.path}: GUPPI card {key} = {block.header.get(key)!r} in the "
                        f"header at byte {block.header_offset} (block {block.index}) differs "
                        f"from {first.header.get(key)!r} in the first block: one file, one "
                        "layout and time reference")
        h, at = first.header, first.header_offset
        self.tbin = _number(h, "TBIN", float, self.path, at)
        if not self.tbin > 0:
            raise ValueError(f"{self.path}: GUPPI card TBIN = {self.tbin} in the header at "
                             f"byte {at} is not > 0 s")
        self.obsfreq_mhz = _number(h, "OBSFREQ", float, self.path, at)
        self.obsbw_mhz = _number(h, "OBSBW", float, self.path, at)
        if self.obsbw_mhz == 0:
            raise ValueError(f"{self.path}: GUPPI card OBSBW = 0 in the header at byte {at}")
        imjd = _number(h, "STT_IMJD", int, self.path, at)
        smjd = _number(h, "STT_SMJD", int, self.path, at)
        offs = _number(h, "STT_OFFS", float, self.path, at) if "STT_OFFS" in h else 0.0
        if not 0 <= smjd < SECONDS_PER_DAY + 1:  # a leap second day has 86401
            raise ValueError(f"{self.path}: GUPPI card STT_SMJD = {smjd} in the header at "
                             f"byte {at}: accepted 0..{SECONDS_PER_DAY}")
        self.start_time = split_seconds((imjd - UNIX_EPOCH_MJD) * SECONDS_PER_DAY + smjd, offs)
        if self.start_time[0] < 0:  # rx_time holds unsigned seconds since 1970
            raise ValueError(f"{self.path}: GUPPI cards STT_IMJD = {imjd}, STT_SMJD = {smjd} in "
                             f"the header at byte {at} are before the Unix epoch (MJD "
                             f"{UNIX_EPOCH_MJD})")

    def _place_in_time(self, samples_per_pktidx):
        """Each block's first sample, counted in samples from STT; the gaps."""
        n_time = self.layout.n_time
        first = self.blocks[0]
        pktidx = [b.pktidx for b in self.blocks]
        spp = None
        self.samples_per_pktidx_source = None
        if None not in pktidx:
            if samples_per_pktidx is not None:
                spp = Fraction(samples_per_pktidx).limit_denominator(1 << 20)
                if not spp > 0:
                    raise ValueError(f"samples_per_pktidx = {samples_per_pktidx}: must be > 0")
                self.samples_per_pktidx_source = "argument"
            elif "PIPERBLK" in first.header:
                piperblk = _number(first.header, "PIPERBLK", int, self.path,
                                   first.header_offset)
                if piperblk <= 0:
                    raise ValueError(f"{self.path}: GUPPI card PIPERBLK = {piperblk} in the "
                                     f"header at byte {first.header_offset} is not > 0")
                spp = Fraction(n_time, piperblk)
                self.samples_per_pktidx_source = "PIPERBLK"
            else:
                steps = Counter(b - a for a, b in zip(pktidx, pktidx[1:]) if b > a)
                if steps:
                    spp = Fraction(n_time, steps.most_common(1)[0][0])
                    self.samples_per_pktidx_source = "PKTIDX step"
        self.samples_per_pktidx = spp
        if spp is None:
            if pktidx[0] is not None:
                self._log(f"{self.path}: no PIPERBLK and a single block: samples per PKTIDX "
                          "unknown, the block is taken to start at STT_IMJD/STT_SMJD/STT_OFFS")
            self.block_start = [i * n_time for i in range(len(self.blocks))]
        else:
            pktstart = (_number(first.header, "PKTSTART", int, self.path, first.header_offset)
                        if "PKTSTART" in first.header else 0)
            self.block_start = [round((p - pktstart) * spp) for p in pktidx]
            early = next((b for b, start in zip(self.blocks, self.block_start)
                          if self.start_time[0] + self.start_time[1] + start * self.tbin < 0),
                         None)
            if early is not None:
                raise ValueError(f"{self.path}: GUPPI card PKTIDX = {early.pktidx} in the header "
                                 f"at byte {early.header_offset} puts block {early.index} "
                                 "before the Unix epoch")
        # Discontinuities: a block that does not start where the previous ended.
        self.discontinuities = []
        for prev, block in zip(self.blocks, self.blocks[1:]):
            missing = self.block_start[block.index] - self.block_start[prev.index] - n_time
            if missing:
                self.discontinuities.append({
                    "block": block.index, "offset": block.header_offset,
                    "missing_samples": missing,
                    "pktidx": (prev.pktidx, block.pktidx)})
                self._log(f"{self.path}: PKTIDX {prev.pktidx} -> {block.pktidx} at block "
                          f"{block.index} (byte {block.header_offset}): "
                          + (f"{missing} samples missing" if missing > 0 else
                             f"{-missing} samples repeated or out of order"))

    # -- what the file holds --------------------------------------------------
    @property
    def header(self):
        """The first block's header (dict of card -> value)."""
        return self.blocks[0].header

    @property
    def n_antennas(self):
        return self.layout.n_antennas

    @property
    def n_channels(self):
        """Channels per antenna (OBSNCHAN / NANTS)."""
        return self.layout.n_channels

    @property
    def n_pols(self):
        return self.layout.n_pols

    @property
    def n_receivers(self):
        """Antennas x polarisations; receiver r = antenna * n_pols + pol."""
        return self.layout.n_antennas * self.layout.n_pols

    @property
    def n_bits(self):
        return self.layout.n_bits

    @property
    def n_time(self):
        """Time samples per block."""
        return self.layout.n_time

    @property
    def sample_rate(self):
        """Spectra per second, 1 / TBIN (Hz)."""
        return 1.0 / self.tbin

    @property
    def center_freq(self):
        """OBSFREQ in Hz (the header has MHz)."""
        return self.obsfreq_mhz * 1e6

    def channel_frequencies(self):
        """Sky frequency (Hz) of each channel of an antenna, in the file's order:
        OBSFREQ - OBSBW/2 + (i + 1/2) OBSBW/channels (descending when OBSBW < 0)."""
        width = self.obsbw_mhz / self.n_channels
        i = np.arange(self.n_channels)
        return (self.obsfreq_mhz - self.obsbw_mhz / 2 + (i + 0.5) * width) * 1e6

    def block_time(self, index):
        """rx_time of block `index`'s first sample: (whole s, fraction) since the
        Unix epoch."""
        whole, fraction = self.start_time
        return split_seconds(whole, fraction + self.block_start[index] * self.tbin)

    def sky_position(self):
        """(source name, RA degrees, Dec degrees) from SRC_NAME and RA_STR/DEC_STR
        (sexagesimal hours / degrees) or RA/DEC (degrees); None where absent."""
        h = self.header
        name = h.get("SRC_NAME")
        ra = dec = None
        try:
            if "RA_STR" in h and "DEC_STR" in h:
                ra, dec = _sexagesimal(str(h["RA_STR"]), 15.0), _sexagesimal(str(h["DEC_STR"]), 1.0)
            elif "RA" in h and "DEC" in h:
                ra, dec = float(h["RA"]), float(h["DEC"])
        except ValueError:
            raise ValueError(f"{self.path}: GUPPI cards RA_STR/DEC_STR or RA/DEC in the header "
                             f"at byte {self.blocks[0].header_offset} are not angles: "
                             f"{h.get('RA_STR', h.get('RA'))!r}, "
                             f"{h.get('DEC_STR', h.get('DEC'))!r}") from None
        return name, ra, dec

    def _raw(self, index):
        block, lay = self.blocks[index], self.layout
        dtype = np.dtype("<i1" if lay.n_bits == 8 else "<i2")
        raw = np.frombuffer(self._mm, dtype=dtype, count=lay.block_bytes // dtype.itemsize,
                            offset=block.data_offset)
        return raw.reshape(lay.n_antennas, lay.n_channels, lay.n_time, lay.n_pols, 2)

    def block_samples(self, index, start=0, stop=None):
        """Time samples [start, stop) of block `index` as complex64
        [time][channels][receivers] (receiver = antenna * n_pols + pol)."""
        part = self._raw(index)[:, :, start:stop]          # [ant][chan][t][pol][IQ]
        n = part.shape[2]
        out = np.empty((n, self.n_channels, self.n_antennas, self.n_pols, 2), np.float32)
        out[...] = part.transpose(2, 1, 0, 3, 4)
        return out.view(np.complex64).reshape(n, self.n_channels, self.n_receivers)

    def read(self):
        """Every block, concatenated: complex64 [time][channels][receivers]
        (gaps not filled; block_start gives each block's place)."""
        return np.concatenate([self.block_samples(i) for i in range(len(self.blocks))])

    def close(self):
        """Release the memory map (block_samples no longer works)."""
        self._mm = None


def write_guppi_raw(path, blocks, header, n_antennas=1, n_bits=8, directio=False,
                    pktidx=None, piperblk=None):
    """Write a GUPPI RAW file.

    blocks: a sequence of arrays [time][channels][receivers] (complex; every
    block the same shape), receivers = n_antennas x polarisations (1 or 2),
    receiver r = antenna * pols + pol. Values are rounded to integers of n_bits
    (8 or 16); a value outside the type's range is an error, not clipped.
    header: the other cards (OBSFREQ, OBSBW, TBIN, STT_IMJD, STT_SMJD, SRC_NAME,
    ...); BLOCSIZE, OBSNCHAN, NPOL, NBITS, NANTS (when > 1), DIRECTIO, PKTIDX
    and PIPERBLK are written by this function. pktidx: PKTIDX per block
    (default: block i at i * piperblk); piperblk: PKTIDX units per block
    (default: time samples per block, i.e. one sample per unit).
    directio: pad each header to a multiple of 512 bytes (then each block's
    data must be a multiple of 512 bytes too).
    """
    blocks = [np.asarray(b) for b in blocks]
    if not blocks:
        raise ValueError("blocks: at least one block is needed")
    shape = blocks[0].shape
    if len(shape) != 3 or any(b.shape != shape for b in blocks):
        raise ValueError(f"blocks: every block must be [time][channels][receivers] of one "
                         f"shape, got {[b.shape for b in blocks]}")
    n_time, n_channels, n_receivers = shape
    if n_antennas < 1 or n_receivers % n_antennas or n_receivers // n_antennas not in (1, 2):
        raise ValueError(f"n_antennas = {n_antennas}: receivers ({n_receivers}) must be "
                         "n_antennas x 1 or 2 polarisations")
    if n_bits not in SUPPORTED_NBITS:
        raise ValueError(f"n_bits = {n_bits}: accepted {SUPPORTED_NBITS}")
    n_pols = n_receivers // n_antennas
    dtype = np.dtype("<i1" if n_bits == 8 else "<i2")
    blocsize = n_time * n_channels * n_receivers * 2 * dtype.itemsize
    if directio and blocsize % DIRECTIO_ALIGN:
        raise ValueError(f"directio: the block's data ({blocsize} bytes) must be a multiple "
                         f"of {DIRECTIO_ALIGN} bytes")
    piperblk = n_time if piperblk is None else int(piperblk)
    if pktidx is None:
        pktidx = [i * piperblk for i in range(len(blocks))]
    if len(pktidx) != len(blocks):
        raise ValueError(f"pktidx: {len(pktidx)} values for {len(blocks)} blocks")
    fixed = {"BLOCSIZE": blocsize, "OBSNCHAN": n_antennas * n_channels,
             "NPOL": n_pols, "NBITS": n_bits, "DIRECTIO": int(bool(directio)),
             "PIPERBLK": piperblk}
    if n_antennas > 1:
        fixed["NANTS"] = n_antennas
    clash = sorted((set(fixed) | {"PKTIDX"}) & {str(k).upper() for k in header})
    if clash:
        raise ValueError(f"header: {clash} are written by write_guppi_raw from the blocks")
    info = np.iinfo(dtype)
    with open(os.fspath(path), "wb") as out:
        for k, block in enumerate(blocks):
            cards = {**header, **fixed, "PKTIDX": int(pktidx[k])}
            text = b"".join(format_guppi_card(key, value) for key, value in cards.items())
            text += _END_CARD
            if directio:
                text += b" " * (-len(text) % DIRECTIO_ALIGN)
            iq = np.stack([block.real, block.imag], axis=-1)  # [t][chan][rx][2]
            iq = np.rint(iq)
            if iq.size and (iq.min() < info.min or iq.max() > info.max):
                raise ValueError(f"blocks[{k}]: values from {iq.min()} to {iq.max()} do not "
                                 f"fit {n_bits}-bit integers ({info.min}..{info.max})")
            # [t][chan][ant][pol][2] -> [ant][chan][t][pol][2]
            iq = iq.reshape(n_time, n_channels, n_antennas, n_pols, 2).transpose(2, 1, 0, 3, 4)
            out.write(text)
            out.write(np.ascontiguousarray(iq, dtype=dtype).tobytes())
