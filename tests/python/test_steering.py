# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Steering weights and channel frequencies (steering.h): against a
hand-computed 2-element case, against numpy in double precision, and against
the shipped test vectors in data/steering_vectors.json. The geometric delays
the weights are built on are tested in test_array_geometry.py.

Regenerate the vectors (numpy only) with:
    python3 tests/python/test_steering.py --write-vectors
"""
import json
import os
import sys

import numpy as np
import pytest

C = 299792458.0
VECTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                       "steering_vectors.json")


# ---------------------------------------------------------------- numpy reference
def numpy_directions(az_el=None, lm=None):
    """Unit vectors (B, 3) east-north-up."""
    if az_el is not None:
        az, el = np.radians(np.asarray(az_el, float)).T
        return np.stack([np.cos(el) * np.sin(az), np.cos(el) * np.cos(az), np.sin(el)], 1)
    l, m = np.asarray(lm, float).T
    return np.stack([l, m, np.sqrt(1 - l ** 2 - m ** 2)], 1)


def numpy_weights(positions, freqs, gains, conjugate, az_el=None, lm=None, reference=None):
    """w[c, b, a] = g_a exp(-+2 pi i f_c tau_ba), tau_ba = (r_a - r_ref) . s_b / c."""
    positions = np.asarray(positions, float)
    ref = positions[0] if reference is None else np.asarray(reference, float)
    tau = numpy_directions(az_el, lm) @ (positions - ref).T / C  # (B, R)
    sign = 1.0 if conjugate else -1.0
    phase = sign * 2 * np.pi * np.asarray(freqs, float)[:, None, None] * tau[None]
    return np.asarray(gains, complex)[None, None, :] * np.exp(1j * phase)


def make_cases():
    """The cases shipped in data/steering_vectors.json (deterministic)."""
    rng = np.random.default_rng(20260314)
    antennas = rng.uniform(-30, 30, (4, 3)) * [1, 1, 0.05]
    positions = np.repeat(antennas, 2, axis=0)  # X and Y receivers share a position
    pfb_offsets = np.array([0, 1, 2, -2, -1])
    freqs = 150e6 + 0.195e6 * pfb_offsets
    gains = np.exp(1j * rng.uniform(-np.pi, np.pi, 8)) * rng.uniform(0.5, 2, 8)
    cases = []
    for conjugate in (False, True):
        cases.append(dict(name=f"station_az_el_conjugate_{conjugate}", positions=positions,
                          freqs=freqs, gains=gains, conjugate=conjugate,
                          az_el=np.array([[0.0, 90.0], [37.5, 61.0], [250.0, 12.5]])))
    cases.append(dict(name="station_lm", positions=positions, freqs=freqs, gains=gains,
                      conjugate=False, lm=np.array([[0.0, 0.0], [0.3, -0.4], [-0.7, 0.1]])))
    return cases


def write_vectors():
    out = []
    for case in make_cases():
        w = numpy_weights(case["positions"], case["freqs"], case["gains"],
                          case["conjugate"], az_el=case.get("az_el"), lm=case.get("lm"))
        entry = dict(name=case["name"],
                     positions=case["positions"].ravel().tolist(),
                     frequencies=case["freqs"].tolist(),
                     gains_re=case["gains"].real.tolist(),
                     gains_im=case["gains"].imag.tolist(),
                     conjugate=case["conjugate"],
                     shape=list(w.shape),
                     weights_re=w.real.ravel().tolist(),
                     weights_im=w.imag.ravel().tolist())
        if "az_el" in case:
            entry["az_el"] = case["az_el"].ravel().tolist()
        else:
            entry["lm"] = case["lm"].ravel().tolist()
        out.append(entry)
    with open(VECTORS, "w") as f:
        json.dump(dict(convention="w[c][b][a] = g_a exp(-2 pi i f_c tau_ba) (+ with "
                                  "conjugate), tau_ba = (r_a - r_0) . s_b / c, "
                                  "s = (cos el sin az, cos el cos az, sin el) ENU, "
                                  "c = 299792458 m/s; computed with numpy float64",
                       cases=out), f, indent=1)


if __name__ == "__main__":
    if "--write-vectors" in sys.argv:
        write_vectors()
        print("wrote", VECTORS)
    sys.exit(0)


from gnuradio import beamform  # noqa: E402  (the generator above needs numpy only)
from gnuradio.beamform import steering_helpers as sh  # noqa: E402


def load_vectors():
    with open(VECTORS) as f:
        return json.load(f)["cases"]


# ---------------------------------------------------------------- hand-computed
# Two receivers: r0 at the origin, r1 d metres east, d chosen so that at
# f = 150 MHz the east-west path difference is a quarter wavelength.
F = 150e6
D = 0.25 * C / F  # 0.49965409... m
TWO = [[0.0, 0.0, 0.0], [D, 0.0, 0.0]]


def test_two_elements_by_hand():
    s2 = np.sqrt(0.5)
    # Source due east on the horizon: tau1 = d / c, f tau1 = 1/4, w1 = exp(-i pi/2) = -i.
    # Zenith and due north: r1 . s = 0, w1 = 1.
    # Elevation 60 degrees east: f tau1 = 1/4 cos 60 = 1/8, w1 = exp(-i pi/4).
    w = np.array(beamform.steering_weights(TWO, [90.0, 0.0, 0.0, 90.0, 0.0, 0.0,
                                                 90.0, 60.0], [F]))
    np.testing.assert_allclose(w, [1, -1j, 1, 1, 1, 1, 1, s2 - s2 * 1j], atol=1e-7)
    # Gains (2, 1j): w1 = 1j exp(-i pi/4) = (1 + 1j) / sqrt 2.
    w = np.array(beamform.steering_weights(TWO, [90.0, 60.0], [F], [2, 1j]))
    np.testing.assert_allclose(w, [2, s2 + s2 * 1j], atol=1e-7)
    # conjugate flips the phase, not the gains: w1 = 1j exp(+i pi/4) = (-1 + 1j) / sqrt 2.
    w = np.array(beamform.steering_weights(TWO, [90.0, 60.0], [F], [2, 1j], True))
    np.testing.assert_allclose(w, [2, -s2 + s2 * 1j], atol=1e-7)
    # Two channels at 150 and 300 MHz, east horizon: w1 = -i, then exp(-i pi) = -1.
    w = np.array(beamform.steering_weights(TWO, [90.0, 0.0], [F, 2 * F]))
    np.testing.assert_allclose(w, [1, -1j, 1, -1], atol=1e-7)


def test_two_elements_reference_by_hand():
    # Phase centre at r1 (by index or by position): w0 = exp(+i pi/2) = i, w1 = 1.
    for reference in (1, [D, 0.0, 0.0]):
        w = np.array(beamform.steering_weights(TWO, [90.0, 0.0], [F], [], False, reference))
        np.testing.assert_allclose(w, [1j, 1], atol=1e-7)
        w = np.array(beamform.steering_weights_lm(TWO, [1.0, 0.0], [F], [], False, reference))
        np.testing.assert_allclose(w, [1j, 1], atol=1e-7)


# ---------------------------------------------------------------- test vectors
def test_shipped_vectors_agree_with_numpy_float64():
    for case in load_vectors():
        pos = np.array(case["positions"]).reshape(-1, 3)
        gains = np.array(case["gains_re"]) + 1j * np.array(case["gains_im"])
        pairs = np.array(case.get("az_el", case.get("lm"))).reshape(-1, 2)
        kwargs = {"az_el": pairs} if "az_el" in case else {"lm": pairs}
        w = numpy_weights(pos, case["frequencies"], gains, case["conjugate"], **kwargs)
        stored = (np.array(case["weights_re"]) + 1j * np.array(case["weights_im"]))
        np.testing.assert_allclose(w.ravel(), stored, rtol=0, atol=1e-12, err_msg=case["name"])


def test_cpp_weights_match_shipped_vectors():
    for case in load_vectors():
        gains = list(np.array(case["gains_re"]) + 1j * np.array(case["gains_im"]))
        positions = np.reshape(case["positions"], (-1, 3))  # stored flat
        if "az_el" in case:
            w = beamform.steering_weights(positions, case["az_el"], case["frequencies"],
                                          gains, case["conjugate"])
        else:
            w = beamform.steering_weights_lm(positions, case["lm"],
                                             case["frequencies"], gains, case["conjugate"])
        stored = np.array(case["weights_re"]) + 1j * np.array(case["weights_im"])
        # complex64 output: 2^-24 relative to |g| <= 2.
        np.testing.assert_allclose(np.array(w), stored, rtol=0, atol=3e-7, err_msg=case["name"])
        assert len(w) == np.prod(case["shape"])


def test_lm_and_az_el_give_the_same_weights(rng):
    pos = rng.uniform(-20, 20, (6, 3))
    freqs = [120e6, 121e6]
    az_el = np.array([[30.0, 50.0], [200.0, 80.0]])
    lm = numpy_directions(az_el=az_el)[:, :2]
    np.testing.assert_allclose(sh.weights_for(pos, freqs, az_el=az_el),
                               sh.weights_for(pos, freqs, lm=lm), atol=2e-6)


def test_helpers_shape_and_numpy_agreement(rng):
    pos = rng.uniform(-20, 20, (5, 3))
    freqs = sh.channel_frequencies(100e6, 4, sample_rate=1e6)
    az_el = sh.az_el_grid([0, 120, 240], [30, 60])
    w = sh.weights_for(pos, freqs, az_el=az_el, gains=[0.5j])
    assert w.shape == (4, 6, 5) and w.dtype == np.complex64
    np.testing.assert_allclose(w, numpy_weights(pos, freqs, [0.5j] * 5, False, az_el=az_el),
                               atol=2e-7)
    # Positions also flat (as GRC's vectors are); a phase centre by index or position.
    np.testing.assert_array_equal(sh.weights_for(pos.ravel(), freqs, az_el=az_el, gains=[0.5j]), w)
    centre = rng.uniform(-5, 5, 3)
    for reference, r_ref in [(2, pos[2]), (centre, centre)]:
        np.testing.assert_allclose(
            sh.weights_for(pos, freqs, az_el=az_el, reference=reference, conjugate=True),
            numpy_weights(pos, freqs, [1] * 5, True, az_el=az_el, reference=r_ref), atol=2e-7)


# ---------------------------------------------------------------- channel frequencies
@pytest.mark.parametrize("n", [1, 2, 7, 8])
def test_channel_frequencies_follow_pfb_and_fft_shift_order(n):
    spacing, center = 25e3, 1.4e9
    pfb = beamform.channel_frequencies(center, spacing, n)
    np.testing.assert_allclose(pfb, center + np.fft.fftfreq(n, 1 / (n * spacing)), rtol=1e-15)
    shifted = beamform.channel_frequencies(center, spacing, n, beamform.channel_order.fft_shift)
    np.testing.assert_allclose(shifted, center + np.fft.fftshift(
        np.fft.fftfreq(n, 1 / (n * spacing))), rtol=1e-15)
    assert np.all(np.diff(shifted) > 0)


def test_channel_frequencies_by_hand():
    # pfb order: DC, positive, then negative offsets.
    assert beamform.channel_frequencies(100.0, 1.0, 4) == [100.0, 101.0, 98.0, 99.0]
    assert beamform.channel_frequencies(100.0, 1.0, 5) == [100.0, 101.0, 102.0, 98.0, 99.0]
    np.testing.assert_array_equal(sh.channel_frequencies(0, 4, sample_rate=8.0, order="fft_shift"),
                                  [-4.0, -2.0, 0.0, 2.0])


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: beamform.steering_weights([], [0.0, 90.0], [1e8]), "positions"),
        (lambda: beamform.steering_weights([[0.0, 0, float("nan")]], [0.0, 90.0], [1e8]),
         "positions"),
        (lambda: beamform.steering_weights([[0.0] * 3], [0.0], [1e8]), "az_el"),
        (lambda: beamform.steering_weights([[0.0] * 3], [0.0, 91.0], [1e8]), "elevation"),
        (lambda: beamform.steering_weights([[0.0] * 3], [float("inf"), 10.0], [1e8]), "azimuth"),
        (lambda: beamform.steering_weights([[0.0] * 3], [0.0, 90.0], []), "frequencies"),
        (lambda: beamform.steering_weights([[0.0] * 3], [0.0, 90.0], [float("nan")]),
         "frequencies"),
        (lambda: beamform.steering_weights([[0.0] * 3] * 2, [0.0, 90.0], [1e8], [1, 2, 3]),
         "gains"),
        (lambda: beamform.steering_weights([[0.0] * 3], [0.0, 90.0], [1e8], [], False, 1),
         "reference_index"),
        (lambda: beamform.steering_weights([[0.0] * 3], [0.0, 90.0], [1e8], [], False,
                                           [0.0, float("nan"), 0.0]), "reference_position"),
        (lambda: beamform.steering_weights_lm([[0.0] * 3], [0.8, 0.8], [1e8]), "lm"),
        (lambda: beamform.steering_weights_lm([[0.0] * 3], [0.0], [1e8]), "lm"),
        (lambda: beamform.channel_frequencies(1e8, 0.0, 4), "channel_spacing"),
        (lambda: beamform.channel_frequencies(float("nan"), 1.0, 4), "center_freq"),
        (lambda: beamform.channel_frequencies(1e8, 1.0, 0), "n_channels"),
        (lambda: sh.channel_frequencies(1e8, 4), "channel_spacing"),
        (lambda: sh.weights_for(np.zeros((3, 2)), [1e8], az_el=[(0, 90)]), "positions"),
        (lambda: sh.weights_for(np.zeros((3, 3)), [1e8], az_el=[(0, 90)], reference=[1.0]),
         "reference"),
    ],
)
def test_bad_input_raises_naming_the_parameter(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_positions_and_reference_types_are_enforced():
    # One (east, north, up) per receiver, reference 3 values: wrong shapes are
    # refused by the binding's type conversion.
    with pytest.raises(TypeError):
        beamform.steering_weights([[0.0, 0.0]], [0.0, 90.0], [1e8])
    with pytest.raises(TypeError):
        beamform.steering_weights([0.0] * 6, [0.0, 90.0], [1e8])
    with pytest.raises(TypeError):
        beamform.steering_weights([[0.0] * 3], [0.0, 90.0], [1e8], [], False, [1.0])
