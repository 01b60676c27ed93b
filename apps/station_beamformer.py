#!/usr/bin/env python3
# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Station beamformer: raw array voltages -> tied-array beams -> filterbank files.

    array voltages (sc16)  ->  convert  ->  pfb_channelizer  ->  phase_shift
      ->  tensor_beamformer (power, integrated)  ->  filterbank_sink (one file per beam)

The input is the module's simulated array (sky sources at given directions and
frequencies plus receiver noise, as int16 voltages) or a file of raw sc16
samples. The antennas sit on a square grid or where a --positions file puts
them; with --pol dual each has an X and a Y receiver and the beams are Stokes I
or IQUV. phase_shift points the station at the field centre; the beamformer
forms a grid of beams around it, or the beams a --beams file lists. At the end
the script reads the filterbank files back and says where the brightest source
is.

    /usr/bin/python3 apps/station_beamformer.py                  # small demo, any machine
    /usr/bin/python3 apps/station_beamformer.py --size reference  # 96 receivers, 256 channels, 1024 beams

The filterbank files go to --out (default: ./station_beams), named
<prefix>_beamNNNN.fil; a run first removes the files of an earlier run with the
same prefix there, saying so.
"""
import argparse
import collections
import math
import os
import re
import sys
import threading
import time

import numpy as np
from gnuradio import beamform, blocks, gr
from gnuradio.beamform import antenna_positions, beam_list, cli, steering_helpers

C = beamform.speed_of_light
UNIX_EPOCH_MJD = 40587.0
SIMULATED_TSTART_MJD = 61000.0
# Stokes V as the beamformer computes it (docs/tensor_beamformer.md), and the
# sign each --stokes-v-convention multiplies it by.
V_SIGN = {"beamformer": 1.0, "psr-ieee": -1.0}

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


def polarizations(args):
    """Receivers per antenna: 1 (--pol single) or 2 (--pol dual: X, Y)."""
    return 2 if args.pol == "dual" else 1


def antenna_layout(args):
    """(east, north, up) metres of every antenna: the --positions file's (read
    and checked by parse_args into args.antenna_enu) or the square grid."""
    if args.antenna_enu is not None:
        return np.asarray(args.antenna_enu, dtype=np.float64)
    return grid_positions(args.receivers // polarizations(args), args.spacing)


def beam_pointing(args):
    """(l, m) of every beam, shape (beams, 2): the fixed beams of a --beams file
    (azel or lm; parse_args refuses radec beams until a tracker steers them) or
    the square grid around the field centre."""
    if args.beam_list is not None:
        return np.array([beam_list.beam_lm(b) for b in args.beam_list])
    return beam_grid(args.beams_per_side, (args.field_l, args.field_m), args.field_half_width)


def jones_vector(q, u, v):
    """(e_x, e_y), |e_x|^2 + |e_y|^2 = 1, of a fully polarized wave with the
    fractional Stokes (q, u, v) / p in the PSR/IEEE convention (V = -2 Im(X Y*),
    see V_SIGN), p = sqrt(q^2 + u^2 + v^2) > 0: |e_x|^2 - |e_y|^2 = q / p,
    2 e_x conj(e_y) = (u - i v) / p."""
    p = math.sqrt(q * q + u * u + v * v)
    delta = math.atan2(-v, u)  # phase of e_x conj(e_y)
    return (complex(math.sqrt((1 + q / p) / 2)),
            math.sqrt((1 - q / p) / 2) * complex(math.cos(-delta), math.sin(-delta)))


def polarized_tones(amplitude, offset, q, u, v, unpolarized_step):
    """The tones of one dual-polarization source for the X and the Y receivers,
    each a list of (frequency offset Hz, amplitude, phase rad). Stokes I is
    amplitude^2; the fraction p = sqrt(q^2 + u^2 + v^2) is one tone on X and Y
    at `offset` with the Jones vector of (q, u, v); the unpolarized rest is a
    tone on X alone at offset + step and one on Y alone at offset - step. With
    step = fs / (channels n_int), every cross product of two different tones
    turns through whole cycles in each integration of n_int spectra, so it sums
    to zero there: the integrated Stokes are exactly those of the source."""
    p = math.sqrt(q * q + u * u + v * v)
    x, y = [], []
    if p > 0:
        e_x, e_y = jones_vector(q, u, v)
        scale = amplitude * math.sqrt(p)
        x.append((offset, scale * abs(e_x), math.atan2(e_x.imag, e_x.real)))
        y.append((offset, scale * abs(e_y), math.atan2(e_y.imag, e_y.real)))
    if p < 1:
        rest = amplitude * math.sqrt((1 - p) / 2)
        x.append((offset + unpolarized_step, rest, 0.0))
        y.append((offset - unpolarized_step, rest, 0.0))
    return x, y


class dual_pol_sky(gr.hier_block2):
    """Simulated dual-polarization antennas: items [antennas][2] sc16 (receiver
    2k = X, 2k + 1 = Y of antenna k), from one array_source per polarization
    (the same antenna positions, independent noise) interleaved receiver by
    receiver. Both tag item 0 with rx_time."""

    def __init__(self, antennas, tones_x, tones_y, a):
        n = len(antennas)
        gr.hier_block2.__init__(self, "dual_pol_sky", gr.io_signature(0, 0, 0),
                                gr.io_signature(1, 1, 4 * 2 * n))
        self.interleave = blocks.interleave(4, 1)
        self.sources = []
        for port, (tones, seed) in enumerate(((tones_x, a.seed),
                                              (tones_y, (a.seed + 0x9E3779B97F4A7C15) % 2**64))):
            src = simulated_antennas(antennas, tones, seed, a)
            self.sources.append(src)
            self.connect(src, blocks.vector_to_stream(4, n), (self.interleave, port))
        self.connect(self.interleave, blocks.stream_to_vector(4, 2 * n), self)


def simulated_antennas(positions, tones, seed, a):
    """array_source of sc16 items [receivers] with the given tones, each
    (azimuth deg, elevation deg, frequency offset Hz, amplitude, phase rad)."""
    return beamform.array_source(
        positions, a.sample_rate, a.center_freq, [t[0] for t in tones], [t[1] for t in tones],
        [t[2] for t in tones], [t[3] for t in tones], [t[4] for t in tones],
        a.noise, beamform.sc16, a.adc_scale, seed, 0, C,
        (a.tstart_mjd - UNIX_EPOCH_MJD) * 86400.0)  # its rx_time tag sets tstart


class Station:
    """The station flowgraph and everything needed to interpret its output."""

    def __init__(self, args, build=True):
        """build=False: only the geometry, weights and block factories (front_chain,
        beam_chain), for flowgraphs that split the station (apps/station_split.py)."""
        self.args = args
        self.n_pol = polarizations(args)
        self.antennas = antenna_layout(args)
        # Receiver n_pol k + p is polarization p (X, Y) of antenna k.
        self.positions = np.repeat(self.antennas, self.n_pol, axis=0)
        self.n_rx = len(self.positions)
        self.n_stokes = 4 if args.stokes == "IQUV" else 1
        self.n_ch = args.channels
        self.channel_spacing = args.sample_rate / self.n_ch
        self.frequencies = steering_helpers.channel_frequencies(
            args.center_freq, self.n_ch, sample_rate=args.sample_rate)
        self.centre_lm = (args.field_l, args.field_m)
        self.beams_lm = beam_pointing(args)
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
        w = (w_beams * np.conj(w_centre)).astype(np.complex64)
        # Rounding leftovers of these unit-magnitude weights, e.g. the imaginary
        # part 2^-25 of a beam on the phase centre: the beamformer's float16
        # rounds parts up to 2^-25 to 0 anyway (docs/tensor_beamformer.md);
        # zeroed here, they draw no warning and change no result.
        for part in (w.real, w.imag):
            part[np.abs(part) <= 2.0 ** -25] = 0
        return w

    def _source_block(self):
        """The input: the recording (--input, a plain sc16 file; other readers
        plug in here) or the simulated sky."""
        a = self.args
        if a.input:  # its size was checked against the receivers by parse_args
            return blocks.file_source(4 * self.n_rx, a.input, False)
        tones_x, tones_y = [], []
        for s in self.sources:
            az, el = lm_to_az_el(s["l"], s["m"])
            # Centre of the requested channel (channels above n/2 are negative offsets).
            k = int(s["channel"])
            offset = (k if k < self.n_ch // 2 else k - self.n_ch) * self.channel_spacing
            if self.n_pol == 1:
                tones_x.append((az, el, offset, s["amplitude"], 0.0))
                continue
            x, y = polarized_tones(s["amplitude"], offset, *a.source_pol,
                                   self.channel_spacing / a.n_int)
            tones_x += [(az, el, *t) for t in x]
            tones_y += [(az, el, *t) for t in y]
        if self.n_pol == 1:
            return simulated_antennas(self.positions, tones_x, a.seed, a)
        return dual_pol_sky(self.antennas, tones_x, tones_y, a)

    def _build(self):
        tb = gr.top_block("station_beamformer")
        front = self.front_chain(self.args.device)
        self.prepare_outputs(self.args.prefix)
        self.beamformer, self.sink = self.beam_chain(range(self.n_ch), self.args.device,
                                                     self.out_dir, self.args.prefix)
        tb.connect(*front, self.beamformer, *self.stokes_convention(range(self.n_ch)),
                   self.sink)
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
        channel indices: its input items are spectra [len(channels)][receiver].
        With Stokes IQUV the blocks of stokes_convention(channels) go between."""
        return self.tied_array_beamformer(channels, device), \
            self.filterbank_sink(channels, out_dir, prefix)

    def tied_array_beamformer(self, channels, device):
        """Beam powers [beam][channel] of the given channels, integrated over n_int."""
        channels = list(channels)
        weights = self._weights()[channels]  # [channel][beam][receiver]
        return beamform.tensor_beamformer(
            len(channels), self.n_rx, self.n_beams, weights.ravel().tolist(),
            beamform.beam_precision.float16, beamform.beam_output.power, self.args.n_int,
            beamform.polarization_layout.xy_pairs if self.n_pol == 2
            else beamform.polarization_layout.single,
            beamform.stokes_mode.IQUV if self.n_stokes == 4 else beamform.stokes_mode.I,
            device)

    def stokes_convention(self, channels):
        """Blocks between the beamformer and the sink: none, or for Stokes IQUV
        in the PSR/IEEE convention one multiply by -1 of the V plane of the
        [stokes][beams][channels] items. The cheapest place for the sign: after
        integration there are n_int times fewer values than at the beamformer's
        input, and the beamformer (CPU and GPU engines alike) stays as it is."""
        sign = V_SIGN[self.args.stokes_v_convention]
        if self.n_stokes != 4 or sign == 1.0:
            return []
        plane = self.n_beams * len(list(channels))
        self.v_sign = blocks.multiply_const_vff([1.0] * (3 * plane) + [sign] * plane)
        return [self.v_sign]

    def filterbank_sink(self, channels, out_dir, prefix):
        """One SIGPROC file per beam (<prefix>_beamNNNN.fil) over the given channels."""
        a = self.args
        frequencies = [float(self.frequencies[c]) for c in channels]
        beam_az_el = [v for l, m in self.beams_lm for v in lm_to_az_el(l, m)]
        # tstart: the rx_time tag of the simulated stream; without one (a
        # recording) the --tstart-mjd that parse_args demands with --input.
        return beamform.filterbank_sink(
            out_dir, prefix, self.n_beams, len(frequencies), self.n_stokes, frequencies,
            a.n_int * self.n_ch / a.sample_rate, a.source_name, beam_az_el, a.tstart_mjd,
            a.telescope_id, a.machine_id)

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
        item = 4 * self.n_stokes * self.n_beams * self.n_ch
        self.gui_copy = cli.size_host_buffers(blocks.copy(item), item)
        self.collector = beam_collector(self.n_beams, self.n_ch, self.gui_beam, keep=256,
                                        n_stokes=self.n_stokes)
        tb.connect(self.beamformer, self.gui_copy, self.collector)

        # A QWidget needs the QApplication first (a script run from the shell has none yet).
        self.qapp = Qt.QApplication.instance() or Qt.QApplication(sys.argv[:1])
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
        l, m = self.beams_lm[:, 0], self.beams_lm[:, 1]
        peak_db = 10 * np.log10(np.maximum(beam_power.max(axis=1), 1e-30))
        self.map_axes.clear()
        if self.args.beam_list is None:  # the square grid: an image
            side = self.args.beams_per_side
            half_step = self.args.field_half_width / max(side - 1, 1)
            self.map_axes.imshow(peak_db.reshape(side, side), origin="lower", cmap="viridis",
                                 extent=(l.min() - half_step, l.max() + half_step,
                                         m.min() - half_step, m.max() + half_step))
        else:  # listed beams: points
            self.map_axes.scatter(l, m, c=peak_db, cmap="viridis")
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

        app = self.qapp
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
        stokes = []
        for b in range(self.n_beams):
            header, data = beamform.read_filterbank(
                os.path.join(self.out_dir, f"{self.args.prefix}_beam{b:04d}.fil"))
            stokes.append(data.mean(axis=0))  # [IF][channel, descending frequency]
        stokes = np.array(stokes)
        power = stokes[:, 0, :]  # Stokes I (or |beam|^2)
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
            power=power, stokes=stokes, brightest_stokes=stokes[beam, :, ch_desc],
            out_dir=self.out_dir,
        )


