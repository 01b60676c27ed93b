#!/usr/bin/env python3
# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Station beamformer: raw array voltages -> tied-array beams -> filterbank files.

    array voltages (sc16)  ->  convert  ->  pfb_channelizer  ->  phase_shift
      ->  tensor_beamformer (power, integrated)  ->  filterbank_sink (one file per beam)

The input is the module's simulated array (sky sources at given directions and
frequencies plus receiver noise, as int16 voltages) or a file of raw sc16
samples. phase_shift points the station at the field centre; the beamformer
forms a grid of beams around it. At the end the script reads the filterbank
files back and says where the brightest source is.

    /usr/bin/python3 apps/station_beamformer.py                  # small demo, any machine
    /usr/bin/python3 apps/station_beamformer.py --size reference  # 96 receivers, 256 channels, 1024 beams

The filterbank files go to --out (default: ./station_beams), named
<prefix>_beamNNNN.fil; a run first removes the files of an earlier run with the
same prefix there, saying so.
"""
import collections
import math
import os
import re
import sys
import threading
import time

import numpy as np
from gnuradio import beamform, blocks, gr
from gnuradio.beamform import cli, steering_helpers

C = beamform.speed_of_light
UNIX_EPOCH_MJD = 40587.0

SIZES = {
    # Finishes in well under two minutes on two CPU cores.
    "demo": dict(receivers=48, channels=128, beams_per_side=12, spectra=16384, n_int=16),
    # The reference station of the issue, for a GPU.
    "reference": dict(receivers=96, channels=256, beams_per_side=32, spectra=16384, n_int=16),
}


def grid_positions(n, spacing):
    """n receivers on a square grid (row by row, centred), `spacing` metres apart."""
    side = math.ceil(math.sqrt(n))
    idx = np.arange(n)
    east = (idx % side - (side - 1) / 2) * spacing
    north = (idx // side - (side - 1) / 2) * spacing
    return np.stack([east, north, np.zeros(n)], axis=1)


def lm_to_az_el(l, m):
    """Direction cosines (east, north) to azimuth/elevation in degrees."""
    return math.degrees(math.atan2(l, m)) % 360, math.degrees(math.acos(min(1.0, math.hypot(l, m))))


def beam_grid(per_side, centre, half_width):
    """per_side x per_side beams in (l, m) around `centre`, +-half_width."""
    offsets = np.linspace(-half_width, half_width, per_side)
    return np.array([(centre[0] + dl, centre[1] + dm) for dm in offsets for dl in offsets])


class Station:
    """The station flowgraph and everything needed to interpret its output."""

    def __init__(self, args, build=True):
        """build=False: only the geometry, weights and block factories (front_chain,
        beam_chain), for flowgraphs that split the station (apps/station_split.py)."""
        self.args = args
        self.n_rx = args.receivers
        self.n_ch = args.channels
        self.positions = grid_positions(self.n_rx, args.spacing)
        self.channel_spacing = args.sample_rate / self.n_ch
        self.frequencies = steering_helpers.channel_frequencies(
            args.center_freq, self.n_ch, sample_rate=args.sample_rate)
        self.centre_lm = (args.field_l, args.field_m)
        self.beams_lm = beam_grid(args.beams_per_side, self.centre_lm, args.field_half_width)
        self.n_beams = len(self.beams_lm)
        self.sources = [dict(zip(("l", "m", "channel", "amplitude"), s)) for s in args.source]
        self.out_dir = args.out
        self.tb = self._build() if build else None

    def _weights(self):
        """Beams relative to the phase centre that phase_shift already points at:
        w(beam) * conj(w(centre)), per channel and receiver."""
        w_beams = steering_helpers.weights_for(self.positions, self.frequencies, lm=self.beams_lm)
        w_centre = steering_helpers.weights_for(self.positions, self.frequencies,
                                                lm=[self.centre_lm])
        return (w_beams * np.conj(w_centre)).astype(np.complex64)

    def _source_block(self):
        a = self.args
        if a.input:  # its size was checked against the receivers by parse_args
            return blocks.file_source(4 * self.n_rx, a.input, False)
        az, el, offsets, amps = [], [], [], []
        for s in self.sources:
            source_az, source_el = lm_to_az_el(s["l"], s["m"])
            az.append(source_az)
            el.append(source_el)
            # Centre of the requested channel (channels above n/2 are negative offsets).
            k = int(s["channel"])
            offsets.append((k if k < self.n_ch // 2 else k - self.n_ch) * self.channel_spacing)
            amps.append(s["amplitude"])
        return beamform.array_source(
            self.positions, a.sample_rate, a.center_freq, az, el, offsets, amps, [],
            a.noise, beamform.sc16, a.adc_scale, a.seed, 0, C,
            (a.tstart_mjd - UNIX_EPOCH_MJD) * 86400.0)  # its rx_time tag sets tstart

    def _build(self):
        tb = gr.top_block("station_beamformer")
        front = self.front_chain(self.args.device)
        self.prepare_outputs(self.args.prefix)
        self.beamformer, self.sink = self.beam_chain(range(self.n_ch), self.args.device,
                                                     self.out_dir, self.args.prefix)
        tb.connect(*front, self.beamformer, self.sink)
        if self.args.gui:
            self._add_gui(tb)
        return tb

    def prepare_outputs(self, prefix):
        """Create the output folder and remove an earlier run's <prefix>_beamNNNN.fil
        files there (saying how many), so that a new run's files do not mix with them."""
        os.makedirs(self.out_dir, exist_ok=True)
        cli.clean_outputs(self.out_dir, re.escape(prefix) + r"_beam\d{4}\.fil",
                          log=lambda text: print(text, file=sys.stderr))

    def front_chain(self, device):
        """source -> head -> convert -> pfb_channelizer -> phase_shift, not yet connected.
        Its output items are spectra [channel][receiver] complex, pointed at the field centre."""
        a = self.args
        n_in = a.spectra * self.n_ch  # raw samples per receiver
        src = self._source_block()
        self.head = blocks.head(4 * self.n_rx, n_in)
        self.convert = beamform.convert(beamform.sc16, self.n_rx, [1.0 / a.adc_scale], device)
        self.pfb = beamform.pfb_channelizer(self.n_ch, [], a.taps, beamform.fc32, self.n_rx, 1,
                                            False, a.center_freq, a.sample_rate, device)
        # Point the station at the field centre: delays are the geometric delays.
        centre_az, centre_el = lm_to_az_el(*self.centre_lm)
        delays = beamform.geometric_delays(self.positions, centre_az, centre_el)
        self.phase = beamform.phase_shift(self.n_ch, self.n_rx, list(self.frequencies),
                                          self.n_ch / a.sample_rate, list(delays), [], [], 0.0,
                                          device)
        return [src, self.head, self.convert, self.pfb, self.phase]

    def beam_chain(self, channels, device, out_dir, prefix):
        """tensor_beamformer (power) -> filterbank_sink for a contiguous range of
        channel indices: its input items are spectra [len(channels)][receiver]."""
        return self.tied_array_beamformer(channels, device), \
            self.filterbank_sink(channels, out_dir, prefix)

    def tied_array_beamformer(self, channels, device):
        """Beam powers [beam][channel] of the given channels, integrated over n_int."""
        channels = list(channels)
        weights = self._weights()[channels]  # [channel][beam][receiver]
        return beamform.tensor_beamformer(
            len(channels), self.n_rx, self.n_beams, weights.ravel().tolist(),
            beamform.beam_precision.float16, beamform.beam_output.power, self.args.n_int,
            beamform.polarization_layout.single, beamform.stokes_mode.I, device)

    def filterbank_sink(self, channels, out_dir, prefix):
        """One SIGPROC file per beam (<prefix>_beamNNNN.fil) over the given channels."""
        a = self.args
        frequencies = [float(self.frequencies[c]) for c in channels]
        beam_az_el = [v for l, m in self.beams_lm for v in lm_to_az_el(l, m)]
        return beamform.filterbank_sink(
            out_dir, prefix, self.n_beams, len(frequencies), 1, frequencies,
            a.n_int * self.n_ch / a.sample_rate, "simulated sky", beam_az_el, a.tstart_mjd)

    def _add_gui(self, tb):
        """Live views of the beamformer's output in a QT window that run() shows,
        drawn with matplotlib like the PNGs at the end: the beam map (each beam's
        brightest channel, mean power in dB, on the beam grid in direction
        cosines l, m: no azimuth wrap) and the dynamic spectrum (dB, ascending
        frequency) of one beam, gui_beam: the beam nearest the strongest injected
        source, else the field centre."""
        from PyQt5 import Qt
        from matplotlib.backends.backend_qt5agg import FigureCanvasQTAgg
        from matplotlib.figure import Figure

        if self.sources and not self.args.input:
            strongest = max(self.sources, key=lambda x: x["amplitude"])
            self.gui_beam = nearest_beam(self.beams_lm, strongest["l"], strongest["m"])
        else:
            self.gui_beam = nearest_beam(self.beams_lm, *self.centre_lm)
        item = 4 * self.n_beams * self.n_ch
        self.gui_copy = cli.size_host_buffers(blocks.copy(item), item)
        self.collector = beam_collector(self.n_beams, self.n_ch, self.gui_beam, keep=256)
        tb.connect(self.beamformer, self.gui_copy, self.collector)

        self.window = Qt.QWidget()
        self.window.setWindowTitle("Station beamformer")
        self.figure = Figure(figsize=(11, 4.5), layout="constrained")
        self.canvas = FigureCanvasQTAgg(self.figure)
        Qt.QVBoxLayout(self.window).addWidget(self.canvas)
        self.map_axes, self.spectrum_axes = self.figure.subplots(1, 2)

    def draw_views(self):
        """Redraw the QT window's two views from what the collector holds."""
        beam_power, history = self.collector.snapshot()
        if beam_power is None:
            return
        side = self.args.beams_per_side
        half_step = self.args.field_half_width / max(side - 1, 1)
        l, m = self.beams_lm[:, 0], self.beams_lm[:, 1]
        self.map_axes.clear()
        self.map_axes.imshow(10 * np.log10(np.maximum(beam_power.max(axis=1), 1e-30))
                             .reshape(side, side), origin="lower", cmap="viridis",
                             extent=(l.min() - half_step, l.max() + half_step,
                                     m.min() - half_step, m.max() + half_step))
        self.map_axes.set_xlabel("l (direction cosine east)")
        self.map_axes.set_ylabel("m (direction cosine north)")
        self.map_axes.set_title("beam map: brightest channel (dB)", fontsize=10)
        order = np.argsort(self.frequencies)
        spectrum = 10 * np.log10(np.maximum(history[:, order], 1e-30))
        tsamp = self.args.n_int * self.n_ch / self.args.sample_rate
        f_mhz = self.frequencies[order] / 1e6
        self.spectrum_axes.clear()
        self.spectrum_axes.imshow(spectrum, origin="lower", aspect="auto", cmap="viridis",
                                  extent=(f_mhz[0], f_mhz[-1], 0, len(history) * tsamp))
        self.spectrum_axes.set_xlabel("frequency (MHz)")
        self.spectrum_axes.set_ylabel("time (s, last 256 integrations)")
        self.spectrum_axes.set_title(f"dynamic spectrum of beam {self.gui_beam} (dB)",
                                     fontsize=10)
        self.canvas.draw_idle()

    def run(self, progress=True):
        total = self.args.spectra // self.args.n_int
        done = threading.Event()

        def report():
            while not done.wait(2.0):
                n = self.sink.nitems_read(0)
                print(f"  ... {n}/{total} integrated spectra ({100 * n / total:.0f}%)",
                      file=sys.stderr, flush=True)

        watcher = threading.Thread(target=report, daemon=True)
        if progress:
            watcher.start()
        t0 = time.perf_counter()
        if self.args.gui:
            self._run_with_window()
        else:
            self.tb.run()
        self.seconds = time.perf_counter() - t0
        done.set()
        if self.sink.error():  # a write error ended the flowgraph early
            raise RuntimeError(f"filterbank files incomplete ({self.sink.items_written()} "
                               f"of {total} spectra written): {self.sink.error()}")
        return self.summarize()

    def _run_with_window(self):
        """The flowgraph with the QT window shown; the window closes when the
        stream has ended (or the flowgraph stops when the window is closed)."""
        from PyQt5 import Qt

        app = Qt.QApplication.instance() or Qt.QApplication(sys.argv[:1])
        finished = threading.Event()
        self.window.resize(1100, 480)
        self.window.show()
        self.tb.start()
        threading.Thread(target=lambda: (self.tb.wait(), finished.set()), daemon=True).start()
        def check():
            self.draw_views()
            if not self.window.isVisible():
                app.quit()
            elif finished.is_set():  # show the last items a moment, then leave
                timer.stop()
                Qt.QTimer.singleShot(1000, app.quit)

        timer = Qt.QTimer()
        timer.timeout.connect(check)
        timer.start(500)
        app.exec_()
        timer.stop()
        self.tb.stop()
        self.tb.wait()
        self.window.close()

    def write_figures(self, summary):
        """PNGs of the run, from the filterbank files: the beam map (each beam's
        brightest channel, on the sky in direction cosines) and the dynamic
        spectrum (dB) of the brightest beam. Returns their paths."""
        prefix = os.path.join(self.out_dir, self.args.prefix)
        beam_az_el = [lm_to_az_el(l, m) for l, m in self.beams_lm]
        beam = summary["brightest_beam"]
        return [
            beamform.plot_beam_map(summary["power"].max(axis=1), beam_az_el,
                                   prefix + "_beam_map.png", projection="lm",
                                   title=f"{self.n_beams} beams: brightest channel's mean power"),
            beamform.plot_dynamic_spectrum(f"{prefix}_beam{beam:04d}.fil",
                                           prefix + "_dynamic_spectrum.png"),
        ]

    def summarize(self):
        """Read the filterbank files back: mean power per (beam, channel) and
        where the brightest source is."""
        power = []
        for b in range(self.n_beams):
            header, data = beamform.read_filterbank(
                os.path.join(self.out_dir, f"{self.args.prefix}_beam{b:04d}.fil"))
            power.append(data[:, 0, :].mean(axis=0))  # descending frequency order
        power = np.array(power)
        freqs_desc = np.sort(self.frequencies)[::-1]
        beam, ch_desc = np.unravel_index(np.argmax(power), power.shape)
        freq = freqs_desc[ch_desc]
        channel = int(np.argmin(np.abs(self.frequencies - freq)))
        others = np.delete(power[:, ch_desc], beam)
        return dict(
            device=self.convert.device(),
            beams=self.n_beams, channels=self.n_ch, receivers=self.n_rx,
            samples=self.args.spectra * self.n_ch, seconds=self.seconds,
            samples_per_second=self.n_rx * self.args.spectra * self.n_ch / self.seconds,
            integrated_spectra=header["data_rows"] if "data_rows" in header else len(data),
            brightest_beam=int(beam), brightest_lm=tuple(self.beams_lm[beam]),
            brightest_channel=channel, brightest_frequency=float(freq),
            contrast_db=float(10 * np.log10(power[beam, ch_desc] / np.median(others))),
            power=power, out_dir=self.out_dir,
        )


