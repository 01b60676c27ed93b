# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Antenna array geometries: positions as an (n, 3) array of east, north, up
metres (the convention of docs/architecture.md), for uniform linear and circular arrays or
read from a text file.

Directions and geometric delays are computed in C++ (array_geometry.h), bound
as gnuradio.beamform.direction_vector, direction_lm, geometric_delays and
geometric_delays_lm; they take these arrays as they are. plane_wave_phases
below is the narrow-band phase those delays imply.
"""
import math

import numpy as np

from . import beamform_python as _bf


def ula(n, spacing, azimuth_deg=90.0):
    """Uniform linear array of n elements, `spacing` metres apart, centred on the
    origin, laid along the horizontal direction `azimuth_deg` (from north through
    east; the default 90 lays it west to east)."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if not (spacing > 0 and math.isfinite(spacing)):
        raise ValueError(f"spacing must be a finite number > 0 metres, got {spacing}")
    if not math.isfinite(azimuth_deg):
        raise ValueError(f"azimuth_deg must be finite, got {azimuth_deg}")
    az = np.radians(azimuth_deg)
    offsets = (np.arange(n) - (n - 1) / 2) * spacing
    return _finite(np.stack([offsets * np.sin(az), offsets * np.cos(az), np.zeros(n)], axis=1),
                   f"n * spacing = {n} * {spacing}")


def uca(n, radius, first_azimuth_deg=0.0):
    """Uniform circular array of n elements on a horizontal circle of `radius`
    metres around the origin, element 0 at azimuth `first_azimuth_deg`, the
    others following clockwise seen from above (increasing azimuth)."""
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    if not (radius > 0 and math.isfinite(radius)):
        raise ValueError(f"radius must be a finite number > 0 metres, got {radius}")
    if not math.isfinite(first_azimuth_deg):
        raise ValueError(f"first_azimuth_deg must be finite, got {first_azimuth_deg}")
    az = np.radians(first_azimuth_deg) + 2 * np.pi * np.arange(n) / n
    return _finite(np.stack([radius * np.sin(az), radius * np.cos(az), np.zeros(n)], axis=1),
                   f"radius = {radius}")


def _finite(positions, what):
    """positions, or ValueError naming `what` when they overflowed."""
    if not np.all(np.isfinite(positions)):
        raise ValueError(f"{what} metres gives positions that overflow a double")
    return positions


def load_positions(path):
    """Positions from a text file: one receiver per line, `east north [up]` in
    metres, separated by spaces or commas; `#` starts a comment."""
    rows = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            text = line.split("#", 1)[0].replace(",", " ").split()
            if not text:
                continue
            if len(text) not in (2, 3):
                raise ValueError(f"{path}:{number}: expected 'east north [up]', got {line.strip()!r}")
            values = [float(v) for v in text] + [0.0] * (3 - len(text))
            if not all(math.isfinite(v) for v in values):
                raise ValueError(f"{path}:{number}: positions must be finite, got {line.strip()!r}")
            rows.append(values)
    if not rows:
        raise ValueError(f"{path}: no positions found")
    return np.array(rows)


def save_positions(path, positions):
    """Write positions in the format load_positions reads."""
    positions = np.asarray(positions, dtype=float)
    with open(path, "w") as f:
        f.write("# east north up (metres), one receiver per line\n")
        for e, n, u in positions:
            f.write(f"{e:.9g} {n:.9g} {u:.9g}\n")


def as_positions(positions):
    """(n, 3) array or list of (east, north, up), or a flat [e0, n0, u0, e1, ...]
    (as GRC's real vectors are) -> list of [e, n, u] lists, the form the C++
    bindings take. Raises ValueError naming positions otherwise."""
    try:
        p = np.asarray(positions, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("positions must be numbers: (east, north, up) metres per "
                         "receiver") from None
    if p.ndim == 1 and p.size % 3 == 0:
        p = p.reshape(-1, 3)
    if p.ndim != 2 or p.shape[1] != 3 or p.shape[0] < 1:
        raise ValueError("positions must have shape (n_receivers, 3) or be a flat list of "
                         f"(east, north, up) triples in metres, got shape {np.shape(positions)}")
    if not np.all(np.isfinite(p)):
        bad = int(np.argwhere(~np.isfinite(p))[0][0])
        raise ValueError(f"positions must be finite, receiver {bad} is {p[bad].tolist()}")
    return p.tolist()


def plane_wave_phases(positions, azimuth_deg, elevation_deg, frequency, reference=0):
    """exp(+2 pi i f tau_a): the relative phase a narrowband plane wave from
    (azimuth, elevation) has on each receiver, tau_a = geometric_delays(...)
    (C++). The steering weights exp(-2 pi i f tau_a) undo it.

    frequency: Hz, a number (result: (receivers,)) or an array of any shape
    (result: frequency.shape + (receivers,)). reference: receiver index or an
    (east, north, up) phase centre.
    """
    tau = np.array(_bf.geometric_delays(as_positions(positions), float(azimuth_deg),
                                        float(elevation_deg), reference))
    f = np.asarray(frequency, dtype=np.float64)
    if not np.all(np.isfinite(f)):
        raise ValueError(f"frequency must be finite (Hz), got {frequency!r}")
    # Whole turns drop out before the multiplication by 2 pi, as in the C++
    # steering: exact for large f tau, and 2 pi f alone may overflow.
    with np.errstate(over="ignore", invalid="ignore"):  # checked just below
        turns = f[..., None] * tau
    if not np.all(np.isfinite(turns)):
        raise ValueError(
            f"frequency x geometric delay overflows: largest |frequency| {np.max(np.abs(f)):.6g} Hz, "
            f"largest |delay| {np.max(np.abs(tau)):.6g} s")
    return np.exp(2j * np.pi * (turns - np.round(turns)))
