# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""The station beamformer's observation options (apps/station_beamformer.py):
antenna positions from a file (east/north/up or ITRF), beams from a list,
dual polarization with Stokes I / IQUV and both Stokes V sign conventions,
and complete SIGPROC headers (source name, telescope and machine ids, tstart
from the stream's rx_time tag or from the recording's --tstart-mjd). Every
bad value is a usage error (exit status 2, the option named) before anything
is written."""
import importlib.util
import math
import os

import numpy as np
import pytest
from gnuradio import beamform, blocks, gr
from gnuradio.beamform import antenna_positions

from conftest import assert_same_powers

APP = os.path.join(os.path.dirname(__file__), "..", "..", "apps", "station_beamformer.py")


def load_app():
    spec = importlib.util.spec_from_file_location("station_beamformer", APP)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


app = load_app()
SMALL = ["--channels", "32", "--spectra", "2048", "--n-int", "16", "--device", "cpu"]


def write(folder, name, text):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def random_layout(n, seed, extent=4.0):
    """n antennas at random east/north (and small up) positions, at least 0.4 m apart."""
    rng = np.random.default_rng(seed)
    chosen = []
    while len(chosen) < n:
        p = np.array([*rng.uniform(-extent, extent, 2), rng.uniform(-0.2, 0.2)])
        if all(np.linalg.norm(p - q) >= 0.4 for q in chosen):
            chosen.append(p)
    return np.array(chosen)


def enu_file(folder, positions, name="antennas.txt"):
    lines = ["# east north up (m)"] + [f"{e:.6f} {n:.6f} {u:.6f}" for e, n, u in positions]
    return write(folder, name, "\n".join(lines) + "\n")


def run_station(tmp_path, extra, prefix="obs"):
    station = app.Station(app.parse_args([*SMALL, "--out", str(tmp_path), "--prefix", prefix,
                                          *extra]))
    summary = station.run(progress=False)
    return station, summary


def source_column(station, channel):
    """Column of `channel` in the files' descending frequency order."""
    freqs_desc = np.sort(station.frequencies)[::-1]
    return int(np.argmin(np.abs(freqs_desc - station.frequencies[channel])))


# --- antenna positions ------------------------------------------------------------------------


def test_positions_file_sets_the_receivers_and_the_source_is_found(tmp_path):
    layout = random_layout(12, seed=3)
    path = enu_file(str(tmp_path), layout)
    station, summary = run_station(tmp_path, [
        "--positions", path, "--beams-per-side", "5", "--field-half-width", "0.4",
        "--source=-0.2,0.35,9,0.5"])
    assert station.n_rx == 12 and np.allclose(station.positions, layout, atol=1e-6)
    want = app.nearest_beam(station.beams_lm, -0.2, 0.35)
    assert summary["brightest_beam"] == want and summary["brightest_channel"] == 9
    # The steering used the file's positions: the source's beam is brighter than
    # every other beam in its channel.
    column = summary["power"][:, source_column(station, 9)]
    assert int(np.argmax(column)) == want


def test_wgs84_round_trip_and_known_directions():
    rng = np.random.default_rng(7)
    for lat, lon, h in zip(rng.uniform(-89, 89, 50), rng.uniform(-180, 180, 50),
                           rng.uniform(-100, 5000, 50)):
        back = antenna_positions.itrf_to_geodetic(antenna_positions.geodetic_to_itrf(lat, lon, h))
        assert back == pytest.approx((lat, lon, h), abs=1e-6)
    a = antenna_positions.WGS84_A
    # On the equator at longitude 0: +Y is east, +Z north, +X up.
    enu = antenna_positions.itrf_to_enu([[a + 3, 10, 20]], [a, 0, 0])
    assert enu[0] == pytest.approx([10, 20, 3], abs=1e-9)
    # At longitude 90: east is -X.
    enu = antenna_positions.itrf_to_enu([[-5, a, 0]], [0, a, 0])
    assert enu[0] == pytest.approx([5, 0, 0], abs=1e-9)


