# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""GNU Radio source of a GUPPI RAW file: one channelized spectrum per item.

Output item: complex64 [channels][receivers] (fc32, the item pfb_channelizer
produces and phase_shift / tensor_beamformer take), one per time sample (TBIN);
channel order is the file's (see GuppiRawFile.channel_frequencies), receiver
r = antenna * polarisations + polarisation.

Tags (output 0):
  * rx_time, rx_rate (1 / TBIN), rx_freq (OBSFREQ in Hz) on the first item, and
    again on the first item after a discontinuity that is not zero-filled;
  * guppi_header on the first item of every block: the block's header cards
    as a dict (SRC_NAME, RA_STR, DEC_STR, ... and BLOCK = the block's index);
  * guppi_gap where samples are missing (a PKTIDX jump): a dict with
    missing_samples, block (the block after the gap) and filled (whether
    zeros stand in for them).

Gaps of up to max_fill_blocks blocks are zero-filled (the default), so an item
count keeps time; longer gaps, PKTIDX steps backwards and zero_fill=False are
tagged and logged, not filled. Every gap is counted (`gaps`, `missing_samples`).
"""
import numpy as np
import pmt
from gnuradio import gr

from .guppi_raw import GuppiRawFile
from .stream_tags import add_time_rate_freq_tags, size_source_buffer

__all__ = ["guppi_raw_source"]


class guppi_raw_source(gr.sync_block):
    """guppi_raw_source(path, n_channels=0, n_receivers=0, zero_fill=True,
    max_fill_blocks=16, samples_per_pktidx=0.0, allow_truncated=False)

    Emits the file's samples as complex64 [channels][receivers] items, then
    ends the flowgraph. n_channels / n_receivers (0: take the file's) are
    checked against the file, so that a flowgraph built for one layout refuses
    another. samples_per_pktidx 0 means: from PIPERBLK or the PKTIDX steps.
    """

    def __init__(self, path, n_channels=0, n_receivers=0, zero_fill=True, max_fill_blocks=16,
                 samples_per_pktidx=0.0, allow_truncated=False):
        if max_fill_blocks < 0:
            raise ValueError(f"max_fill_blocks = {max_fill_blocks}: must be >= 0")
        if samples_per_pktidx < 0:
            raise ValueError(f"samples_per_pktidx = {samples_per_pktidx}: must be >= 0 "
                             "(0: from the file)")
        self._logger = gr.logger("guppi_raw_source")
        self.file = GuppiRawFile(path, samples_per_pktidx=samples_per_pktidx or None,
                                 allow_truncated=allow_truncated, log=self._logger.warn)
        f = self.file
        for name, given, actual in (("n_channels", n_channels, f.n_channels),
                                    ("n_receivers", n_receivers, f.n_receivers)):
            if given and given != actual:
                raise ValueError(f"{name} = {given}, but {f.path} holds {actual} "
                                 f"({f.n_antennas} antennas x {f.n_channels} channels x "
                                 f"{f.n_pols} polarisations)")
        gr.sync_block.__init__(self, name="guppi_raw_source", in_sig=None,
                               out_sig=[(np.complex64, f.n_channels * f.n_receivers)])
        size_source_buffer(self, 8 * f.n_channels * f.n_receivers)
        self._gaps = {d["block"]: d for d in f.discontinuities}
        self._segments = self._plan(zero_fill, max_fill_blocks)
        self._segment = 0
        self._done_in_segment = 0
        self.gaps = len(f.discontinuities)
        self.missing_samples = sum(max(d["missing_samples"], 0) for d in f.discontinuities)
        self.filled_samples = sum(s[2] for s in self._segments if s[0] == "zeros")
        self._logger.info(
            f"{f.path}: {len(f.blocks)} blocks of {f.n_time} samples, {f.n_antennas} antennas "
            f"x {f.n_channels} channels x {f.n_pols} polarisations, {f.n_bits}-bit; "
            f"{self.gaps} gaps ({self.missing_samples} samples missing, "
            f"{self.filled_samples} zero-filled)")

    def _plan(self, zero_fill, max_fill_blocks):
        """The output as segments: ("block", index, n) or ("zeros", block after, n)."""
        f = self.file
        gaps = {d["block"]: d["missing_samples"] for d in f.discontinuities}
        segments = []
        for block in f.blocks:
            missing = gaps.get(block.index, 0)
            if 0 < missing <= max_fill_blocks * f.n_time and zero_fill:
                segments.append(("zeros", block.index, missing))
            segments.append(("block", block.index, f.n_time))
        return segments

    def _tag_segment_start(self, offset, kind, index):
        f = self.file
        gap = self._gaps.get(index)
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
        header = dict(f.blocks[index].header, BLOCK=index)
        self.add_item_tag(0, offset, pmt.intern("guppi_header"), pmt.to_pmt(header), src)

    def work(self, input_items, output_items):
        out = output_items[0]
        written = self.nitems_written(0)
        produced = 0
        while produced < len(out) and self._segment < len(self._segments):
            kind, index, length = self._segments[self._segment]
            if self._done_in_segment == 0:
                self._tag_segment_start(written + produced, kind, index)
            take = min(length - self._done_in_segment, len(out) - produced)
            rows = out[produced:produced + take]
            if kind == "zeros":
                rows[:] = 0
            else:
                start = self._done_in_segment
                rows[:] = self.file.block_samples(index, start, start + take).reshape(take, -1)
            produced += take
            self._done_in_segment += take
            if self._done_in_segment == length:
                self._segment += 1
                self._done_in_segment = 0
        if produced == 0:
            return -1  # WORK_DONE
        return produced
