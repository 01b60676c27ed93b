# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""GNU Radio source of GUPPI RAW files: one channelized spectrum per item.

Output item: complex64 [channels][receivers] (fc32, the item pfb_channelizer
produces and phase_shift / tensor_beamformer take), one per time sample (TBIN);
channel order is the file's (see GuppiRawFile.channel_frequencies), receiver
r = antenna * polarisations + polarisation.

A recording split over several files (a scan's .0000.raw, .0001.raw, ...)
is read as one stream: give the files in order, or a glob pattern (sorted).
They must share the layout, TBIN and frequencies; each block is placed in time
by its own file's STT and PKTIDX, so a gap between files is found like a gap
inside one.

Tags (output 0):
  * rx_time, rx_rate (1 / TBIN), rx_freq (OBSFREQ in Hz) on the first item, and
    again on the first item after a discontinuity that is not zero-filled;
  * guppi_header on the first item of every block: the block's header cards
    as a dict (SRC_NAME, RA_STR, DEC_STR, ...), plus BLOCK (the block's index
    in its file) and FILE (the file's path);
  * guppi_gap where samples are missing (a PKTIDX jump): a dict with
    missing_samples, block (the block after the gap) and filled (whether
    zeros stand in for them).

Gaps of up to max_fill_blocks blocks are zero-filled (the default), so an item
count keeps time; longer gaps, blocks that start before the previous one ended
and zero_fill=False are tagged and logged, not filled. Every gap is counted
(`gaps`, `missing_samples`, `filled_samples`).
"""
import glob

import numpy as np
import pmt
from gnuradio import gr

from .guppi_raw import GuppiRawFile
from .stream_tags import add_time_rate_freq_tags, size_source_buffer

__all__ = ["guppi_raw_source", "guppi_paths"]

# What files read as one stream must share.
_SHARED = ("n_antennas", "n_channels", "n_pols", "n_bits", "n_time", "tbin", "obsfreq_mhz",
           "obsbw_mhz")


def guppi_paths(path):
    """The files of `path`: one path, a sequence of paths (in that order), or a
    glob pattern (sorted: GUPPI's .0000.raw, .0001.raw, ... numbering)."""
    if isinstance(path, (list, tuple)):
        paths = [str(p) for p in path]
    elif any(c in str(path) for c in "*?["):
        paths = sorted(glob.glob(str(path)))
        if not paths:
            raise ValueError(f"path = {str(path)!r}: the pattern matches no file")
    else:
        paths = [str(path)]
    if not paths:
        raise ValueError("path: no file given")
    return paths


class guppi_raw_source(gr.sync_block):
    """guppi_raw_source(path, n_channels=0, n_receivers=0, zero_fill=True,
    max_fill_blocks=16, samples_per_pktidx=0.0, allow_truncated=False)

    Emits the samples of the file (or files, see guppi_paths) as complex64
    [channels][receivers] items, then ends the flowgraph. n_channels /
    n_receivers (0: take the file's) are checked against the file, so that a
    flowgraph built for one layout refuses another. samples_per_pktidx 0
    means: from PIPERBLK or the PKTIDX steps. `file` is the first
    GuppiRawFile, `files` all of them.
    """

    def __init__(self, path, n_channels=0, n_receivers=0, zero_fill=True, max_fill_blocks=16,
                 samples_per_pktidx=0.0, allow_truncated=False):
        if max_fill_blocks < 0:
            raise ValueError(f"max_fill_blocks = {max_fill_blocks}: must be >= 0")
        if samples_per_pktidx < 0:
            raise ValueError(f"samples_per_pktidx = {samples_per_pktidx}: must be >= 0 "
                             "(0: from the file)")
        self._logger = gr.logger("guppi_raw_source")
        self.files = [GuppiRawFile(p, samples_per_pktidx=samples_per_pktidx or None,
                                   allow_truncated=allow_truncated, log=self._logger.warn)
                      for p in guppi_paths(path)]
        self.file = f = self.files[0]
        for other in self.files[1:]:
            for name in _SHARED:
                if getattr(other, name) != getattr(f, name):
                    raise ValueError(f"{other.path}: {name} = {getattr(other, name)} differs "
                                     f"from {getattr(f, name)} in {f.path}: files read as "
                                     "one stream share their layout and frequencies")
        for name, given, actual in (("n_channels", n_channels, f.n_channels),
                                    ("n_receivers", n_receivers, f.n_receivers)):
            if given and given != actual:
                raise ValueError(f"{name} = {given}, but {f.path} holds {actual} "
                                 f"({f.n_antennas} antennas x {f.n_channels} channels x "
                                 f"{f.n_pols} polarisations)")
        gr.sync_block.__init__(self, name="guppi_raw_source", in_sig=None,
                               out_sig=[(np.complex64, f.n_channels * f.n_receivers)])
        size_source_buffer(self, 8 * f.n_channels * f.n_receivers)
        self._segments = self._plan(zero_fill, max_fill_blocks)
        self._segment = 0
        self._done_in_segment = 0
        gaps = [s[4] for s in self._segments if s[0] == "block" and s[4]]
        self.gaps = len(gaps)
        self.missing_samples = sum(g["missing_samples"] for g in gaps
                                   if g["missing_samples"] > 0)
        self.filled_samples = sum(s[3] for s in self._segments if s[0] == "zeros")
        self._logger.info(
            f"{f.path}{f' and {len(self.files) - 1} more files' if len(self.files) > 1 else ''}"
            f": {sum(len(x.blocks) for x in self.files)} blocks of {f.n_time} samples, "
            f"{f.n_antennas} antennas x {f.n_channels} channels x {f.n_pols} polarisations, "
            f"{f.n_bits}-bit; {self.gaps} gaps ({self.missing_samples} samples missing, "
            f"{self.filled_samples} zero-filled)")

    def _sample_of(self, file, block):
        """Block `block` of `file`'s first sample, counted in TBIN from the
        first file's STT."""
        whole0, fraction0 = self.file.start_time
        whole, fraction = file.start_time
        offset = round(((whole - whole0) + (fraction - fraction0)) / self.file.tbin)
        return offset + file.block_start[block]

    def _plan(self, zero_fill, max_fill_blocks):
        """The output as segments: ("block", file, index, n, gap) and
        ("zeros", file, index, n, gap), gap being None or the dict that
        describes the samples missing before that block."""
        n_time = self.file.n_time
        segments = []
        previous_end = None
        for fi, f in enumerate(self.files):
            for block in f.blocks:
                start = self._sample_of(f, block.index)
                missing = 0 if previous_end is None else start - previous_end
                previous_end = start + n_time
                gap = None
                if missing:
                    gap = {"missing_samples": missing, "block": block.index, "file": f.path,
                           "offset": block.header_offset}
                    if block.index == 0:  # inside a file, GuppiRawFile has said it
                        self._logger.warn(
                            f"{f.path}: its first block starts {missing} samples "
                            + ("after the previous file ended" if missing > 0 else
                               "before the previous file ended (repeated or out of order)"))
                    if 0 < missing <= max_fill_blocks * n_time and zero_fill:
                        segments.append(("zeros", fi, block.index, missing, gap))
                segments.append(("block", fi, block.index, n_time, gap))
        return segments

    def _tag_segment_start(self, offset, segment):
        kind, fi, index, _, gap = segment
        f = self.files[fi]
        src = pmt.intern(self.alias())
        if kind == "zeros":
            self.add_item_tag(0, offset, pmt.intern("guppi_gap"), pmt.to_pmt(
                {"missing_samples": int(gap["missing_samples"]), "block": index,
                 "filled": True}), src)
            return
        filled = self._segment > 0 and self._segments[self._segment - 1][0] == "zeros"
        if offset == 0 or (gap is not None and not filled):
            if gap is not None:
                self.add_item_tag(0, offset, pmt.intern("guppi_gap"), pmt.to_pmt(
                    {"missing_samples": int(gap["missing_samples"]), "block": index,
                     "filled": False}), src)
            add_time_rate_freq_tags(self, offset, f.block_time(index), f.sample_rate,
                                    f.center_freq)
        header = dict(f.blocks[index].header, BLOCK=index, FILE=f.path)
        self.add_item_tag(0, offset, pmt.intern("guppi_header"), pmt.to_pmt(header), src)

    def work(self, input_items, output_items):
        out = output_items[0]
        written = self.nitems_written(0)
        produced = 0
        while produced < len(out) and self._segment < len(self._segments):
            segment = self._segments[self._segment]
            kind, fi, index, length, _ = segment
            if self._done_in_segment == 0:
                self._tag_segment_start(written + produced, segment)
            take = min(length - self._done_in_segment, len(out) - produced)
            rows = out[produced:produced + take]
            if kind == "zeros":
                rows[:] = 0
            else:
                start = self._done_in_segment
                rows[:] = self.files[fi].block_samples(index, start, start + take).reshape(
                    take, -1)
            produced += take
            self._done_in_segment += take
            if self._done_in_segment == length:
                self._segment += 1
                self._done_in_segment = 0
        if produced == 0:
            return -1  # WORK_DONE
        return produced
