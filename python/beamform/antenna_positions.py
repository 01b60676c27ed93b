# Copyright 2026 gr-beamform authors.
# SPDX-License-Identifier: GPL-3.0-or-later
"""Antenna positions of a station from a text file, as east, north, up metres.

File format: one antenna per line, three numbers separated by spaces or commas;
`#` starts a comment. The frame of the numbers is

  * `enu`:  east, north, up metres about any origin (the array's own frame);
  * `itrf`: geocentric X, Y, Z metres (ITRF / WGS84 Earth-centred, Earth-fixed),
    converted here to east, north, up in the local tangent frame of a site.

A line `# frame: itrf` (or `# frame: enu`) in the file names its frame; the
caller may name it too (they must agree). The conversion is plain WGS84
geometry (the ellipsoid of NIMA TR8350.2, 2000, section 3): the site's geodetic
latitude and longitude give the rotation from Earth-centred axes to the local
east, north, up axes, applied to each antenna's offset from the site. The site
is given as geodetic (latitude, longitude, height) or, by default, is the mean
of the antennas' X, Y, Z (the array centre). The rotation is exact (no flat-Earth
approximation): far antennas get the small negative `up` of the Earth's curvature.

Every fault is a ValueError naming the file, the line and what is accepted.
"""
import math
import re

import numpy as np

FRAMES = ("enu", "itrf")
# WGS84 semi-major axis (m) and flattening.
WGS84_A = 6378137.0
WGS84_F = 1.0 / 298.257223563
WGS84_E2 = WGS84_F * (2.0 - WGS84_F)  # first eccentricity squared
# Two antennas closer than this (metres) are taken for one listed twice.
DUPLICATE_TOLERANCE_M = 1e-3

_FRAME_LINE = re.compile(r"#\s*frame\s*[:=]\s*(\S+)", re.IGNORECASE)


def geodetic_to_itrf(latitude_deg, longitude_deg, height_m):
    """Earth-centred X, Y, Z (m) of a WGS84 geodetic position."""
    lat, lon = math.radians(latitude_deg), math.radians(longitude_deg)
    # Radius of curvature in the prime vertical.
    n = WGS84_A / math.sqrt(1.0 - WGS84_E2 * math.sin(lat) ** 2)
    return np.array([(n + height_m) * math.cos(lat) * math.cos(lon),
                     (n + height_m) * math.cos(lat) * math.sin(lon),
                     (n * (1.0 - WGS84_E2) + height_m) * math.sin(lat)])


def itrf_to_geodetic(xyz):
    """WGS84 (latitude deg, longitude deg, height m) of an Earth-centred
    position, by fixed-point iteration on the latitude (converges to below a
    micrometre in a few steps anywhere away from the Earth's centre)."""
    x, y, z = (float(v) for v in xyz)
    p = math.hypot(x, y)
    if p == 0.0 and z == 0.0:
        raise ValueError("the Earth's centre has no geodetic latitude")
    lon = math.atan2(y, x)
    lat = math.atan2(z, p * (1.0 - WGS84_E2))
    for _ in range(10):
        n = WGS84_A / math.sqrt(1.0 - WGS84_E2 * math.sin(lat) ** 2)
        lat = math.atan2(z + WGS84_E2 * n * math.sin(lat), p)
    n = WGS84_A / math.sqrt(1.0 - WGS84_E2 * math.sin(lat) ** 2)
    if abs(lat) < math.radians(45):
        height = p / math.cos(lat) - n
    else:
        height = z / math.sin(lat) - n * (1.0 - WGS84_E2)
    return math.degrees(lat), math.degrees(lon), height