class beam_collector(gr.sync_block):
    """Sink of the beamformer's power items [beams][channels] for the QT views:
    their running mean per beam and channel, and the last `keep` spectra of
    one beam."""

    def __init__(self, n_beams, n_channels, beam, keep, n_stokes=1):
        gr.sync_block.__init__(self, "beam_collector",
                               in_sig=[(np.float32, n_stokes * n_beams * n_channels)],
                               out_sig=None)
        self.n_stokes = n_stokes
        self.shape = (n_beams, n_channels)
        self.beam = beam
        self.lock = threading.Lock()
        self.total = np.zeros(self.shape)
        self.count = 0
        self.history = collections.deque(maxlen=keep)

    def work(self, input_items, output_items):
        items = input_items[0].reshape(-1, self.n_stokes, *self.shape)[:, 0]  # Stokes I
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
    p.add_argument("--receivers", type=cli.integer(1),
                   help="receivers, 2 per antenna with --pol dual; with --positions the file "
                   "sets them" + preset)
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
    p.add_argument("--spacing", type=cli.number(0, low_open=True),
                   help="antenna grid spacing, metres (default 1.0; not with --positions)")
    p.add_argument("--positions", type=cli.existing_file,
                   help="antenna positions, one antenna per line: east north up metres, or "
                   "ITRF X Y Z metres with --positions-frame itrf or a '# frame: itrf' line "
                   "('#' comments); replaces the square grid")
    p.add_argument("--positions-frame", choices=antenna_positions.FRAMES,
                   help="frame of the --positions file (default: its '# frame:' line, else enu)")
    p.add_argument("--site", type=cli.numbers(names=("latitude", "longitude", "height")),
                   help="itrf positions: WGS84 geodetic latitude, longitude (degrees) and "
                   "height (m) of the origin of east, north, up (default: the mean of the "
                   "antennas' X, Y, Z)")
    p.add_argument("--pol", choices=("single", "dual"), default="single",
                   help="receivers per antenna: single, or dual (X, Y: receivers 2k and "
                   "2k+1 of antenna k, beams in Stokes)")
    p.add_argument("--stokes", choices=("I", "IQUV"), default="I",
                   help="--pol dual: Stokes I, or IQUV (nifs = 4 in each beam's file)")
    p.add_argument("--stokes-v-convention", choices=tuple(V_SIGN), default="beamformer",
                   help="sign of Stokes V: beamformer (V = 2 Im(X Y*)) or psr-ieee "
                   "(V = -2 Im(X Y*), van Straten et al. 2010)")
    p.add_argument("--field-l", type=cli.number(-1, 1), default=0.1,
                   help="field centre, direction cosine east")
    p.add_argument("--field-m", type=cli.number(-1, 1), default=0.2,
                   help="field centre, direction cosine north")
    p.add_argument("--field-half-width", type=cli.number(0, 1, low_open=True),
                   help="beam grid half width in direction cosines (default 0.45; not with "
                   "--beams)")
    p.add_argument("--beams", type=cli.existing_file,
                   help="beam directions instead of the grid, one per line: '[frame] a b', "
                   "frame azel (degrees), lm (direction cosines) or radec (needs tracking)")
    p.add_argument("--beams-frame", choices=beam_list.FRAMES, default="azel",
                   help="frame of the --beams lines that name none")
    p.add_argument("--source", action="append",
                   type=cli.numbers(names=("l", "m", "channel", "amplitude")),
                   help="sky source l,m,channel,amplitude: direction cosines east and north "
                   "(l^2 + m^2 <= 1), channel index 0..channels-1, amplitude in volts "
                   "(sqrt of Stokes I; repeatable; default 0.25,0.05,5,0.5)")
    p.add_argument("--source-pol", type=cli.numbers(names=("q", "u", "v")),
                   help="--pol dual: fractional Stokes q,u,v of the simulated sources in the "
                   "PSR/IEEE convention, q^2 + u^2 + v^2 <= 1 (default 0,0,0: unpolarized)")
    p.add_argument("--noise", type=cli.number(0), default=1.0,
                   help="receiver noise amplitude (rms, complex)")
    p.add_argument("--adc-scale", type=cli.number(0, low_open=True), default=2000.0,
                   help="int16 counts per unit voltage")
    p.add_argument("--seed", type=cli.integer(0, 2**64 - 1), default=1, help="noise seed")
    p.add_argument("--input", type=cli.existing_file,
                   help="raw sc16 samples [receivers] instead of the simulated sky "
                   "(needs --tstart-mjd)")
    p.add_argument("--out", default="station_beams",
                   help="folder for the filterbank files (an earlier run's files with the same "
                   "--prefix are removed first)")
    p.add_argument("--prefix", type=cli.file_name_prefix, default="station",
                   help="file names: <prefix>_beamNNNN.fil")
    p.add_argument("--tstart-mjd", type=cli.number(0),
                   help="start time (MJD, UTC) of the first sample: of the simulated "
                   f"observation (default {SIMULATED_TSTART_MJD}), or of the --input "
                   "recording (required there)")
    p.add_argument("--source-name", type=sigproc_string, help="SIGPROC source_name "
                   "(default: 'simulated sky', or 'unknown' with --input)")
    p.add_argument("--telescope-id", type=cli.integer(0, 2**31 - 1), default=0,
                   help="SIGPROC telescope_id (0: Fake)")
    p.add_argument("--machine-id", type=cli.integer(0, 2**31 - 1), default=0,
                   help="SIGPROC machine_id (0: FAKE)")
    p.add_argument("--gui", action="store_true",
                   help="also show the beam map (l, m) and a beam's dynamic spectrum (dB) live "
                   "in a QT window; it closes a second after the run ends")
    args = cli.parse(p, argv)
    if args.input and args.source_pol is not None:
        p.error("argument --source-pol: only for the simulated sky, not with --input")
    _check_geometry(p, args)
    _check_beams(p, args)
    for key, value in SIZES[args.size].items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    _check_polarization(p, args)
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
        if args.tstart_mjd is None:
            p.error("argument --tstart-mjd: --input needs the recording's start time "
                    "(MJD, UTC, a number >= 0); the simulated default would be wrong")
    if args.tstart_mjd is None:
        args.tstart_mjd = SIMULATED_TSTART_MJD
    if args.source_name is None:
        args.source_name = "unknown" if args.input else "simulated sky"
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        p.error(f"argument --out: {args.out} exists and is not a folder")
    return args


