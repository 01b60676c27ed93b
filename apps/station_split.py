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
              -> vector_to_streams -> zeromq.push_sink x subbands  (binds base port + g)
    beams g: zeromq.pull_source (connects to base port + g) -> head
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
See docs/scaling.md.
"""
import importlib.util
import os
import sys
import time

from gnuradio import blocks, gr, zeromq
from gnuradio.beamform import cli

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("station_beamformer",
                                               os.path.join(_HERE, "station_beamformer.py"))
station_beamformer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(station_beamformer)

COMPLEX_BYTES = 8
FLOAT_BYTES = 4


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
        role = split_args.role
        self.tb = {"front": self._front, "beams": self._beams, "multi": self._multi}[role]()

    def _cut_into_subbands(self, tb, device):
        """front chain -> vector_to_streams: output g carries sub-band g."""
        front = self.station.front_chain(device)
        tb.connect(*front)
        if self.n_sub == 1:
            return [(front[-1], 0)]
        cut = blocks.vector_to_streams(self.subband_item, self.n_sub)
        tb.connect(front[-1], cut)
        return [(cut, g) for g in range(self.n_sub)]

    def _front(self):
        tb = gr.top_block("station_front")
        self.senders = []
        for g, port in enumerate(self._cut_into_subbands(tb, self.station.args.device)):
            sender = zeromq.push_sink(self.subband_item, 1, port_address(self.split.bind, g),
                                      self.split.timeout_ms, True, -1)  # PUSH binds
            tb.connect(port, sender)
            self.senders.append(sender)
        return tb

    def _beams(self):
        tb = gr.top_block("station_beams")
        g = self.split.subband
        channels = subband_channels(self.n_ch, self.n_sub, g)
        receiver = zeromq.pull_source(self.subband_item, 1,
                                      port_address(self.split.connect, g),
                                      self.split.timeout_ms, True, -1)  # PULL connects
        # The head passes exactly the spectra the front sends (see run()).
        self.head = blocks.head(self.subband_item, self.station.args.spectra)
        prefix = f"{self.station.args.prefix}_sb{g}"
        self.station.prepare_outputs(prefix)
        self.beamformer, self.sink = self.station.beam_chain(
            channels, self.station.args.device, self.station.out_dir, prefix)
        tb.connect(receiver, self.head, self.beamformer, self.sink)
        return tb

    def _multi(self):
        devices = self.split.devices.split(",")
        if len(devices) != self.n_sub:
            raise ValueError(f"--devices names {len(devices)} devices for {self.n_sub} "
                             f"sub-bands; give one per sub-band")
        tb = gr.top_block("station_multi_device")
        n_beams = self.station.n_beams
        power_block = FLOAT_BYTES * self.width  # one beam's powers over one sub-band
        # Recombine [beam][sub-band channels] items into [beam][all channels]:
        # every sub-band item becomes n_beams blocks of `width` powers, the
        # sub-bands are interleaved block by block, and n_beams * n_sub blocks
        # make one full item again.
        interleave = blocks.interleave(power_block, 1)
        self.beamformers = []
        for g, port in enumerate(self._cut_into_subbands(tb, devices[0])):
            beamformer = self.station.tied_array_beamformer(
                subband_channels(self.n_ch, self.n_sub, g), devices[g])
            per_beam = blocks.vector_to_stream(power_block, n_beams)
            tb.connect(port, beamformer, per_beam, (interleave, g))
            self.beamformers.append(beamformer)
        whole = blocks.stream_to_vector(power_block, n_beams * self.n_sub)
        self.station.prepare_outputs(self.station.args.prefix)
        self.sink = self.station.filterbank_sink(range(self.n_ch), self.station.out_dir,
                                                 self.station.args.prefix)
        tb.connect(interleave, whole, self.sink)
        return tb

    def run(self):
        t0 = time.perf_counter()
        if self.split.role == "beams":
            self._run_until_all_spectra_arrived()
        else:
            self.tb.run()
        if self.split.role == "front":
            # The last messages may still sit in the sockets' queues: keep the
            # sockets open (the blocks alive) until the receivers have them.
            time.sleep(self.split.linger)
        return time.perf_counter() - t0

    def _run_until_all_spectra_arrived(self):
        """A zeromq pull_source never ends its stream, and it keeps running after
        the head block behind it is done, so the top block would never finish:
        stop it once the filterbank sink has consumed every integrated spectrum."""
        expected = self.station.args.spectra // self.station.args.n_int
        self.tb.start()
        while self.sink.nitems_read(0) < expected and not self.sink.error():
            time.sleep(0.02)
        self.tb.stop()
        self.tb.wait()
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
    p.add_argument("--linger", type=cli.number(0), default=2.0,
                   help="front role: seconds to keep the sockets open after the last item")
    p.add_argument("--devices", default="cpu,emu:0",
                   help="multi role: one device string per sub-band, e.g. cuda:0,cuda:1")
    split_args, station_argv = cli.parse(p, argv, known=True)
    station_args = station_beamformer.parse_args(station_argv)
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
