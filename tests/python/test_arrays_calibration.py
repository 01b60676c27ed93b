# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Array geometries, plane-wave phases and gain calibration (gnuradio.beamform
.arrays and .calibration; the geometric delays themselves are tested in
test_array_geometry.py)."""
import numpy as np
import pytest
from gnuradio import beamform
from gnuradio.beamform import arrays, calibration

C = beamform.speed_of_light


def test_ula_is_centred_and_spaced_along_its_azimuth():
    p = arrays.ula(4, 0.5)  # west to east
    np.testing.assert_allclose(p[:, 0], [-0.75, -0.25, 0.25, 0.75], atol=1e-12)
    np.testing.assert_allclose(p[:, 1:], 0, atol=1e-12)
    q = arrays.ula(3, 2.0, azimuth_deg=0)  # south to north
    np.testing.assert_allclose(q[:, 1], [-2, 0, 2], atol=1e-12)


def test_uca_elements_lie_on_the_circle():
    p = arrays.uca(7, 1.5, first_azimuth_deg=10)
    np.testing.assert_allclose(np.hypot(p[:, 0], p[:, 1]), 1.5)
    az = np.degrees(np.arctan2(p[:, 0], p[:, 1])) % 360
    np.testing.assert_allclose(np.diff(az) % 360, 360 / 7, atol=1e-9)
    assert abs(az[0] - 10) < 1e-9


def test_positions_file_round_trip(tmp_path, rng):
    p = rng.normal(size=(5, 3))
    path = tmp_path / "array.txt"
    arrays.save_positions(path, p)
    np.testing.assert_allclose(arrays.load_positions(path), p, rtol=1e-8)
    (tmp_path / "two.txt").write_text("# comment\n1, 2\n3 4 5  # trailing\n")
    np.testing.assert_allclose(arrays.load_positions(tmp_path / "two.txt"), [[1, 2, 0], [3, 4, 5]])
    (tmp_path / "bad.txt").write_text("1 2 3 4\n")
    with pytest.raises(ValueError, match="bad.txt:1"):
        arrays.load_positions(tmp_path / "bad.txt")


def test_as_positions_takes_arrays_lists_and_flat_vectors():
    p = [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert arrays.as_positions(np.array(p)) == p
    assert arrays.as_positions(p) == p
    assert arrays.as_positions([0, 1, 2, 3, 4, 5]) == p  # flat, as GRC's real vectors
    for bad in ([], np.zeros((3, 2)), [0.0, 1.0], [[0, 1, 2], [3, 4]], "east"):
        with pytest.raises(ValueError, match="positions"):
            arrays.as_positions(bad)


def test_plane_wave_phases_hand_computed():
    # Two elements a quarter wavelength apart west-east, source due east on the
    # horizon: the eastern element leads by exp(+i pi/2) = i; at twice the
    # frequency by exp(+i pi) = -1; due north: in phase.
    f = 150e6
    p = arrays.ula(2, 0.25 * C / f)
    np.testing.assert_allclose(arrays.plane_wave_phases(p, 90, 0, f), [1, 1j], atol=1e-12)
    np.testing.assert_allclose(arrays.plane_wave_phases(p, 90, 0, [f, 2 * f]),
                               [[1, 1j], [1, -1]], atol=1e-12)
    np.testing.assert_allclose(arrays.plane_wave_phases(p, 0, 0, f), [1, 1], atol=1e-12)
    # Reference at the eastern element: the western one lags by -i.
    np.testing.assert_allclose(arrays.plane_wave_phases(p, 90, 0, f, reference=1), [-1j, 1],
                               atol=1e-12)
    # The phases are exp(+2 pi i f tau) of the C++ geometric delays.
    q = np.array([[0.0, 0, 0], [3.0, 4.0, 2.0], [-1.0, 0.5, 0.2]])
    tau = np.array(beamform.geometric_delays(q, 40, 20))
    np.testing.assert_allclose(arrays.plane_wave_phases(q, 40, 20, f),
                               np.exp(2j * np.pi * f * tau), rtol=1e-14)


def test_plane_wave_phases_at_extreme_frequencies():
    # Found by a longer fuzz run: 2 pi f overflowed before the product with a
    # zero delay, and the gains came back NaN. Whole turns now drop out first.
    np.testing.assert_allclose(arrays.plane_wave_phases([[0.0, 0, 0]], 0, 0, 2.86e307), [1])
    gains = calibration.estimate_gains(np.array([[1j]]), [[0.0, 0, 0]], 0, 0, 2.86e307)
    assert np.all(np.isfinite(gains))
    # A product f tau that overflows is a ValueError naming both, as a
    # frequency that is not finite is.
    with pytest.raises(ValueError, match="frequency x geometric delay overflows"):
        arrays.plane_wave_phases([[0.0, 0, 0], [1e10, 0, 0]], 90, 0, 1e308)
    with pytest.raises(ValueError, match="frequency must be finite"):
        arrays.plane_wave_phases([[0.0, 0, 0]], 0, 0, [1e9, np.inf])


def test_calibration_without_a_common_signal_names_the_receiver():
    # Found by the same fuzz run: two receivers whose samples share nothing
    # (the covariance has no dominant direction) gave NaN gains.
    x = np.array([[0, 1j], [1, 0]])
    with pytest.raises(ValueError, match="no signal in common with the other receivers on receiver"):
        calibration.estimate_gains(x, [[0.0, 0, 0], [1.0, 0, 0]], 0, 0, 0.0)


def test_calibration_of_samples_near_the_largest_double():
    # Found by a second long fuzz run: a sample of 1e308 overflowed the
    # covariance (LinAlgError). The gains do not depend on the samples' scale.
    rng = np.random.default_rng(5)
    p = [[0.0, 0, 0], [1.0, 0, 0], [2.0, 0, 0]]
    x = rng.normal(size=(64, 3)) + 1j * rng.normal(size=(64, 3)) + 3.0
    expected = calibration.estimate_gains(x, p, 0, 0, 0.0)
    np.testing.assert_allclose(calibration.estimate_gains(x * 1e307, p, 0, 0, 0.0), expected,
                               rtol=1e-5)
    # The fuzz case itself: two receivers have nothing beside a 1e308 sample.
    y = np.array([[0, 1, 0], [0, 0, 0], [1, 0, 1e308j], [0, 0, 0]])
    with pytest.raises(ValueError, match="no signal on receiver 0, receiver 1"):
        calibration.estimate_gains(y, p, 0, 0, 0.0)


@pytest.mark.parametrize("geometry", ["ula", "uca"])
def test_calibration_recovers_receiver_gains(rng, geometry):
    n, f = 8, 433e6
    lam = C / f
    p = arrays.ula(n, lam / 2) if geometry == "ula" else arrays.uca(n, lam / 2)
    h = rng.uniform(0.7, 1.3, n) * np.exp(2j * np.pi * rng.uniform(0, 1, n))
    s = rng.normal(size=4000) + 1j * rng.normal(size=4000)
    steer = arrays.plane_wave_phases(p, 40, 20, f)
    noise = 0.3 * (rng.normal(size=(4000, n)) + 1j * rng.normal(size=(4000, n)))
    x = s[:, None] * (h * steer)[None, :] + noise
    g = calibration.estimate_gains(x, p, 40, 20, f)
    corrected = g * h  # should be one common complex factor
    common = corrected / corrected[0]
    assert np.max(np.abs(np.angle(common))) < 0.02
    assert np.max(np.abs(np.abs(common) - 1)) < 0.05


def test_gains_file_round_trip(tmp_path, rng):
    g = (rng.normal(size=5) + 1j * rng.normal(size=5)).astype(np.complex64)
    calibration.save_gains(tmp_path / "g.json", g, frequency=1e9, direction=[1, 2])
    back, meta = calibration.load_gains(tmp_path / "g.json")
    np.testing.assert_array_equal(back, g)
    assert meta == {"frequency": 1e9, "direction": [1, 2]}


def test_bad_inputs_raise_naming_the_parameter():
    with pytest.raises(ValueError, match="spacing"):
        arrays.ula(4, 0)
    with pytest.raises(ValueError, match="radius"):
        arrays.uca(4, -1)
    with pytest.raises(ValueError, match="samples"):
        calibration.estimate_gains(np.ones((10, 3)), arrays.ula(4, 1), 0, 0, 1e9)
