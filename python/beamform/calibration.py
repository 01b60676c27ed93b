# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Per-receiver complex gain calibration from a source in a known direction.

Model (the convention of docs/architecture.md): receiver a sees a narrowband plane wave
from direction s as x_a(t) = h_a exp(+2 pi i f tau_a) s(t) + noise, with h_a the
receiver's unknown complex gain (cable, LO phase, amplifier). The calibration
gain is g_a = 1 / h_a, normalised so that the reference receiver has phase 0 and
the gains have unit mean amplitude; phase_shift (gains) or the beamformer's
weights apply it. The expected plane-wave phases exp(+2 pi i f tau_a) come from
arrays.plane_wave_phases, i.e. from the C++ geometric_delays.
"""
import json

import numpy as np

from .arrays import plane_wave_phases


# A receiver whose mean power is below this fraction of the median receiver's
# carries no signal (disconnected, dead): its gain would be 1/0.
DEAD_RECEIVER_POWER = 1e-6


def estimate_gains(samples, positions, azimuth_deg, elevation_deg, frequency, reference=0,
                   names=None):
    """Calibration gains from `samples` [time][receivers] (complex) of a source at
    (azimuth, elevation) at sky frequency `frequency` Hz.

    The array response is the principal eigenvector of the sample covariance,
    which averages the noise out; dividing out the expected plane-wave phases
    leaves the receivers' own gains.

    A receiver without signal (mean power below 1e-6 of the median receiver's)
    is a ValueError naming it (names[k] if `names` is given, else its index):
    its gain would not be finite.
    """
    x = np.asarray(samples)
    if x.ndim != 2 or x.shape[1] != len(positions):
        raise ValueError(
            f"samples must be [time][receivers] with {len(positions)} receivers, got shape {x.shape}"
        )
    if x.shape[0] < x.shape[1]:
        raise ValueError(f"samples: need at least {x.shape[1]} time steps, got {x.shape[0]}")
    if names is not None and len(names) != x.shape[1]:
        raise ValueError(f"names must have one entry per receiver ({x.shape[1]}), got {len(names)}")
    label = (lambda k: f"receiver {names[k]!r} (index {k})") if names is not None else \
        (lambda k: f"receiver {k}")
    finite = np.isfinite(x).all(axis=0)
    if not finite.all():
        raise ValueError(f"samples of {label(int(np.argmin(finite)))} are not all finite")
    power = np.mean(np.abs(x) ** 2, axis=0)
    floor = DEAD_RECEIVER_POWER * np.median(power)
    dead = [k for k in range(x.shape[1]) if not power[k] > floor]
    if dead:
        raise ValueError(
            "no signal on " + ", ".join(label(k) for k in dead) +
            f" (mean power {power[dead[0]]:.3g}, median of all receivers {np.median(power):.3g}); "
            "exclude it from the calibration or fix its input")
    covariance = x.T @ x.conj() / x.shape[0]
    _, vectors = np.linalg.eigh(covariance)
    response = vectors[:, -1]
    h = response / plane_wave_phases(positions, azimuth_deg, elevation_deg, frequency, reference)
    h = h / h[reference] * np.abs(h[reference])  # reference receiver: phase 0
    h = h / np.mean(np.abs(h))
    return (1.0 / h).astype(np.complex64)


def save_gains(path, gains, **metadata):
    """Write gains (and e.g. frequency, direction) as JSON."""
    g = np.asarray(gains)
    doc = dict(metadata, gains_re=g.real.tolist(), gains_im=g.imag.tolist())
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


def load_gains(path):
    """Gains written by save_gains, as complex64, and the metadata."""
    with open(path) as f:
        doc = json.load(f)
    try:
        gains = np.array(doc.pop("gains_re")) + 1j * np.array(doc.pop("gains_im"))
    except KeyError as e:
        raise ValueError(f"{path}: not a gains file (missing {e})") from None
    return gains.astype(np.complex64), doc