class beam_collector(gr.sync_block):
    """Sink of the beamformer's power items [beams][channels] for the QT views:
    their running mean per beam and channel, and the last `keep` spectra of
    one beam."""

    def __init__(self, n_beams, n_channels, beam, keep):
        gr.sync_block.__init__(self, "beam_collector",
                               in_sig=[(np.float32, n_beams * n_channels)], out_sig=None)
        self.shape = (n_beams, n_channels)
        self.beam = beam
        self.lock = threading.Lock()
        self.total = np.zeros(self.shape)
        self.count = 0
        self.history = collections.deque(maxlen=keep)

    def work(self, input_items, output_items):
        items = input_items[0].reshape(-1, *self.shape)
        with self.lock:
            self.total += items.sum(axis=0)
            self.count += len(items)
            self.history.extend(items[:, self.beam, :].copy())
        return len(items)

    def snapshot(self):
        """(mean power [beams][channels], last spectra [time][channels]) or
        (None, None) before the first item."""
        with self.lock:
            if not self.count:
                return None, None
            return self.total / self.count, np.array(self.history)


def nearest_beam(beams_lm, l, m):
    return int(np.argmin(np.hypot(beams_lm[:, 0] - l, beams_lm[:, 1] - m)))


def parse_args(argv=None):
    p = cli.parser(__doc__)
    p.add_argument("--size", choices=SIZES, default="demo",
                   help="preset sizes; the options below override them")
    preset = " (default: from --size)"
    p.add_argument("--receivers", type=cli.integer(1), help="receivers" + preset)
    p.add_argument("--channels", type=cli.integer(2), help="channels" + preset)
    p.add_argument("--beams-per-side", type=cli.integer(2),
                   help="beams on a square grid of this side" + preset)
    p.add_argument("--spectra", type=cli.integer(1),
                   help="channelized time steps to process" + preset)
    p.add_argument("--n-int", type=cli.integer(1),
                   help="time steps integrated per output power" + preset)
    p.add_argument("--taps", type=cli.integer(1), default=16,
                   help="filter taps per channelizer branch")
    p.add_argument("--device", type=cli.device, default="auto",
                   help="auto (first GPU, else the CPU), cpu, cuda:N, hip:N")
    p.add_argument("--center-freq", type=cli.number(0, low_open=True), default=150e6,
                   help="sky frequency of the band centre, Hz")
    p.add_argument("--sample-rate", type=cli.number(0, low_open=True), default=10e6, help="Hz")
    p.add_argument("--spacing", type=cli.number(0, low_open=True), default=1.0,
                   help="receiver grid spacing, metres")
    p.add_argument("--field-l", type=cli.number(-1, 1), default=0.1,
                   help="field centre, direction cosine east")
    p.add_argument("--field-m", type=cli.number(-1, 1), default=0.2,
                   help="field centre, direction cosine north")
    p.add_argument("--field-half-width", type=cli.number(0, 1, low_open=True), default=0.45,
                   help="beam grid half width in direction cosines")
    p.add_argument("--source", action="append",
                   type=cli.numbers(names=("l", "m", "channel", "amplitude")),
                   help="sky source l,m,channel,amplitude: direction cosines east and north "
                   "(l^2 + m^2 <= 1), channel index 0..channels-1, amplitude in volts "
                   "(repeatable; default 0.25,0.05,5,0.5)")
    p.add_argument("--noise", type=cli.number(0), default=1.0,
                   help="receiver noise amplitude (rms, complex)")
    p.add_argument("--adc-scale", type=cli.number(0, low_open=True), default=2000.0,
                   help="int16 counts per unit voltage")
    p.add_argument("--seed", type=int, default=1, help="noise seed")
    p.add_argument("--input", type=cli.existing_file,
                   help="raw sc16 samples [receivers] instead of the simulated sky")
    p.add_argument("--out", default="station_beams",
                   help="folder for the filterbank files (an earlier run's files with the same "
                   "--prefix are removed first)")
    p.add_argument("--prefix", type=cli.file_name_prefix, default="station",
                   help="file names: <prefix>_beamNNNN.fil")
    p.add_argument("--tstart-mjd", type=float, default=61000.0,
                   help="start time of the simulated observation (MJD)")
    p.add_argument("--gui", action="store_true",
                   help="also show the beam map (l, m) and a beam's dynamic spectrum (dB) live "
                   "in a QT window; it closes a second after the run ends")
    args = cli.parse(p, argv)
    for key, value in SIZES[args.size].items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    if not args.source:
        args.source = [(0.25, 0.05, 5, 0.5)]
    if args.spectra % args.n_int:
        p.error(f"argument --spectra: must be a multiple of --n-int ({args.n_int}), "
                f"got {args.spectra}")
    if math.hypot(args.field_l, args.field_m) > 1:
        p.error(f"argument --field-l/--field-m: the field centre must lie above the horizon "
                f"(l^2 + m^2 <= 1), got l={args.field_l}, m={args.field_m}")
    for l, m, channel, amplitude in args.source:
        text = f"{l:g},{m:g},{channel:g},{amplitude:g}"
        if l * l + m * m > 1:
            p.error(f"argument --source: l^2 + m^2 must be <= 1 (a direction above the "
                    f"horizon), got {text}")
        if channel != int(channel) or not 0 <= channel < args.channels:
            p.error(f"argument --source: the channel must be an integer from 0 to "
                    f"{args.channels - 1} (--channels {args.channels}), got {text}")
        if amplitude < 0:
            p.error(f"argument --source: the amplitude must be >= 0, got {text}")
    if args.input:
        cli.check_recording(p, "--input", args.input, args.receivers, 4, "sc16",
                            min_items=args.n_int * args.channels)
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        p.error(f"argument --out: {args.out} exists and is not a folder")
    return args


