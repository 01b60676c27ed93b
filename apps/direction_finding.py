#!/usr/bin/env python3
# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Direction finding with an SDR antenna array (docs/direction_finding.md).

    N coherent channels fc32: --source sim (simulated, default), file (an fc32
    recording, --input), soapy, osmosdr, uhd or kraken (a receiver, --args --freq
    --rate --gain --channels; live_sources.make_live_source)
      -> streams_to_vector [receivers]
      -> instrument phase offsets (simulation only: multiply_const_vcc with
         random per-receiver phases, as uncalibrated SDR channels have)
      -> phase_shift (gains = the calibration gains from the calibration file)
      -> tensor_beamformer (1 channel, one beam per scanned direction, power,
         integrated over --n-int samples)
      -> direction spectrum: a QT vector sink in dB (x axis in degrees), or,
         with --headless, the powers summed and the direction printed.
    --method capon|music: the calibrated samples' covariance -> Capon or MUSIC
    spectrum on the same grid (doa_estimators, numpy).

Two steps:
    direction_finding.py --calibrate        # a source at --cal-az/--cal-el -> calibration file
    direction_finding.py --calibrate noise  # a common noise source on every input -> file
    direction_finding.py                    # load it, scan, show / print the direction

Array: --array ula (elements along east, scanned in broadside angle = azimuth
from north, -90..90 deg at elevation 0), --array uca (azimuth x elevation grid),
or --positions FILE (east north [up] per line; az/el grid).
"""
import json
import os
import sys

import numpy as np
from gnuradio import analog, beamform, blocks, gr
from gnuradio.beamform import arrays, calibration, cli, live_sources
from gnuradio.beamform import doa_estimators as doa
from gnuradio.beamform import steering_helpers as sh

SPEED_OF_LIGHT = 299792458.0


# ---------------------------------------------------------------- geometry, grid
def array_positions(args):
    """(n, 3) ENU positions from the command line."""
    wavelength = SPEED_OF_LIGHT / sky_frequency(args)
    if args.positions:
        return arrays.load_positions(args.positions)
    if args.array == "ula":
        return arrays.ula(args.elements, args.spacing or wavelength / 2)
    return arrays.uca(args.elements, args.radius or 0.8 * wavelength)


def sky_frequency(args):
    """The signal's sky frequency: steering and calibration use it."""
    return args.center_freq + args.offset


def scan_axes(args):
    """(azimuths, elevations) of the scanned grid; elevations has one value in
    a 1-D (azimuth) scan."""
    scan = args.scan or ("azimuth" if (args.array == "ula" and not args.positions) else "azel")
    if scan == "azimuth":
        az_min, az_max = (-90.0, 90.0) if args.az_min is None else (args.az_min, args.az_max)
        return np.arange(az_min, az_max + args.az_step / 2, args.az_step), np.array([args.elevation])
    az_min, az_max = (0.0, 360.0 - args.az_step) if args.az_min is None else (args.az_min, args.az_max)
    az = np.arange(az_min, az_max + args.az_step / 2, args.az_step)
    el = np.arange(args.el_min, args.el_max + args.el_step / 2, args.el_step)
    return az, el


def instrument_phases(n, seed):
    """The simulated receivers' own phase offsets exp(i phi_a), phi_a uniform in
    [-pi, pi): an uncalibrated SDR array (LOs and cables)."""
    if seed < 0:
        return np.ones(n, np.complex64)
    phi = np.random.default_rng(seed).uniform(-np.pi, np.pi, n)
    return np.exp(1j * phi).astype(np.complex64)


# ---------------------------------------------------------------- estimation
def peak_direction(powers, azimuths, elevations):
    """Direction of the strongest cell of powers ([elevations][azimuths] or
    [azimuths]), refined along each axis by a parabola through it and its two
    neighbours in dB (doa_estimators.refine_peak). Returns (azimuth,
    elevation, peak index)."""
    p_db = 10 * np.log10(np.maximum(np.asarray(powers, float).reshape(len(elevations),
                                                                      len(azimuths)), 1e-30))
    e, a = np.unravel_index(int(np.argmax(p_db)), p_db.shape)
    az, el = doa.refine_peak(p_db, azimuths, elevations, int(e), int(a))
    return az, el, (int(e), int(a))


