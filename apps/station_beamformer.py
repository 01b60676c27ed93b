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
from gnuradio.beamform import antenna_positions, beam_list, cli, steering_helpers, tracking
from gnuradio.beamform.guppi_raw import GuppiRawFile
from gnuradio.beamform.sigmf_array import read_sigmf_array

C = beamform.speed_of_light
UNIX_EPOCH_MJD = 40587.0
SIMULATED_TSTART_MJD = 61000.0
RFI_AMPLITUDE = 5.0  # --inject-rfi's carrier, volts (the default noise is 1 V rms)
# Bytes of one raw sample of one receiver, by sample format.
RAW_BYTES = {"sc8": 2, "sc16": 4, "fc32": 8}
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
    """(l, m) of every beam at the start, shape (beams, 2): the beams of a --beams
    file (with --track where the delay model puts them at the start: RA/Dec
    beams follow the sky, azel and lm beams stay where they are in the station
    frame) or the square grid around the phase centre (with --track: fixed
    offsets around the tracked centre, which move with it)."""
    if args.beam_list is not None:
        if args.track_model is not None:
            return np.array(args.track_start.beams_lm)
        return np.array([beam_list.beam_lm(b) for b in args.beam_list])
    centre = args.track_centre_lm if args.track_model is not None else (args.field_l, args.field_m)
    return beam_grid(args.beams_per_side, centre, args.field_half_width)