def main(argv=None):
    args = parse_args(argv)
    station = Station(args)
    print(f"station: {station.n_rx} receivers, {station.n_ch} channels, {station.n_beams} beams, "
          f"{args.spectra * station.n_ch} samples per receiver, device {station.convert.device()}",
          flush=True)
    s = station.run()
    print(f"beams             {s['beams']} ({args.beams_per_side} x {args.beams_per_side})")
    print(f"channels          {s['channels']} ({station.channel_spacing / 1e3:.2f} kHz each)")
    print(f"samples           {s['samples']} per receiver x {s['receivers']} receivers")
    print(f"time              {s['seconds']:.2f} s on {s['device']}")
    print(f"throughput        {s['samples_per_second'] / 1e6:.1f} Msamples/s")
    print(f"filterbank files  {s['out_dir']}/{args.prefix}_beamNNNN.fil")
    print(f"figures           {', '.join(station.write_figures(s))}")
    l, m = s["brightest_lm"]
    az, el = lm_to_az_el(l, m)
    print(f"brightest source  beam {s['brightest_beam']} (l={l:.3f}, m={m:.3f}; az {az:.1f}, "
          f"el {el:.1f} deg), channel {s['brightest_channel']} "
          f"({s['brightest_frequency'] / 1e6:.4f} MHz), {s['contrast_db']:.1f} dB above the "
          f"median beam")
    if not args.input:
        src = station.sources[int(np.argmax([x["amplitude"] for x in station.sources]))]
        want_beam = nearest_beam(station.beams_lm, src["l"], src["m"])
        ok = s["brightest_beam"] == want_beam and s["brightest_channel"] == int(src["channel"])
        print(f"injected source   l={src['l']}, m={src['m']}, channel {int(src['channel'])}: "
              f"{'found in the right beam and channel' if ok else 'NOT FOUND where expected'} "
              f"(nearest beam {want_beam})")
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
