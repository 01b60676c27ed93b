# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""The applications' command lines, run as a user runs them (a subprocess of
Debian's python3 in an empty working folder):

  * every bad value is a usage error: exit status 2, a message that names the
    option and what it accepts, no traceback, nothing written;
  * negative values follow an option without '=' (--source -0.3,0.2,...);
  * --help lists the defaults and starts no flowgraph (also for the free-running
    GUI demos);
  * the station writes into ./station_beams by default (no temporary folder
    left behind), with --prefix names, and a new run removes the earlier run's
    beam files, saying so.
"""
import glob
import os
import subprocess
import sys

import pytest

from gnuradio import beamform

APPS = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "apps"))
TIMEOUT_S = 120
ABSENT_GPU = next(d for d in ("cuda:0", "cuda:7", "hip:0")
                  if d not in beamform.available_devices())
SMALL_STATION = ["--receivers", "16", "--channels", "32", "--beams-per-side", "3",
                 "--spectra", "256", "--n-int", "16", "--device", "cpu"]


def run_app(app, args, cwd):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, os.path.join(APPS, app), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT_S)


def write_bytes(folder, name, n):
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(bytes(n))
    return path


# (app, arguments, the message's fragments). "{1000}" is replaced by the path
# of a 1000-byte file made in the working folder.
BAD_VALUES = [
    ("station_beamformer.py", ["--n-int", "0"], ["argument --n-int:", "integer >= 1", "got 0"]),
    ("station_beamformer.py", ["--source", "0.3,0.3"],
     ["argument --source:", "4 comma-separated numbers l,m,channel,amplitude", "'0.3,0.3'"]),
    ("station_beamformer.py", ["--source", "0.25,0.05,128,0.5"],
     ["argument --source:", "channel must be an integer from 0 to 127"]),
    ("station_beamformer.py", ["--source", "0.9,0.8,5,0.5"],
     ["argument --source:", "l^2 + m^2 must be <= 1"]),
    ("station_beamformer.py", ["--beams-per-side", "1"],
     ["argument --beams-per-side:", "integer >= 2"]),
    ("station_beamformer.py", ["--device", ABSENT_GPU],
     ["argument --device:", ABSENT_GPU, "accepted: auto or one of cpu"]),
    ("station_beamformer.py", ["--device", "gpu"], ["argument --device:", "accepted: auto"]),
    ("station_beamformer.py", ["--spectra", "100", "--n-int", "16"],
     ["argument --spectra:", "multiple of --n-int (16)"]),
    ("station_beamformer.py", ["--field-l", "1.5"], ["argument --field-l:", "from -1 to 1"]),
    ("station_beamformer.py", ["--prefix", "a/b"], ["argument --prefix:", "without '/'"]),
    ("station_beamformer.py", ["--input", "missing.sc16"],
     ["argument --input:", "no such file: missing.sc16"]),
    ("station_beamformer.py", ["--input", "{1000}"],
     ["argument --input:", "1000 bytes", "192-byte samples (sc16 x 48 receivers)"]),
    ("direction_finding.py", ["--headless", "--input", "missing.fc32"],
     ["argument --input:", "no such file: missing.fc32"]),
    ("direction_finding.py", ["--headless", "--input", "{1000}"],
     ["argument --input:", "1000 bytes", "64-byte samples (fc32 x 8 receivers)"]),
    ("direction_finding.py", ["--headless", "--samples", "100"],
     ["argument --samples:", ">= --n-int (256)"]),
    ("direction_finding.py", ["--headless", "--source-el", "95"],
     ["argument --source-el:", "from -90 to 90", "got 95"]),
    ("direction_finding.py", ["--headless", "--elements", "1"],
     ["argument --elements:", "integer >= 2"]),
    ("direction_finding.py", ["--headless", "--device", ABSENT_GPU], ["argument --device:"]),
    ("direction_finding.py", ["--array", "uca", "--el-step", "5"],
     ["argument --el-step:", "at most 10 elevation cuts, the grid has 17"]),
    ("phase_shift_demo.py", ["--headless", "--n-channels", "8"],
     ["argument --n-channels:", "integer >= 20"]),
    ("computational_ultrasound.py", ["--bright", "1,2,5000"],
     ["argument --bright:", "from 0 to 863"]),
    ("computational_ultrasound.py", ["--volume", "4,4"],
     ["argument --volume:", "3 comma-separated numbers x,y,z"]),
    ("station_split.py", ["--role", "multi", "--n-int", "0"], ["argument --n-int:"]),
    ("station_split.py", ["--role", "multi", "--incoherent"], ["argument --incoherent:"]),
    ("station_beamformer.py", ["--track", "radec:10,50"], ["argument --track:", "needs --site"]),
    ("station_beamformer.py", ["--rfi", "--rfi-block-size", "1"],
     ["argument --rfi-block-size:", "from 2 to 65536"]),
    ("station_beamformer.py", ["--input", "{1000}", "--input-format", "guppi"],
     ["argument --input:", "not a readable guppi recording"]),
    ("make_pulsar_recording.py", ["--site", "52.9,6.6,16", "--target", "radec:10,-80",
                                  "--tstart-mjd", "59000"],
     ["argument --target:", "below"]),
    ("make_pulsar_recording.py", ["--site", "95,6.6,16", "--target", "radec:10,50"],
     ["argument --site:"]),
]


@pytest.mark.parametrize("app,args,fragments", BAD_VALUES,
                         ids=[f"{a[:-3]}:{' '.join(b)}" for a, b, _ in BAD_VALUES])
def test_bad_value_is_a_usage_error(app, args, fragments, tmp_path):
    args = [write_bytes(str(tmp_path), "rec.bin", 1000) if a == "{1000}" else a for a in args]
    before = sorted(os.listdir(tmp_path))
    ran = run_app(app, args, tmp_path)
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert "Traceback" not in ran.stderr, ran.stderr
    assert ran.stderr.startswith("usage:"), ran.stderr
    for fragment in fragments:
        assert fragment in ran.stderr, ran.stderr
    assert sorted(os.listdir(tmp_path)) == before  # nothing written


@pytest.mark.parametrize("app", ["station_beamformer.py", "direction_finding.py",
                                 "phase_shift_demo.py", "rca_volume.py",
                                 "computational_ultrasound.py", "station_split.py",
                                 "make_pulsar_recording.py"])
def test_help_shows_defaults_and_starts_nothing(app, tmp_path):
    ran = run_app(app, ["--help"], tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("usage:")
    # "(default: X)" from the apps' own parser, "[default=X]" in GRC-generated scripts
    assert "(default:" in ran.stdout or "[default=" in ran.stdout
    assert os.listdir(tmp_path) == []


def test_negative_values_follow_the_option(tmp_path):
    ran = run_app("station_beamformer.py",
                  SMALL_STATION + ["--field-l", "-0.1", "--source", "-0.3,0.2,5,0.5"], tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "injected source   l=-0.3, m=0.2, channel 5: found" in ran.stdout


def test_station_output_folder_prefix_and_cleaning(tmp_path):
    temporary_before = set(glob.glob("/tmp/station_*"))
    ran = run_app("station_beamformer.py", SMALL_STATION + ["--beams-per-side", "4"], tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    out = tmp_path / "station_beams"
    assert len(list(out.glob("station_beam*.fil"))) == 16
    assert f"filterbank files  station_beams/station_beamNNNN.fil" in ran.stdout
    assert set(glob.glob("/tmp/station_*")) == temporary_before  # no temporary folder

    # A smaller grid into the same folder: the 16 old files go, with a note.
    ran = run_app("station_beamformer.py", SMALL_STATION, tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "removed 16 files of an earlier run from station_beams" in ran.stderr
    assert sorted(f.name for f in out.glob("*.fil")) == [f"station_beam{b:04d}.fil"
                                                         for b in range(9)]
    # Another prefix leaves those alone.
    ran = run_app("station_beamformer.py", SMALL_STATION + ["--prefix", "night2"], tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "removed" not in ran.stderr
    assert len(list(out.glob("station_beam*.fil"))) == 9
    assert len(list(out.glob("night2_beam*.fil"))) == 9


def test_a_normal_run_logs_one_line_per_block_and_no_noise(tmp_path):
    """On the emu device (GPU-side buffers, as on a GPU) a station run logs one
    info line per beamform block and none of GNU Radio's debug lines, buffer
    rounding warnings or set_min_output_buffer notes; direction finding with
    181 beams (724-byte items) logs no buffer warning either."""
    ran = run_app("station_beamformer.py",
                  [a if a != "cpu" else "emu:0" for a in SMALL_STATION], tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    log = ran.stdout + ran.stderr
    for noise in (":debug:", "buffer_double_mapped", "set_min_output_buffer"):
        assert noise not in log, log
    for block in ("convert", "pfb_channelizer", "phase_shift", "tensor_beamformer"):
        lines = [line for line in log.splitlines() if line.startswith(f"{block} :info: on emu:0")]
        assert len(lines) == 1, log
        assert "output buffer" in lines[0]
    for block in ("array_source", "filterbank_sink"):  # host blocks: one line each too
        assert len([line for line in log.splitlines()
                    if line.startswith(f"{block} :info: on cpu")]) == 1, log
    ran = run_app("direction_finding.py", ["--headless", "--device", "cpu"], tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    log = ran.stdout + ran.stderr
    assert "buffer_double_mapped" not in log and ":debug:" not in log, log
    assert "tensor_beamformer :info: on cpu: items of 64 B in, 724 B out" in log, log
