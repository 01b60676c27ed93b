# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""apps/direction_finding (script and .grc): an SDR array with random
per-receiver phase offsets, calibrated on a source in a known direction, finds
a simulated source within a tenth of the beam width (ULA and UCA); without the
calibration it does not. Beam widths are checked against the closed forms of
docs/direction_finding.md."""
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from gnuradio.beamform import arrays, calibration

APPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "apps")
SCRIPT = os.path.join(APPS, "direction_finding.py")
GRC = os.path.join(APPS, "direction_finding.grc")
GRC_BLOCKS = os.path.join(APPS, "..", "grc")

C = 299792458.0
FREQ = 433.92e6 + 10e3  # the script's default sky frequency (center + offset)
WAVELENGTH = C / FREQ

ULA = ["--array", "ula", "--elements", "8", "--source-az", "23.4", "--cal-az", "-40"]
# 12 elements on a circle of 0.8 wavelengths; the source above the horizon.
UCA = ["--array", "uca", "--elements", "12", "--source-az", "131.7", "--source-el", "30",
       "--cal-az", "250", "--cal-el", "20", "--az-step", "2", "--el-step", "5"]


def script(*argv, check=True):
    ran = subprocess.run([sys.executable, SCRIPT, "--device", "cpu", *argv],
                         capture_output=True, text=True, timeout=120)
    if check:
        assert ran.returncode == 0, ran.stdout + ran.stderr
    return ran


def find(*argv):
    """Headless run -> the result dict the script prints."""
    ran = script("--headless", *argv)
    line = [ln for ln in ran.stdout.splitlines() if ln.startswith("result: ")][-1]
    result = json.loads(line[len("result: "):])
    print(ran.stdout.splitlines()[-2])
    return result


def azimuth_error(a, b):
    return abs((a - b + 180.0) % 360.0 - 180.0)


def test_ula_calibrated_within_tenth_of_beam_width(tmp_path):
    gains = str(tmp_path / "ula_gains.json")
    script("--calibrate", "--gains", gains, *ULA)
    r = find("--gains", gains, *ULA)
    # Half-power width of an N-element ULA (spacing d) steered theta off
    # broadside: 0.886 lambda / (N d cos theta) (docs/direction_finding.md).
    closed_form = np.degrees(0.886 * WAVELENGTH / (8 * WAVELENGTH / 2 * np.cos(np.radians(23.4))))
    print(f"ULA beam width {r['beam_width_azimuth']:.2f} deg, closed form {closed_form:.2f}; "
          f"error {abs(r['azimuth'] - 23.4):.3f} deg")
    assert r["beam_width_azimuth"] == pytest.approx(closed_form, rel=0.03)
    assert abs(r["azimuth"] - 23.4) < 0.1 * r["beam_width_azimuth"]
    assert r["integrations"] == 16384 // 256


def test_uca_calibrated_within_tenth_of_beam_width(tmp_path):
    gains = str(tmp_path / "uca_gains.json")
    script("--calibrate", "--gains", gains, *UCA)
    r = find("--gains", gains, *UCA)
    # Ring of radius R, azimuth cut at elevation el: the pattern is about
    # J0(2 k R cos(el) sin(d_az / 2))^2, half power at argument 1.126.
    k_r = 2 * np.pi / WAVELENGTH * 0.8 * WAVELENGTH * np.cos(np.radians(30))
    closed_form = np.degrees(2 * 1.126 / k_r)
    print(f"UCA beam width {r['beam_width_azimuth']:.2f} (az) x {r['beam_width_elevation']:.2f} "
          f"(el) deg, closed form az {closed_form:.2f}; errors az "
          f"{azimuth_error(r['azimuth'], 131.7):.3f} el {abs(r['elevation'] - 30):.3f} deg")
    assert r["beam_width_azimuth"] == pytest.approx(closed_form, rel=0.03)
    assert azimuth_error(r["azimuth"], 131.7) < 0.1 * r["beam_width_azimuth"]
    assert abs(r["elevation"] - 30.0) < 0.1 * r["beam_width_elevation"]


@pytest.mark.parametrize("geometry", ["ula", "uca"])
def test_without_calibration_the_direction_is_wrong(geometry):
    argv = ULA if geometry == "ula" else UCA
    true_az = 23.4 if geometry == "ula" else 131.7
    wrong = find("--no-calibration", *argv)
    ideal = find("--no-calibration", "--phase-seed", "-1", *argv)  # receivers without offsets
    print(f"{geometry}: uncalibrated {wrong['azimuth']:.2f} deg, ideal receivers "
          f"{ideal['azimuth']:.2f} deg, true {true_az}")
    assert azimuth_error(wrong["azimuth"], true_az) > wrong["beam_width_azimuth"]
    assert azimuth_error(ideal["azimuth"], true_az) < 0.1 * ideal["beam_width_azimuth"]


def test_gains_file_round_trip(tmp_path):
    gains_path = str(tmp_path / "gains.json")
    script("--calibrate", "--gains", gains_path, *ULA)
    gains, meta = calibration.load_gains(gains_path)
    assert meta["frequency"] == pytest.approx(FREQ)
    assert (meta["azimuth"], meta["elevation"], meta["receivers"]) == (-40.0, 0.0, 8)
    # The gains undo the script's simulated phase offsets (seed 7), up to the
    # common phase of the reference receiver.
    phi = np.random.default_rng(7).uniform(-np.pi, np.pi, 8)
    residual = np.angle(gains * np.exp(1j * phi) / (gains[0] * np.exp(1j * phi[0])))
    print("residual phases (deg):", np.round(np.degrees(residual), 2))
    assert np.max(np.abs(np.degrees(residual))) < 2.0
    # A file for another array is refused, naming the option.
    calibration.save_gains(gains_path, gains[:5], frequency=FREQ)
    ran = script("--headless", "--gains", gains_path, *ULA, check=False)
    assert ran.returncode == 2 and "--calibration/--gains" in ran.stderr and "5 receivers" in ran.stderr


def test_positions_file_matches_uca(tmp_path):
    path = str(tmp_path / "positions.txt")
    arrays.save_positions(path, arrays.uca(12, 0.8 * WAVELENGTH))
    gains = str(tmp_path / "file_gains.json")
    from_file = [a if a != "uca" else "ula" for a in UCA] + ["--positions", path]
    script("--calibrate", "--gains", gains, *from_file)
    r = find("--gains", gains, *from_file)
    assert azimuth_error(r["azimuth"], 131.7) < 0.1 * r["beam_width_azimuth"]
    assert abs(r["elevation"] - 30.0) < 0.1 * r["beam_width_elevation"]


def compile_grc(tmp_path):
    if shutil.which("grcc") is None:
        pytest.skip("grcc not installed")
    env = dict(os.environ, GRC_BLOCKS_PATH=os.path.abspath(GRC_BLOCKS))
    compiled = subprocess.run(["grcc", "-o", str(tmp_path), GRC], env=env, capture_output=True,
                              text=True, timeout=120)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    return tmp_path / "direction_finding_grc.py", env


def test_grc_compiles_and_runs_headless(tmp_path):
    pytest.importorskip("PyQt5")
    from PyQt5 import Qt

    generated, _ = compile_grc(tmp_path)
    # The flowgraph's defaults are the script's ULA defaults: calibrate with
    # the script, then the flowgraph loads the gains file.
    gains = str(tmp_path / "gains.json")
    script("--calibrate", "--gains", gains, "--cal-az", "-40")
    spec = importlib.util.spec_from_file_location("direction_finding_grc", generated)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    qapp = Qt.QApplication.instance() or Qt.QApplication([])
    tb = module.direction_finding_grc(gains_file=gains, source_az=-12.5)
    tb.start()
    deadline = time.time() + 60
    while tb.beamformer.nitems_written(0) < 8 and time.time() < deadline:
        qapp.processEvents()
        time.sleep(0.05)
    tb.stop()
    tb.wait()
    outputs = tb.beamformer.nitems_written(0)
    powers = np.array(tb.powers_probe.level())
    peak = tb.azimuths[int(np.argmax(powers))]
    print(f"grc: {outputs} power outputs, peak beam at {peak} deg (source -12.5)")
    assert outputs >= 8
    assert abs(peak - (-12.5)) <= 1.0  # the nearest 1-degree beam


def test_grc_script_exits_cleanly_on_sigterm(tmp_path):
    pytest.importorskip("PyQt5")
    generated, env = compile_grc(tmp_path)
    env["QT_QPA_PLATFORM"] = "offscreen"
    proc = subprocess.Popen([sys.executable, str(generated), "--gains-file",
                             str(tmp_path / "missing.json")], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(5)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, out + err
    assert "Traceback" not in err, err


def test_recorded_input_calibrate_and_find(tmp_path, rng):
    """The hardware path: recordings (fc32 [time][receivers], what a GRC file
    sink after streams_to_vector writes) instead of the simulation."""
    positions = arrays.ula(7, WAVELENGTH / 2)
    receiver_gains = rng.uniform(0.7, 1.3, 7) * np.exp(1j * rng.uniform(-np.pi, np.pi, 7))

    def recording(name, az):
        t = np.arange(8192)
        tone = np.exp(2j * np.pi * 0.0137 * t)[:, None]
        x = tone * arrays.plane_wave_phases(positions, az, 0.0, FREQ)[None, :] * receiver_gains
        x = x + 0.3 * (rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape)) / np.sqrt(2)
        path = str(tmp_path / name)
        x.astype(np.complex64).tofile(path)
        return path

    common = ["--elements", "7", "--gains", str(tmp_path / "gains.json")]
    script("--calibrate", "--input", recording("cal.fc32", 35.0), "--cal-az", "35", *common)
    r = find("--input", recording("live.fc32", -51.3), *common)
    assert "true_azimuth" not in r
    assert abs(r["azimuth"] - (-51.3)) < 0.1 * r["beam_width_azimuth"]