def sigproc_string(text):
    """argparse type: a SIGPROC header string (printable ASCII, 1 to 80 characters)."""
    if not 1 <= len(text) <= 80 or not all(" " <= ch <= "~" for ch in text):
        raise argparse.ArgumentTypeError(
            f"must be 1 to 80 printable ASCII characters (a SIGPROC header string), got {text!r}")
    return text


def _check_geometry(p, args):
    """--positions (read into args.antenna_enu, the receivers following it) or
    the grid (args.antenna_enu = None, --spacing defaulting to 1 m)."""
    args.antenna_enu = None
    if args.positions is None:
        for option, value in (("--positions-frame", args.positions_frame),
                              ("--site", args.site)):
            if value is not None:
                p.error(f"argument {option}: only with --positions")
        if args.spacing is None:
            args.spacing = 1.0
        return
    if args.spacing is not None:
        p.error("argument --spacing: sets the square grid's spacing; --positions replaces the "
                "grid (leave out one of them)")
    if args.site is not None:
        latitude, longitude, height = args.site
        if not (-90 <= latitude <= 90 and -180 <= longitude <= 360 and math.isfinite(height)):
            p.error(f"argument --site: latitude must be in [-90, 90], longitude in [-180, 360] "
                    f"degrees and the height finite, got {args.site}")
    try:
        table, args.positions_frame = antenna_positions.read_positions_table(
            args.positions, args.positions_frame)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        p.error(f"argument --positions: {e}")
    if args.site is not None and args.positions_frame != "itrf":
        p.error(f"argument --site: only for itrf positions ({args.positions} is read as "
                f"{args.positions_frame}: east, north, up about its own origin)")
    positions = antenna_positions.positions_to_enu(table, args.positions_frame, args.site)
    receivers = len(positions) * polarizations(args)
    if args.receivers is not None and args.receivers != receivers:
        p.error(f"argument --receivers: {args.positions} lists {len(positions)} antennas, "
                f"that is {receivers} receivers with --pol {args.pol}; got {args.receivers} "
                "(leave --receivers out with --positions)")
    args.receivers = receivers
    args.antenna_enu = positions.tolist()


