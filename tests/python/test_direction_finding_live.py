# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""apps/direction_finding with receivers (live_sources.make_live_source):

  * each hardware kind builds its GNU Radio block with the right arguments
    (the driver modules replaced by recorders: no hardware here);
  * a device string that matches no hardware is a usage error naming --args
    (exit 2, no traceback), with the real soapy, osmosdr and uhd modules;
  * the live flowgraph runs with the receiver swapped for a recording through
    the same function and path (--source file), including the noise-source
    calibration (--calibrate noise) and MUSIC / Capon on two close sources;
  * --source kraken reads the KrakenSDR DAQ's IQ server protocol (a local
    stand-in server), skipping unsynchronised frames;
  * the GUI shows every method's estimate as a number;
  * bad combinations of options are usage errors naming the option.
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import types

import numpy as np
import pytest
from gnuradio.beamform import arrays, calibration, live_sources

APPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "apps")
SCRIPT = os.path.join(APPS, "direction_finding.py")
C = 299792458.0
FREQ = 433.92e6 + 10e3  # the script's default sky frequency
WAVELENGTH = C / FREQ


def script(*argv):
    """Run the app from an empty folder (no default calibration file there)."""
    with tempfile.TemporaryDirectory() as empty:
        return subprocess.run([sys.executable, SCRIPT, "--device", "cpu", *argv], cwd=empty,
                              capture_output=True, text=True, timeout=120)


def result_of(ran):
    assert ran.returncode == 0, ran.stdout + ran.stderr
    line = [ln for ln in ran.stdout.splitlines() if ln.startswith("result: ")][-1]
    return json.loads(line[len("result: "):])


def load_app():
    spec = importlib.util.spec_from_file_location("direction_finding", SCRIPT)
    app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(app)
    return app


# ------------------------------------------------ each kind's block and arguments
class Recorder:
    """Stands for a driver block: records the constructor's and every method's
    arguments."""

    def __init__(self, log, *args, **kwargs):
        self.log = log
        log.append(("__init__", args, kwargs))

    def __getattr__(self, name):
        def method(*args, **kwargs):
            self.log.append((name, args, kwargs))
            if name == "get_time_now":
                return 5.0
        return method


def fake_module(monkeypatch, name, attribute, log):
    module = types.ModuleType(name)
    setattr(module, attribute, lambda *a, **k: Recorder(log, *a, **k))
    return module


def test_soapy_source_arguments(monkeypatch):
    log = []
    import gnuradio
    monkeypatch.setattr(gnuradio, "soapy", fake_module(monkeypatch, "soapy", "source", log),
                        raising=False)
    monkeypatch.setitem(sys.modules, "gnuradio.soapy", gnuradio.soapy)
    live_sources.make_live_source("soapy", "driver=lime", 2, frequency=433.9e6,
                                  sample_rate=2e6, gain=31.0)
    assert log[0] == ("__init__", ("driver=lime", "fc32", 2, "", "", ["", ""], ["", ""]), {})
    calls = set((name, args) for name, args, _ in log[1:])
    for ch in (0, 1):
        assert ("set_sample_rate", (ch, 2e6)) in calls
        assert ("set_frequency", (ch, 433.9e6)) in calls
        assert ("set_gain", (ch, 31.0)) in calls


def test_osmosdr_source_arguments(monkeypatch):
    log = []
    monkeypatch.setitem(sys.modules, "osmosdr", fake_module(monkeypatch, "osmosdr", "source", log))
    live_sources.make_live_source("osmosdr", "rtl=0 rtl=1 rtl=2 rtl=3 rtl=4", 5,
                                  frequency=433.9e6, sample_rate=2.4e6, gain=None)
    assert log[0] == ("__init__", ("numchan=5 rtl=0 rtl=1 rtl=2 rtl=3 rtl=4",), {})
    calls = set((name, args) for name, args, _ in log[1:])
    assert ("set_sample_rate", (2.4e6,)) in calls
    for ch in range(5):
        assert ("set_center_freq", (433.9e6, ch)) in calls
        assert ("set_gain_mode", (True, ch)) in calls  # no --gain: automatic


