#!/usr/bin/env python3
# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write a SigMF recording of a simulated pulsar for the station beamformer.

A periodically pulsed noise source (no dispersion) at an RA/Dec, seen by a
station of antennas on a square grid at --site from --tstart-mjd on, plus
receiver noise and, with --rfi-channel, a strong carrier from the horizon in
one channel. The source sits where the sky puts the target at the start; it
does not move during the recording (the sky turns 0.004 deg per second; a
station of a few metres has beams tens of degrees wide). The recording holds the
antenna positions and the start time, so that

    apps/station_beamformer.py --input BASE.sigmf-meta --track TARGET --site SITE ...

observes it (docs/station_beamformer.md, "A tracked observation").
"""
import math
import os
import sys

import numpy as np
from gnuradio.beamform import cli, tracking
from gnuradio.beamform.sigmf_array import write_sigmf_array

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import station_beamformer  # noqa: E402  (the station's grid and time conventions)


def pulsed_noise(n, sample_rate, period, duty_cycle, power, rng):
    """Complex noise of the given power inside the on-pulse window (the first
    duty_cycle of each period), zero outside."""
    phase = (np.arange(n) / sample_rate / period) % 1.0
    on = phase < duty_cycle
    noise = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) * math.sqrt(power / 2)
    return noise * on


def delayed(signal, sample_rate, center_freq, delays):
    """The signal as each receiver hears it, [time][receivers]: receiver a hears
    it delays[a] seconds earlier (the module's convention, docs/tracking.md),
    i.e. the spectrum times exp(+2 pi i (center_freq + f) delay), exact for a
    broadband signal (applied with the FFT, so periodic over the recording)."""
    spectrum = np.fft.fft(signal)
    f = center_freq + np.fft.fftfreq(len(signal), 1.0 / sample_rate)
    out = np.empty((len(signal), len(delays)), np.complex64)
    for a, tau in enumerate(delays):
        out[:, a] = np.fft.ifft(spectrum * np.exp(2j * np.pi * f * tau))
    return out


def parse_args(argv=None):
    p = cli.parser(__doc__)
    p.add_argument("--out", default="pulsar",
                   help="BASE of BASE.sigmf-meta and BASE.sigmf-data (folders are created)")
    p.add_argument("--site", type=cli.numbers(names=("latitude", "longitude", "height")),
                   required=True, help="latitude, longitude (degrees) and height (m)")
    p.add_argument("--target", required=True, help="the pulsar's 'radec:RA,DEC' (ICRS)")
    p.add_argument("--tstart-mjd", type=cli.number(0),
                   default=station_beamformer.SIMULATED_TSTART_MJD,
                   help="start time of the recording (MJD, UTC)")
    p.add_argument("--receivers", type=cli.integer(2), default=16,
                   help="antennas on a square grid, single polarization")
    p.add_argument("--spacing", type=cli.number(0, low_open=True), default=1.0,
                   help="grid spacing, metres")
    p.add_argument("--sample-rate", type=cli.number(0, low_open=True), default=1e6, help="Hz")
    p.add_argument("--center-freq", type=cli.number(0, low_open=True), default=150e6,
                   help="Hz")
    p.add_argument("--samples", type=cli.integer(1, 2**24), default=2**19,
                   help="samples per receiver")
    p.add_argument("--period", type=cli.number(0, low_open=True), default=0.05,
                   help="pulse period, s")
    p.add_argument("--duty-cycle", type=cli.number(0, 1, low_open=True), default=0.04,
                   help="fraction of the period the pulse is on")
    p.add_argument("--pulse-power", type=cli.number(0), default=0.5,
                   help="on-pulse power per receiver, relative to the receiver noise (1)")
    p.add_argument("--channels", type=cli.integer(2), default=64,
                   help="the station's channels, to put the carrier at a channel centre")
    p.add_argument("--rfi-channel", type=cli.integer(0),
                   help="add a carrier at the centre of this channel (channelizer order)")
    p.add_argument("--rfi-amplitude", type=cli.number(0), default=3.0,
                   help="the carrier's amplitude (the receiver noise is 1 rms)")
    p.add_argument("--adc-scale", type=cli.number(0, low_open=True), default=2000.0,
                   help="int16 counts per unit voltage (ci16 samples)")
    p.add_argument("--seed", type=cli.integer(0, 2**32 - 1), default=7, help="noise seed")
    args = cli.parse(p, argv)
    if args.rfi_channel is not None and args.rfi_channel >= args.channels:
        p.error(f"argument --rfi-channel: must be from 0 to {args.channels - 1} "
                f"(--channels {args.channels}), got {args.rfi_channel}")
    try:
        site = tracking.Site(*args.site)
    except ValueError as e:
        p.error(f"argument --site: {e}")
    try:
        args.model = tracking.DelayModel(
            site, station_beamformer.grid_positions(args.receivers,
                                                                         args.spacing),
            args.target)
        args.start_unix = (args.tstart_mjd - station_beamformer.UNIX_EPOCH_MJD) * 86400.0
        args.az_el = tuple(float(v) for v in args.model.az_el(args.target, args.start_unix))
    except ValueError as e:
        p.error(f"argument --target: {e}")
    return args


def main(argv=None):
    a = parse_args(argv)
    rng = np.random.default_rng(a.seed)
    model = a.model
    n, fs, fc = a.samples, a.sample_rate, a.center_freq
    pulsar = pulsed_noise(n, fs, a.period, a.duty_cycle, a.pulse_power, rng)
    x = delayed(pulsar, fs, fc, model.delays_towards(np.array(a.az_el)))
    if a.rfi_channel is not None:  # a carrier low in the east, at the channel's centre
        k = a.rfi_channel
        offset = (k if k < a.channels // 2 else k - a.channels) * fs / a.channels
        carrier = a.rfi_amplitude * np.exp(2j * np.pi * offset * np.arange(n) / fs)
        tau = model.delays_towards(np.array([90.0, 5.0]))
        x += carrier[:, None] * np.exp(2j * np.pi * (fc + offset) * tau)[None, :]
    x += ((rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape))
          / math.sqrt(2)).astype(np.complex64)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    meta, data = write_sigmf_array(a.out, x * a.adc_scale, fs, fc, datatype="ci16_le",
                                   positions=model.positions, start_time=a.start_unix,
                                   description=f"simulated pulsar at {a.target}, period "
                                   f"{a.period} s")
    print(f"pulsar            {a.target}: az {a.az_el[0]:.3f}, el {a.az_el[1]:.3f} deg at "
          f"MJD {a.tstart_mjd} from {tuple(a.site)}")
    print(f"pulses            period {a.period} s, duty cycle {a.duty_cycle}, on-pulse power "
          f"{a.pulse_power} per receiver; {n / fs / a.period:.1f} periods in {n / fs:.3f} s")
    if a.rfi_channel is not None:
        print(f"carrier           channel {a.rfi_channel} of {a.channels}, amplitude "
              f"{a.rfi_amplitude}, from az 90, el 5 deg")
    print(f"recording         {meta} ({a.receivers} receivers x {n} samples, ci16)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