def _check_beams(p, args):
    """--beams (read into args.beam_list, fixed directions only for now) or the grid."""
    args.beam_list = None
    if args.beams is None:
        if args.field_half_width is None:
            args.field_half_width = 0.45
        return
    for option, value in (("--beams-per-side", args.beams_per_side),
                          ("--field-half-width", args.field_half_width)):
        if value is not None:
            p.error(f"argument {option}: shapes the beam grid; --beams lists the beams instead "
                    "(leave out one of them)")
    try:
        beams = beam_list.read_beams_file(args.beams, args.beams_frame)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        p.error(f"argument --beams: {e}")
    tracked = [b for b in beams if b.frame == "radec"]
    if tracked:
        p.error(f"argument --beams: RA/Dec beams need tracking (--track), which this app "
                f"does not do yet ({args.beams}:{tracked[0].line}); list azel or lm beams")
    if len(beams) > 65536:
        p.error(f"argument --beams: at most 65536 beams (one file each), got {len(beams)}")
    args.beam_list = beams
    args.field_half_width = 0.45  # unused: only the grid has a width
    args.beams_per_side = 0       # unused: no grid


def _check_polarization(p, args):
    """--pol dual needs X/Y pairs; --stokes IQUV and --source-pol need --pol dual."""
    if args.pol == "single":
        for option, value, default in (("--stokes", args.stokes, "I"),
                                       ("--source-pol", args.source_pol, None)):
            if value != default:
                p.error(f"argument {option}: needs --pol dual (X/Y receiver pairs)")
        return
    if args.receivers % 2:
        p.error(f"argument --receivers: --pol dual needs X/Y pairs, an even number of "
                f"receivers (2 per antenna), got {args.receivers}")
    if args.source_pol is None:
        args.source_pol = (0.0, 0.0, 0.0)
    q, u, v = args.source_pol
    if q * q + u * u + v * v > 1 + 1e-12:
        p.error(f"argument --source-pol: the polarized fraction sqrt(q^2 + u^2 + v^2) must be "
                f"<= 1, got {math.sqrt(q * q + u * u + v * v):g}")
    if q * q + u * u + v * v < 1 - 1e-12 and args.n_int < 4 and not args.input:
        p.error(f"argument --n-int: the simulated unpolarized part of a dual-polarization "
                f"source needs n_int >= 4 (its X and Y tones average out over an "
                f"integration), got {args.n_int}")