def test_uhd_source_arguments_and_timed_tune(monkeypatch):
    log = []
    uhd = types.ModuleType("uhd")
    uhd.ALL_MBOARDS = "ALL"
    uhd.stream_args = lambda **k: ("stream_args", tuple(sorted((a, tuple(v) if isinstance(
        v, list) else v) for a, v in k.items())))
    uhd.time_spec = float
    uhd.tune_request = lambda f: ("tune", f)
    uhd.usrp_source = lambda *a, **k: Recorder(log, *a, **k)
    import gnuradio
    monkeypatch.setattr(gnuradio, "uhd", uhd, raising=False)
    monkeypatch.setitem(sys.modules, "gnuradio.uhd", uhd)
    monkeypatch.setattr(live_sources.time, "sleep", lambda s: None)
    live_sources.make_live_source("uhd", "type=b200", 2, frequency=2.45e9, sample_rate=4e6,
                                  gain=40.0, clock_source="external", time_source="external")
    assert log[0] == ("__init__", ("type=b200", ("stream_args", (("channels", (0, 1)),
                                                                 ("cpu_format", "fc32")))), {})
    names = [(name, args) for name, args, _ in log[1:]]
    assert ("set_clock_source", ("external", "ALL")) in names
    assert ("set_time_source", ("external", "ALL")) in names
    assert ("set_time_unknown_pps", (0.0,)) in names  # external PPS: clocks set on its edge
    # Both channels are tuned between set_command_time and clear_command_time.
    start = names.index(("set_command_time", (5.1, "ALL")))
    end = names.index(("clear_command_time", ("ALL",)))
    assert set(names[start + 1:end]) == {("set_center_freq", (("tune", 2.45e9), 0)),
                                         ("set_center_freq", (("tune", 2.45e9), 1))}
    assert ("set_gain", (40.0, 1)) in names
    assert names[-1] == ("set_start_time", (5.2,))


def test_unknown_kind_and_missing_file_are_named():
    with pytest.raises(live_sources.SourceError, match="--source: must be one of"):
        live_sources.make_live_source("hackrf", "", 5)
    with pytest.raises(live_sources.SourceError, match="--input: no such file"):
        live_sources.make_live_source("file", "/nonexistent.fc32", 5)


@pytest.mark.parametrize("kind,device", [("soapy", "driver=gr_beamform_no_such_driver"),
                                         ("uhd", "type=gr_beamform_no_such_usrp"),
                                         ("osmosdr", "rtl=90 rtl=91")])
def test_no_hardware_is_a_usage_error_naming_args(kind, device):
    module = {"soapy": "gnuradio.soapy", "uhd": "gnuradio.uhd", "osmosdr": "osmosdr"}[kind]
    pytest.importorskip(module)
    ran = script("--headless", "--source", kind, "--args", device, "--elements", "2",
                 "--freq", "433.92e6", "--rate", "1e6")
    print(ran.stderr.splitlines()[-1])
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert "Traceback" not in ran.stderr
    assert f"argument --args: the {kind} receiver {device!r} with 2 channels could not be " \
        "opened" in ran.stderr


# ------------------------------------------------ the recording through the live path
def tone_recording(path, rng, positions, azimuths, receiver_gains, n=16384, noise=0.2):
    """fc32 [time][receivers]: independent random-phase tones (one per
    azimuth, elevation 0) through the receivers' complex gains, plus noise."""
    m = len(positions)
    x = noise * (rng.standard_normal((n, m)) + 1j * rng.standard_normal((n, m))) / np.sqrt(2)
    for k, az in enumerate(azimuths):
        s = np.exp(2j * np.pi * (0.0137 + 0.0211 * k) * np.arange(n) + 1j * rng.uniform(0, 6))
        s = s * np.exp(1j * np.cumsum(rng.standard_normal(n)) * 0.3)  # decorrelates sources
        x += s[:, None] * arrays.plane_wave_phases(positions, az, 0.0, FREQ)[None, :]
    (x * receiver_gains[None, :]).astype(np.complex64).tofile(path)
    return path


