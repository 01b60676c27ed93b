# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""delay_tracker: a stream tap that sends tracking solutions (tracking.DelayModel)
to phase_shift's `delays` port and tensor_beamformer's `pointing` port at fixed
item boundaries of the stream it watches (docs/tracking.md).

Its clock is the one phase_shift uses: item n of the tapped stream is
`n / sample_rate` seconds after item 0, and UNIX time `start_time + n /
sample_rate` (start_time from the parameter, or from an rx_time tag)."""
import math

import numpy as np
import pmt
from gnuradio import gr

from . import tracking

POINTING_MODES = ("offset_lm", "az_el")


def delays_message(delays, rates, t0):
    """The dict phase_shift's `delays` port takes: delays (s), rates (s/s), t0 (s on
    its clock: seconds since item 0)."""
    msg = pmt.make_dict()
    msg = pmt.dict_add(msg, pmt.intern("delays"), pmt.init_f64vector(len(delays), list(map(float, delays))))
    msg = pmt.dict_add(msg, pmt.intern("rates"), pmt.init_f64vector(len(rates), list(map(float, rates))))
    return pmt.dict_add(msg, pmt.intern("t0"), pmt.from_double(float(t0)))


def pointing_message(key, pairs):
    """The dict tensor_beamformer's `pointing` port takes: key 'az_el' or 'lm',
    value [beams][2] flattened."""
    flat = np.asarray(pairs, float).ravel().tolist()
    return pmt.dict_add(pmt.make_dict(), pmt.intern(key), pmt.init_f64vector(len(flat), flat))


class delay_tracker(gr.sync_block):
    """Tracking solutions for phase_shift (`delays` out) and tensor_beamformer
    (`pointing` out), every `interval_s` seconds of stream time.

    model: a tracking.DelayModel (site, positions, phase centre, beams).
    item_size: bytes per item of the tapped stream (connect the block beside
    phase_shift, to the same output that feeds it: n_channels * n_receivers * 8).
    sample_rate: items per second of that stream (= 1 / phase_shift's item_period).
    start_time: UNIX seconds of item 0; None (or < 0) waits for an rx_time tag.
    interval_s: seconds of stream time between solutions (> 0).
    pointing_tolerance_deg: beams are re-sent when one moved more than this (>= 0).
    pointing_mode: 'offset_lm' (beams relative to the phase centre that phase_shift
    points at, as `lm` offsets; needs a planar array) or 'az_el' (absolute beam
    directions, for a tensor_beamformer steering alone).
    planar_tolerance_m: how far a receiver's height may differ from the reference's
    in 'offset_lm' mode.
    """

    def __init__(self, model, item_size, sample_rate, start_time=None, interval_s=1.0,
                 pointing_tolerance_deg=0.01, pointing_mode="offset_lm", planar_tolerance_m=0.01):
        if not isinstance(model, tracking.DelayModel):
            raise ValueError(f"model must be a tracking.DelayModel, got {model!r}")
        if not (isinstance(item_size, (int, np.integer)) and 1 <= item_size <= (1 << 30)):
            raise ValueError(f"item_size must be an integer number of bytes in [1, 2^30], "
                             f"got {item_size!r}")
        self.sample_rate = tracking._finite_number("sample_rate", sample_rate, 0.0)
        self.interval_s = tracking._finite_number("interval_s", interval_s, 0.0)
        if self.sample_rate <= 0:
            raise ValueError(f"sample_rate must be > 0 items per second, got {sample_rate}")
        if self.interval_s <= 0:
            raise ValueError(f"interval_s must be > 0 seconds, got {interval_s}")
        self.tolerance = math.radians(tracking._finite_number(
            "pointing_tolerance_deg", pointing_tolerance_deg, 0.0, 180.0))
        if pointing_mode not in POINTING_MODES:
            raise ValueError(f"pointing_mode must be one of {POINTING_MODES}, got {pointing_mode!r}")
        if pointing_mode == "offset_lm" and model.beams:
            heights = np.abs(model.baselines[:, 2])
            worst = int(np.argmax(heights))
            if heights[worst] > planar_tolerance_m:
                raise ValueError(
                    f"pointing_mode 'offset_lm' needs a planar array (lm offsets from the phase "
                    f"centre are exact only then): receiver {worst} is {heights[worst]:.3f} m "
                    f"above/below the reference, more than planar_tolerance_m = "
                    f"{planar_tolerance_m} m; use pointing_mode 'az_el' or full weights")
        if start_time is not None:
            start_time = tracking._finite_number("start_time", start_time)
            if start_time < 0:
                start_time = None
        gr.sync_block.__init__(self, name="delay_tracker",
                               in_sig=[(np.uint8, int(item_size))], out_sig=None)
        self.message_port_register_out(pmt.intern("delays"))
        self.message_port_register_out(pmt.intern("pointing"))
        self.model = model
        self.pointing_mode = pointing_mode
        self.start_time = start_time
        self.interval_items = max(1, int(round(self.interval_s * self.sample_rate)))
        self.log = gr.logger("delay_tracker")
        self._next_boundary = 0
        self._last_pointing = None
        self._failing = False
        self._warned_rate = False
        self._waiting_logged = False
        self.last_solution = None
        self.last_t0 = None
        self.updates_sent = 0
        self.pointing_updates_sent = 0
        self.failures = 0

    # -- the schedule ---------------------------------------------------------------
    def stream_seconds(self, item):
        """phase_shift's clock: seconds since item 0."""
        return item / self.sample_rate

    def solution_time(self, boundary):
        """(t0 on phase_shift's clock, UNIX time) of the solution sent at `boundary`:
        the middle of the interval it covers, which halves the linearisation error."""
        t0 = self.stream_seconds(boundary + 0.5 * self.interval_items)
        return t0, self.start_time + t0

    def initial_delays(self):
        """{delays, rates, t0} of the first interval, for phase_shift's constructor
        (so that the items before the first message lands are tracked too)."""
        if self.start_time is None:
            raise ValueError("initial_delays needs start_time (the UNIX time of item 0)")
        t0, unix = self.solution_time(0)
        s = self.model.solution(unix)
        return {"delays": s.delays.tolist(), "rates": s.rates.tolist(), "t0": t0}

    def work(self, input_items, output_items):
        n = len(input_items[0])
        first = self.nitems_read(0)
        tags = [t for t in self.get_tags_in_window(0, 0, n)
                if pmt.symbol_to_string(t.key) in ("rx_time", "rx_rate")]
        for tag in sorted(tags, key=lambda t: t.offset):
            self._send_due(tag.offset)
            self._read_tag(tag)
        self._send_due(first + n)
        return n

    def _send_due(self, until):
        if self.start_time is None:
            if not self._waiting_logged and until > 0:
                self._waiting_logged = True
                self.log.warn("no start_time and no rx_time tag yet: no solution is sent "
                              "until an rx_time tag gives the stream's time")
            return
        while self._next_boundary < until:
            self._update(self._next_boundary)
            self._next_boundary += self.interval_items

    def _read_tag(self, tag):
        key = pmt.symbol_to_string(tag.key)
        if key == "rx_rate":
            rate = pmt.to_double(tag.value) if pmt.is_number(tag.value) else float("nan")
            if not math.isclose(rate, self.sample_rate, rel_tol=1e-9) and not self._warned_rate:
                self._warned_rate = True
                self.log.warn(f"rx_rate tag {rate} on item {tag.offset} differs from sample_rate "
                              f"{self.sample_rate}; the clock keeps sample_rate (phase_shift's "
                              f"item_period is fixed; a channelizer passes the raw rate on)")
            return
        value = tag.value
        try:
            seconds = pmt.to_uint64(pmt.tuple_ref(value, 0)) + pmt.to_double(pmt.tuple_ref(value, 1))
        except Exception:
            self.log.warn(f"rx_time tag on item {tag.offset} is not (uint64, double): "
                          f"{pmt.write_string(value)}; ignored")
            return
        start = seconds - self.stream_seconds(tag.offset)
        if self.start_time is not None and abs(start - self.start_time) < 1e-6:
            return
        if self.start_time is not None:
            self.log.info(f"rx_time on item {tag.offset}: the stream's time moves by "
                          f"{start - self.start_time:+.6f} s; new solution from that item")
        self.start_time = start
        self._next_boundary = tag.offset

    def _update(self, boundary):
        t0, unix = self.solution_time(boundary)
        try:
            s = self.model.solution(unix)
        except ValueError as e:
            self.failures += 1
            if not self._failing:
                self._failing = True
                kept = ("the last valid solution (t0 = %.3f s) stays in phase_shift and "
                        "tensor_beamformer" % self.last_t0 if self.last_solution is not None
                        else "no valid solution yet: phase_shift keeps its delays")
                self.log.warn(f"tracking update at item {boundary} failed: {e}; {kept} "
                              f"(logged once until tracking resumes)")
            return
        if self._failing:
            self._failing = False
            self.log.info(f"tracking resumed at item {boundary} after {self.failures} failed updates")
        self.last_solution, self.last_t0 = s, t0
        self.message_port_pub(pmt.intern("delays"), delays_message(s.delays, s.rates, t0))
        self.updates_sent += 1
        if self.model.beams:
            self._send_pointing(s)

    def _send_pointing(self, s):
        if self.pointing_mode == "az_el":
            vectors = tracking.direction_vector(s.beams_az_el)
            key, pairs = "az_el", s.beams_az_el
        else:
            vectors = s.beams_offset_lm
            key, pairs = "lm", s.beams_offset_lm
        if self._last_pointing is not None:
            moved = float(np.max(np.linalg.norm(vectors - self._last_pointing, axis=-1)))
            if moved <= self.tolerance:
                return
        self._last_pointing = vectors
        self.message_port_pub(pmt.intern("pointing"), pointing_message(key, pairs))
        self.pointing_updates_sent += 1