def array_pattern(positions, frequency, look_az_el, az_el):
    """Normalised power pattern |w(look)^H a(dir)|^2 / N^2 of the array steered
    to look_az_el, at the directions az_el (n, 2)."""
    w = sh.weights_for(positions, [frequency], az_el=[look_az_el])[0, 0]
    a = np.array([arrays.plane_wave_phases(positions, az, el, frequency) for az, el in az_el])
    return np.abs(a @ w) ** 2 / len(w) ** 2


def beam_width(positions, frequency, az, el, axis):
    """Half-power (-3 dB) full width in degrees of the array's main lobe
    steered to (az, el), along `axis` ("azimuth" or "elevation"), from the
    array pattern itself (so it holds for any geometry). Where the lobe does not
    fall to half power on one side before it rises again (e.g. towards the
    horizon for a horizontal array, whose pattern is mirrored there), twice the
    half width found on the other side; inf if neither side falls to half power
    within 90 degrees."""
    offsets = np.arange(0.01, 90.0, 0.01)
    half_widths = []
    for sign in (1, -1):
        if axis == "azimuth":
            dirs = np.stack([az + sign * offsets, np.full_like(offsets, el)], axis=1)
        else:
            dirs = np.stack([np.full_like(offsets, az), el + sign * offsets], axis=1)
            dirs = dirs[np.abs(dirs[:, 1]) <= 90.0]
        pattern = array_pattern(positions, frequency, (az, el), dirs)
        below = np.nonzero(pattern < 0.5)[0]
        rising = np.nonzero(np.diff(pattern) > 0)[0]  # past the lobe (e.g. its mirror image)
        if len(below) and (len(rising) == 0 or below[0] <= rising[0]):
            half_widths.append(offsets[below[0]])
    if not half_widths:
        return float("inf")
    return 2 * float(np.mean(half_widths))


# ---------------------------------------------------------------- flowgraph
def source_kind(args):
    """sim, file (--input), or a receiver kind of live_sources."""
    return args.source or ("file" if args.input else "sim")


def connect_raw_source(tb, args, positions, az, el, noise_calibration=False):
    """Connect the N coherent channels into tb; returns (source block, the
    block whose output 0 carries [receivers] vectors). Receivers and
    recordings: make_live_source's N streams -> streams_to_vector. Simulation:
    a tone from (az, el) (or, for the noise calibration, one noise source common
    to all receivers) plus receiver noise, then the instrument phases."""
    n = len(positions)
    kind = source_kind(args)
    if kind != "sim":
        src = live_sources.make_live_source(
            kind, args.input if kind == "file" else args.args, n, frequency=args.center_freq,
            sample_rate=args.sample_rate, gain=args.gain, clock_source=args.clock_source,
            time_source=args.time_source)
        to_vector = blocks.streams_to_vector(gr.sizeof_gr_complex, n)
        for k in range(n):
            tb.connect((src, k), (to_vector, k))
        return src, to_vector
    if noise_calibration:
        src = analog.noise_source_c(analog.GR_GAUSSIAN, 1.0, args.seed)
        fan_out = blocks.streams_to_vector(gr.sizeof_gr_complex, n)
        for k in range(n):
            tb.connect(src, (fan_out, k))
        receiver_noise = analog.noise_source_c(analog.GR_GAUSSIAN, max(args.noise, 1e-9),
                                               args.seed + 1)
        noise_vectors = blocks.stream_to_vector(gr.sizeof_gr_complex, n)
        signal = blocks.add_vcc(n)
        tb.connect(fan_out, (signal, 0))
        tb.connect(receiver_noise, noise_vectors, (signal, 1))
    else:
        src = signal = beamform.array_source(positions.tolist(), args.sample_rate,
                                             args.center_freq, [az], [el], [args.offset],
                                             [1.0], [], args.noise, beamform.fc32, 1.0,
                                             args.seed)
    instrument = blocks.multiply_const_vcc(instrument_phases(n, args.phase_seed).tolist())
    tb.connect(signal, instrument)
    return src, instrument


