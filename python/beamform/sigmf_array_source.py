# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""GNU Radio source of a multi-channel SigMF recording: one raw-sample item
[receivers] per time sample, in the file's own format (ci8 -> sc8: int8 I/Q
pairs, vlen 2 x receivers; ci16_le -> sc16: int16 pairs, vlen 2 x receivers;
cf32_le -> fc32: complex64, vlen receivers), the input of beamform.convert or
pfb_channelizer.

Tags (output 0): rx_rate (core:sample_rate) and rx_freq (core:frequency, Hz)
on the first item and rx_time (core:datetime) where the capture has one; then
the same at the first item of every later capture segment (core:sample_start)
that sets core:frequency or core:datetime; sigmf_annotation (the annotation
object as a dict) at each annotation's core:sample_start.
"""
import numpy as np
import pmt
from gnuradio import gr

from .sigmf_array import parse_datetime, read_sigmf_array
from .stream_tags import add_time_rate_freq_tags, size_source_buffer

__all__ = ["sigmf_array_source"]

_PORT_TYPES = {"sc8": np.int8, "sc16": np.int16, "fc32": np.complex64}


class sigmf_array_source(gr.sync_block):
    """sigmf_array_source(path, n_receivers=0, item_format="")

    path: <name>, <name>.sigmf-meta or <name>.sigmf-data. n_receivers and
    item_format ("sc8", "sc16", "fc32"; 0 / "" take the file's) are checked
    against the file. Emits every frame once, then ends the flowgraph.
    """

    def __init__(self, path, n_receivers=0, item_format=""):
        self._logger = gr.logger("sigmf_array_source")
        self.recording = rec = read_sigmf_array(path, log=self._logger.warn)
        if n_receivers and n_receivers != rec.n_receivers:
            raise ValueError(f"n_receivers = {n_receivers}, but {rec.meta_path} has "
                             f"core:num_channels {rec.n_receivers}")
        if item_format and item_format != rec.item_format:
            raise ValueError(f"item_format = {item_format!r}, but {rec.meta_path} has "
                             f"core:datatype {rec.datatype} ({rec.item_format})")
        vlen = rec.n_receivers * (1 if rec.item_format == "fc32" else 2)
        gr.sync_block.__init__(self, name="sigmf_array_source", in_sig=None,
                               out_sig=[(_PORT_TYPES[rec.item_format], vlen)])
        size_source_buffer(self, rec.item_bytes)
        self._raw = rec.raw()
        self._position = 0
        self._events = self._plan_tags()
        self._next_event = 0
        if any(kind == "capture" and payload[0] is not None and payload[0][0] < 0
               for _, kind, payload in self._events):
            raise ValueError(f"{rec.meta_path}: a core:datetime is before the Unix epoch "
                             "(rx_time holds unsigned seconds)")
        self._logger.info(f"{rec.data_path}: {rec.n_samples} samples of {rec.n_receivers} "
                          f"receivers, {rec.datatype}, {rec.sample_rate:g} Hz")

    def _plan_tags(self):
        """(sample, kind, payload) sorted by sample."""
        rec = self.recording
        events = []
        freq = rec.center_freq
        for k, capture in enumerate(rec.captures):
            start = int(capture.get("core:sample_start", 0))
            if k and "core:frequency" not in capture and "core:datetime" not in capture:
                continue
            freq = float(capture.get("core:frequency", freq))
            when = (parse_datetime(capture["core:datetime"], f"{rec.meta_path}: captures[{k}]")
                    if "core:datetime" in capture else None)
            events.append((start, "capture", (when, freq)))
        for annotation in rec.annotations:
            events.append((int(annotation.get("core:sample_start", 0)), "annotation",
                           annotation))
        return sorted(events, key=lambda e: e[0])

    def work(self, input_items, output_items):
        out = output_items[0]
        n = min(len(out), self.recording.n_samples - self._position)
        if n <= 0:
            return -1  # WORK_DONE
        first = self._position
        written = self.nitems_written(0)
        while (self._next_event < len(self._events)
               and self._events[self._next_event][0] < first + n):
            sample, kind, payload = self._events[self._next_event]
            self._next_event += 1
            offset = written + max(sample - first, 0)
            if kind == "capture":
                when, freq = payload
                add_time_rate_freq_tags(self, offset, when, self.recording.sample_rate, freq,
                                        tag_time=when is not None)
            else:
                try:
                    value = pmt.to_pmt(payload)
                except Exception:  # a value pmt cannot hold: keep it as JSON text
                    import json
                    value = pmt.intern(json.dumps(payload))
                self.add_item_tag(0, offset, pmt.intern("sigmf_annotation"), value,
                                  pmt.intern(self.alias()))
        part = self._raw[first:first + n]
        if self.recording.item_format == "fc32":
            out[:n] = np.asarray(part, np.float32).view(np.complex64)[..., 0]
        else:
            out[:n] = part.reshape(n, -1)
        self._position += n
        return n