def noise_recording(path, rng, receiver_gains, n=8192, snr=30.0):
    """A common noise source through the receivers' gains, plus receiver noise."""
    m = len(receiver_gains)
    s = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) / np.sqrt(2)
    noise = (rng.standard_normal((n, m)) + 1j * rng.standard_normal((n, m))) / np.sqrt(2 * snr)
    x = (s[:, None] + noise) * receiver_gains[None, :]
    x.astype(np.complex64).tofile(path)
    return path


def test_live_flowgraph_from_a_recording_uses_make_live_source(tmp_path, rng):
    """direction_finder with --source file: the source is make_live_source's
    N-stream block feeding streams_to_vector, as a receiver would."""
    app = load_app()
    positions = arrays.ula(5, WAVELENGTH / 2)
    gains = rng.uniform(0.7, 1.3, 5) * np.exp(1j * rng.uniform(-np.pi, np.pi, 5))
    path = tone_recording(str(tmp_path / "live.fc32"), rng, positions, [-27.5], gains)
    made = []
    real = live_sources.make_live_source
    app.live_sources.make_live_source = lambda *a, **k: made.append((a, k)) or real(*a, **k)
    args = app.parse_args(["--source", "file", "--input", path, "--elements", "5",
                           "--channels", "5", "--no-calibration", "--device", "cpu",
                           "--headless"])
    tb = app.direction_finder(args)
    assert made[0][0] == ("file", path, 5)
    assert tb.source.output_signature().max_streams() == 5
    tb.run()
    assert tb.powers_sink.items == 16384 // 256


def test_noise_calibration_from_recordings_restores_the_direction(tmp_path, rng):
    """--calibrate noise on a recording of a common noise source, then a
    transmitter recorded through the same receivers: found within a tenth of
    the beam width by scan, Capon and MUSIC; without the calibration, not."""
    positions = arrays.ula(5, WAVELENGTH / 2)
    fixed = np.random.default_rng(2)  # receiver phases that scramble the uncalibrated peak
    gains = fixed.uniform(0.6, 1.4, 5) * np.exp(1j * fixed.uniform(-np.pi, np.pi, 5))
    cal = noise_recording(str(tmp_path / "noise.fc32"), rng, gains)
    live = tone_recording(str(tmp_path / "live.fc32"), rng, positions, [41.3], gains)
    common = ["--source", "file", "--elements", "5", "--calibration",
              str(tmp_path / "cal.json")]
    ran = script("--calibrate", "noise", "--input", cal, *common)
    assert ran.returncode == 0, ran.stderr
    print(ran.stdout)
    saved, meta = calibration.load_gains(str(tmp_path / "cal.json"))
    assert meta["method"] == "noise" and meta["receivers"] == 5
    residual = np.angle(saved * gains / (saved[0] * gains[0]))
    assert np.max(np.abs(np.degrees(residual))) < 5 * max(meta["phase_std_deg"])
    for method in ("scan", "capon", "music"):
        r = result_of(script("--headless", "--input", live, "--method", method, "--sources",
                             "1", *common))
        print(f"{method}: {r['azimuth']:.2f} deg (true 41.3)")
        assert abs(r["azimuth"] - 41.3) < 0.1 * r["beam_width_azimuth"]
    raw = result_of(script("--headless", "--input", live, "--no-calibration", *common))
    assert abs(raw["azimuth"] - 41.3) > raw["beam_width_azimuth"]


