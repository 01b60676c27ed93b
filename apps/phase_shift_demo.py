#!/usr/bin/env python3
# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Station front end demo: a simulated array (two plane-wave tones from different
directions plus noise) -> pfb_channelizer -> phase_shift pointed by two sliders ->
beam power per channel in a QT GUI vector sink.

Steer (azimuth, elevation) onto the target (60, 20): its channel (+5 spacings)
rises by 10 log10(receivers) dB over the noise-like sum; the interferer from
(300, 45) at -9 spacings stays low unless you steer onto it.

Written by hand (not generated) and kept equivalent to phase_shift_demo.grc.
  /usr/bin/python3 apps/phase_shift_demo.py [--device cpu] [--headless] [--seconds S]
--headless runs without a GUI and prints the beam power of the target's and the
interferer's channels, steered at the target and 40 degrees away from it.
"""
import sys

import numpy as np
from gnuradio import beamform, blocks, gr
from gnuradio.beamform import cli

CENTER_FREQ = 1.4204e9
SAMPLE_RATE = 3.2e6
TARGET = dict(az=60.0, el=20.0, channel=5)
INTERFERER = dict(az=300.0, el=45.0, channel=-9)


def channel_frequencies(n_channels, center, fs):
    """Sky frequency of every channel with fft_shift: ascending, channel k at
    center + (k - n_channels // 2) * fs / n_channels."""
    return [center + (k - n_channels // 2) * fs / n_channels for k in range(n_channels)]


class front_end(gr.top_block):
    """The flowgraph without GUI: ends in a vector of beam powers (dB) per channel."""

    def __init__(self, n_channels=32, n_receivers=8, device="auto", steer=(0.0, 90.0), throttle=True):
        gr.top_block.__init__(self, "phase_shift_demo")
        if not hasattr(beamform, "pfb_channelizer"):
            raise SystemExit("this beamform build has no pfb_channelizer block")
        spacing = SAMPLE_RATE / n_channels
        wavelength = 299792458.0 / CENTER_FREQ
        # Two rows along east, half a wavelength apart in a row, 0.7 wavelength
        # between the rows (so that azimuth and elevation are both resolved).
        per_row = max(1, n_receivers // 2)
        self.positions = [[0.5 * wavelength * (i % per_row), 0.7 * wavelength * (i // per_row), 0.0]
                          for i in range(n_receivers)]
        self.freqs = channel_frequencies(n_channels, CENTER_FREQ, SAMPLE_RATE)
        self.n_channels = n_channels

        self.source = beamform.array_source(
            self.positions, SAMPLE_RATE, CENTER_FREQ,
            [TARGET["az"], INTERFERER["az"]], [TARGET["el"], INTERFERER["el"]],
            [TARGET["channel"] * spacing, INTERFERER["channel"] * spacing],
            [1.0, 1.0], [], 1.0)
        self.throttle = blocks.throttle(gr.sizeof_gr_complex * n_receivers, SAMPLE_RATE)
        self.pfb = beamform.pfb_channelizer(
            n_channels=n_channels, taps=[], taps_per_branch=16, input_format=beamform.fc32,
            n_receivers=n_receivers, oversample=1, fft_shift=True, center_freq=CENTER_FREQ,
            sample_rate=SAMPLE_RATE, device=device)
        self.shift = beamform.phase_shift(n_channels, n_receivers, self.freqs, n_channels / SAMPLE_RATE,
                                          [], [], [], 0.0, device)
        self.shift.set_geometry(self.positions)
        self.shift.point_at(*steer)
        # Beam = sum over receivers of each channel, then |.|^2 averaged over 100 items.
        self.to_stream = blocks.vector_to_stream(gr.sizeof_gr_complex, n_channels * n_receivers)
        self.beam_sum = blocks.integrate_cc(n_receivers, 1)
        self.to_vector = blocks.stream_to_vector(gr.sizeof_gr_complex, n_channels)
        self.power = blocks.complex_to_mag_squared(n_channels)
        self.average = blocks.integrate_ff(100, n_channels)
        self.db = blocks.nlog10_ff(10, n_channels, -10 * np.log10(100))
        chain = [self.source] + ([self.throttle] if throttle else []) + [
            self.pfb, self.shift, self.to_stream, self.beam_sum, self.to_vector, self.power,
            self.average, self.db]
        self.connect(*chain)

    def point_at(self, azimuth, elevation):
        self.shift.point_at(azimuth, elevation)


def run_headless(args):
    """Beam power per channel, steered at the target and 40 degrees off it."""
    for label, steer in (("on target", (TARGET["az"], TARGET["el"])),
                         ("40 deg off", (TARGET["az"] + 40.0, TARGET["el"]))):
        tb = front_end(args.n_channels, args.n_receivers, args.device, steer, throttle=False)
        head = blocks.head(gr.sizeof_float * args.n_channels, 20)
        sink = blocks.vector_sink_f(args.n_channels)
        tb.connect(tb.db, head, sink)
        tb.run()
        db = np.array(sink.data()).reshape(-1, args.n_channels)[5:].mean(axis=0)
        target = args.n_channels // 2 + TARGET["channel"]
        interferer = args.n_channels // 2 + INTERFERER["channel"]
        print(f"{label:>11}: target channel {db[target]:6.1f} dB, interferer channel "
              f"{db[interferer]:6.1f} dB, median channel {np.median(db):6.1f} dB")


def run_gui(args):
    from PyQt5 import Qt
    from gnuradio import qtgui
    import sip

    app = Qt.QApplication(sys.argv)
    tb = front_end(args.n_channels, args.n_receivers, args.device, (TARGET["az"], TARGET["el"]))
    spacing = SAMPLE_RATE / args.n_channels
    sink = qtgui.vector_sink_f(args.n_channels, (CENTER_FREQ - SAMPLE_RATE / 2) / 1e6, spacing / 1e6,
                               "Sky frequency", "Beam power", "phase_shift demo: beam per channel", 1)
    sink.set_x_axis_units("MHz")
    sink.set_y_axis_units("dB")
    sink.set_y_axis(-20, 30)
    tb.connect(tb.db, sink)

    window = Qt.QWidget()
    window.setWindowTitle("gr-beamform phase_shift demo")
    layout = Qt.QVBoxLayout(window)
    layout.addWidget(sip.wrapinstance(sink.qwidget(), Qt.QWidget))
    for name, lo, hi, value in (("Azimuth", 0, 360, TARGET["az"]), ("Elevation", 0, 90, TARGET["el"])):
        row = Qt.QHBoxLayout()
        label = Qt.QLabel(f"{name}: {value:.0f} deg")
        slider = Qt.QSlider(Qt.Qt.Horizontal)
        slider.setRange(lo, hi)
        slider.setValue(int(value))
        row.addWidget(label)
        row.addWidget(slider)
        layout.addLayout(row)
        setattr(window, name.lower(), slider)
        slider.valueChanged.connect(lambda v, label=label, name=name: label.setText(f"{name}: {v} deg"))

    def steer(_):
        tb.point_at(float(window.azimuth.value()), float(window.elevation.value()))

    window.azimuth.valueChanged.connect(steer)
    window.elevation.valueChanged.connect(steer)
    window.show()
    tb.start()
    if args.seconds > 0:
        Qt.QTimer.singleShot(int(args.seconds * 1000), app.quit)
    app.exec_()
    tb.stop()
    tb.wait()


def parse_args(argv=None):
    parser = cli.parser(__doc__)
    parser.add_argument("--n-channels", type=cli.integer(20), default=32,
                        help="channels (the interferer sits 9 channels below the centre)")
    parser.add_argument("--n-receivers", type=cli.integer(2), default=8, help="receivers")
    parser.add_argument("--device", type=cli.device, default="auto",
                        help="auto (first GPU, else the CPU), cpu, cuda:N, hip:N")
    parser.add_argument("--headless", action="store_true",
                        help="run without GUI and print beam powers")
    parser.add_argument("--seconds", type=cli.number(0), default=0.0,
                        help="GUI: close the window after this many seconds (0: when closed)")
    return cli.parse(parser, argv)


def main(argv=None):
    args = parse_args(argv)
    if args.headless:
        run_headless(args)
    else:
        run_gui(args)


if __name__ == "__main__":
    main()