def record(args, positions, az, el, n_samples, noise_calibration=False):
    """n_samples raw array samples [time][receivers] from the source."""
    n = len(positions)
    tb = gr.top_block()
    _, tail = connect_raw_source(tb, args, positions, az, el, noise_calibration)
    head = blocks.head(gr.sizeof_gr_complex * n, n_samples)
    sink = blocks.vector_sink_c(n)
    tb.connect(tail, head, sink)
    tb.run()
    return np.array(sink.data(), np.complex64).reshape(-1, n)


def calibrate(args):
    positions = array_positions(args)
    n, f = len(positions), sky_frequency(args)
    if args.calibrate == "noise":
        samples = record(args, positions, 0.0, 0.0, args.cal_samples, noise_calibration=True)
        if len(samples) < n:
            raise RuntimeError(f"only {len(samples)} samples came from the source, fewer than "
                               f"the {n} receivers")
        gains, report = calibration.estimate_noise_gains(samples)
        calibration.save_gains(args.gains, gains, frequency=f, method="noise", receivers=n,
                               samples=len(samples), phase_std_deg=report["phase_std_deg"],
                               snr_db=report["snr_db"])
        print(f"calibrated {n} receivers on a common noise source from {len(samples)} samples "
              f"-> {args.gains}")
        if report["snr_db"] is not None:
            print("SNR per receiver (dB):", " ".join(f"{v:.1f}" for v in report["snr_db"]))
        print("predicted phase error (deg, 1 sigma):",
              " ".join(f"{v:.2f}" for v in report["phase_std_deg"]))
        if any(report["lags"]):
            print(f"warning: the receivers' cross-correlation peaks at lags {report['lags']} "
                  "samples, not 0: they do not sample together, and a phase per receiver "
                  "cannot correct that (align them first)", file=sys.stderr)
    else:
        samples = record(args, positions, args.cal_az, args.cal_el, args.cal_samples)
        gains = calibration.estimate_gains(samples, positions, args.cal_az, args.cal_el, f)
        calibration.save_gains(args.gains, gains, frequency=f, method="transmitter",
                               azimuth=args.cal_az, elevation=args.cal_el, receivers=n,
                               samples=len(samples))
        print(f"calibrated {n} receivers on a source at az {args.cal_az:.2f} "
              f"el {args.cal_el:.2f} deg from {len(samples)} samples -> {args.gains}")
    print("gain phases (deg):", " ".join(f"{v:.1f}" for v in np.degrees(np.angle(gains))))
    return gains


def load_calibration(args, n):
    """Gains from the calibration file, or ones (with a note) when there is
    none or --no-calibration is given. The receiver count was checked by
    parse_args."""
    if args.no_calibration:
        return np.ones(n, np.complex64)
    if not os.path.exists(args.gains):
        print(f"note: no calibration file {args.gains}: running uncalibrated "
              "(make one with --calibrate)", file=sys.stderr)
        return np.ones(n, np.complex64)
    gains, meta = calibration.load_gains(args.gains)
    if "frequency" in meta and abs(meta["frequency"] - sky_frequency(args)) > 1e-6 * meta["frequency"]:
        print(f"warning: gains were measured at {meta['frequency']:.6g} Hz, scanning at "
              f"{sky_frequency(args):.6g} Hz", file=sys.stderr)
    return gains


class power_accumulator(gr.sync_block):
    """Headless sink of the beamformer's power items [beams]: their sum (in
    double) and how many there were. Keeping every item instead (a vector
    sink) cost more than the beamformer at 2.4 MS/s: 9375 items of 360 floats
    a second to store, then to convert to Python floats at the end."""

    def __init__(self, n_beams):
        gr.sync_block.__init__(self, "power_accumulator",
                               in_sig=[(np.float32, n_beams)], out_sig=None)
        self.sum = np.zeros(n_beams)
        self.items = 0

    def work(self, input_items, output_items):
        powers = input_items[0]
        self.sum += powers.sum(axis=0, dtype=np.float64)
        self.items += len(powers)
        return len(powers)


