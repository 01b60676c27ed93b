#!/usr/bin/env python3
# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""The station beamformer split by sub-bands: over hosts (gr-zeromq) or over GPUs.

The channelizer needs every channel of a receiver, the beamformer only one
channel at a time, so the station splits after phase_shift: a contiguous range
of channels is a contiguous byte range of each spectrum item
([channel][receiver] complex), and blocks.vector_to_streams cuts every item
into `--subbands` equal sub-band items without copying anything but bytes.

Several hosts (roles front and beams, GNU Radio's gr-zeromq PUSH/PULL, tags
passed so rx_time reaches the filterbank header):

    front:  array_source -> head -> convert -> pfb_channelizer -> phase_shift
              -> spectrum index tagger -> vector_to_streams
              -> zeromq.push_sink x subbands  (binds base port + g)
    beams g: zeromq.pull_source (connects to base port + g) -> gap check
              -> tensor_beamformer (power) -> filterbank_sink  (files <prefix>_sb<g>_beamNNNN.fil)

    /usr/bin/python3 apps/station_split.py --role front --bind tcp://0.0.0.0:5600 --subbands 2
    /usr/bin/python3 apps/station_split.py --role beams --connect tcp://front-host:5600 --subband 0 --subbands 2
    /usr/bin/python3 apps/station_split.py --role beams --connect tcp://front-host:5600 --subband 1 --subbands 2

Several GPUs in one flowgraph (role multi): the same cut, one tensor_beamformer
per sub-band, each on its own device, and the beam powers recombined on the
host into the single flowgraph's [beam][channel] items, so one filterbank_sink
writes the same files as apps/station_beamformer.py:

    /usr/bin/python3 apps/station_split.py --role multi --devices cuda:0,cuda:1

Every station option of apps/station_beamformer.py (--receivers, --channels,
--spectra, --source, ...) is accepted and must be the same for every role.
Faults (a beams role killed, restarted or too slow): the front tags every
n_int-th spectrum with its index ("spectrum" tag) and sends whole n_int blocks
of spectra per message; a PUSH socket whose high-water mark
(--hwm messages) is full blocks the front (back-pressure, bounded memory) and
the front logs the stall; messages lost with a killed peer's connection are
counted by the beams role from the indices and logged with their rx_time range
("dropped N spectra ..."), and a restarted beams role starts its files at the
first whole integration it receives, with that spectrum's rx_time.
See docs/scaling.md.
"""
import importlib.util
import math
import os
import sys
import threading
import time

import numpy as np
import pmt
from gnuradio import blocks, gr, zeromq
from gnuradio.beamform import cli

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("station_beamformer",
                                               os.path.join(_HERE, "station_beamformer.py"))
station_beamformer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(station_beamformer)

COMPLEX_BYTES = 8
FLOAT_BYTES = 4
SPECTRUM_KEY = pmt.intern("spectrum")  # the front's index of a spectrum (uint64)
RX_TIME_KEY = pmt.intern("rx_time")


def spectra_of(vlen):
    """A Python block's signature for items of `vlen` complex values."""
    return [(np.complex64, vlen) if vlen > 1 else np.complex64]


def log(text):
    print(f"station_split: {text}", file=sys.stderr, flush=True)


def message_block(n_int, item_bytes, limit=16 << 20):
    """Spectra per index tag, and the multiple every zeromq message holds: the
    largest divisor of n_int whose spectra fit in `limit` bytes (at least 1).
    Messages then start at tagged spectra, so every lost message is counted
    exactly, and with the whole n_int a gap never splits an integration."""
    return max(d for d in range(1, n_int + 1)
               if n_int % d == 0 and (d == 1 or d * item_bytes <= limit))