def ra_dec_of(model, az_el, unix):
    """ICRS (RA, Dec) degrees of observed directions (az, el) degrees at one UNIX
    time, the inverse of the model's RA/Dec -> az/el (erfa.atoc13 with the same
    Earth orientation, no refraction)."""
    import erfa
    jd1, jd2, _ = tracking.as_unix_seconds(float(unix))
    dut1, xp, yp = model.earth.at(jd1, jd2)
    az_el = np.radians(np.asarray(az_el, float).reshape(-1, 2))
    site = model.site
    ra, dec = erfa.atoc13("A", az_el[:, 0], np.pi / 2 - az_el[:, 1], jd1, jd2, dut1,
                          math.radians(site.longitude_deg), math.radians(site.latitude_deg),
                          site.height_m, xp, yp, model.pressure_hpa, model.temperature_c,
                          model.relative_humidity, 1.0e4)
    return np.stack([np.degrees(ra) % 360.0, np.degrees(dec)], axis=1)


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
        if args.input_kind == "guppi":  # channelized already: the file's channels, its order
            self.frequencies = args.recording.channel_frequencies()
            self.channel_spacing = abs(float(self.frequencies[1] - self.frequencies[0]))
        else:
            self.channel_spacing = args.sample_rate / self.n_ch
            self.frequencies = steering_helpers.channel_frequencies(
                args.center_freq, self.n_ch, sample_rate=args.sample_rate)
        self.tracked = args.track_model is not None
        self.centre_lm = args.track_centre_lm if self.tracked else (args.field_l, args.field_m)
        self.centre_az_el = (tuple(args.track_start.centre_az_el) if self.tracked
                             else lm_to_az_el(*self.centre_lm))
        self.beams_lm = beam_pointing(args)
        self.n_beams = len(self.beams_lm)
        # RA/Dec at the start of every beam and of the phase centre (tracked runs only).
        self.beams_ra_dec = self.centre_ra_dec = None
        if self.tracked:
            model, t0 = args.track_model, args.track_start_unix
            self.beams_ra_dec = ra_dec_of(model, [lm_to_az_el(l, m) for l, m in self.beams_lm], t0)
            for k, b in enumerate(model.beams):
                if b.kind == "radec":  # exactly the listed ones
                    self.beams_ra_dec[k] = b.a, b.b
            self.centre_ra_dec = (model.phase_centre.a, model.phase_centre.b)
        self.sources = [dict(zip(("l", "m", "channel", "amplitude"), s)) for s in args.source]
        self.out_dir = args.out
        self.incoherent = self.incoherent_sink = None
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
        """The input: the recording (--input: a plain sc16 file, SigMF raw samples,
        or GUPPI RAW spectra; checked against the receivers by parse_args) or the
        simulated sky."""
        a = self.args
        if a.input_kind == "sc16":
            return blocks.file_source(4 * self.n_rx, a.input, False)
        if a.input_kind == "sigmf":
            return beamform.sigmf_array_source(a.input, self.n_rx, a.recording.item_format)
        if a.input_kind == "guppi":
            return beamform.guppi_raw_source(a.input, self.n_ch, self.n_rx)
        tones_x, tones_y = [], []
        if a.inject_rfi is not None:  # a strong carrier low in the east, on every receiver
            k = a.inject_rfi
            offset = (k if k < self.n_ch // 2 else k - self.n_ch) * self.channel_spacing
            tones_x.append((90.0, 10.0, offset, RFI_AMPLITUDE, 0.0))
            tones_y.append((90.0, 10.0, offset, RFI_AMPLITUDE, 0.0))
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
        a = self.args
        front = self.front_chain(a.device)
        self.prepare_outputs(a.prefix)
        self.beamformer, self.sink = self.beam_chain(range(self.n_ch), a.device,
                                                     self.out_dir, a.prefix)
        tb.connect(*front, self.beamformer, *self.stokes_convention(range(self.n_ch)),
                   self.sink)
        if self.tracked:
            # The tracker counts host-side items beside the head (raw samples, or
            # GUPPI spectra): a Python block reads host buffers, and on a GPU the
            # channelized stream stays in device memory.
            tb.connect(self.source, *self.tap, self.tracker)
            tb.msg_connect(self.tracker, "delays", self.phase, "delays")
            if a.track_model.beams:
                self.beamformer.set_geometry(self.positions.tolist(),
                                             [float(f) for f in self.frequencies])
                tb.msg_connect(self.tracker, "pointing", self.beamformer, "pointing")
        if a.incoherent:
            self.incoherent, self.incoherent_sink, chain = self.incoherent_chain(a.device)
            tb.connect(front[-1], self.incoherent, *chain, self.incoherent_sink)
        if a.gui:
            self._add_gui(tb)
        return tb

    def incoherent_chain(self, device):
        """incoherent_beam on the spectra the beamformer gets (after the flagger
        with --rfi) -> its own filterbank file, <prefix>_incoherent_beam0000.fil,
        one beam at the phase centre; the Stokes V sign as for the beams."""
        a = self.args
        beam = beamform.incoherent_beam(
            self.n_ch, self.n_rx, a.n_int,
            beamform.polarization_layout.xy_pairs if self.n_pol == 2
            else beamform.polarization_layout.single,
            beamform.stokes_mode.IQUV if self.n_stokes == 4 else beamform.stokes_mode.I,
            device, 0)
        sink = self.filterbank_sink(range(self.n_ch), self.out_dir, a.prefix + "_incoherent",
                                    beams_az_el=[self.centre_az_el],
                                    beams_ra_dec=None if self.centre_ra_dec is None
                                    else [self.centre_ra_dec])
        chain = []
        sign = V_SIGN[a.stokes_v_convention]
        if self.n_stokes == 4 and sign != 1.0:
            self.incoherent_v_sign = blocks.multiply_const_vff([1.0] * (3 * self.n_ch)
                                                               + [sign] * self.n_ch)
            chain = [self.incoherent_v_sign]
        return beam, sink, chain

    def prepare_outputs(self, prefix):
        """Create the output folder and remove an earlier run's <prefix>_beamNNNN.fil
        and <prefix>_incoherent_beamNNNN.fil files there (saying how many), so that
        a new run's files do not mix with them."""
        os.makedirs(self.out_dir, exist_ok=True)
        cli.clean_outputs(self.out_dir, re.escape(prefix) + r"(_incoherent)?_beam\d{4}\.fil",
                          log=lambda text: print(text, file=sys.stderr))

    def front_chain(self, device):
        """source -> head -> convert -> pfb_channelizer [-> rfi_flagger] -> phase_shift,
        not yet connected (a GUPPI RAW recording: source -> head [-> rfi_flagger]
        -> phase_shift, its spectra need no channelizer; fc32 SigMF needs no convert).
        Its output items are spectra [channel][receiver] complex, pointed at the
        phase centre (with --track: a delay_tracker, self.tracker, to be connected
        beside the head through self.tap, keeps it on the target)."""
        a = self.args
        # Kept in self: a Python source (GUPPI RAW, SigMF) must outlive the run.
        self.source = self._source_block()
        chain = [self.source]
        self.convert = self.pfb = self.flagger = self.tracker = None
        self.tap = []
        if a.input_kind == "guppi":
            self.head = blocks.head(8 * self.n_ch * self.n_rx, a.spectra)
            chain.append(self.head)
            # The tracker's tap: one spectrum in n_int.
            tap_item, tap_rate, tap_keep = 8 * self.n_ch * self.n_rx, a.sample_rate / self.n_ch, \
                a.n_int
        else:
            n_in = a.spectra * self.n_ch  # raw samples per receiver
            fmt = a.recording.item_format if a.input_kind == "sigmf" else "sc16"
            self.head = blocks.head(RAW_BYTES[fmt] * self.n_rx, n_in)
            chain.append(self.head)
            if fmt != "fc32":
                self.convert = beamform.convert(getattr(beamform, fmt), self.n_rx,
                                                [1.0 / a.adc_scale], device)
                chain.append(self.convert)
            self.pfb = beamform.pfb_channelizer(self.n_ch, [], a.taps, beamform.fc32,
                                                self.n_rx, 1, False, a.center_freq,
                                                a.sample_rate, device)
            chain.append(self.pfb)
            # The tracker's tap: raw sample n C, where spectrum n starts.
            tap_item, tap_rate, tap_keep = RAW_BYTES[fmt] * self.n_rx, a.sample_rate, self.n_ch
        if a.rfi:
            self.flagger = beamform.rfi_flagger(self.n_ch, self.n_rx, a.rfi_block_size,
                                                a.rfi_pfa, 0.0, a.rfi_replace, a.seed, device, 0)
            chain.append(self.flagger)
        item_period = self.n_ch / a.sample_rate
        if self.tracked:
            # The phase centre follows the target: delays and rates from the model,
            # updated every --track-interval s of stream time (docs/tracking.md).
            # The tracker (a Python block) reads a host stream: one item in tap_keep
            # of the source's output, as many as the head passes. Not the head's
            # output: GNU Radio gives an output buffer one transfer type, and a head
            # feeding a GPU block cannot feed a host block too.
            self.tap = [blocks.keep_one_in_n(tap_item, tap_keep),
                        blocks.head(tap_item, a.spectra * (self.n_ch if a.input_kind != "guppi"
                                                           else 1) // tap_keep)]
            self.tracker = beamform.delay_tracker(
                a.track_model, tap_item, tap_rate / tap_keep, start_time=a.track_start_unix,
                interval_s=a.track_interval, pointing_mode="offset_lm")
            init = self.tracker.initial_delays()
            self.phase = beamform.phase_shift(self.n_ch, self.n_rx, list(self.frequencies),
                                              item_period, init["delays"], init["rates"], [],
                                              init["t0"], device)
        else:
            # Point the station at the field centre: delays are the geometric delays.
            delays = beamform.geometric_delays(self.positions, *self.centre_az_el)
            self.phase = beamform.phase_shift(self.n_ch, self.n_rx, list(self.frequencies),
                                              item_period, list(delays), [], [], 0.0, device)
        chain.append(self.phase)
        return chain

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

    def filterbank_sink(self, channels, out_dir, prefix, beams_az_el=None, beams_ra_dec=None):
        """One SIGPROC file per beam (<prefix>_beamNNNN.fil) over the given channels;
        by default the beams of the station (az/el, and with --track RA/Dec, at
        the start)."""
        a = self.args
        frequencies = [float(self.frequencies[c]) for c in channels]
        if beams_az_el is None:
            beams_az_el = [lm_to_az_el(l, m) for l, m in self.beams_lm]
            beams_ra_dec = self.beams_ra_dec
        # tstart: the rx_time tag of the simulated stream or of a GUPPI/SigMF
        # recording; without one (a plain recording) the --tstart-mjd that
        # parse_args demands with --input.
        extra = {}
        if beams_ra_dec is not None:  # src_raj / src_dej in the headers
            extra["beam_ra_dec"] = [float(v) for pair in beams_ra_dec for v in pair]
        return beamform.filterbank_sink(
            out_dir, prefix, len(beams_az_el), len(frequencies), self.n_stokes, frequencies,
            a.n_int * self.n_ch / a.sample_rate, a.source_name,
            [float(v) for pair in beams_az_el for v in pair], a.tstart_mjd,
            a.telescope_id, a.machine_id, **extra)

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
        for sink in (self.sink, self.incoherent_sink):
            if sink is not None and sink.error():  # a write error ended the flowgraph early
                raise RuntimeError(f"filterbank files incomplete ({sink.items_written()} "
                                   f"of {total} spectra written): {sink.error()}")
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
            device=self.phase.device(),
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
    p.add_argument("--center-freq", type=cli.number(0, low_open=True),
                   help="sky frequency of the band centre, Hz (default 150e6; a SigMF or "
                   "GUPPI RAW --input sets it)")
    p.add_argument("--sample-rate", type=cli.number(0, low_open=True),
                   help="Hz (default 10e6; a SigMF or GUPPI RAW --input sets it)")
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
    p.add_argument("--pol", choices=("single", "dual"),
                   help="receivers per antenna: single, or dual (X, Y: receivers 2k and "
                   "2k+1 of antenna k, beams in Stokes; default single, or a GUPPI RAW "
                   "--input's NPOL)")
    p.add_argument("--stokes", choices=("I", "IQUV"), default="I",
                   help="--pol dual: Stokes I, or IQUV (nifs = 4 in each beam's file)")
    p.add_argument("--stokes-v-convention", choices=tuple(V_SIGN), default="beamformer",
                   help="sign of Stokes V: beamformer (V = 2 Im(X Y*)) or psr-ieee "
                   "(V = -2 Im(X Y*), van Straten et al. 2010)")
    p.add_argument("--field-l", type=cli.number(-1, 1),
                   help="field centre, direction cosine east (default 0.1; not with --track)")
    p.add_argument("--field-m", type=cli.number(-1, 1),
                   help="field centre, direction cosine north (default 0.2; not with --track)")
    p.add_argument("--track", metavar="TARGET",
                   help="phase centre that follows the sky: 'radec:RA,DEC' (ICRS, degrees or "
                   "hh:mm:ss,+dd:mm:ss) or a --catalogue name; needs --site (default: a GUPPI "
                   "RAW --input's RA_STR/DEC_STR when --site is given)")
    p.add_argument("--track-interval", type=cli.number(0, 3600, low_open=True), default=1.0,
                   help="--track: seconds of stream time between delay updates")
    p.add_argument("--iers-a", type=cli.existing_file,
                   help="--track: a local IERS finals2000A file (default: astropy's bundled "
                   "IERS-B table; docs/tracking.md)")
    p.add_argument("--catalogue", type=cli.existing_file,
                   help="--track: source names, one 'NAME RA DEC' per line")
    p.add_argument("--field-half-width", type=cli.number(0, 1, low_open=True),
                   help="beam grid half width in direction cosines (default 0.45; not with "
                   "--beams)")
    p.add_argument("--beams", type=cli.existing_file,
                   help="beam directions instead of the grid, one per line: '[frame] a b', "
                   "frame azel (degrees), lm (direction cosines) or radec (needs --track)")
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
    p.add_argument("--inject-rfi", type=cli.integer(0), metavar="CHANNEL",
                   help="simulated sky: add a strong carrier (amplitude 5, 25 times the "
                   "default noise power) at the centre of this channel, from azimuth 90, "
                   "elevation 10 deg, for --rfi to flag")
    p.add_argument("--rfi", action="store_true",
                   help="flag RFI by spectral kurtosis after the channelizer (rfi_flagger, "
                   "docs/rfi_flagger.md); the flagged fraction is printed at the end")
    p.add_argument("--rfi-block-size", type=cli.integer(2, 65536), default=64,
                   help="--rfi: spectra per estimate M (--spectra must be a multiple)")
    p.add_argument("--rfi-pfa", type=cli.number(0, 0.5, low_open=True), default=0.0013499,
                   help="--rfi: false-alarm probability per side")
    p.add_argument("--rfi-replace", choices=("zeros", "noise"), default="zeros",
                   help="--rfi: what replaces flagged values")
    p.add_argument("--incoherent", action="store_true",
                   help="also write the incoherent beam (the receivers' powers summed) to "
                   "<prefix>_incoherent_beam0000.fil")
    p.add_argument("--input", type=cli.existing_file,
                   help="a recording instead of the simulated sky: raw sc16 samples "
                   "[receivers] (needs --tstart-mjd), GUPPI RAW (*.raw) or SigMF "
                   "(*.sigmf-meta / *.sigmf-data); see --input-format")
    p.add_argument("--input-format", choices=("auto", "sc16", "guppi", "sigmf"),
                   default="auto",
                   help="--input's format; auto: by the file name (.raw: guppi, .sigmf-meta "
                   "or .sigmf-data: sigmf, else sc16)")
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
    if args.input and args.inject_rfi is not None:
        p.error("argument --inject-rfi: only for the simulated sky, not with --input")
    spectra_given = args.spectra is not None
    _check_recording(p, args)
    _check_geometry(p, args)
    _check_beams(p, args)
    for key, value in SIZES[args.size].items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    for key, value in (("sample_rate", 10e6), ("center_freq", 150e6)):
        if getattr(args, key) is None:
            setattr(args, key, value)
    _check_recording_size(p, args, spectra_given)
    _check_polarization(p, args)
    if args.spectra % args.n_int:
        p.error(f"argument --spectra: must be a multiple of --n-int ({args.n_int}), "
                f"got {args.spectra}")
    if args.rfi and args.spectra % args.rfi_block_size:
        p.error(f"argument --rfi-block-size: --spectra ({args.spectra}) must be a multiple "
                f"of it (the flagger works in whole blocks), got {args.rfi_block_size}")
    if args.inject_rfi is not None and args.inject_rfi >= args.channels:
        p.error(f"argument --inject-rfi: the channel must be from 0 to {args.channels - 1} "
                f"(--channels {args.channels}), got {args.inject_rfi}")
    if args.tstart_mjd is None:
        args.tstart_mjd = SIMULATED_TSTART_MJD
    _check_tracking(p, args)
    if not args.source:
        # With --track the default source sits at the tracked target at the start.
        args.source = [(*args.track_centre_lm, 5, 0.5) if args.track else (0.25, 0.05, 5, 0.5)]
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
    if args.source_name is None:
        args.source_name = (args.recording_name or "unknown") if args.input else "simulated sky"
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        p.error(f"argument --out: {args.out} exists and is not a folder")
    return args


def _recording_sets(p, args, option, key, value):
    """A value the --input recording fixes: an option given with another value
    is a usage error; left out, it takes the recording's."""
    given = getattr(args, key)
    same = (given == value if isinstance(value, str) or isinstance(given, str)
            else math.isclose(given, value, rel_tol=1e-9)) if given is not None else True
    if not same:
        p.error(f"argument {option}: the --input recording {args.input} sets it to {value}, "
                f"got {given} (leave {option} out)")
    setattr(args, key, value)


def _check_recording(p, args):
    """--input: its format (args.input_kind None, 'sc16', 'guppi' or 'sigmf') and,
    for GUPPI RAW and SigMF, what the file sets: receivers, sample rate, centre
    frequency, start time; GUPPI RAW also channels, polarizations, source name
    and position (the default --track target when --site is given)."""
    args.input_kind = args.recording = args.recording_name = args.recording_receivers = None
    args.recording_start_unix = None
    if not args.input:
        return
    kind = args.input_format
    if kind == "auto":
        name = args.input.lower()
        kind = ("guppi" if name.endswith(".raw") else
                "sigmf" if name.endswith((".sigmf-meta", ".sigmf-data")) else "sc16")
    args.input_kind = kind
    if kind == "sc16":
        return
    try:
        rec = GuppiRawFile(args.input) if kind == "guppi" else read_sigmf_array(args.input)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        p.error(f"argument --input: not a readable {kind} recording: {e}")
    args.recording = rec
    if kind == "guppi":
        # Already channelized: one spectrum per TBIN. sample_rate = channels / TBIN
        # keeps channels / sample_rate the item period, as after the channelizer.
        _recording_sets(p, args, "--channels", "channels", rec.n_channels)
        _recording_sets(p, args, "--pol", "pol", "dual" if rec.n_pols == 2 else "single")
        _recording_sets(p, args, "--sample-rate", "sample_rate", rec.n_channels / rec.tbin)
        name, ra, dec = rec.sky_position()
        if name:
            try:
                args.recording_name = sigproc_string(str(name))
            except argparse.ArgumentTypeError:
                pass  # not a SIGPROC string: --source-name or 'unknown'
        if args.track is None and args.site is not None and ra is not None:
            args.track = f"radec:{ra:.10g},{dec:.10g}"
    else:
        _recording_sets(p, args, "--sample-rate", "sample_rate", rec.sample_rate)
    _recording_sets(p, args, "--center-freq", "center_freq", rec.center_freq)
    args.recording_receivers = rec.n_receivers
    if args.receivers is not None and args.receivers != rec.n_receivers:
        p.error(f"argument --receivers: the --input recording {args.input} holds "
                f"{rec.n_receivers} receivers, got {args.receivers} (leave --receivers out)")
    if rec.start_time is not None:
        args.recording_start_unix = rec.start_time[0] + rec.start_time[1]
        mjd = UNIX_EPOCH_MJD + args.recording_start_unix / 86400.0
        if args.tstart_mjd is not None and abs(args.tstart_mjd - mjd) > 1e-9:
            p.error(f"argument --tstart-mjd: the --input recording {args.input} starts at "
                    f"MJD {mjd:.9f}, got {args.tstart_mjd} (leave --tstart-mjd out)")
        args.tstart_mjd = mjd


def _check_recording_size(p, args, spectra_given):
    """The recording holds the receivers' samples and enough of them; for GUPPI
    RAW and SigMF --spectra defaults to all of it (whole integrations)."""
    if args.input_kind is None:
        return
    if args.input_kind == "sc16":
        cli.check_recording(p, "--input", args.input, args.receivers, 4, "sc16",
                            min_items=args.n_int * args.channels)
    if args.tstart_mjd is None:
        p.error("argument --tstart-mjd: --input needs the recording's start time "
                "(MJD, UTC, a number >= 0) where the file has none; the simulated default "
                "would be wrong")
    if args.input_kind == "sc16":
        return
    rec = args.recording
    available = (len(rec.blocks) * rec.n_time if args.input_kind == "guppi"
                 else rec.n_samples // args.channels)
    step = math.lcm(args.n_int, args.rfi_block_size if args.rfi else 1)
    if spectra_given:
        if args.spectra > available:
            p.error(f"argument --spectra: the --input recording {args.input} holds "
                    f"{available} spectra of {args.channels} channels, got {args.spectra}")
        return
    args.spectra = available - available % step
    if args.spectra == 0:
        p.error(f"argument --input: {args.input} holds {available} spectra of "
                f"{args.channels} channels, fewer than one integration ({step})")


def _check_tracking(p, args):
    """--track: the delay model (args.track_model; the phase centre and, with a
    --beams file, every listed beam) and its solution at the start
    (args.track_start), checked above the horizon for the whole run. Without
    it, the fixed field centre."""
    args.track_model = args.track_start = args.track_centre_lm = None
    # The recording's own start where it has one (the MJD round trip would move it by
    # up to a microsecond, and the tracker would take its rx_time tag for a jump).
    args.track_start_unix = (args.recording_start_unix if args.recording_start_unix is not None
                             else (args.tstart_mjd - UNIX_EPOCH_MJD) * 86400.0)
    if args.track is None:
        for option, value in (("--iers-a", args.iers_a), ("--catalogue", args.catalogue)):
            if value is not None:
                p.error(f"argument {option}: only with --track")
        args.field_l = 0.1 if args.field_l is None else args.field_l
        args.field_m = 0.2 if args.field_m is None else args.field_m
        if math.hypot(args.field_l, args.field_m) > 1:
            p.error(f"argument --field-l/--field-m: the field centre must lie above the "
                    f"horizon (l^2 + m^2 <= 1), got l={args.field_l}, m={args.field_m}")
        return
    if args.field_l is not None or args.field_m is not None:
        p.error("argument --field-l/--field-m: --track sets the phase centre (leave them out)")
    if args.site is None:
        p.error("argument --track: needs --site (latitude,longitude,height of the station)")
    catalogue = None
    if args.catalogue:
        try:
            catalogue = tracking.load_catalogue(args.catalogue)
        except (OSError, UnicodeDecodeError, ValueError) as e:
            p.error(f"argument --catalogue: {e}")
    try:
        target = tracking.Target.parse(args.track, catalogue)
    except ValueError as e:
        p.error(f"argument --track: {e}")
    if target.kind != "radec":
        p.error(f"argument --track: give a sky position ('radec:RA,DEC' or a catalogue "
                f"name); {args.track!r} is fixed in the station frame, use --field-l/--field-m")
    if args.iers_a:
        try:
            tracking.EarthOrientation(args.iers_a)
        except Exception as e:  # astropy's reader raises several kinds
            p.error(f"argument --iers-a: cannot read {args.iers_a}: {e}")
    positions = np.repeat(antenna_layout(args), polarizations(args), axis=0)
    beams = [f"{b.frame}:{b.a!r},{b.b!r}" for b in args.beam_list or []]
    heights = np.abs(positions[:, 2] - positions[0, 2])
    if beams and heights.max() > 0.01:
        p.error(f"argument --beams: with --track the listed beams are steered as offsets "
                f"from the tracked phase centre, exact only for a planar array; receiver "
                f"{int(np.argmax(heights))} is {heights.max():.3f} m above/below receiver 0")
    model = tracking.DelayModel(tracking.Site(*args.site), positions, target, beams=beams,
                                iers_a_file=args.iers_a)
    duration = args.spectra * args.channels / args.sample_rate
    try:
        model.az_el(target, np.array([args.track_start_unix,
                                      args.track_start_unix + duration]))
    except ValueError as e:
        p.error(f"argument --track: {e}")
    try:
        args.track_start = model.solution(args.track_start_unix)
    except ValueError as e:
        p.error(f"argument --beams: {e}")
    args.track_model = model
    args.track_centre_lm = tuple(float(v) for v in args.track_start.centre_lm)
    if args.beam_list is None:
        offsets = np.linspace(-args.field_half_width, args.field_half_width, args.beams_per_side)
        corner = max(math.hypot(args.track_centre_lm[0] + dl, args.track_centre_lm[1] + dm)
                     for dl in offsets[[0, -1]] for dm in offsets[[0, -1]])
        if corner > 1:
            p.error(f"argument --field-half-width: around the tracked centre (l, m) = "
                    f"({args.track_centre_lm[0]:.3f}, {args.track_centre_lm[1]:.3f}) the beam "
                    f"grid reaches l^2 + m^2 = {corner ** 2:.3f} > 1 (below the horizon); "
                    "give a smaller --field-half-width")


def sigproc_string(text):
    """argparse type: a SIGPROC header string (printable ASCII, 1 to 80 characters)."""
    if not 1 <= len(text) <= 80 or not all(" " <= ch <= "~" for ch in text):
        raise argparse.ArgumentTypeError(
            f"must be 1 to 80 printable ASCII characters (a SIGPROC header string), got {text!r}")
    return text


def _check_geometry(p, args):
    """--positions (read into args.antenna_enu, the receivers following it), a
    SigMF recording's element positions, or the grid (args.antenna_enu = None,
    --spacing defaulting to 1 m). --site: the origin of ITRF positions and the
    station's place on Earth for --track."""
    args.antenna_enu = None
    if args.pol is None:
        args.pol = "single"
    if args.site is not None:
        latitude, longitude, height = args.site
        if not (-90 <= latitude <= 90 and -180 <= longitude <= 360 and math.isfinite(height)):
            p.error(f"argument --site: latitude must be in [-90, 90], longitude in [-180, 360] "
                    f"degrees and the height finite, got {args.site}")
    if args.positions is None:
        if args.positions_frame is not None:
            p.error("argument --positions-frame: only with --positions")
        if args.site is not None and args.track is None:
            p.error("argument --site: only with --positions (ITRF) or --track")
        if _recording_positions(p, args):
            return
        if args.spacing is None:
            args.spacing = 1.0
        return
    if args.spacing is not None:
        p.error("argument --spacing: sets the square grid's spacing; --positions replaces the "
                "grid (leave out one of them)")
    try:
        table, args.positions_frame = antenna_positions.read_positions_table(
            args.positions, args.positions_frame)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        p.error(f"argument --positions: {e}")
    if args.site is not None and args.positions_frame != "itrf" and args.track is None:
        p.error(f"argument --site: only for itrf positions or with --track ({args.positions} "
                f"is read as {args.positions_frame}: east, north, up about its own origin)")
    positions = antenna_positions.positions_to_enu(
        table, args.positions_frame, args.site if args.positions_frame == "itrf" else None)
    receivers = len(positions) * polarizations(args)
    if args.receivers is not None and args.receivers != receivers:
        p.error(f"argument --receivers: {args.positions} lists {len(positions)} antennas, "
                f"that is {receivers} receivers with --pol {args.pol}; got {args.receivers} "
                "(leave --receivers out with --positions)")
    if args.recording_receivers is not None and args.recording_receivers != receivers:
        p.error(f"argument --positions: {args.positions} lists {len(positions)} antennas, "
                f"that is {receivers} receivers with --pol {args.pol}, but the --input "
                f"recording {args.input} holds {args.recording_receivers}")
    args.receivers = receivers
    args.antenna_enu = positions.tolist()


def _recording_positions(p, args):
    """A SigMF recording's element positions as the antennas (one per receiver,
    X and Y of an antenna at one place with --pol dual). False where the
    recording gives none (the grid then)."""
    if args.recording_receivers is not None:
        if args.receivers is None:
            args.receivers = args.recording_receivers
    positions = getattr(args.recording, "positions", None) if args.input_kind == "sigmf" else None
    if positions is None:
        return False
    positions = np.asarray(positions, float)
    if not np.isfinite(positions).all():
        p.error(f"argument --input: {args.input} marks some element positions unknown; "
                "give the antennas with --positions")
    if args.spacing is not None:
        p.error(f"argument --spacing: {args.input} gives the element positions (leave "
                "--spacing out, or replace them with --positions)")
    n_pol = polarizations(args)
    pairs_apart = np.abs(positions[0::n_pol] - positions[n_pol - 1::n_pol])
    if len(positions) % n_pol or pairs_apart.max() > 1e-6:
        p.error(f"argument --pol: dual needs X/Y receiver pairs at one place, but the element "
                f"positions of {args.input} differ within a pair (or are odd in number)")
    args.antenna_enu = positions[0::n_pol].tolist()
    return True


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
    if tracked and args.track is None:
        p.error(f"argument --beams: RA/Dec beams need tracking (--track) "
                f"({args.beams}:{tracked[0].line}); list azel or lm beams, or add --track "
                "and --site")
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
          f"{args.spectra * station.n_ch} samples per receiver, device {station.phase.device()}",
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
    if station.incoherent is not None:
        print(f"incoherent beam   {s['out_dir']}/{args.prefix}_incoherent_beam0000.fil "
              f"(the receivers' powers summed, {station.incoherent_sink.items_written()} spectra)")
    if station.flagger is not None:
        f = station.flagger
        total = max(f.total_count(), 1)
        print(f"rfi flagged       {f.flagged_count()} of {f.total_count()} values "
              f"({100 * f.flagged_count() / total:.3f} %; blocks of {f.block_size()} spectra, "
              f"SK outside [{f.lower_threshold():.3f}, {f.upper_threshold():.3f}], "
              f"2 pfa = {200 * args.rfi_pfa:.3f} %)")
    if station.tracked:
        t = station.tracker
        az, el = station.centre_az_el
        ra, dec = station.centre_ra_dec
        print(f"tracking          {args.track} (RA {ra:.5f}, Dec {dec:.5f} deg): at the start "
              f"az {az:.3f}, el {el:.3f} deg; {t.updates_sent} delay updates, "
              f"{t.pointing_updates_sent} beam pointings, {t.failures} failed")
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