class direction_finder(gr.top_block):
    """The run-mode flowgraph. self.powers_sink (headless, a power_accumulator)
    sums the beam powers; in GUI mode self.gui_widgets holds the QT widgets."""

    def __init__(self, args, gui=False):
        gr.top_block.__init__(self, "Direction finding", catch_exceptions=True)
        self.args = args
        self.positions = array_positions(args)
        n = len(self.positions)
        self.azimuths, self.elevations = scan_axes(args)
        self.grid = sh.az_el_grid(self.azimuths, self.elevations)  # azimuth fastest
        self.gains = load_calibration(args, n)
        f = sky_frequency(args)

        self.source, tail = connect_raw_source(self, args, self.positions, args.source_az,
                                               args.source_el)
        blocks_in_order = [tail]
        if gui and source_kind(args) == "sim":
            blocks_in_order.append(blocks.throttle(gr.sizeof_gr_complex * n, args.sample_rate))
        if args.samples:
            blocks_in_order.append(blocks.head(gr.sizeof_gr_complex * n, args.samples))
        self.calibrate_block = beamform.phase_shift(1, n, [f], 1.0 / args.sample_rate, [], [],
                                                    self.gains.tolist(), 0.0, args.device)
        self.beamformer = sh.steered_beamformer(self.positions, [f], az_el=self.grid,
                                                output=beamform.beam_output.power,
                                                n_int=args.n_int, device=args.device)
        blocks_in_order += [self.calibrate_block, self.beamformer]
        self.connect(*blocks_in_order)
        # Capon and MUSIC: the calibrated samples' covariance (doa_estimators);
        # the GUI shows every method's estimate.
        self.snapshots = None
        if gui or args.method != "scan":
            self.snapshots = blocks.vector_sink_c(n)
            if gui:  # about --snapshots samples per 0.5 s update, evenly spread
                keep = blocks.keep_one_in_n(gr.sizeof_gr_complex * n,
                                            max(1, int(args.sample_rate * 0.5 / args.snapshots)))
                self.connect(self.calibrate_block, keep, self.snapshots)
            else:
                self.connect(self.calibrate_block, self.snapshots)
            self.responses = doa.response_vectors(self.positions, f, self.grid)

        n_beams = len(self.grid)
        if not gui:
            self.powers_sink = power_accumulator(n_beams)
            self.connect(self.beamformer, self.powers_sink)
            return
        from gnuradio import qtgui
        import sip
        from PyQt5 import Qt

        to_db = cli.size_host_buffers(blocks.nlog10_ff(10, n_beams, 0), 4 * n_beams)
        n_az, n_el = len(self.azimuths), len(self.elevations)
        az_step = self.azimuths[1] - self.azimuths[0] if n_az > 1 else 1.0
        self.spectrum = qtgui.vector_sink_f(n_az, float(self.azimuths[0]), float(az_step),
                                            "azimuth (deg)" if n_el > 1 or args.positions or
                                            args.array != "ula" else "broadside angle = azimuth (deg)",
                                            "beam power (dB)", "Direction spectrum", n_el)
        self.spectrum.set_update_time(0.2)
        self.spectrum.enable_autoscale(True)
        for k, el in enumerate(self.elevations):
            self.spectrum.set_line_label(k, f"el {el:g} deg")
        self.connect(self.beamformer, to_db)
        if n_el == 1:
            self.connect(to_db, self.spectrum)
        else:  # [elevations][azimuths] -> one azimuth cut per elevation
            split = cli.size_host_buffers(blocks.vector_to_streams(gr.sizeof_float * n_az, n_el),
                                          4 * n_az)
            self.connect(to_db, split)
            for k in range(n_el):
                self.connect((split, k), (self.spectrum, k))
        # The estimate as a number, from the latest beam powers (update_estimate).
        self.latest = blocks.probe_signal_vf(n_beams)
        self.connect(self.beamformer, self.latest)
        self.estimate_label = Qt.QLabel("direction: waiting for the first beam powers")
        font = self.estimate_label.font()
        font.setPointSize(font.pointSize() + 4)
        self.estimate_label.setFont(font)
        self.gui_widgets = [self.estimate_label,
                            sip.wrapinstance(self.spectrum.qwidget(), Qt.QWidget)]

    def _direction_text(self, az, el):
        if len(self.elevations) > 1:
            return f"azimuth {az:.1f} deg, elevation {el:.1f} deg"
        return f"azimuth {az:.1f} deg (elevation {el:g} deg scanned)"

    def update_estimate(self):
        """Show the direction of the latest beam powers, and Capon's and (with
        --sources) MUSIC's from the samples since the last call (GUI);
        returns the text."""
        powers = np.array(self.latest.level(), float)
        if len(powers) != len(self.grid) or not np.any(powers > 0):
            return self.estimate_label.text()
        az, el, _ = peak_direction(powers, self.azimuths, self.elevations)
        lines = [f"direction: {self._direction_text(az, el)} by beam scan"]
        x = self.take_snapshots()
        if len(x) >= 2 * len(self.positions):
            covariance = doa.spatial_covariance(x)
            methods = [("capon", "Capon")] + ([("music", "MUSIC")] if self.args.sources else [])
            for method, name in methods:
                p = self.method_spectrum(method, covariance)
                peaks = doa.spectrum_peaks(p, self.azimuths, self.elevations,
                                           self.args.sources or 1)
                peaks = [self.fine_peak(method, covariance, a, e) for a, e, _ in peaks]
                lines.append(f"{name}: " + "; ".join(self._direction_text(a, e)
                                                     for a, e in peaks))
        text = "\n".join(lines)
        self.estimate_label.setText(text)
        return text

    def take_snapshots(self):
        """The calibrated samples [time][receivers] collected since the last
        call (at most the last --snapshots of them), and forget them."""
        data = np.array(self.snapshots.data(), np.complex64)
        self.snapshots.reset()
        return data.reshape(-1, len(self.positions))[-self.args.snapshots:]

    def method_spectrum(self, method, covariance):
        """Spectrum [elevations][azimuths] of Capon or MUSIC from a covariance."""
        p = doa.spectrum(method, covariance, self.responses, n_sources=self.args.sources,
                         loading=self.args.loading)
        return p.reshape(len(self.elevations), len(self.azimuths))

    def direction(self):
        """(azimuth, elevation, spectrum [elevations][azimuths]) of --method
        from everything collected (headless): the beam powers summed (scan),
        or the covariance of all calibrated samples (capon, music)."""
        if self.powers_sink.items == 0:
            raise RuntimeError("no beam powers came out: give more --samples than --n-int")
        powers = self.powers_sink.sum.reshape(len(self.elevations), len(self.azimuths))
        if self.args.method == "scan":
            az, el, _ = peak_direction(powers, self.azimuths, self.elevations)
            return az, el, powers
        x = np.array(self.snapshots.data(), np.complex64).reshape(-1, len(self.positions))
        self.covariance = doa.spatial_covariance(x)
        powers = self.method_spectrum(self.args.method, self.covariance)
        az, el, _ = peak_direction(powers, self.azimuths, self.elevations)
        az, el = self.fine_peak(self.args.method, self.covariance, az, el)
        return az, el, powers

    def fine_peak(self, method, covariance, az, el):
        """(az, el) of a Capon or MUSIC peak found on the scan grid, refined on a
        grid 20 times finer around it (doa_estimators.refine_on_fine_grid)."""
        f = sky_frequency(self.args)

        def spectrum_at(az_el):
            a = doa.response_vectors(self.positions, f, az_el)
            return doa.spectrum(method, covariance, a, self.args.sources, self.args.loading)
        az_step = self.azimuths[1] - self.azimuths[0] if len(self.azimuths) > 1 else 1.0
        el_step = self.elevations[1] - self.elevations[0] if len(self.elevations) > 1 else None
        az, el = doa.refine_on_fine_grid(spectrum_at, az, el, az_step, el_step)
        return (az % 360.0 if doa._full_circle(self.azimuths) else az), el


