# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Antenna array geometries: positions as an (n, 3) array of east, north, up
metres (the convention of design.md), for uniform linear and circular arrays or
read from a text file."""
import numpy as np


def ula(n, spacing, azimuth_deg=90.0):
    """Uniform linear array of n elements, `spacing` metres apart, centred on the
    origin, laid along the horizontal direction `azimuth_deg` (from north through
    east; the default 90 lays it west to east)."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if not spacing > 0:
        raise ValueError(f"spacing must be > 0 metres, got {spacing}")
    az = np.radians(azimuth_deg)
    offsets = (np.arange(n) - (n - 1) / 2) * spacing
    return np.stack([offsets * np.sin(az), offsets * np.cos(az), np.zeros(n)], axis=1)


def uca(n, radius, first_azimuth_deg=0.0):
    """Uniform circular array of n elements on a horizontal circle of `radius`
    metres around the origin, element 0 at azimuth `first_azimuth_deg`, the
    others following clockwise seen from above (increasing azimuth)."""
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    if not radius > 0:
        raise ValueError(f"radius must be > 0 metres, got {radius}")
    az = np.radians(first_azimuth_deg) + 2 * np.pi * np.arange(n) / n
    return np.stack([radius * np.sin(az), radius * np.cos(az), np.zeros(n)], axis=1)


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


def direction_vector(azimuth_deg, elevation_deg):
    """Unit vector towards (azimuth, elevation) in east-north-up (design.md):
    (cos el sin az, cos el cos az, sin el)."""
    az, el = np.radians(azimuth_deg), np.radians(elevation_deg)
    return np.stack(np.broadcast_arrays(np.cos(el) * np.sin(az), np.cos(el) * np.cos(az), np.sin(el)), axis=-1)


SPEED_OF_LIGHT = 299_792_458.0


def geometric_delays(positions, azimuth_deg, elevation_deg, reference=0):
    """tau_a = (r_a - r_ref) . s / c in seconds (design.md): how much earlier
    receiver a sees a plane wave from (azimuth, elevation) than the reference."""
    positions = np.asarray(positions, dtype=float)
    s = direction_vector(azimuth_deg, elevation_deg)
    return (positions - positions[reference]) @ s / SPEED_OF_LIGHT


def plane_wave_phases(positions, azimuth_deg, elevation_deg, frequency, reference=0):
    """exp(+2 pi i f tau_a): the relative phase a narrowband plane wave has on
    each receiver. The steering weights exp(-2 pi i f tau_a) undo it."""
    tau = geometric_delays(positions, azimuth_deg, elevation_deg, reference)
    return np.exp(2j * np.pi * frequency * tau)