def test_itrf_positions_become_east_north_up_about_the_site(tmp_path):
    layout = random_layout(10, seed=5, extent=30.0)
    site = (52.9, 6.87, 15.0)  # a northern European site
    lat, lon = np.radians(site[:2])
    # The site's east, north and up unit vectors in Earth-centred axes.
    east = np.array([-np.sin(lon), np.cos(lon), 0])
    north = np.array([-np.sin(lat) * np.cos(lon), -np.sin(lat) * np.sin(lon), np.cos(lat)])
    up = np.array([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)])
    centre = antenna_positions.geodetic_to_itrf(*site)
    xyz = centre + layout[:, :1] * east + layout[:, 1:2] * north + layout[:, 2:] * up
    lines = ["# frame: itrf"] + [f"{x:.4f}, {y:.4f}, {z:.4f}" for x, y, z in xyz]
    path = write(str(tmp_path), "itrf.txt", "\n".join(lines) + "\n")

    args = app.parse_args([*SMALL, "--out", str(tmp_path), "--positions", path,
                           "--site", ",".join(map(str, site))])
    assert args.positions_frame == "itrf" and args.receivers == 10
    assert np.allclose(args.antenna_enu, layout, atol=2e-4)
    # Without --site: about the mean of X, Y, Z; the same array, shifted.
    args = app.parse_args([*SMALL, "--out", str(tmp_path), "--positions", path,
                           "--positions-frame", "itrf"])
    shifted = np.asarray(args.antenna_enu)
    assert np.allclose(shifted - shifted.mean(axis=0), layout - layout.mean(axis=0), atol=1e-3)


# --- beams from a list ------------------------------------------------------------------------


def test_listed_beams_find_the_source_in_its_beam(tmp_path):
    source_l, source_m = 0.3, -0.2
    az, el = app.lm_to_az_el(source_l, source_m)
    beams = write(str(tmp_path), "beams.txt", "\n".join([
        "# a few beams, several frames",
        "0 90            # zenith (azel, the default frame)",
        "lm 0.1 0.2",
        f"azel {az:.6f} {el:.6f}   # on the source",
        "lm -0.3 0.1",
        "120, 45",
    ]) + "\n")
    station, summary = run_station(tmp_path, [
        "--receivers", "16", "--beams", beams, f"--source={source_l},{source_m},20,0.5"])
    assert station.n_beams == 5
    assert summary["brightest_beam"] == 2 and summary["brightest_channel"] == 20
    header = beamform.read_filterbank(os.path.join(str(tmp_path), "obs_beam0004.fil"))[0]
    assert header["az_start"] == pytest.approx(120) and header["za_start"] == pytest.approx(45)
    assert header["nbeams"] == 5 and header["ibeam"] == 4


# --- dual polarization ------------------------------------------------------------------------


def stokes_fractions(station, summary, channel):
    """(Q, U, V) / I of the source: its beam and channel, I less the receiver
    noise's share (the median of the beam's other channels, where Q, U and V
    average to 0)."""
    beam = summary["stokes"][summary["brightest_beam"]]  # [IF][channel]
    col = source_column(station, channel)
    noise = np.median(np.delete(beam[0], [col - 1, col, col + 1]))
    i, q, u, v = beam[:, col]
    return np.array([q, u, v]) / (i - noise)