def run_headless(args):
    tb = direction_finder(args)
    tb.run()
    az, el, powers = tb.direction()
    f = sky_frequency(args)
    scan_1d = len(tb.elevations) == 1
    width_az = beam_width(tb.positions, f, az, el, "azimuth")
    result = dict(method=args.method, azimuth=az, elevation=el, beam_width_azimuth=width_az,
                  peak_to_mean_db=float(10 * np.log10(powers.max() / powers.mean())),
                  integrations=tb.powers_sink.items,
                  device=tb.beamformer.device())
    if not scan_1d:
        result["beam_width_elevation"] = beam_width(tb.positions, f, az, el, "elevation")
    if args.sources:
        result["sources"] = []
        for a, e, db in doa.spectrum_peaks(powers, tb.azimuths, tb.elevations, args.sources):
            if args.method != "scan":
                a, e = tb.fine_peak(args.method, tb.covariance, a, e)
            result["sources"].append(dict(azimuth=a, elevation=e, level_db=db))
    if source_kind(args) == "sim":
        result["true_azimuth"], result["true_elevation"] = args.source_az, args.source_el
    if scan_1d:
        print(f"direction: azimuth {az:.2f} deg (elevation {el:g} deg scanned), "
              f"beam width {width_az:.2f} deg")
    else:
        print(f"direction: azimuth {az:.2f} deg, elevation {el:.2f} deg, beam width "
              f"{width_az:.2f} deg (az) x {result['beam_width_elevation']:.2f} deg (el)")
    if args.sources:
        print(f"{args.sources} strongest peaks ({args.method}): " + "; ".join(
            f"az {p['azimuth']:.2f} el {p['elevation']:.2f} deg ({p['level_db']:.1f} dB)"
            for p in result["sources"]))
    print("result:", json.dumps(result))
    return result


