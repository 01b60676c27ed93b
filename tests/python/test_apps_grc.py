# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every GNU Radio Companion flowgraph in apps/ compiles with grcc and its
generated script runs headless (QT_QPA_PLATFORM=offscreen) and exits cleanly.

The .grc files are found by globbing apps/*.grc, so a flowgraph added there is
tested without editing this file.

How each run is bounded:
  * A flowgraph with a length parameter (a GRC "parameter" block named in
    LENGTH_PARAMETERS, e.g. n_items or n_spectra: it feeds a head block or the
    source's own count) runs until its stream ends: the parameter is set to the
    value in RUN_LENGTH (or left at the flowgraph's default when the file is not
    listed there), and the top block's wait() must return by itself.
  * A flowgraph without one (a free-running, throttled demo such as
    phase_shift_demo.grc) runs for RUN_SECONDS of wall time and is then stopped
    with stop()/wait(), as the Qt window's close does.
  Either way the run must move items through the flowgraph (counted on every
  block's inputs) and the process must exit with status 0 within
  PROCESS_TIMEOUT_S.

The generated script is loaded as a module and its top-block class is driven
by a small runner (start, wait or stop, close), because a qt_gui script's own
main() stays in the Qt event loop after the stream has ended. The station
flowgraph has a snippet that leaves the loop when the stream ends, so its own
main() is also run as generated (test_station_grc_main_exits_by_itself).
"""
import glob
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
import yaml

from conftest import assert_same_powers

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
APPS = os.path.join(REPO, "apps")
GRC_FILES = sorted(glob.glob(os.path.join(APPS, "*.grc")))

# Parameter ids that bound a flowgraph's length, in order of preference.
LENGTH_PARAMETERS = ("n_items", "n_spectra", "n_frames", "n_samples", "n_volumes", "num_items",
                     "items", "frames")
# Small run lengths for the known flowgraphs (parameter -> value).
RUN_LENGTH = {
    "convert_demo.grc": {"n_items": 20000},
    "station_beamformer.grc": {"n_spectra": 512, "device": "cpu"},
    "rca_volume.grc": {"n_volumes": 1},  # its default, 0, runs until the window is closed
}
RUN_SECONDS = 3.0
PROCESS_TIMEOUT_S = 120

RUNNER = r'''
import importlib.util, json, sys, time
script, class_name, kwargs, qt, seconds = sys.argv[1:]
kwargs, qt, seconds = json.loads(kwargs), qt == "1", float(seconds)
spec = importlib.util.spec_from_file_location("generated_flowgraph", script)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
if qt:
    from PyQt5 import Qt
    app = Qt.QApplication([])
tb = getattr(module, class_name)(**kwargs)
tb.start()
if seconds > 0:
    time.sleep(seconds)
    tb.stop()
tb.wait()
items = 0
for value in vars(tb).values():
    try:
        items = max(items, int(value.nitems_read(0)))
    except Exception:  # variables, hier blocks, blocks without inputs
        pass
print("ITEMS", items, flush=True)
tb.stop()
tb.wait()
if qt:
    tb.close()
'''


def grc_env():
    from gnuradio import gr
    system_blocks = os.path.join(gr.prefix(), "share", "gnuradio", "grc", "blocks")
    return dict(os.environ, QT_QPA_PLATFORM="offscreen",
                GRC_BLOCKS_PATH=os.pathsep.join([os.path.join(REPO, "grc"), system_blocks]))


def describe(grc_path):
    """(top-block id, generate_options, {parameter id: default}) of a .grc file."""
    with open(grc_path) as f:
        doc = yaml.safe_load(f)
    options = doc["options"]["parameters"]
    parameters = {b["name"]: b["parameters"].get("value")
                  for b in doc.get("blocks", [])
                  if b["id"] == "parameter" and b.get("states", {}).get("state") != "disabled"}
    return options["id"], options.get("generate_options", "qt_gui"), parameters


def compile_grc(grc_path, out_dir):
    compiled = subprocess.run(["grcc", "-o", str(out_dir), grc_path], env=grc_env(),
                              capture_output=True, text=True, timeout=PROCESS_TIMEOUT_S)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    flowgraph_id = describe(grc_path)[0]
    script = os.path.join(str(out_dir), flowgraph_id + ".py")
    assert os.path.exists(script), os.listdir(str(out_dir))
    return script


def run_plan(grc_path, tmp_path):
    """Constructor keyword arguments and the wall-time bound (0: runs to its end)."""
    name = os.path.basename(grc_path)
    _, _, parameters = describe(grc_path)
    kwargs = dict(RUN_LENGTH.get(name, {}))
    if "out_dir" in parameters:
        kwargs["out_dir"] = str(tmp_path / "out")
        os.makedirs(kwargs["out_dir"], exist_ok=True)
    if "exit_when_done" in parameters:
        kwargs["exit_when_done"] = 0  # the runner waits itself
    bounded = any(p in parameters for p in LENGTH_PARAMETERS)
    kwargs = {k: v for k, v in kwargs.items() if k in parameters}
    return kwargs, (0.0 if bounded else RUN_SECONDS)


pytestmark = pytest.mark.skipif(shutil.which("grcc") is None, reason="grcc not installed")


def test_apps_has_flowgraphs():
    names = [os.path.basename(p) for p in GRC_FILES]
    assert "station_beamformer.grc" in names and "convert_demo.grc" in names, names


@pytest.mark.parametrize("grc_path", GRC_FILES, ids=[os.path.basename(p) for p in GRC_FILES])
def test_grc_compiles_and_runs_headless(grc_path, tmp_path):
    import json

    script = compile_grc(grc_path, tmp_path)
    flowgraph_id, generate_options, _ = describe(grc_path)
    kwargs, seconds = run_plan(grc_path, tmp_path)
    runner = tmp_path / "run_flowgraph.py"
    runner.write_text(RUNNER)
    ran = subprocess.run(
        [sys.executable, str(runner), script, flowgraph_id, json.dumps(kwargs),
         "1" if generate_options == "qt_gui" else "0", str(seconds)],
        env=grc_env(), capture_output=True, text=True, timeout=PROCESS_TIMEOUT_S, cwd=tmp_path)
    output = ran.stdout + ran.stderr
    assert ran.returncode == 0, output
    assert "Traceback" not in output, output
    items = [int(line.split()[1]) for line in ran.stdout.splitlines() if line.startswith("ITEMS")]
    print(f"{os.path.basename(grc_path)}: {kwargs or 'defaults'}, "
          f"{'ran to its end' if seconds == 0 else f'stopped after {seconds} s'}, "
          f"most items read by one block: {items}")
    assert items and items[0] > 0, output


def test_station_grc_main_exits_by_itself(tmp_path):
    """The generated station script, run as generated (its own main and Qt loop),
    exits by itself once the stream ends, leaves one filterbank file per beam
    with n_spectra / n_int rows, and these equal apps/station_beamformer.py's."""
    from gnuradio import beamform

    script = compile_grc(os.path.join(APPS, "station_beamformer.grc"), tmp_path)
    out_dir = tmp_path / "fil"
    out_dir.mkdir()
    n_spectra, n_int = 512, 16
    ran = subprocess.run([sys.executable, script, "--n-spectra", str(n_spectra), "--n-int",
                          str(n_int), "--device", "cpu", "--out-dir", str(out_dir)],
                         env=grc_env(), capture_output=True, text=True,
                         timeout=PROCESS_TIMEOUT_S)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    files = sorted(out_dir.glob("station_beam*.fil"))
    assert len(files) == 25  # the default 5 x 5 beams
    header, data = beamform.read_filterbank(str(files[0]))
    assert data.shape[0] == n_spectra // n_int
    assert np.all(np.isfinite(data)) and np.all(data > 0)

    # The same flowgraph as apps/station_beamformer.py: with the .grc's default
    # station (16 receivers on a 1 m grid, 32 channels, 5 x 5 beams +-0.4
    # around (0.1, 0.2), source l=0.25 m=0.05 in channel 5) the Python app
    # writes the same files, bit for bit.
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "station_beamformer", os.path.join(APPS, "station_beamformer.py"))
    app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(app)
    py_dir = tmp_path / "py"
    station = app.Station(app.parse_args([
        "--receivers", "16", "--channels", "32", "--beams-per-side", "5", "--spectra",
        str(n_spectra), "--n-int", str(n_int), "--field-half-width", "0.4", "--device", "cpu",
        "--out", str(py_dir)]))
    summary = station.run(progress=False)
    assert summary["brightest_beam"] == app.nearest_beam(station.beams_lm, 0.25, 0.05)
    for f in files:
        h_grc, d_grc = beamform.read_filterbank(str(f))
        h_py, d_py = beamform.read_filterbank(str(py_dir / f.name))
        assert h_grc == h_py
        assert_same_powers(d_grc, d_py)


@pytest.mark.parametrize("name", ["phase_shift_demo.grc", "direction_finding.grc",
                                  "rca_volume.grc"])
def test_free_running_flowgraph_has_help_and_a_length(name, tmp_path):
    """The generated script of a free-running demo answers --help without
    starting anything, and with its length parameter (--run-seconds, or
    --n-volumes for rca_volume) runs as generated and exits by itself."""
    script = compile_grc(os.path.join(APPS, name), tmp_path)
    helped = subprocess.run([sys.executable, script, "--help"], env=grc_env(),
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert helped.returncode == 0, helped.stdout + helped.stderr
    length = "--n-volumes" if name == "rca_volume.grc" else "--run-seconds"
    assert length in helped.stdout
    ran = subprocess.run([sys.executable, script, length, "1" if "volume" in name else "2"],
                         env=grc_env(), capture_output=True, text=True,
                         timeout=PROCESS_TIMEOUT_S, cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "Traceback" not in ran.stdout + ran.stderr