def test_two_close_sources_music_and_capon_resolve_scan_does_not(tmp_path, rng):
    """8 elements at lambda/2 (beam width 12.8 deg), sources at -3 and +3 deg."""
    positions = arrays.ula(8, WAVELENGTH / 2)
    path = tone_recording(str(tmp_path / "two.fc32"), rng, positions, [-3.0, 3.0],
                          np.ones(8), noise=0.05)
    common = ["--headless", "--input", path, "--no-calibration", "--sources", "2",
              "--az-step", "0.5"]
    for method in ("music", "capon"):
        r = result_of(script(*common, "--method", method))
        found = sorted(p["azimuth"] for p in r["sources"])
        print(f"{method}: {np.round(found, 2)}")
        assert np.allclose(found, [-3.0, 3.0], atol=1.0)
        assert all(p["level_db"] > -6 for p in r["sources"])
    scan = result_of(script(*common, "--method", "scan"))
    print("scan:", [(round(p["azimuth"], 2), round(p["level_db"], 1)) for p in scan["sources"]])
    assert abs(scan["sources"][0]["azimuth"]) < 1.0  # one peak between the two
    assert abs(scan["sources"][1]["azimuth"]) > 12 or scan["sources"][1]["level_db"] < -6


# ------------------------------------------------ bad input
@pytest.mark.parametrize("argv,message", [
    (["--method", "music"], "argument --sources: --method music needs the number of sources, "
     "an integer from 1 to 7"),
    (["--method", "music", "--sources", "8"], "argument --sources: must be an integer from 1 "
     "to 7 (the array's elements - 1), got 8"),
    (["--sources", "0"], "argument --sources: must be an integer >= 1, got 0"),
    (["--source", "hackrf"], "argument --source: invalid choice: 'hackrf'"),
    (["--channels", "5"], "argument --channels: must equal the array's 8 elements"),
    (["--source", "uhd"], "argument --args: --source uhd needs the receiver's device string"),
    (["--source", "file"], "argument --source: 'file' needs the recording as --input FILE"),
    (["--calibrate", "diode"], "argument --calibrate: invalid choice: 'diode'"),
    (["--args", "type=b200"], "argument --args: applies to a receiver (--source soapy, "
     "osmosdr, uhd or kraken), not to --source sim"),
    (["--source", "soapy", "--args", "driver=lime", "--clock-source", "external"],
     "argument --clock-source: applies to --source uhd only, got --source soapy"),
])
def test_bad_options_are_usage_errors(argv, message):
    ran = script("--headless", *argv)
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert message in ran.stderr, ran.stderr
    assert "Traceback" not in ran.stderr


def test_calibration_file_for_another_array_is_refused(tmp_path):
    path = str(tmp_path / "five.json")
    calibration.save_gains(path, np.ones(5, np.complex64), frequency=FREQ, method="noise")
    ran = script("--headless", "--calibration", path)
    assert ran.returncode == 2
    assert "argument --calibration/--gains: " in ran.stderr
    assert "holds gains for 5 receivers, the array has 8" in ran.stderr


# ------------------------------------------------ GUI: every method's number
GUI = r'''
import importlib.util, json, sys, time
from PyQt5 import Qt
qapp = Qt.QApplication([])
spec = importlib.util.spec_from_file_location("direction_finding", sys.argv[1])
app = importlib.util.module_from_spec(spec)
spec.loader.exec_module(app)
args = app.parse_args(["--device", "cpu", "--no-calibration", "--phase-seed", "-1",
                       "--samples", "20000", "--sources", "1"])
tb = app.direction_finder(args, gui=True)
window = Qt.QWidget()
layout = Qt.QVBoxLayout(window)
for w in tb.gui_widgets:
    layout.addWidget(w)
window.show()
tb.start()
tb.wait()
qapp.processEvents()
text = tb.update_estimate()
tb.stop()
tb.wait()
print("RESULT", json.dumps(text))
'''


