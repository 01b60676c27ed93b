# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Python helpers under bad input (issue 14, reproducer 10): a dead
receiver is named instead of giving an inf gain, array geometries refuse
non-finite values, array_source refuses a start_time rx_time cannot hold, and
read_filterbank refuses non-finite or inconsistent headers."""
import math
import struct

import numpy as np
import pytest
from gnuradio import beamform
from gnuradio.beamform import arrays, calibration


def calibration_samples(rng, n_rx=6, n_t=400):
    positions = arrays.uca(n_rx, 2.0)
    phases = arrays.plane_wave_phases(positions, 30.0, 60.0, 1.4e9)
    s = rng.standard_normal(n_t) + 1j * rng.standard_normal(n_t)
    noise = 0.1 * (rng.standard_normal((n_t, n_rx)) + 1j * rng.standard_normal((n_t, n_rx)))
    return positions, s[:, None] * phases[None, :] + noise


def test_estimate_gains_names_a_dead_receiver(rng):
    positions, x = calibration_samples(rng)
    x[:, 4] = 0
    with pytest.raises(ValueError, match=r"no signal on receiver 4 \(mean power 0"):
        calibration.estimate_gains(x, positions, 30.0, 60.0, 1.4e9)
    names = ["a", "b", "c", "d", "e", "f"]
    with pytest.raises(ValueError, match=r"no signal on receiver 'e' \(index 4\)"):
        calibration.estimate_gains(x, positions, 30.0, 60.0, 1.4e9, names=names)
    x[3, 2] = np.nan
    with pytest.raises(ValueError, match="receiver 2 are not all finite"):
        calibration.estimate_gains(x, positions, 30.0, 60.0, 1.4e9)


def test_estimate_gains_unchanged_for_live_receivers(rng):
    positions, x = calibration_samples(rng)
    g = calibration.estimate_gains(x, positions, 30.0, 60.0, 1.4e9)
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(np.abs(g), 1.0, rtol=0.05)


@pytest.mark.parametrize("call, message", [
    (lambda: arrays.uca(4, math.inf), "radius must be a finite number"),
    (lambda: arrays.uca(4, math.nan), "radius must be a finite number"),
    (lambda: arrays.uca(4, 1.0, math.inf), "first_azimuth_deg must be finite"),
    (lambda: arrays.ula(4, math.inf), "spacing must be a finite number"),
    pytest.param(lambda: arrays.ula(40, 1e308), "overflow",
                 marks=pytest.mark.filterwarnings("ignore:overflow encountered")),
    (lambda: arrays.as_positions([[0, 0, 0], [1, math.nan, 0]]), "receiver 1"),
])
def test_array_geometry_refuses_non_finite(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_load_positions_refuses_non_finite(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("0 0 0\n1 inf 0\n")
    with pytest.raises(ValueError, match=r"p.txt:2: positions must be finite"):
        arrays.load_positions(str(path))


def test_array_source_start_time_must_fit_rx_time():
    with pytest.raises(ValueError, match=r"start_time must be in \[0, 2\^53\]"):
        beamform.array_source([[0, 0, 0], [1, 0, 0]], 1e6, 1e9, [0.0], [90.0], [0.0],
                              start_time=1e20)


def sigproc_string(text):
    return struct.pack("<i", len(text)) + text.encode("ascii")


def header_file(tmp_path, fields, data=b""):
    """A file of HEADER_START, (keyword, struct format, value)..., HEADER_END, data."""
    raw = sigproc_string("HEADER_START")
    for key, fmt, value in fields:
        raw += sigproc_string(key) + struct.pack("<" + fmt, value)
    raw += sigproc_string("HEADER_END") + data
    path = tmp_path / "f.fil"
    path.write_bytes(raw)
    return str(path)


GOOD_FIELDS = [("nchans", "i", 4), ("nbits", "i", 32), ("nifs", "i", 1),
               ("tsamp", "d", 1e-3), ("fch1", "d", 1400.0), ("foff", "d", -0.1)]


@pytest.mark.parametrize("change, message", [
    (("tsamp", "d", math.nan), "value of tsamp is nan"),
    (("fch1", "d", math.inf), "value of fch1 is inf"),
    (("foff", "d", -math.inf), "value of foff is -inf"),
    (("tsamp", "d", -1.0), "tsamp = -1.0 s, not > 0"),
    (("nchans", "i", 2**31 - 1), r"nchans = 2147483647"),
    (("nifs", "i", 1000), r"nifs = 1000"),
])
def test_read_filterbank_refuses_bad_values(tmp_path, change, message):
    fields = [change if f[0] == change[0] else f for f in GOOD_FIELDS]
    with pytest.raises(ValueError, match=message):
        beamform.read_filterbank(header_file(tmp_path, fields))


def test_read_filterbank_refuses_a_duplicate_keyword(tmp_path):
    fields = GOOD_FIELDS + [("nchans", "i", 2)]
    with pytest.raises(ValueError, match="'nchans' appears twice"):
        beamform.read_filterbank(header_file(tmp_path, fields))


def test_read_filterbank_reads_a_good_hand_made_file(tmp_path):
    data = np.arange(8, dtype="<f4")
    header, samples = beamform.read_filterbank(header_file(tmp_path, GOOD_FIELDS,
                                                           data.tobytes()))
    assert header["nsamples"] == 2 and samples.shape == (2, 1, 4)
    np.testing.assert_array_equal(samples.ravel(), data)