class SpectrumIndexTagger(gr.sync_block):
    """front role: tags every `block`-th item of a stream of bytes, one byte per
    spectrum, with the spectrum's index; blocks.tag_share puts these tags on the
    spectra (the spectra themselves never pass through Python). A beams role
    counts what the link lost from them and knows the time of what it gets."""

    def __init__(self, block):
        gr.sync_block.__init__(self, "spectrum_index_tagger", in_sig=[np.uint8],
                               out_sig=[np.uint8])
        self.block = block

    def work(self, input_items, output_items):
        n = len(output_items[0])
        first = self.nitems_written(0)
        for k in range(-(-first // self.block) * self.block, first + n, self.block):
            self.add_item_tag(0, k, SPECTRUM_KEY, pmt.from_uint64(k))
        return n


class SpectrumGapCheck(gr.basic_block):
    """beams role, in place of a head block: passes the whole integrations of
    spectra 0 .. n_spectra-1 as they arrive, counts and logs the spectra that
    did not arrive (from the front's "spectrum" index tags; an untagged spectrum
    follows the one before it) with their rx_time range, and puts an rx_time
    tag on its first output item. A role that joins a running front (restarted)
    starts at the first whole integration (index multiple of n_int)."""

    def __init__(self, vlen, n_spectra, n_int, start_time, period):
        gr.basic_block.__init__(self, "spectrum_gap_check", in_sig=spectra_of(vlen),
                                out_sig=spectra_of(vlen))
        self.set_tag_propagation_policy(gr.TPP_DONT)
        self.end = n_spectra // n_int * n_int  # spectra of whole integrations
        self.n_int = n_int
        self.start_whole = math.floor(start_time)
        self.start_frac = start_time - self.start_whole
        self.period = period
        self.next_index = None  # the index expected next; None before the first
        self.passed = 0  # spectra passed on
        self.dropped = 0  # spectra counted missing after the first one passed
        self.done = False  # every spectrum up to `end` has been passed

    def rx_time(self, index):
        """(whole seconds, fraction) of spectrum `index`, as the front's tags hold it."""
        frac = self.start_frac + index * self.period
        carry = math.floor(frac)
        return self.start_whole + carry, frac - carry

    def seconds(self, index):
        whole, frac = self.rx_time(index)
        return f"{whole + frac:.6f}"

    def general_work(self, input_items, output_items):
        inp, out = input_items[0], output_items[0]
        n = min(len(inp), len(out))
        first = self.nitems_read(0)
        tags = sorted((t.offset - first, pmt.to_uint64(t.value))
                      for t in self.get_tags_in_range(0, first, first + n, SPECTRUM_KEY))
        # Runs of consecutive spectra: (input position, end position, index or None).
        starts = [(0, None)] + tags
        runs = [(p, q, k) for (p, k), (q, _) in zip(starts, starts[1:] + [(n, None)]) if q > p]
        produced = 0
        for p, q, k in runs:
            if self.done:
                break
            k = self.next_index if k is None else k
            if k is None:
                continue  # before the first index tag: which spectra are these?
            if self.next_index is None:  # the first spectrum this role sees
                skip = -k % self.n_int  # to the start of an integration
                if skip >= q - p:
                    continue
                p, k = p + skip, k + skip
                if k:
                    log(f"joined the stream at spectrum {k} (rx_time {self.seconds(k)} s): "
                        f"spectra 0..{k - 1} (rx_time {self.seconds(0)} to "
                        f"{self.seconds(k - 1)} s) not received by this run")
                whole, frac = self.rx_time(k)
                self.add_item_tag(0, self.nitems_written(0), RX_TIME_KEY,
                                  pmt.make_tuple(pmt.from_uint64(whole), pmt.from_double(frac)))
            elif k > self.next_index:
                missing = k - self.next_index
                self.dropped += missing
                log(f"dropped {missing} spectra ({self.next_index}..{k - 1}, rx_time "
                    f"{self.seconds(self.next_index)} to {self.seconds(k - 1)} s); "
                    f"{self.dropped} in all; the files' time axis has a gap after "
                    f"spectrum {self.passed + produced} of this run")
            elif k < self.next_index:
                log(f"spectrum {k} arrived after {self.next_index - 1}: the front restarted?")
            m = max(0, min(q - p, self.end - k))  # nothing beyond the last integration
            out[produced:produced + m] = inp[p:p + m]
            produced += m
            self.next_index = k + m
            self.done = self.next_index >= self.end
        self.passed += produced
        self.consume(0, n)
        return produced


def port_address(base, offset):
    """tcp://host:port + offset -> tcp://host:(port + offset)."""
    head, _, port = base.rpartition(":")
    if not head.startswith("tcp://") or not port.isdigit():
        raise ValueError(f"address must be tcp://host:port, got {base!r}")
    return f"{head}:{int(port) + offset}"


def subband_channels(n_channels, n_subbands, subband):
    if n_subbands < 1 or n_channels % n_subbands:
        raise ValueError(f"--subbands ({n_subbands}) must divide the channel count "
                         f"({n_channels})")
    if not 0 <= subband < n_subbands:
        raise ValueError(f"--subband must be in [0, {n_subbands - 1}], got {subband}")
    width = n_channels // n_subbands
    return range(subband * width, (subband + 1) * width)


class Split:
    """The flowgraph of one role, built on apps/station_beamformer.py's Station."""

    def __init__(self, split_args, station_args):
        self.split = split_args
        station_args.gui = False
        self.station = station_beamformer.Station(station_args, build=False)
        self.n_rx, self.n_ch = self.station.n_rx, self.station.n_ch
        self.n_sub = split_args.subbands
        subband_channels(self.n_ch, self.n_sub, 0)  # validates --subbands
        self.width = self.n_ch // self.n_sub
        self.subband_item = COMPLEX_BYTES * self.n_rx * self.width
        self.block = message_block(self.station.args.n_int, self.subband_item)
        role = split_args.role
        self.tb = {"front": self._front, "beams": self._beams, "multi": self._multi}[role]()

    def _cut_into_subbands(self, tb, device, tag_index=False):
        """front chain -> vector_to_streams: output g carries sub-band g."""
        front = self.station.front_chain(device)
        if tag_index:  # every sub-band's spectra carry the index tags
            # (kept in self: a Python block must outlive the flowgraph's run)
            self.tagger = SpectrumIndexTagger(self.block)
            share = blocks.tag_share(COMPLEX_BYTES * self.n_ch * self.n_rx, 1)
            tb.connect(blocks.null_source(1), self.tagger, (share, 1))
            front.append(share)
        tb.connect(*front)
        if self.n_sub == 1:
            return [(front[-1], 0)]
        cut = blocks.vector_to_streams(self.subband_item, self.n_sub)
        tb.connect(front[-1], cut)
        return [(cut, g) for g in range(self.n_sub)]

    def _front(self):
        tb = gr.top_block("station_front")
        self.senders = []
        for g, port in enumerate(self._cut_into_subbands(tb, self.station.args.device,
                                                         tag_index=True)):
            sender = zeromq.push_sink(self.subband_item, 1, port_address(self.split.bind, g),
                                      self.split.timeout_ms, True,
                                      self.split.hwm)  # PUSH binds
            sender.set_output_multiple(self.block)  # messages start at tagged spectra
            tb.connect(port, sender)
            self.senders.append(sender)
        return tb

    def _beams(self):
        tb = gr.top_block("station_beams")
        g = self.split.subband
        channels = subband_channels(self.n_ch, self.n_sub, g)
        receiver = zeromq.pull_source(self.subband_item, 1,
                                      port_address(self.split.connect, g),
                                      self.split.timeout_ms, True,
                                      self.split.hwm)  # PULL connects
        receiver.set_min_output_buffer(max(2 * self.block, (1 << 20) // self.subband_item))
        # In place of a head block: passes the spectra the front sends (see
        # run()) and counts the ones that did not arrive.
        a = self.station.args
        self.check = SpectrumGapCheck(self.subband_item // COMPLEX_BYTES, a.spectra, a.n_int,
                                     (a.tstart_mjd - station_beamformer.UNIX_EPOCH_MJD)
                                     * 86400.0, self.n_ch / a.sample_rate)
        prefix = f"{self.station.args.prefix}_sb{g}"
        self.station.prepare_outputs(prefix)
        self.beamformer, self.sink = self.station.beam_chain(
            channels, self.station.args.device, self.station.out_dir, prefix)
        tb.connect(receiver, self.check, self.beamformer,
                   *self.station.stokes_convention(channels), self.sink)
        return tb

    def _multi(self):
        devices = self.split.devices.split(",")
        if len(devices) != self.n_sub:
            raise ValueError(f"--devices names {len(devices)} devices for {self.n_sub} "
                             f"sub-bands; give one per sub-band")
        tb = gr.top_block("station_multi_device")
        rows = self.station.n_stokes * self.station.n_beams  # (Stokes, beam) rows
        power_block = FLOAT_BYTES * self.width  # one beam's powers over one sub-band
        # Recombine [stokes][beam][sub-band channels] items into
        # [stokes][beam][all channels]: every sub-band item becomes
        # n_stokes * n_beams blocks of `width` powers, the sub-bands are
        # interleaved block by block, and n_stokes * n_beams * n_sub blocks make
        # one full item again.
        interleave = blocks.interleave(power_block, 1)
        self.beamformers = []
        for g, port in enumerate(self._cut_into_subbands(tb, devices[0])):
            beamformer = self.station.tied_array_beamformer(
                subband_channels(self.n_ch, self.n_sub, g), devices[g])
            per_beam = blocks.vector_to_stream(power_block, rows)
            tb.connect(port, beamformer, per_beam, (interleave, g))
            self.beamformers.append(beamformer)
        whole = blocks.stream_to_vector(power_block, rows * self.n_sub)
        self.station.prepare_outputs(self.station.args.prefix)
        self.sink = self.station.filterbank_sink(range(self.n_ch), self.station.out_dir,
                                                 self.station.args.prefix)
        tb.connect(interleave, whole, *self.station.stokes_convention(range(self.n_ch)),
                   self.sink)
        return tb

    def run(self):
        t0 = time.perf_counter()
        if self.split.role == "beams":
            self._run_until_all_spectra_arrived()
        elif self.split.role == "front":
            self._run_front()
        else:
            self.tb.run()
        if self.split.role == "front":
            # The last messages may still sit in the sockets' queues: keep the
            # sockets open (the blocks alive) until the receivers have them.
            time.sleep(self.split.linger)
        return time.perf_counter() - t0

    def _run_front(self):
        """tb.run(), saying when a sub-band's sender has sent nothing for
        --stall-log seconds: its beams role is gone or slow, the high-water mark
        is full and the front waits (back-pressure: nothing is dropped here)."""
        self.tb.start()
        waiter = threading.Thread(target=self.tb.wait, daemon=True)
        waiter.start()
        sent = [0] * len(self.senders)
        since = [time.monotonic()] * len(self.senders)
        reported = [0] * len(self.senders)  # stall messages since the last progress
        hwm = "ZeroMQ's default" if self.split.hwm < 0 else self.split.hwm
        while waiter.is_alive():
            waiter.join(0.1)
            now = time.monotonic()
            for g, sender in enumerate(self.senders):
                n = sender.nitems_read(0)
                if n != sent[g]:
                    if reported[g]:
                        log(f"sub-band {g}: sending again after {now - since[g]:.1f} s, "
                            f"from spectrum {sent[g]}")
                    sent[g], since[g], reported[g] = n, now, 0
                elif now - since[g] >= self.split.stall_log * (reported[g] + 1):
                    reported[g] += 1
                    log(f"sub-band {g}: nothing sent for {now - since[g]:.0f} s after "
                        f"spectrum {n} (beams role gone or slow: waiting; high-water mark "
                        f"{hwm} messages)")

    def _run_until_all_spectra_arrived(self):
        """A zeromq pull_source never ends its stream, and it keeps running after
        the block behind it is done, so the top block would never finish: stop
        it once the filterbank sink has consumed every integrated spectrum."""
        n_int = self.station.args.n_int
        self.tb.start()
        while not (self.check.done and self.sink.nitems_read(0) >= self.check.passed // n_int) \
                and not self.sink.error():
            time.sleep(0.02)
        self.tb.stop()
        self.tb.wait()
        if self.check.dropped:
            log(f"sub-band {self.split.subband}: {self.check.dropped} spectra dropped in all")
        if self.sink.error():  # a write error ended the sink early
            raise RuntimeError(f"filterbank files incomplete: {self.sink.error()}")

def parse_args(argv=None):
    p = cli.parser(__doc__ + "\nThe station's own options (apps/station_beamformer.py --help) "
                   "follow these.")
    p.add_argument("--role", choices=("front", "beams", "multi"), required=True,
                   help="front: source to sub-bands over zeromq; beams: one sub-band's beams; "
                   "multi: every sub-band in one flowgraph, one device each")
    p.add_argument("--subbands", type=cli.integer(1), default=2,
                   help="sub-bands (hosts or devices)")
    p.add_argument("--subband", type=cli.integer(0), default=0,
                   help="beams role: which sub-band")
    p.add_argument("--bind", default="tcp://127.0.0.1:5600",
                   help="front role: base address; sub-band g is sent on port + g")
    p.add_argument("--connect", default="tcp://127.0.0.1:5600",
                   help="beams role: the front's base address")
    p.add_argument("--timeout-ms", type=cli.integer(1), default=100, help="zeromq poll timeout")
    p.add_argument("--hwm", type=cli.integer(-1, 2**31 - 1), default=-1,
                   help="zeromq high-water mark in messages (one message: one work call's "
                   "items) on each side; -1: ZeroMQ's default (1000), 0: unbounded")
    p.add_argument("--stall-log", type=cli.number(0, low_open=True), default=5.0,
                   help="front role: log a sub-band that sent nothing for this many seconds")
    p.add_argument("--linger", type=cli.number(0), default=2.0,
                   help="front role: seconds to keep the sockets open after the last item")
    p.add_argument("--devices", default="cpu,emu:0",
                   help="multi role: one device string per sub-band, e.g. cuda:0,cuda:1")
    split_args, station_argv = cli.parse(p, argv, known=True)
    station_args = station_beamformer.parse_args(station_argv)
    # Side branches of the station's flowgraph that the split does not carry yet.
    for option, value in (("--track", station_args.track), ("--incoherent",
                                                            station_args.incoherent)):
        if value:
            p.error(f"argument {option}: not in the split station yet (use "
                    "apps/station_beamformer.py)")
    try:
        subband_channels(station_args.channels, split_args.subbands,
                         split_args.subband if split_args.role == "beams" else 0)
    except ValueError as e:
        p.error(f"argument {str(e).split()[0]}: {e}")
    if split_args.role == "multi":
        devices = split_args.devices.split(",")
        if len(devices) != split_args.subbands:
            p.error(f"argument --devices: must name one device per sub-band "
                    f"(--subbands {split_args.subbands}), got {len(devices)}")
        for d in devices:
            try:
                cli.device(d)
            except Exception as e:
                p.error(f"argument --devices: {e}")
    return split_args, station_args


def main(argv=None):
    split_args, station_args = parse_args(argv)
    split = Split(split_args, station_args)
    print(f"station_split role {split_args.role}: {split.n_rx} receivers, {split.n_ch} channels "
          f"in {split.n_sub} sub-bands of {split.width}, {station_args.spectra} spectra",
          flush=True)
    seconds = split.run()
    where = "" if split_args.role == "front" else f"; filterbank files in {split.station.out_dir}"
    print(f"done in {seconds:.2f} s{where}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