def run_gui(args):
    from PyQt5 import Qt
    import signal

    qapp = Qt.QApplication.instance() or Qt.QApplication(sys.argv)
    tb = direction_finder(args, gui=True)
    window = Qt.QWidget()
    window.setWindowTitle("Direction finding")
    layout = Qt.QVBoxLayout(window)
    for w in tb.gui_widgets:
        layout.addWidget(w)
    window.show()
    tb.start()

    def stop(*_):
        tb.stop()
        tb.wait()
        Qt.QApplication.quit()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    timer = Qt.QTimer()
    timer.start(500)
    timer.timeout.connect(tb.update_estimate)
    qapp.exec_()
    tb.stop()
    tb.wait()


def build_parser():
    p = cli.parser(__doc__)
    g = p.add_argument_group("array")
    g.add_argument("--array", choices=["ula", "uca"], default="ula",
                   help="uniform linear (along east) or circular array")
    g.add_argument("--elements", type=cli.integer(2), default=8, help="receivers (ula, uca)")
    g.add_argument("--spacing", type=cli.number(0, low_open=True), default=None,
                   help="ULA element spacing in m (default half a wavelength)")
    g.add_argument("--radius", type=cli.number(0, low_open=True), default=None,
                   help="UCA radius in m (default 0.8 wavelengths)")
    g.add_argument("--positions", type=cli.existing_file, default=None,
                   help="file of positions, 'east north [up]' metres per line (overrides --array)")
    g = p.add_argument_group("receiver")
    g.add_argument("--source", choices=["sim", "file"] + list(live_sources.RECEIVERS),
                   default=None, help="sim: simulated array (default); file: the --input "
                   "recording; soapy, osmosdr, uhd, kraken: a receiver with --channels coherent "
                   "channels (docs/direction_finding.md has the recipes)")
    g.add_argument("--args", default="",
                   help="device string of the receiver, e.g. 'driver=uhd,type=b200' (soapy), "
                   "'rtl=0 rtl=1' (osmosdr), 'type=b200' (uhd), host:port of the DAQ's IQ "
                   "server (kraken)")
    g.add_argument("--channels", type=cli.integer(1), default=None,
                   help="receiver channels; must equal the array's elements (default: equal)")
    g.add_argument("--gain", type=cli.number(), default=None,
                   help="receiver gain, dB, every channel (default: the driver's automatic gain)")
    g.add_argument("--clock-source", choices=["internal", "external", "gpsdo", "mimo"],
                   default="internal", help="uhd: 10 MHz reference")
    g.add_argument("--time-source", choices=["internal", "external", "gpsdo", "mimo"],
                   default="internal", help="uhd: PPS (timed tune and streaming start)")
    g = p.add_argument_group("signal")
    g.add_argument("--center-freq", "--freq", dest="center_freq",
                   type=cli.number(0, low_open=True), default=433.92e6,
                   help="tuned frequency, Hz")
    g.add_argument("--offset", type=float, default=10e3,
                   help="signal offset from the tuned frequency, Hz (steering and calibration "
                   "use center-freq + offset)")
    g.add_argument("--sample-rate", "--rate", dest="sample_rate", type=cli.number(0, low_open=True),
                   default=1e6, help="Hz")
    g.add_argument("--input", type=cli.existing_file, default=None,
                   help="raw fc32 recording [time][receivers] instead of the simulation (its "
                   "size must be a multiple of 8 bytes x the array's receivers)")
    g = p.add_argument_group("simulation")
    g.add_argument("--source-az", type=float, default=23.4, help="simulated source azimuth, deg")
    g.add_argument("--source-el", type=cli.number(-90, 90), default=0.0,
                   help="simulated source elevation, deg")
    g.add_argument("--noise", type=cli.number(0), default=0.3,
                   help="noise RMS per receiver (tone: 1)")
    g.add_argument("--seed", type=int, default=1, help="noise seed")
    g.add_argument("--phase-seed", type=cli.integer(-1), default=7,
                   help="seed of the receivers' random phase offsets; -1: none")
    g = p.add_argument_group("calibration")
    g.add_argument("--calibrate", nargs="?", const="transmitter", default=None,
                   choices=["transmitter", "noise"],
                   help="record, estimate and save the gains, exit: 'transmitter' (alone: "
                   "--calibrate) a source at --cal-az/--cal-el; 'noise' one noise source "
                   "split to every input")
    g.add_argument("--cal-az", type=float, default=-40.0, help="calibration source azimuth, deg")
    g.add_argument("--cal-el", type=cli.number(-90, 90), default=0.0,
                   help="calibration source elevation, deg")
    g.add_argument("--cal-samples", type=cli.integer(2), default=4096,
                   help="samples recorded for the calibration")
    g.add_argument("--calibration", "--gains", dest="gains", default="direction_finding_gains.json",
                   help="calibration file (JSON gains): written by --calibrate, applied otherwise")
    g.add_argument("--no-calibration", action="store_true", help="ignore the gains file")
    g = p.add_argument_group("scan")
    g.add_argument("--scan", choices=["azimuth", "azel"], default=None,
                   help="1-D azimuth scan at --elevation (default for ula) or az x el grid")
    g.add_argument("--az-min", type=float, default=None,
                   help="default -90 (azimuth scan) or 0 (azel)")
    g.add_argument("--az-max", type=float, default=None,
                   help="default 90 (azimuth scan) or 360 - az-step (azel)")
    g.add_argument("--az-step", type=cli.number(0, low_open=True), default=1.0,
                   help="azimuth step, deg")
    g.add_argument("--elevation", type=cli.number(-90, 90), default=0.0,
                   help="elevation of the 1-D scan, deg")
    g.add_argument("--el-min", type=cli.number(-90, 90), default=0.0, help="deg")
    g.add_argument("--el-max", type=cli.number(-90, 90), default=80.0, help="deg")
    g.add_argument("--el-step", type=cli.number(0, low_open=True), default=10.0, help="deg")
    g = p.add_argument_group("estimator")
    g.add_argument("--method", choices=["scan", "capon", "music"], default="scan",
                   help="scan: beam powers (tensor_beamformer); capon (MVDR) or music: from the "
                   "calibrated samples' covariance (the GUI shows all of them)")
    g.add_argument("--sources", type=cli.integer(1), default=None,
                   help="number of sources K: MUSIC's signal subspace (needed for music, "
                   "1 .. elements - 1); with scan or capon, report the K strongest peaks")
    g.add_argument("--loading", type=cli.number(0), default=doa.DEFAULT_LOADING,
                   help="Capon's diagonal loading, a fraction of the mean receiver power")
    g.add_argument("--snapshots", type=cli.integer(2), default=8192,
                   help="GUI: samples per Capon/MUSIC update (every 0.5 s; the samples are "
                   "thinned evenly to about this many)")
    g = p.add_argument_group("processing")
    g.add_argument("--n-int", type=cli.integer(1), default=256,
                   help="samples integrated per power output")
    g.add_argument("--samples", type=cli.integer(1), default=None,
                   help="samples to process (default: 16384 headless, unbounded in the GUI)")
    g.add_argument("--device", type=cli.device, default="auto",
                   help="auto (first GPU, else the CPU), cpu, cuda:N, hip:N")
    g.add_argument("--headless", action="store_true", help="no GUI: print the direction")
    return p