def itrf_to_enu(xyz, site_itrf):
    """Earth-centred positions (n, 3) -> east, north, up (n, 3) about site_itrf
    (X, Y, Z m), in the tangent frame of the site's geodetic latitude and
    longitude."""
    lat_deg, lon_deg, _ = itrf_to_geodetic(site_itrf)
    lat, lon = math.radians(lat_deg), math.radians(lon_deg)
    sin_lat, cos_lat, sin_lon, cos_lon = math.sin(lat), math.cos(lat), math.sin(lon), math.cos(lon)
    rotation = np.array([
        [-sin_lon, cos_lon, 0.0],
        [-sin_lat * cos_lon, -sin_lat * sin_lon, cos_lat],
        [cos_lat * cos_lon, cos_lat * sin_lon, sin_lat],
    ])
    return (np.asarray(xyz, dtype=np.float64) - np.asarray(site_itrf)) @ rotation.T


def read_positions_file(path, frame=None, site=None):
    """(east, north, up) metres per antenna, shape (n, 3), from the text file at
    `path`, and the frame it was read in ("enu" or "itrf").

    frame: "enu", "itrf" or None (then the file's `# frame:` line, else enu).
    site: itrf only: (latitude deg, longitude deg, height m) of the origin of
    east, north, up; None: the mean of the antennas' X, Y, Z.
    """
    positions, frame = read_positions_table(path, frame)
    return positions_to_enu(positions, frame, site), frame


def positions_to_enu(positions, frame, site=None):
    """east, north, up metres of positions read in `frame` (see
    read_positions_file for `site`)."""
    if frame == "enu":
        if site is not None:
            raise ValueError("a site applies to itrf positions only (enu positions are "
                             "already about their own origin)")
        return np.asarray(positions, dtype=np.float64)
    origin = np.mean(positions, axis=0) if site is None else geodetic_to_itrf(*site)
    return itrf_to_enu(positions, origin)


def read_positions_table(path, frame=None):
    """The file's three numbers per antenna as written (n, 3), checked, and its
    frame (`frame`, else the file's `# frame:` line, else enu)."""
    file_frame, rows = None, []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            declared = _FRAME_LINE.match(line.strip())
            if declared:
                name = declared.group(1).lower()
                if name not in FRAMES:
                    raise ValueError(f"{path}:{number}: frame must be one of "
                                     f"{', '.join(FRAMES)}, got {declared.group(1)!r}")
                file_frame = name
                continue
            text = line.split("#", 1)[0].replace(",", " ").split()
            if not text:
                continue
            if len(text) != 3:
                raise ValueError(f"{path}:{number}: expected 3 columns (east north up, or X Y Z "
                                 f"for itrf) in metres, got {len(text)}: {line.strip()!r}")
            try:
                values = [float(v) for v in text]
            except ValueError:
                raise ValueError(f"{path}:{number}: positions must be numbers (metres), "
                                 f"got {line.strip()!r}") from None
            if not all(math.isfinite(v) for v in values):
                raise ValueError(f"{path}:{number}: positions must be finite, "
                                 f"got {line.strip()!r}")
            rows.append((number, values))
    if frame is not None and file_frame is not None and frame != file_frame:
        raise ValueError(f"{path} says '# frame: {file_frame}', but the frame asked for is "
                         f"{frame}")
    frame = frame or file_frame or "enu"
    if len(rows) < 2:
        raise ValueError(f"{path}: a station needs at least 2 antennas, found {len(rows)}")
    positions = np.array([values for _, values in rows])
    _refuse_duplicates(path, [number for number, _ in rows], positions)
    if frame == "itrf" and np.any(np.linalg.norm(positions, axis=1) < 0.5 * WGS84_A):
        raise ValueError(f"{path}: itrf positions are Earth-centred X Y Z metres, "
                         "about 6.4e6 m from the centre; these are not (an enu file?)")
    return positions, frame


def _refuse_duplicates(path, line_numbers, positions):
    """ValueError naming both lines when two antennas share a position."""
    from scipy.spatial import cKDTree

    pairs = sorted(cKDTree(positions).query_pairs(DUPLICATE_TOLERANCE_M))
    if pairs:
        first, second = sorted(line_numbers[i] for i in pairs[0])
        raise ValueError(f"{path}:{second}: duplicated position: the same as line {first} "
                         f"(antennas must be at least {DUPLICATE_TOLERANCE_M} m apart)")