def test_gui_shows_each_methods_estimate():
    pytest.importorskip("PyQt5")
    ran = subprocess.run([sys.executable, "-c", GUI, SCRIPT], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert ran.returncode == 0, ran.stderr
    text = json.loads(next(ln for ln in ran.stdout.splitlines()
                           if ln.startswith("RESULT "))[len("RESULT "):])
    print(text)
    lines = text.splitlines()
    assert [ln.split(":")[0] for ln in lines] == ["direction", "Capon", "MUSIC"]
    for line in lines:
        azimuth = float(line.split("azimuth ")[1].split()[0])
        assert abs(azimuth - 23.4) < 1.0, line


# ------------------------------------------------ the docs' commands
REPO = os.path.abspath(os.path.join(APPS, ".."))
DOC = os.path.join(REPO, "docs", "direction_finding.md")


def doc_commands():
    """(command, reason to skip or None) for every command of the doc's sh
    blocks without grcc (test_install_and_docs runs that one); a command right
    under a '# hardware: REASON' comment needs hardware."""
    import re
    text = open(DOC).read()
    commands = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, re.M | re.S):
        if "grcc " in block:
            continue
        reason = None
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip()
            if line.startswith("# hardware:"):
                reason = line[len("# hardware:"):].strip()
            elif line.startswith("#") or not line:
                continue
            else:
                commands.append((line, reason))
                reason = None
    return commands


def test_doc_commands_are_found():
    commands = doc_commands()
    hardware = [c for c, reason in commands if reason]
    assert len(commands) >= 10 and len(hardware) == 5, commands
    assert all(reason for command, reason in commands
               if any(f"--source {kind}" in command for kind in live_sources.RECEIVERS))


def test_doc_commands_run_as_written(tmp_path):
    """Every runnable command in order (a calibration file written by one is
    read by the next) from a temporary folder; GUI commands run 6 s and must
    exit 0 on SIGTERM. Hardware commands are skipped with their reason,
    listed in the output."""
    import signal
    import time
    ran = 0
    for command, reason in doc_commands():
        if reason:
            print(f"skipped (hardware: {reason}): {command}")
            continue
        command = command.replace("apps/direction_finding.py", SCRIPT)
        proc = subprocess.Popen(["bash", "-c", command], cwd=tmp_path, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                env=dict(os.environ, QT_QPA_PLATFORM="offscreen"),
                                start_new_session=True)
        gui = "--headless" not in command and "--calibrate" not in command
        if gui:
            time.sleep(6)
            assert proc.poll() is None, f"{command}\nended early:\n{proc.stdout.read()}"
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            output, _ = proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
        assert proc.returncode == 0, f"{command}\n{output}"
        assert "Traceback" not in output, f"{command}\n{output}"
        if "--headless" in command and "--source-az" not in command:
            result = json.loads(output.split("result: ")[-1].splitlines()[0])
            assert abs(result["azimuth"] - 23.4) < 0.1 * result["beam_width_azimuth"], command
        ran += 1
    assert ran == len(doc_commands()) - 5


@pytest.mark.parametrize("command,reason", [c for c in doc_commands() if c[1]],
                         ids=lambda v: v[:40] if isinstance(v, str) else None)
def test_doc_hardware_command(command, reason, tmp_path, monkeypatch):
    """The doc's hardware commands: each passes the app's option checks (no
    usage error before the receiver would be opened), then is skipped with its
    reason: no receiver is attached here."""
    import shlex
    monkeypatch.chdir(tmp_path)
    args = load_app().parse_args(shlex.split(command)[2:])
    assert args.source in live_sources.RECEIVERS and args.args
    pytest.skip(f"hardware: {reason}")