@pytest.mark.parametrize("pol,convention,expected", [
    ("0,0,1", "psr-ieee", (0, 0, 1)),
    ("0,0,1", "beamformer", (0, 0, -1)),
    ("0,0,-1", "psr-ieee", (0, 0, -1)),
    ("0,0,-1", "beamformer", (0, 0, 1)),
    ("1,0,0", "psr-ieee", (1, 0, 0)),
    ("0,-1,0", "beamformer", (0, -1, 0)),
    ("0.3,-0.4,0.5", "psr-ieee", (0.3, -0.4, 0.5)),
    ("0,0,0", "psr-ieee", (0, 0, 0)),
])
def test_dual_pol_stokes_of_a_polarized_source(tmp_path, pol, convention, expected):
    station, summary = run_station(tmp_path, [
        "--receivers", "16", "--beams-per-side", "3", "--pol", "dual", "--stokes", "IQUV",
        "--source-pol", pol, "--stokes-v-convention", convention, "--noise", "0.3",
        "--source=0.25,0.05,5,0.5"])
    assert station.n_rx == 16 and len(station.antennas) == 8
    assert summary["brightest_beam"] == app.nearest_beam(station.beams_lm, 0.25, 0.05)
    assert summary["brightest_channel"] == 5
    assert stokes_fractions(station, summary, 5) == pytest.approx(expected, abs=0.01)
    header, data = beamform.read_filterbank(os.path.join(str(tmp_path), "obs_beam0000.fil"))
    assert header["nifs"] == 4 and data.shape == (2048 // 16, 4, 32)


def test_simulated_voltages_follow_the_beamformer_formula():
    """The simulator alone, against numpy: on every antenna the X/Y cross
    product of a circularly polarized source (no noise) has 2 Im(X Y*) / I =
    -v, the beamformer's V (docs/tensor_beamformer.md) of a PSR/IEEE v."""
    args = app.parse_args([*SMALL, "--receivers", "8", "--pol", "dual", "--source-pol",
                           "0,0.6,0.8", "--noise", "0", "--source=0.2,0.1,3,0.5",
                           "--adc-scale", "30000"])
    station = app.Station(args, build=False)
    tb = gr.top_block()
    sink = blocks.vector_sink_s(2 * station.n_rx)  # sc16: I, Q int16 per receiver
    tb.connect(station._source_block(), blocks.head(4 * station.n_rx, 4096), sink)
    tb.run()
    iq = np.array(sink.data(), dtype=np.float64).reshape(-1, station.n_rx, 2)
    voltages = iq[..., 0] + 1j * iq[..., 1]
    x, y = voltages[:, 0::2], voltages[:, 1::2]  # [time][antenna]
    intensity = (np.abs(x) ** 2 + np.abs(y) ** 2).mean(axis=0)
    cross = (x * np.conj(y)).mean(axis=0)
    assert np.abs(x).mean() > 1000  # the source is there, well above the rounding
    assert 2 * cross.real / intensity == pytest.approx(np.full(4, 0.6), abs=1e-3)  # U
    assert 2 * cross.imag / intensity == pytest.approx(np.full(4, -0.8), abs=1e-3)  # V, beamformer


def test_tstart_from_rx_time_and_header_fields(tmp_path):
    station, summary = run_station(tmp_path, [
        "--receivers", "8", "--beams-per-side", "2", "--tstart-mjd", "60123.456789",
        "--source-name", "J0332+5434", "--telescope-id", "11", "--machine-id", "23"])
    assert station.sink.tstart_from_rx_time()
    header = beamform.read_filterbank(os.path.join(str(tmp_path), "obs_beam0001.fil"))[0]
    assert header["tstart"] == pytest.approx(60123.456789, abs=1e-9)
    assert header["source_name"] == "J0332+5434"
    assert header["telescope_id"] == 11 and header["machine_id"] == 23
    assert "src_raj" not in header and "src_dej" not in header  # az/el beams: omitted


def test_recording_takes_tstart_from_the_option(tmp_path):
    rng = np.random.default_rng(2)
    recording = os.path.join(str(tmp_path), "rec.sc16")
    rng.integers(-2000, 2000, size=2 * 8 * 32 * 64, dtype=np.int16).tofile(recording)
    station, summary = run_station(tmp_path, [
        "--receivers", "8", "--beams-per-side", "2", "--spectra", "64", "--input", recording,
        "--tstart-mjd", "59000.25"])
    assert not station.sink.tstart_from_rx_time()
    header = beamform.read_filterbank(os.path.join(str(tmp_path), "obs_beam0000.fil"))[0]
    assert header["tstart"] == pytest.approx(59000.25, abs=1e-9)
    assert header["source_name"] == "unknown"


# --- usage errors -----------------------------------------------------------------------------

POSITIONS_FAULTS = [
    ("1 2\n3 4 5\n", "expected 3 columns"),
    ("1 2 0\n3 x 0\n", "positions must be numbers"),
    ("1 2 0\n", "at least 2 antennas, found 1"),
    ("1 2 0\n3 4 0\n1 2 0\n", "duplicated position: the same as line 1"),
    ("# frame: galactic\n1 2 0\n3 4 0\n", "frame must be one of enu, itrf"),
    ("# frame: itrf\n1 2 0\n3 4 0\n", "Earth-centred X Y Z"),
    ("1 2 nan\n3 4 0\n", "must be finite"),
]


def usage_error(capsys, tmp_path, argv):
    out = os.path.join(str(tmp_path), "never")
    with pytest.raises(SystemExit) as exit_info:
        app.parse_args([*SMALL, "--out", out, *argv])
    assert exit_info.value.code == 2
    assert not os.path.exists(out)
    err = capsys.readouterr().err
    assert err.startswith("usage:"), err
    return err


@pytest.mark.parametrize("text,fragment", POSITIONS_FAULTS)
def test_bad_positions_file(capsys, tmp_path, text, fragment):
    path = write(str(tmp_path), "pos.txt", text)
    err = usage_error(capsys, tmp_path, ["--positions", path])
    assert "argument --positions:" in err and fragment in err, err


BEAMS_FAULTS = [
    ("galactic 10 20\n", "frame must be one of azel, lm, radec"),
    ("10 20 30\n", "expected '[frame] a b' with two values"),
    ("azel 10 95\n", "elevation must be in [0, 90]"),
    ("lm 0.9 0.9\n", "l^2 + m^2 must be <= 1"),
    ("lm 0.1 zz\n", "expected numbers"),
    ("# nothing\n", "no beams listed"),
    ("radec 25:00:00 10:00:00\n", "RA must be in [0, 24) h"),
    ("radec 03:32:59.4 +54:34:43\n", "RA/Dec beams need tracking (--track)"),
    ("0 90\nradec 53.2 54.6\n", "RA/Dec beams need tracking (--track)"),
]


@pytest.mark.parametrize("text,fragment", BEAMS_FAULTS)
def test_bad_beams_file(capsys, tmp_path, text, fragment):
    path = write(str(tmp_path), "beams.txt", text)
    err = usage_error(capsys, tmp_path, ["--beams", path])
    assert "argument --beams:" in err and fragment in err, err


def test_radec_beams_are_parsed_and_kept():
    """RA/Dec lines are read (for the tracker), in degrees."""
    from gnuradio.beamform import beam_list
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("radec 03:32:59.4 +54:34:43.5\nradec 83.63 -22.01\n0 90\n")
    try:
        beams = beam_list.read_beams_file(f.name)
    finally:
        os.remove(f.name)
    assert beams[0].frame == "radec"
    assert beams[0].a == pytest.approx((3 + 32 / 60 + 59.4 / 3600) * 15)
    assert beams[0].b == pytest.approx(54 + 34 / 60 + 43.5 / 3600)
    assert beams[1][:3] == ("radec", 83.63, -22.01) and beams[2][:3] == ("azel", 0.0, 90.0)


@pytest.mark.parametrize("argv,fragments", [
    (["--pol", "dual", "--receivers", "15"], ["argument --receivers:", "even number", "got 15"]),
    (["--stokes", "IQUV"], ["argument --stokes:", "needs --pol dual"]),
    (["--pol", "dual", "--stokes", "Q"], ["argument --stokes:", "invalid choice: 'Q'",
                                          "'I', 'IQUV'"]),
    (["--pol", "dual", "--stokes-v-convention", "iau"],
     ["argument --stokes-v-convention:", "'beamformer', 'psr-ieee'"]),
    (["--pol", "dual", "--source-pol", "1,1,0"], ["argument --source-pol:", "<= 1", "1.41421"]),
    (["--source-pol", "0,0,1"], ["argument --source-pol:", "needs --pol dual"]),
    (["--pol", "dual", "--n-int", "2", "--spectra", "64"], ["argument --n-int:", ">= 4"]),
    (["--telescope-id", "-1"], ["argument --telescope-id:", "from 0 to 2147483647"]),
    (["--machine-id", "x"], ["argument --machine-id:", "an integer"]),
    (["--source-name", "x" * 81], ["argument --source-name:", "1 to 80 printable ASCII"]),
    (["--tstart-mjd", "-1"], ["argument --tstart-mjd:", "a number >= 0"]),
    (["--site", "52,6,0"], ["argument --site:", "only with --positions"]),
    (["--positions-frame", "itrf"], ["argument --positions-frame:", "only with --positions"]),
])
def test_bad_option_values(capsys, tmp_path, argv, fragments):
    err = usage_error(capsys, tmp_path, argv)
    for fragment in fragments:
        assert fragment in err, err


def test_conflicting_options(capsys, tmp_path):
    positions = enu_file(str(tmp_path), random_layout(6, seed=1))
    beams = write(str(tmp_path), "beams.txt", "0 90\n")
    err = usage_error(capsys, tmp_path, ["--positions", positions, "--receivers", "8"])
    assert "argument --receivers:" in err and "lists 6 antennas" in err
    err = usage_error(capsys, tmp_path, ["--positions", positions, "--spacing", "2"])
    assert "argument --spacing:" in err
    err = usage_error(capsys, tmp_path, ["--positions", positions, "--positions-frame", "enu",
                                         "--site", "52,6,0"])
    assert "argument --site:" in err and "only for itrf positions" in err
    itrf = write(str(tmp_path), "itrf.txt", "# frame: itrf\n3.8e6 4.6e5 5.0e6\n3.8e6 4.6e5 5.1e6\n")
    err = usage_error(capsys, tmp_path, ["--positions", itrf, "--positions-frame", "enu"])
    assert "says '# frame: itrf'" in err
    err = usage_error(capsys, tmp_path, ["--beams", beams, "--beams-per-side", "4"])
    assert "argument --beams-per-side:" in err and "--beams lists the beams" in err
    recording = write(str(tmp_path), "rec.sc16", "\0" * (4 * 16 * 32 * 16))
    err = usage_error(capsys, tmp_path, ["--receivers", "16", "--input", recording])
    assert "argument --tstart-mjd:" in err and "--input needs the recording's start" in err


def test_split_over_devices_keeps_dual_pol_stokes(tmp_path):
    """apps/station_split.py's multi role with Stokes IQUV in the PSR/IEEE
    convention writes the same files, bit for bit, as the single flowgraph:
    the four Stokes planes are recombined and V is flipped there too."""
    spec = importlib.util.spec_from_file_location(
        "station_split", os.path.join(os.path.dirname(APP), "station_split.py"))
    split_app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(split_app)
    station_argv = [*SMALL, "--receivers", "16", "--beams-per-side", "3", "--pol", "dual",
                    "--stokes", "IQUV", "--stokes-v-convention", "psr-ieee",
                    "--source-pol", "0.1,0.2,-0.6", "--source=0.25,0.05,5,0.5"]
    single_dir, split_dir = tmp_path / "single", tmp_path / "multi"
    station = app.Station(app.parse_args([*station_argv, "--out", str(single_dir)]))
    summary = station.run(progress=False)
    assert stokes_fractions(station, summary, 5) == pytest.approx((0.1, 0.2, -0.6), abs=0.01)
    split = split_app.Split(*split_app.parse_args(
        ["--role", "multi", "--subbands", "2", "--devices", "cpu,emu:0",
         *station_argv, "--out", str(split_dir)]))
    split.run()
    names = sorted(os.listdir(single_dir))
    names = [n for n in names if n.endswith(".fil")]
    assert len(names) == 9
    for name in names:
        h1, d1 = beamform.read_filterbank(str(single_dir / name))
        h2, d2 = beamform.read_filterbank(str(split_dir / name))
        assert h1 == h2 and d1.shape[1] == 4
        assert_same_powers(d1, d2)


def test_gui_from_the_command_line_with_listed_dual_pol_beams(tmp_path):
    """--gui as a user starts it (a fresh process, no QApplication yet) with a
    beam list (the map draws points, not a grid image) and Stokes IQUV items
    (the views take the I plane)."""
    import subprocess
    import sys

    beams = write(str(tmp_path), "beams.txt", "0 90\nlm 0.25 0.05\nlm 0.1 0.2\n")
    ran = subprocess.run(
        [sys.executable, APP, *SMALL, "--receivers", "16", "--pol", "dual", "--stokes", "IQUV",
         "--beams", beams, "--gui", "--out", str(tmp_path / "out")],
        env=dict(os.environ, QT_QPA_PLATFORM="offscreen"), capture_output=True, text=True,
        timeout=180)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "injected source   l=0.25, m=0.05, channel 5: found in the right beam" in ran.stdout
    assert "polarization      q = " in ran.stdout


def test_beams_frame_applies_to_lines_without_a_frame(tmp_path):
    beams = write(str(tmp_path), "beams.txt", "0.25 0.05\n-0.1, 0.3\nazel 90 60\n")
    args = app.parse_args([*SMALL, "--out", str(tmp_path), "--beams", beams,
                           "--beams-frame", "lm"])
    lm = app.beam_pointing(args)
    expected = [(0.25, 0.05), (-0.1, 0.3), (math.cos(math.radians(60)), 0.0)]
    assert lm == pytest.approx(np.array(expected), abs=1e-12)


def test_dual_pol_recording_gives_the_simulated_stokes(tmp_path):
    """A recording in the --input layout (receivers 2k, 2k + 1 = X, Y of
    antenna k, sc16), made here by the simulator, gives the same source,
    beam and Stokes as the simulated run, with tstart from --tstart-mjd."""
    sky = [*SMALL, "--receivers", "16", "--beams-per-side", "3", "--pol", "dual",
           "--stokes", "IQUV", "--stokes-v-convention", "psr-ieee", "--noise", "0.3"]
    simulated = app.parse_args([*sky, "--source-pol", "-0.5,0,0.7", "--source=0.25,0.05,7,0.5",
                                "--out", str(tmp_path / "sim")])
    station = app.Station(simulated, build=False)
    recording = str(tmp_path / "dual.sc16")
    tb = gr.top_block()
    tb.connect(station._source_block(), blocks.head(4 * station.n_rx, 2048 * 32),
               blocks.file_sink(4 * station.n_rx, recording))
    tb.run()
    station, summary = run_station(tmp_path, [*sky[len(SMALL):], "--input", recording,
                                              "--tstart-mjd", "60500.125"])
    assert summary["brightest_beam"] == app.nearest_beam(station.beams_lm, 0.25, 0.05)
    assert summary["brightest_channel"] == 7
    assert stokes_fractions(station, summary, 7) == pytest.approx((-0.5, 0, 0.7), abs=0.01)
    header = beamform.read_filterbank(os.path.join(str(tmp_path), "obs_beam0000.fil"))[0]
    assert header["tstart"] == pytest.approx(60500.125) and header["nifs"] == 4


def test_source_pol_is_for_the_simulated_sky_only(capsys, tmp_path):
    recording = write(str(tmp_path), "rec.sc16", "\0" * (4 * 16 * 32 * 16))
    err = usage_error(capsys, tmp_path, ["--receivers", "16", "--pol", "dual", "--input",
                                         recording, "--tstart-mjd", "60000",
                                         "--source-pol", "0,0,1"])
    assert "argument --source-pol:" in err and "not with --input" in err