def main(argv=None):
    args = parse_args(argv)
    station = Station(args)
    print(f"station: {len(station.antennas)} antennas, {station.n_rx} receivers, "
          f"{station.n_ch} channels, {station.n_beams} beams, "
          f"{args.spectra * station.n_ch} samples per receiver, device {station.convert.device()}",
          flush=True)
    s = station.run()
    layout = (f"listed in {args.beams}" if args.beam_list is not None
              else f"{args.beams_per_side} x {args.beams_per_side}")
    print(f"beams             {s['beams']} ({layout}), "
          f"{'Stokes ' + args.stokes if station.n_pol == 2 else 'single polarization'}")
    print(f"channels          {s['channels']} ({station.channel_spacing / 1e3:.2f} kHz each)")
    print(f"samples           {s['samples']} per receiver x {s['receivers']} receivers")
    print(f"time              {s['seconds']:.2f} s on {s['device']}")
    print(f"throughput        {s['samples_per_second'] / 1e6:.1f} Msamples/s")
    print(f"filterbank files  {s['out_dir']}/{args.prefix}_beamNNNN.fil"
          + (f" (nifs 4: I, Q, U, V with V in the {args.stokes_v_convention} convention)"
             if station.n_stokes == 4 else ""))
    print(f"figures           {', '.join(station.write_figures(s))}")
    l, m = s["brightest_lm"]
    az, el = lm_to_az_el(l, m)
    print(f"brightest source  beam {s['brightest_beam']} (l={l:.3f}, m={m:.3f}; az {az:.1f}, "
          f"el {el:.1f} deg), channel {s['brightest_channel']} "
          f"({s['brightest_frequency'] / 1e6:.4f} MHz), {s['contrast_db']:.1f} dB above the "
          f"median beam")
    if station.n_stokes == 4:
        i, q, u, v = s["brightest_stokes"]
        injected = "" if args.input else \
            " (injected {:g}, {:g}, {:g} in PSR/IEEE)".format(*args.source_pol)
        print(f"polarization      q = {q / i:.3f}, u = {u / i:.3f}, v = {v / i:.3f} "
              f"(Stokes / I there; V {args.stokes_v_convention}){injected}")
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