# ------------------------------------------------ KrakenSDR: its DAQ's IQ server
class FakeDaq:
    """A local stand-in for the KrakenSDR DAQ's IQ server (the protocol of
    kraken_daq): after "streaming", one frame per request; first a dummy frame
    and an unsynchronised data frame (to be skipped), then `frames` synchronised
    data frames of `samples` (channel-major), then it closes."""

    def __init__(self, samples, cpi, frames, center_freq, sample_rate):
        import socket
        import threading
        from gnuradio.beamform import kraken_daq
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(1)
        self.port = self.server.getsockname()[1]
        m = samples.shape[1]
        head = lambda kind, n, synced=True: kraken_daq.make_header(  # noqa: E731
            kind, m, n, center_freq, sample_rate, synced)
        self.frames = [head(1, 0), head(0, cpi, synced=False) + bytes(8 * m * cpi)]
        for k in range(frames):
            block = np.ascontiguousarray(samples[k * cpi:(k + 1) * cpi].T).astype(np.complex64)
            self.frames.append(head(0, cpi) + block.tobytes())
        self.requests = []
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        connection, _ = self.server.accept()
        try:
            self.requests.append(connection.recv(64))
            for k, frame in enumerate(self.frames):
                if k:
                    self.requests.append(connection.recv(64))
                connection.sendall(frame)
        except OSError:
            pass  # the client stopped early
        finally:
            connection.close()
            self.server.close()


def kraken_ring(rng, azimuth, n, radius):
    positions = arrays.uca(5, radius)
    s = np.exp(2j * np.pi * 0.0173 * np.arange(n))
    x = s[:, None] * arrays.plane_wave_phases(positions, azimuth, 0.0, FREQ)[None, :]
    return x + 0.1 * (rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape))


def test_kraken_daq_stream_through_the_live_path(rng):
    """--source kraken reads the DAQ's synchronised data frames (skipping the
    others) and finds the direction with a 5-element ring."""
    radius = 0.35 * WAVELENGTH
    daq = FakeDaq(kraken_ring(rng, 117.0, 6 * 4096, radius), 4096, 6, 433.92e6, 1e6)
    r = result_of(script("--headless", "--source", "kraken", "--args", f"127.0.0.1:{daq.port}",
                         "--array", "uca", "--elements", "5", "--radius", str(radius),
                         "--scan", "azimuth", "--az-min", "0", "--az-max", "359",
                         "--no-calibration", "--method", "music", "--sources", "1"))
    daq.thread.join(timeout=30)
    print(f"kraken: {r['azimuth']:.2f} deg (true 117), requests {daq.requests[:3]}...")
    assert daq.requests[0] == b"streaming" and set(daq.requests[1:]) == {b"IQDownload"}
    assert abs(r["azimuth"] - 117.0) < 0.5
    assert r["integrations"] == 16384 // 256


@pytest.mark.parametrize("argv,message", [
    (["--elements", "4"], "sends 5 channels, not 4"),
    (["--freq", "868e6"], "is tuned to 433920000 Hz, not 868000000 Hz (--freq"),
    (["--rate", "2.4e6"], "sends 1000000 samples/s, not 2400000 (--rate)"),
])
def test_kraken_daq_mismatch_is_a_usage_error(rng, argv, message):
    daq = FakeDaq(kraken_ring(rng, 10.0, 4096, 0.2), 4096, 1, 433.92e6, 1e6)
    ran = script("--headless", "--source", "kraken", "--args", f"127.0.0.1:{daq.port}",
                 "--array", "uca", "--elements", "5", "--no-calibration", *argv)
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert "argument --args: the kraken receiver" in ran.stderr and message in ran.stderr
    assert "Traceback" not in ran.stderr


def test_kraken_daq_header_round_trip():
    from gnuradio.beamform import kraken_daq
    header = kraken_daq.parse_header(kraken_daq.make_header(3, 5, 1 << 20, 433.92e6, 2.4e6 / 8,
                                                            synced=False))
    assert (header["frame_type"], header["channels"], header["cpi_length"]) == (3, 5, 1 << 20)
    assert (header["center_freq"], header["sample_rate"]) == (433920000, 300000)
    assert header["iq_sync"] == 0
    with pytest.raises(ValueError, match="sync word"):
        kraken_daq.parse_header(bytes(1024))
