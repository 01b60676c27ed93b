# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""The station beamformer's observation wiring (apps/station_beamformer.py):
--track (delay_tracker -> phase_shift, RA/Dec beams, src_raj/src_dej),
--rfi (rfi_flagger after the channelizer), --incoherent (incoherent_beam's own
filterbank file) and --input with GUPPI RAW and SigMF recordings written here
with the module's writers. Bad values are usage errors (exit status 2) naming
the option."""
import importlib.util
import math
import os

import numpy as np
import pytest
from gnuradio import beamform
from gnuradio.beamform import steering_helpers, tracking
from gnuradio.beamform.guppi_raw import GuppiRawFile, write_guppi_raw
from gnuradio.beamform.sigmf_array import write_sigmf_array

APP = os.path.join(os.path.dirname(__file__), "..", "..", "apps", "station_beamformer.py")


def load_app():
    spec = importlib.util.spec_from_file_location("station_beamformer", APP)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


app = load_app()
SMALL = ["--channels", "32", "--spectra", "1024", "--n-int", "16", "--device", "cpu",
         "--receivers", "16", "--beams-per-side", "5"]
SITE = "52.9,6.6,16"
SITE_ARGS = (52.9, 6.6, 16.0)
START_UNIX = (app.SIMULATED_TSTART_MJD - app.UNIX_EPOCH_MJD) * 86400.0
# A source at azimuth 200, elevation 75 deg from SITE at the simulated start (MJD 61000).
TARGET_RA, TARGET_DEC = 59.90886, 38.51193
TARGET = f"radec:{TARGET_RA},{TARGET_DEC}"
CENTRE_BEAM = 12  # of the 5 x 5 grid


def run_station(tmp_path, extra, prefix="obs"):
    station = app.Station(app.parse_args([*SMALL, "--out", str(tmp_path), "--prefix", prefix,
                                          *extra]))
    summary = station.run(progress=False)
    return station, summary


def sexagesimal_degrees(packed, hours):
    """SIGPROC's packed hhmmss.s / ddmmss.s to degrees (decoded here, independently)."""
    sign = -1.0 if packed < 0 else 1.0
    packed = abs(packed)
    whole = int(packed // 10000)
    minutes = int(packed // 100) % 100
    seconds = packed - whole * 10000 - minutes * 100
    value = whole + minutes / 60 + seconds / 3600
    return sign * value * (15.0 if hours else 1.0)


def header_ra_dec(path):
    header, _ = beamform.read_filterbank(path)
    return (sexagesimal_degrees(header["src_raj"], True),
            sexagesimal_degrees(header["src_dej"], False))


def test_tracked_source_in_the_centre_beam_with_its_ra_dec(tmp_path):
    station, s = run_station(tmp_path, ["--track", TARGET, "--site", SITE, "--incoherent",
                                        "--track-interval", "0.001"])
    # The default source sits at the target at the start: found in the centre beam.
    assert s["brightest_beam"] == CENTRE_BEAM and s["brightest_channel"] == 5
    assert s["contrast_db"] > 6
    # The model's az/el of the target (its own computation, not the app's).
    model = tracking.DelayModel(tracking.Site(*SITE_ARGS), [[0, 0, 0]], TARGET)
    az, el = (float(v) for v in model.az_el(TARGET, START_UNIX))
    assert abs(az - 200.0) < 1e-3 and abs(el - 75.0) < 1e-3
    header, data = beamform.read_filterbank(str(tmp_path / f"obs_beam{CENTRE_BEAM:04d}.fil"))
    assert abs(header["az_start"] - az) < 1e-6 and abs(header["za_start"] - (90 - el)) < 1e-6
    ra, dec = header_ra_dec(str(tmp_path / f"obs_beam{CENTRE_BEAM:04d}.fil"))
    assert abs(ra - TARGET_RA) < 1e-5 and abs(dec - TARGET_DEC) < 1e-5
    # Every other beam's RA/Dec is where the model sees its az/el at the start.
    for beam in (0, 7, 24):
        path = str(tmp_path / f"obs_beam{beam:04d}.fil")
        header, _ = beamform.read_filterbank(path)
        ra, dec = header_ra_dec(path)
        b_az, b_el = (float(v) for v in model.az_el(f"radec:{ra},{dec}", START_UNIX))
        assert abs(b_az - header["az_start"]) < 2e-4
        assert abs(b_el - (90 - header["za_start"])) < 2e-4
    # The incoherent beam: one beam at the phase centre, with its RA/Dec.
    ra, dec = header_ra_dec(str(tmp_path / "obs_incoherent_beam0000.fil"))
    assert abs(ra - TARGET_RA) < 1e-5 and abs(dec - TARGET_DEC) < 1e-5
    # 1024 spectra of 32 channels at 10 MHz = 3.2768 ms: an update every ms.
    assert station.tracker.updates_sent == 4 and station.tracker.failures == 0
    assert station.phase.device() == "cpu"


def test_ra_dec_beams_follow_their_targets(tmp_path):
    """A --beams file of RA/Dec beams (and one fixed azel beam) with --track: the
    tracker points them (offset_lm) and a source at the second one is found there."""
    model = tracking.DelayModel(tracking.Site(*SITE_ARGS), [[0, 0, 0]], TARGET)
    other_ra, other_dec = app.ra_dec_of(model, [(150.0, 60.0)], START_UNIX)[0]
    beams = tmp_path / "beams.txt"
    beams.write_text(f"radec {TARGET_RA} {TARGET_DEC}\nradec {other_ra:.6f} {other_dec:.6f}\n"
                     "azel 30 50\n")
    az, el = (float(v) for v in model.az_el(f"radec:{other_ra:.6f},{other_dec:.6f}", START_UNIX))
    l, m = math.cos(math.radians(el)) * math.sin(math.radians(az)), \
        math.cos(math.radians(el)) * math.cos(math.radians(az))
    args = [a for a in SMALL if a not in ("--beams-per-side", "5")]
    station = app.Station(app.parse_args([*args, "--out", str(tmp_path), "--track", TARGET,
                                          "--site", SITE, "--beams", str(beams),
                                          "--source", f"{l},{m},7,0.5"]))
    s = station.run(progress=False)
    assert s["brightest_beam"] == 1 and s["brightest_channel"] == 7
    assert station.tracker.pointing_updates_sent >= 1
    assert station.beamformer.messages_rejected() == 0
    ra, dec = header_ra_dec(str(tmp_path / "station_beam0001.fil"))
    assert abs(ra - other_ra) < 1e-5 and abs(dec - other_dec) < 1e-5
    header, _ = beamform.read_filterbank(str(tmp_path / "station_beam0002.fil"))
    assert abs(header["az_start"] - 30) < 1e-6 and abs(header["za_start"] - 40) < 1e-6


NOISE_ONLY = ["--source", "0.25,0.05,5,0"]  # a silent source: receiver noise only


def test_rfi_flagger_on_noise_flags_about_two_pfa(tmp_path):
    """The first block of a run holds the channelizer's start (its filter fills
    from zeros) and is often flagged; two runs with the same seed share their
    first 2048 spectra, so the difference of their counts is the flags of
    spectra 2048 to 6143 of noise alone."""
    pfa = 0.01
    counts = []
    for spectra in (2048, 6144):
        station, _ = run_station(tmp_path / str(spectra),
                                 [*NOISE_ONLY, "--spectra", str(spectra), "--rfi",
                                  "--rfi-block-size", "16", "--rfi-pfa", str(pfa)])
        f = station.flagger
        assert f.total_count() == spectra * 32 * 16
        counts.append(f.flagged_count())
    estimates = (6144 - 2048) * 32 * 16 // 16
    expected = 2 * pfa * estimates  # 2621, standard deviation 51
    assert (counts[1] - counts[0]) % 16 == 0
    assert abs((counts[1] - counts[0]) // 16 - expected) < 0.1 * expected


def test_injected_carrier_is_flagged_and_zeroed(tmp_path):
    clean, _ = run_station(tmp_path / "clean", [*NOISE_ONLY, "--inject-rfi", "9"])
    power = beamform.read_filterbank(str(tmp_path / "clean" / "obs_beam0012.fil"))[1][:, 0]
    freqs_desc = np.sort(clean.frequencies)[::-1]
    row = int(np.argmin(np.abs(freqs_desc - clean.frequencies[9])))
    assert np.median(power[:, row]) > 100 * np.median(power)  # the carrier, unflagged
    station, _ = run_station(tmp_path / "rfi", [*NOISE_ONLY, "--inject-rfi", "9", "--rfi",
                                                "--rfi-block-size", "16", "--incoherent"])
    f = station.flagger
    fraction = f.flagged_count() / f.total_count()
    assert 1 / 32 <= fraction < 1 / 32 + 0.01  # the carrier's channel, plus ~2 pfa
    for name in ("obs_beam0012.fil", "obs_incoherent_beam0000.fil"):
        power = beamform.read_filterbank(str(tmp_path / "rfi" / name))[1][:, 0]
        # Zeroed from the second flagger block on (the first holds the filter's start).
        assert np.all(power[2:, row] == 0), name
        assert np.all(np.delete(power[2:], row, axis=1) > 0)


GUPPI_CHANNELS, GUPPI_RX, GUPPI_BLOCKS, GUPPI_TIME = 16, 8, 4, 128
GUPPI_HEADER = {"OBSFREQ": 150.0, "OBSBW": 5.0, "TBIN": 3.2e-6, "STT_IMJD": 60500,
                "STT_SMJD": 43200, "STT_OFFS": 0.5, "SRC_NAME": "J0000+0000",
                "RA_STR": "03:59:38.1264", "DEC_STR": "+38:30:42.948"}


def write_guppi(path, rng, source_lm=(0.325, 0.425), channel=3, amplitude=10.0):
    """GUPPI RAW spectra of 8 receivers on the app's default grid: a tone from
    source_lm in one channel plus noise, 8-bit."""
    positions = app.grid_positions(GUPPI_RX, 1.0)
    f = np.arange(GUPPI_CHANNELS)
    freqs = (150.0 - 2.5 + (f + 0.5) * 5.0 / GUPPI_CHANNELS) * 1e6
    n = GUPPI_BLOCKS * GUPPI_TIME
    signal = np.zeros((n, GUPPI_CHANNELS), complex)
    signal[:, channel] = amplitude * np.exp(2j * np.pi * rng.uniform(size=n))
    az_el = app.lm_to_az_el(*source_lm)
    x = steering_helpers.plane_wave(positions, freqs, az_el, signal)
    x = x + 8 * (rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape))
    x = np.clip(x.real, -127, 127) + 1j * np.clip(x.imag, -127, 127)
    blocks = [x[k * GUPPI_TIME:(k + 1) * GUPPI_TIME] for k in range(GUPPI_BLOCKS)]
    write_guppi_raw(str(path), blocks, GUPPI_HEADER, n_antennas=GUPPI_RX)
    return str(path)


def test_guppi_raw_input_source_in_its_beam_and_incoherent_beam_numpy(tmp_path):
    path = write_guppi(tmp_path / "scan.0000.raw", np.random.default_rng(3))
    args = app.parse_args(["--input", path, "--n-int", "16", "--device", "cpu",
                           "--beams-per-side", "5", "--out", str(tmp_path / "out"),
                           "--incoherent", "--rfi", "--rfi-block-size", "16"])
    assert (args.channels, args.receivers, args.spectra) == (16, 8, 512)
    assert args.source_name == "J0000+0000"
    station = app.Station(args)
    s = station.run(progress=False)
    # Source at (0.325, 0.425) = field centre (0.1, 0.2) + 3 grid steps of 0.225: beam 18.
    assert s["brightest_beam"] == 18 and s["brightest_channel"] == 3
    header, _ = beamform.read_filterbank(str(tmp_path / "out" / "station_beam0018.fil"))
    assert header["source_name"] == "J0000+0000"
    assert abs(header["tstart"] - (60500 + (43200 + 0.5) / 86400)) < 1e-10
    assert abs(header["tsamp"] - 16 * 3.2e-6) < 1e-15
    assert abs(header["fch1"] - (150 + 2.5 - 5 / 32)) < 1e-9 and header["foff"] < 0
    # The incoherent beam against numpy on the file's spectra: sum of receiver powers.
    header, got = beamform.read_filterbank(str(tmp_path / "out" /
                                               "station_incoherent_beam0000.fil"))
    assert (header["nifs"], header["nchans"], header["nbeams"]) == (1, 16, 1)
    spectra = GuppiRawFile(path).read().astype(np.complex128)  # [t][channel][rx]
    want = (np.abs(spectra) ** 2).sum(axis=2).reshape(-1, 16, 16).sum(axis=1)
    flagged = station.flagger.flagged_count()
    assert flagged < 0.05 * station.flagger.total_count()
    if flagged == 0:
        np.testing.assert_allclose(got[:, 0, :], want[:, ::-1], rtol=1e-5)
    else:  # compare the integrations whose spectra the flagger left alone
        close = np.isclose(got[:, 0, :], want[:, ::-1], rtol=1e-5)
        assert close.mean() > 0.9


def test_guppi_ra_dec_is_the_default_track_target(tmp_path):
    path = write_guppi(tmp_path / "scan.raw", np.random.default_rng(4))
    args = app.parse_args(["--input", path, "--n-int", "16", "--device", "cpu",
                           "--beams-per-side", "3", "--field-half-width", "0.1",
                           "--site", SITE, "--out", str(tmp_path)])
    assert args.track.startswith("radec:")
    assert abs(args.track_model.phase_centre.a - TARGET_RA) < 1e-6
    assert abs(args.track_model.phase_centre.b - TARGET_DEC) < 1e-6
    assert abs(args.track_start_unix - ((60500 - 40587) * 86400 + 43200.5)) < 1e-6


def write_sigmf(base, rng, positions, source_az_el, channel, n_ch=32, fs=2e6, fc=150e6,
                n=32768, start_unix=1.7e9 + 0.25, datatype="ci16_le", scale=2000.0):
    """SigMF samples: a tone at the centre of `channel` from source_az_el plus noise."""
    offset = (channel if channel < n_ch // 2 else channel - n_ch) * fs / n_ch
    t = np.arange(n) / fs
    tone = 0.5 * np.exp(2j * np.pi * offset * t)
    x = steering_helpers.plane_wave(positions, [fc + offset], source_az_el, tone[:, None])[:, 0]
    x = x + (rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape)) / math.sqrt(2)
    return write_sigmf_array(str(base), scale * x, fs, fc, datatype=datatype,
                             positions=positions, start_time=start_unix)[0]


@pytest.mark.parametrize("datatype, scale", [("ci16_le", 2000.0), ("ci8", 20.0),
                                             ("cf32_le", 1.0)])
def test_sigmf_input_positions_rate_and_start_from_the_file(tmp_path, datatype, scale):
    rng = np.random.default_rng(5)
    positions = np.column_stack([rng.uniform(-2, 2, (12, 2)), np.zeros(12)])
    meta = write_sigmf(tmp_path / "rec", rng, positions, (60.0, 70.0), channel=20,
                       datatype=datatype, scale=scale)
    args = app.parse_args(["--input", meta, "--adc-scale", str(scale), "--channels", "32",
                           "--n-int", "16",
                           "--device", "cpu", "--beams-per-side", "7", "--field-l", "0",
                           "--field-m", "0", "--out", str(tmp_path / "out")])
    assert (args.receivers, args.sample_rate, args.center_freq, args.spectra) == \
        (12, 2e6, 150e6, 1024)
    np.testing.assert_allclose(args.antenna_enu, positions, atol=1e-9)
    station = app.Station(args)
    s = station.run(progress=False)
    el, az = math.radians(70.0), math.radians(60.0)
    want = app.nearest_beam(station.beams_lm, math.cos(el) * math.sin(az),
                            math.cos(el) * math.cos(az))
    assert s["brightest_beam"] == want and s["brightest_channel"] == 20
    header, _ = beamform.read_filterbank(str(tmp_path / "out" / f"station_beam{want:04d}.fil"))
    assert abs(header["tstart"] - (40587 + (1.7e9 + 0.25) / 86400)) < 1e-10


def usage_error(capsys, argv):
    with pytest.raises(SystemExit) as e:
        app.parse_args(argv)
    assert e.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize("extra, option, text", [
    (["--track", TARGET], "--track", "needs --site"),
    (["--track", "radec:10,-80", "--site", SITE], "--track", "below"),
    (["--track", "azel:10,50", "--site", SITE], "--track", "sky position"),
    (["--track", "nowhere", "--site", SITE], "--track", "unknown target"),
    (["--track", TARGET, "--site", SITE, "--field-l", "0.1"], "--field-l", "sets the phase"),
    (["--site", SITE], "--site", "or --track"),
    (["--iers-a", __file__], "--iers-a", "only with --track"),
    (["--track", TARGET, "--site", SITE, "--iers-a", __file__], "--iers-a", "cannot read"),
    (["--track", TARGET, "--site", SITE, "--track-interval", "0"], "--track-interval", ""),
    (["--track", TARGET, "--site", SITE, "--field-half-width", "0.9"], "--field-half-width",
     "below the horizon"),
    (["--rfi", "--rfi-block-size", "1"], "--rfi-block-size", ""),
    (["--rfi", "--rfi-block-size", "48"], "--rfi-block-size", "multiple"),
    (["--rfi", "--rfi-pfa", "0.7"], "--rfi-pfa", ""),
    (["--inject-rfi", "32"], "--inject-rfi", "0 to 31"),
])
def test_bad_values_are_usage_errors(capsys, tmp_path, extra, option, text):
    err = usage_error(capsys, [*SMALL, "--out", str(tmp_path), *extra])
    assert f"argument {option}" in err and text in err, err


def test_recordings_that_do_not_match_are_usage_errors(capsys, tmp_path):
    rng = np.random.default_rng(6)
    guppi = write_guppi(tmp_path / "scan.raw", rng)
    positions = tmp_path / "antennas.txt"
    positions.write_text("".join(f"{e} {n} 0\n" for e, n, _ in app.grid_positions(6, 1.0)))
    base = ["--n-int", "16", "--device", "cpu", "--out", str(tmp_path / "out")]
    err = usage_error(capsys, [*base, "--input", guppi, "--positions", str(positions)])
    assert "argument --positions" in err and "holds 8" in err
    for extra, option in ((["--receivers", "16"], "--receivers"), (["--channels", "64"],
                          "--channels"), (["--pol", "dual"], "--pol"),
                          (["--tstart-mjd", "59000"], "--tstart-mjd"),
                          (["--spectra", "1024"], "--spectra"),
                          (["--source-pol", "0,0,1"], "--source-pol"),
                          (["--inject-rfi", "3"], "--inject-rfi")):
        err = usage_error(capsys, [*base, "--input", guppi, *extra])
        assert f"argument {option}" in err, (extra, err)
    bad = tmp_path / "bad.raw"
    bad.write_bytes(b"not a guppi file" * 100)
    err = usage_error(capsys, [*base, "--input", str(bad)])
    assert "argument --input" in err and "guppi" in err
    meta = write_sigmf(tmp_path / "rec", rng, np.zeros((4, 3)) + [[0, 0, 0], [1, 0, 0],
                                                                  [0, 1, 0], [1, 1, 0]],
                       (0.0, 80.0), channel=3, n=2048)
    err = usage_error(capsys, [*base, "--input", meta, "--channels", "32", "--sample-rate",
                               "1e6"])
    assert "argument --sample-rate" in err and "2000000" in err


def load_pulsar_script():
    spec = importlib.util.spec_from_file_location(
        "make_pulsar_recording", os.path.join(os.path.dirname(APP), "make_pulsar_recording.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tracked_pulsar_recording_through_rfi_and_incoherent(tmp_path):
    """docs/station_beamformer.md's tracked observation, smaller: the pulses are
    in the centre beam (folded at the period: on-pulse far above off-pulse),
    weaker in the incoherent beam and absent from a corner beam; the carrier's
    channel is flagged and zero."""
    pulsar = load_pulsar_script()
    base = str(tmp_path / "psr")
    assert pulsar.main(["--out", base, "--site", SITE, "--target", TARGET, "--spacing", "3",
                        "--samples", str(2 ** 17), "--period", "0.02", "--duty-cycle", "0.1",
                        "--channels", "32", "--rfi-channel", "20"]) == 0
    args = app.parse_args(["--input", base + ".sigmf-meta", "--channels", "32", "--n-int", "16",
                           "--beams-per-side", "5", "--field-half-width", "0.2",
                           "--track", TARGET, "--site", SITE, "--track-interval", "0.05",
                           "--rfi", "--rfi-block-size", "32", "--incoherent",
                           "--device", "cpu", "--out", str(tmp_path / "beams")])
    assert args.spectra == 2 ** 17 // 32 and abs(args.tstart_mjd - 61000.0) < 1e-9
    station = app.Station(args)
    s = station.run(progress=False)
    assert s["brightest_beam"] == CENTRE_BEAM
    assert station.tracker.updates_sent == 3  # 0.131 s in 0.05 s intervals

    def on_off(name):
        header, data = beamform.read_filterbank(str(tmp_path / "beams" / name))
        power = data[1:, 0, :]  # the first integration holds the channelizer's start
        t = (np.arange(1, len(data)) + 0.5) * header["tsamp"]
        on = (t / 0.02) % 1 < 0.1
        row = int(np.argmin(np.abs(np.sort(station.frequencies)[::-1]
                                   - station.frequencies[20])))
        assert np.all(power[2:, row] == 0)  # the carrier, flagged
        total = np.delete(power, row, axis=1).sum(axis=1)
        return total[on].mean() / total[~on].mean()

    centre, corner, incoherent = (on_off(f"station_beam{CENTRE_BEAM:04d}.fil"),
                                  on_off("station_beam0000.fil"),
                                  on_off("station_incoherent_beam0000.fil"))
    assert centre > 4 and 1.2 < incoherent < 2 and corner < incoherent


def test_gpu_style_buffers_give_the_cpu_results(tmp_path):
    """On emu:0 (the GPU blocks' buffers and copies, on the host) the tracker's tap
    and the incoherent beam beside the beamformer work as on the CPU: the same
    flags, the same incoherent beam, the source in the same beam."""
    runs = {}
    for device in ("cpu", "emu:0"):
        station, s = run_station(tmp_path / device.replace(":", ""),
                                 ["--track", TARGET, "--site", SITE, "--rfi", "--rfi-block-size",
                                  "16", "--inject-rfi", "9", "--incoherent", "--device", device])
        _, incoherent = beamform.read_filterbank(
            str(tmp_path / device.replace(":", "") / "obs_incoherent_beam0000.fil"))
        runs[device] = (s["brightest_beam"], station.flagger.flagged_count(),
                        station.tracker.updates_sent, incoherent)
        assert station.phase.device() == device
    cpu, emu = runs["cpu"], runs["emu:0"]
    assert cpu[:3] == emu[:3] and cpu[0] == CENTRE_BEAM
    np.testing.assert_allclose(emu[3], cpu[3], rtol=1e-5)


def test_dual_polarization_guppi_sets_pol_and_incoherent_stokes(tmp_path):
    """NPOL = 2: --pol dual from the file; the incoherent beam's I, Q, U, V (V in
    the beamformer's convention, 2 Im(X Y*)) against numpy on the file's spectra."""
    rng = np.random.default_rng(8)
    n_ant, n = 4, GUPPI_BLOCKS * GUPPI_TIME
    x = 8 * (rng.standard_normal((n, GUPPI_CHANNELS, 2 * n_ant))
             + 1j * rng.standard_normal((n, GUPPI_CHANNELS, 2 * n_ant)))
    x[:, 5, 1::2] += 6j * x[:, 5, 0::2] / 8  # Y correlated with X in channel 5: V < 0
    x = np.clip(x.real, -127, 127) + 1j * np.clip(x.imag, -127, 127)
    path = str(tmp_path / "dual.raw")
    write_guppi_raw(path, [x[k * GUPPI_TIME:(k + 1) * GUPPI_TIME] for k in range(GUPPI_BLOCKS)],
                    GUPPI_HEADER, n_antennas=n_ant)
    args = app.parse_args(["--input", path, "--stokes", "IQUV", "--n-int", "16", "--device",
                           "cpu", "--beams-per-side", "2", "--incoherent",
                           "--out", str(tmp_path / "out")])
    assert (args.pol, args.receivers) == ("dual", 8)
    app.Station(args).run(progress=False)
    header, got = beamform.read_filterbank(str(tmp_path / "out" /
                                               "station_incoherent_beam0000.fil"))
    assert header["nifs"] == 4
    s = GuppiRawFile(path).read().astype(np.complex128)
    X, Y = s[:, :, 0::2], s[:, :, 1::2]
    stokes = [np.abs(X) ** 2 + np.abs(Y) ** 2, np.abs(X) ** 2 - np.abs(Y) ** 2,
              2 * (X * np.conj(Y)).real, 2 * (X * np.conj(Y)).imag]
    for k, plane in enumerate(stokes):
        want = plane.sum(axis=2).reshape(-1, 16, GUPPI_CHANNELS).sum(axis=1)[:, ::-1]
        np.testing.assert_allclose(got[:, k, :], want, rtol=1e-4, atol=1e-3 * np.abs(want).max())
