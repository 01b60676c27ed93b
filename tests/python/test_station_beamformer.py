# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""The station beamformer application (apps/station_beamformer.py) end to end on
the simulated sky: sources found in the right beam and channel with the
signal-to-noise ratio the signal model predicts, and filterbank files that read
back with the right header."""
import importlib.util
import math
import os

import numpy as np
import pytest
from gnuradio import beamform

from conftest import HOST_DEVICES, gpu_devices

APP = os.path.join(os.path.dirname(__file__), "..", "..", "apps", "station_beamformer.py")


def load_app():
    spec = importlib.util.spec_from_file_location("station_beamformer", APP)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


app = load_app()


def small_args(tmp_path, device, extra=()):
    return app.parse_args([
        "--receivers", "16", "--channels", "32", "--beams-per-side", "5", "--spectra", "4096",
        "--n-int", "16", "--device", device, "--out", str(tmp_path), "--field-half-width", "0.4",
        *extra,
    ])


@pytest.mark.parametrize("device", HOST_DEVICES + gpu_devices())
def test_finds_each_source_in_its_beam_and_channel(tmp_path, device):
    station = app.Station(small_args(tmp_path, device, [
        "--source=0.3,0.2,5,0.6", "--source=-0.1,0.4,20,0.6", "--noise", "1.0"]))
    summary = station.run(progress=False)
    power = summary["power"]  # [beam][channel, descending frequency]
    freqs_desc = np.sort(station.frequencies)[::-1]
    for src in station.sources:
        want_beam = app.nearest_beam(station.beams_lm, src["l"], src["m"])
        want_col = int(np.argmin(np.abs(freqs_desc - station.frequencies[int(src["channel"])])))
        column = power[:, want_col]
        assert int(np.argmax(column)) == want_beam, (src, column)
        assert int(np.argmax(power[want_beam])) == want_col


def test_snr_matches_the_signal_model(tmp_path):
    """A source exactly on a beam and at a channel centre: the integrated
    power's SNR is sqrt(n_int) N A^2 G^2 / (sigma^2 sum h^2) (G the prototype
    filter's DC gain, sum h^2 its noise gain), within 10%."""
    args = small_args(tmp_path, "cpu", ["--noise", "1.0"])
    station = app.Station(args, build=False)  # the beam grid only: no sink on these files
    l, m = station.beams_lm[7]
    amplitude, channel = 0.08, 9
    args = small_args(tmp_path, "cpu", ["--noise", "1.0", f"--source={l},{m},{channel},{amplitude}",
                                        "--spectra", "16384"])
    station = app.Station(args)
    summary = station.run(progress=False)
    taps = np.array(station.pfb.taps(), dtype=np.float64)
    dc_gain, noise_gain = taps.sum(), (taps ** 2).sum()
    expected = math.sqrt(args.n_int) * args.receivers * amplitude ** 2 * dc_gain ** 2 / (
        args.noise ** 2 * noise_gain)

    header, data = beamform.read_filterbank(os.path.join(station.out_dir, "station_beam0007.fil"))
    series = data[:, 0, :]  # [time][channel, descending]
    freqs_desc = np.sort(station.frequencies)[::-1]
    col = int(np.argmin(np.abs(freqs_desc - station.frequencies[channel])))
    noise_cols = [c for c in range(series.shape[1]) if abs(c - col) > 2]
    noise = series[:, noise_cols]
    measured = (series[:, col].mean() - noise.mean()) / noise.std()
    print(f"SNR measured {measured:.2f}, expected {expected:.2f}")
    assert measured == pytest.approx(expected, rel=0.10)


def test_filterbank_files_read_back(tmp_path):
    args = small_args(tmp_path, "emu:0")
    station = app.Station(args)
    summary = station.run(progress=False)
    files = sorted(f for f in os.listdir(tmp_path) if f.endswith(".fil"))
    assert len(files) == station.n_beams
    header, data = beamform.read_filterbank(os.path.join(tmp_path, files[3]))
    spacing = args.sample_rate / args.channels
    assert header["nchans"] == args.channels
    assert header["foff"] == pytest.approx(-spacing / 1e6)
    assert header["fch1"] == pytest.approx(max(station.frequencies) / 1e6)
    assert header["tsamp"] == pytest.approx(args.n_int * args.channels / args.sample_rate)
    assert header["nbits"] == 32 and header["nifs"] == 1
    assert header["tstart"] == pytest.approx(args.tstart_mjd)
    assert data.shape == (args.spectra // args.n_int, 1, args.channels)
    assert np.all(np.isfinite(data)) and np.all(data > 0)
    assert summary["integrated_spectra"] == args.spectra // args.n_int


def test_main_reports_the_source(capsys):
    rc = app.main(["--receivers", "16", "--channels", "32", "--beams-per-side", "5",
                   "--spectra", "2048", "--device", "cpu"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "found in the right beam and channel" in out