def parse_args(argv=None):
    p = build_parser()
    args = cli.parse(p, argv)
    if (args.az_min is None) != (args.az_max is None):
        p.error("argument --az-min/--az-max: give both or neither")
    if args.az_min is not None and args.az_min > args.az_max:
        p.error(f"argument --az-min: must be <= --az-max ({args.az_max}), got {args.az_min}")
    if args.el_min > args.el_max:
        p.error(f"argument --el-min: must be <= --el-max ({args.el_max}), got {args.el_min}")
    if args.headless and args.samples is None:
        args.samples = 16384
    if args.samples is not None and args.samples < args.n_int and not args.calibrate:
        p.error(f"argument --samples: must be >= --n-int ({args.n_int}) for one power output, "
                f"got {args.samples}")
    if not (args.headless or args.calibrate) and len(scan_axes(args)[1]) > 10:
        p.error(f"argument --el-step: the GUI draws at most 10 elevation cuts, the grid has "
                f"{len(scan_axes(args)[1])} (raise --el-step or narrow --el-min/--el-max)")
    try:
        n = len(array_positions(args))
    except (OSError, ValueError) as e:
        p.error(f"argument --positions: {e}")
    check_receiver(p, args, n)
    if args.input:
        items = cli.check_recording(p, "--input", args.input, n, 8, "fc32",
                                    min_items=n if args.calibrate else args.n_int)
        print(f"--input: {args.input}: {items} samples of {n} receivers", file=sys.stderr)
    check_estimator(p, args, n)
    if not args.calibrate and not args.no_calibration and os.path.exists(args.gains):
        try:
            gains, meta = calibration.load_gains(args.gains)
        except (OSError, ValueError) as e:
            p.error(f"argument --calibration/--gains: {e}")
        if len(gains) != n:
            p.error(f"argument --calibration/--gains: {args.gains} holds gains for {len(gains)} "
                    f"receivers, the array has {n}: calibrate this array (--calibrate) or give "
                    "its file")
    return args


