# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""The geometry module (array_geometry.h): pointing directions and geometric
delays in the convention of docs/architecture.md, against hand-computed cases and against an
independent numpy projection in double precision. Steering weights built on
these delays are tested in test_steering.py."""
import math

import numpy as np
import pytest
from gnuradio import beamform

C = 299792458.0  # m/s, written out: the test does not take it from the module


def numpy_direction(az_deg, el_deg):
    az, el = math.radians(az_deg), math.radians(el_deg)
    return np.array([math.cos(el) * math.sin(az), math.cos(el) * math.cos(az), math.sin(el)])


def test_speed_of_light_constant():
    assert beamform.speed_of_light == C


def test_direction_vector_convention():
    # Azimuth from north through east, elevation above the horizon, ENU.
    np.testing.assert_allclose(beamform.direction_vector(0, 0), [0, 1, 0], atol=1e-15)
    np.testing.assert_allclose(beamform.direction_vector(90, 0), [1, 0, 0], atol=1e-15)
    np.testing.assert_allclose(beamform.direction_vector(180, 0), [0, -1, 0], atol=1e-15)
    np.testing.assert_allclose(beamform.direction_vector(270, 0), [-1, 0, 0], atol=1e-15)
    np.testing.assert_allclose(beamform.direction_vector(33, 90), [0, 0, 1], atol=1e-15)
    az, el = math.radians(40), math.radians(25)
    np.testing.assert_allclose(beamform.direction_vector(40, 25),
                               [math.cos(el) * math.sin(az), math.cos(el) * math.cos(az), math.sin(el)],
                               rtol=1e-15)


def test_direction_lm_convention():
    # l = east, m = north component; the up component fills the unit vector.
    np.testing.assert_allclose(beamform.direction_lm(0, 0), [0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(beamform.direction_lm(1, 0), [1, 0, 0], atol=1e-15)
    np.testing.assert_allclose(beamform.direction_lm(0, -1), [0, -1, 0], atol=1e-15)
    np.testing.assert_allclose(beamform.direction_lm(0.3, -0.4), [0.3, -0.4, math.sqrt(0.75)],
                               rtol=1e-15)
    # The same direction as (az, el) and as its (l, m).
    s = beamform.direction_vector(123.4, 56.7)
    np.testing.assert_allclose(beamform.direction_lm(s[0], s[1]), s, rtol=1e-14)


def test_two_elements_east_west():
    d = 1.5
    positions = [[0, 0, 0], [d, 0, 0]]
    # Source due east on the horizon: the eastern element is d/c closer.
    assert beamform.geometric_delays(positions, 90, 0) == pytest.approx([0, d / C], rel=1e-15)
    assert beamform.geometric_delays(positions, 270, 0) == pytest.approx([0, -d / C], rel=1e-15)
    # Broadside (north, or zenith): no delay.
    assert beamform.geometric_delays(positions, 0, 0) == pytest.approx([0, 0], abs=1e-24)
    assert beamform.geometric_delays(positions, 0, 90) == pytest.approx([0, 0], abs=1e-24)
    # 30 degrees elevation in the east: d cos(30) / c.
    assert beamform.geometric_delays(positions, 90, 30)[1] == pytest.approx(d * math.cos(math.radians(30)) / C, rel=1e-14)
    # lm (1, 0) is the east horizon, lm (0, 0) the zenith.
    assert beamform.geometric_delays_lm(positions, 1.0, 0.0) == pytest.approx([0, d / C], rel=1e-15)
    assert beamform.geometric_delays_lm(positions, 0.0, 0.0) == pytest.approx([0, 0], abs=1e-24)
    # Reference at the eastern element (by index or by position) moves the zero there.
    for reference in (1, [d, 0.0, 0.0]):
        tau = beamform.geometric_delays(positions, 90, 0, reference)
        assert tau[0] == pytest.approx(-d / C, rel=1e-15) and tau[1] == 0.0
        tau = beamform.geometric_delays_lm(positions, 1.0, 0.0, reference)
        assert tau[0] == pytest.approx(-d / C, rel=1e-15) and tau[1] == 0.0


def test_north_south_and_vertical():
    positions = [[0, 0, 0], [0, 2.0, 0], [0, 0, 4.0]]
    delays = beamform.geometric_delays(positions, 0, 30)
    assert delays[1] == pytest.approx(2.0 * math.cos(math.radians(30)) / C, rel=1e-14)
    assert delays[2] == pytest.approx(4.0 * math.sin(math.radians(30)) / C, rel=1e-14)
    # At the zenith only height matters, whatever the azimuth.
    q = np.array([[0.0, 0, 0], [3.0, 4.0, 2.0]])
    assert beamform.geometric_delays(q, 123, 90) == pytest.approx([0, 2 / C], rel=1e-12)


def test_matches_numpy_projection(rng):
    # Independent reference: numpy's own direction vector and projection.
    positions = rng.uniform(-100, 100, (11, 3))
    centre = rng.uniform(-10, 10, 3)
    for az, el in [(0, 90), (13.3, 45.1), (123.4, 56.7), (271.0, -5.0)]:
        s = numpy_direction(az, el)
        for ref in (0, 5):
            expected = (positions - positions[ref]) @ s / C
            np.testing.assert_allclose(beamform.geometric_delays(positions, az, el, ref),
                                       expected, rtol=1e-13, atol=1e-22)
            if el >= 0:  # (l, m) covers the hemisphere above the horizon
                np.testing.assert_allclose(
                    beamform.geometric_delays_lm(positions, s[0], s[1], ref), expected,
                    rtol=1e-12, atol=1e-20)
        np.testing.assert_allclose(beamform.geometric_delays(positions, az, el, list(centre)),
                                   (positions - centre) @ s / C, rtol=1e-13, atol=1e-22)
    # Python lists of [e, n, u] and numpy (n, 3) arrays give the same delays.
    assert beamform.geometric_delays(positions.tolist(), 10, 20) == \
        beamform.geometric_delays(positions, 10, 20)


def test_propagation_speed_for_ultrasound():
    pitch = 0.2e-3
    positions = [[0, 0, 0], [pitch, 0, 0]]
    delays = beamform.geometric_delays(positions, 90, 0, 0, 1540.0)
    assert delays[1] == pytest.approx(pitch / 1540.0, rel=1e-15)
    delays = beamform.geometric_delays_lm(positions, 1.0, 0.0, [0, 0, 0], 1540.0)
    assert delays[1] == pytest.approx(pitch / 1540.0, rel=1e-15)


def test_max_representable_delay():
    assert beamform.max_representable_delay(1e3) == pytest.approx(2.5e-4)
    assert beamform.max_representable_delay(1e3, 0.5) == pytest.approx(5e-4)
    assert beamform.check_representable_delays([1e-4, -2e-4], 1e3) == ""
    warning = beamform.check_representable_delays([1e-4, -3e-4, 0.0, 5e-4], 1e3)
    assert "2 receiver(s)" in warning and "receivers 1 3" in warning


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: beamform.geometric_delays([], 0, 0), "positions"),
        (lambda: beamform.geometric_delays([[0, 0, float("nan")]], 0, 0), "positions"),
        (lambda: beamform.geometric_delays([[0, 0, 0]], 0, 0, 1), "reference_index"),
        (lambda: beamform.geometric_delays([[0, 0, 0]], 0, 0, -1), "reference_index"),
        (lambda: beamform.geometric_delays([[0, 0, 0]], 0, 0, [0, float("inf"), 0]),
         "reference_position"),
        (lambda: beamform.geometric_delays([[0, 0, 0]], 0, 91), "elevation_deg"),
        (lambda: beamform.geometric_delays([[0, 0, 0]], float("inf"), 0), "azimuth_deg"),
        (lambda: beamform.geometric_delays([[0, 0, 0]], 0, 0, 0, 0.0), "propagation_speed"),
        (lambda: beamform.geometric_delays_lm([[0.0] * 3], 1.1, 0.0), "lm"),
        (lambda: beamform.geometric_delays_lm([[0.0] * 3], 0.0, 0.0, 2), "reference_index"),
        (lambda: beamform.geometric_delays_lm([], 0.0, 0.0), "positions"),
        (lambda: beamform.direction_lm(0.8, 0.8), "lm"),
        (lambda: beamform.direction_vector(0, -90.5), "elevation_deg"),
        (lambda: beamform.max_representable_delay(0.0), "channel_bandwidth"),
        (lambda: beamform.max_representable_delay(1e3, 1.5), "fraction"),
    ],
)
def test_bad_input_raises(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_positions_must_be_east_north_up_triples():
    # The binding takes one (east, north, up) per receiver; anything else is
    # refused by the type conversion (TypeError), flat lists included.
    with pytest.raises(TypeError):
        beamform.geometric_delays([[0.0, 0.0]], 0, 90)
    with pytest.raises(TypeError):
        beamform.geometric_delays([0.0, 0.0, 0.0, 1.0, 0.0, 0.0], 0, 90)
    with pytest.raises(TypeError):
        beamform.geometric_delays([[0.0, 0.0, 0.0]], 0, 90, [1.0])