def check_receiver(p, args, n):
    """--source, --input, --args and --channels agree with each other and the array."""
    kind = source_kind(args)
    if kind == "file" and not args.input:
        p.error("argument --source: 'file' needs the recording as --input FILE")
    if args.input and kind != "file":
        p.error(f"argument --input: a recording is read with --source file, got --source {kind}")
    receiver = kind in live_sources.RECEIVERS
    for option, given in (("--args", args.args), ("--gain", args.gain is not None),
                          ("--clock-source", args.clock_source != "internal"),
                          ("--time-source", args.time_source != "internal")):
        if given and not receiver:
            p.error(f"argument {option}: applies to a receiver (--source soapy, osmosdr, uhd "
                    f"or kraken), not to --source {kind}")
    for option, given in (("--clock-source", args.clock_source != "internal"),
                          ("--time-source", args.time_source != "internal")):
        if given and kind != "uhd":
            p.error(f"argument {option}: applies to --source uhd only, got --source {kind}")
    if receiver and not args.args:
        p.error(f"argument --args: --source {kind} needs the receiver's device string "
                "(e.g. 'type=b200' for uhd)")
    if args.channels is not None and args.channels != n:
        p.error(f"argument --channels: must equal the array's {n} elements (--elements or "
                f"--positions), got {args.channels}")


def check_estimator(p, args, n):
    if args.method == "music" and args.sources is None:
        p.error(f"argument --sources: --method music needs the number of sources, an integer "
                f"from 1 to {n - 1} (the array's elements - 1)")
    if args.sources is not None and args.sources >= n:
        p.error(f"argument --sources: must be an integer from 1 to {n - 1} (the array's "
                f"elements - 1), got {args.sources}")


def main(argv=None):
    args = parse_args(argv)
    try:
        if args.calibrate:
            calibrate(args)
        elif args.headless:
            run_headless(args)
        else:
            run_gui(args)
    except live_sources.SourceError as e:  # the receiver could not be opened: a usage error
        build_parser().error(f"argument {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
